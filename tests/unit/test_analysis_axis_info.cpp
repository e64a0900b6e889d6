#include <gtest/gtest.h>

#include "tmetal/analysis/axis_info.h"
#include "tmetal/ir/builder.h"

using namespace tmetal;
using namespace tmetal::ir;
using analysis::AxisInfo;
using analysis::AxisInfoAnalysis;

namespace {

constexpr int64_t kMax = AxisInfo::kMaxDivisibility;

AttrList divisibility(int64_t d) {
  AttrList a;
  a.set("tt.divisibility", Attribute::integer(d));
  return a;
}

// The vector-add prologue: offsets = pid * BLOCK + arange(BLOCK).
struct VectorAdd {
  Module module;
  Function* fn = nullptr;
  Value *offsets = nullptr, *ptrs = nullptr, *mask = nullptr, *maskAligned = nullptr;

  VectorAdd() {
    fn = module.addFunction("add", true);
    Value* x = fn->addArgument(Type::pointer(Type::f32()), "x", divisibility(16));
    Value* n = fn->addArgument(Type::i32(), "n");
    Value* n16 = fn->addArgument(Type::i32(), "n16", divisibility(16));
    Builder b(fn->entry());
    Value* start = b.binary("arith.muli", b.programId(0), b.constantInt(256));
    offsets = b.binary("arith.addi", b.splat(start, {256}), b.makeRange(0, 256));
    ptrs = b.addPtr(b.splat(x, {256}), offsets);
    mask = b.cmpi("slt", offsets, b.splat(n, {256}));
    maskAligned = b.cmpi("slt", offsets, b.splat(n16, {256}));
    b.ret();
  }
};

}  // namespace

TEST(AxisInfo, MakeRangeAndConstants) {
  Module m;
  Function* f = m.addFunction("k", true);
  Builder b(f->entry());
  Value* r = b.makeRange(0, 128);
  Value* r64 = b.makeRange(64, 128);
  Value* c = b.constantInt(48);
  Value* zero = b.constantSplat(Attribute::integer(0), Type::tensor({4, 8}, Type::i32()));
  b.ret();
  AxisInfoAnalysis a(*f);
  EXPECT_EQ(a.get(r).str(), "contiguity=[128] divisibility=[1073741824] constancy=[1]");
  EXPECT_EQ(a.get(r64).divisibility[0], 64);
  EXPECT_EQ(a.get(r64).contiguity[0], 64);
  EXPECT_EQ(a.get(c).divisibility[0], 16);
  EXPECT_EQ(a.get(c).constantValue, 48);
  EXPECT_EQ(a.get(zero).constancy, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(a.get(zero).divisibility[1], kMax);
}

TEST(AxisInfo, VectorAddOffsetsPointersAndMasks) {
  VectorAdd k;
  AxisInfoAnalysis a(*k.fn);
  EXPECT_EQ(a.get(k.offsets).contiguity[0], 256);
  EXPECT_EQ(a.get(k.offsets).divisibility[0], 256);
  // Pointers count in bytes: the argument's 16 bytes limit the 256*4.
  EXPECT_EQ(a.get(k.ptrs).contiguity[0], 256);
  EXPECT_EQ(a.get(k.ptrs).divisibility[0], 16);
  // offsets < n is uniform over runs only as far as n's divisibility goes.
  EXPECT_EQ(a.get(k.mask).constancy[0], 1);
  EXPECT_EQ(a.get(k.maskAligned).constancy[0], 16);
}

TEST(AxisInfo, LessOrEqualMaskIsNotUniform) {
  Module m;
  Function* f = m.addFunction("k", true);
  Value* n = f->addArgument(Type::i32(), "n", divisibility(16));
  Builder b(f->entry());
  Value* r = b.makeRange(0, 64);
  Value* le = b.cmpi("sle", r, b.splat(n, {64}));
  Value* ge = b.cmpi("sge", r, b.splat(n, {64}));
  Value* gtReversed = b.cmpi("sgt", b.splat(n, {64}), r);
  Value* eq = b.cmpi("eq", r, b.splat(n, {64}));
  b.ret();
  AxisInfoAnalysis a(*f);
  EXPECT_EQ(a.get(le).constancy[0], 1);
  EXPECT_EQ(a.get(ge).constancy[0], 16);
  EXPECT_EQ(a.get(gtReversed).constancy[0], 16);
  EXPECT_EQ(a.get(eq).constancy[0], 1);
}

TEST(AxisInfo, TwoDimensionalRowMajorTile) {
  // ptr + rows[:, None] * stride + cols[None, :]
  Module m;
  Function* f = m.addFunction("k", true);
  Value* x = f->addArgument(Type::pointer(Type::f16()), "x", divisibility(16));
  Value* stride = f->addArgument(Type::i32(), "stride", divisibility(16));
  Value* oddStride = f->addArgument(Type::i32(), "odd_stride");
  Builder b(f->entry());
  Value* rows = b.expandDims(b.makeRange(0, 16), 1);  // 16x1
  Value* cols = b.expandDims(b.makeRange(0, 64), 0);  // 1x64
  auto tile = [&](Value* s) {
    Value* rowOff = b.binary("arith.muli", rows, b.splat(s, {16, 1}));
    Value* base = b.addPtr(b.splat(x, {16, 1}), rowOff);
    return b.addPtr(b.broadcast(base, {16, 64}), b.broadcast(cols, {16, 64}));
  };
  Value* aligned = tile(stride);
  Value* unaligned = tile(oddStride);
  b.ret();
  AxisInfoAnalysis a(*f);
  EXPECT_EQ(a.get(cols).str(), "contiguity=[1, 64] divisibility=[1, 1073741824] constancy=[1, 1]");
  EXPECT_EQ(a.get(aligned).contiguity, (std::vector<int64_t>{1, 64}));
  EXPECT_EQ(a.get(aligned).divisibility[1], 16);
  EXPECT_EQ(a.get(aligned).constancy, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(a.get(unaligned).contiguity, (std::vector<int64_t>{1, 64}));
  EXPECT_EQ(a.get(unaligned).divisibility[1], 2);  // one f16 element
}

TEST(AxisInfo, DivisionAndRemainderByConstants) {
  Module m;
  Function* f = m.addFunction("k", true);
  Builder b(f->entry());
  Value* r = b.makeRange(0, 64);
  Value* c8 = b.constantSplat(Attribute::integer(8), Type::tensor({64}, Type::i32()));
  Value* c6 = b.constantSplat(Attribute::integer(6), Type::tensor({64}, Type::i32()));
  Value* q = b.binary("arith.divsi", r, c8);
  Value* rem = b.binary("arith.remsi", r, c8);
  Value* rem6 = b.binary("arith.remsi", r, c6);
  Value* shifted = b.binary("arith.shli", r, b.constantSplat(Attribute::integer(2), Type::tensor({64}, Type::i32())));
  b.ret();
  AxisInfoAnalysis a(*f);
  EXPECT_EQ(a.get(q).constancy[0], 8);
  EXPECT_EQ(a.get(q).contiguity[0], 1);
  EXPECT_EQ(a.get(rem).contiguity[0], 8);
  EXPECT_EQ(a.get(rem).divisibility[0], 8);
  EXPECT_EQ(a.get(rem6).contiguity[0], 2);  // 0,1 | 2,3 | 4,5 | 0,1 ...
  EXPECT_EQ(a.get(shifted).contiguity[0], 1);
  EXPECT_EQ(a.get(shifted).divisibility[0], 4);
}

TEST(AxisInfo, LoopCarriedPointerIsConservative) {
  // for k in range(0, n, 32): p += 32 (aligned) then p += step (unknown).
  Module m;
  Function* f = m.addFunction("k", true);
  Value* x = f->addArgument(Type::pointer(Type::f32()), "x", divisibility(16));
  Value* n = f->addArgument(Type::i32(), "n");
  Value* step = f->addArgument(Type::i32(), "step");
  Builder b(f->entry());
  Value* ptrs = b.addPtr(b.splat(x, {32}), b.makeRange(0, 32));
  Value* c0 = b.constantInt(0);
  Value* c32 = b.constantInt(32);
  auto makeLoop = [&](Value* increment) {
    Operation* loop = b.create("scf.for", {c0, n, c32, ptrs}, {ptrs->type()});
    Block* body = loop->addRegion()->addBlock();
    body->addArgument(Type::i32(), "k");
    Value* carried = body->addArgument(ptrs->type(), "p");
    Builder inner(body);
    Value* next = inner.addPtr(carried, inner.splat(increment, {32}));
    inner.create("scf.yield", {next}, {});
    return loop;
  };
  Operation* aligned = makeLoop(c32);
  Operation* unaligned = makeLoop(step);
  b.ret();
  AxisInfoAnalysis a(*f);
  EXPECT_EQ(a.get(aligned->result(0)).contiguity[0], 32);
  EXPECT_EQ(a.get(aligned->result(0)).divisibility[0], 16);
  EXPECT_EQ(a.get(aligned->region(0)->block(0)->argument(0)).divisibility[0], 32);  // the induction variable
  EXPECT_EQ(a.get(unaligned->result(0)).contiguity[0], 32);
  EXPECT_EQ(a.get(unaligned->result(0)).divisibility[0], 4);
}

TEST(AxisInfo, SelectAndBroadcastKeepRuns) {
  Module m;
  Function* f = m.addFunction("k", true);
  Value* flag = f->addArgument(Type::i1(), "flag");
  Builder b(f->entry());
  Value* r = b.makeRange(0, 32);
  Value* r2 = b.binary("arith.addi", r, b.constantSplat(Attribute::integer(32), Type::tensor({32}, Type::i32())));
  Operation* sel = b.create("arith.select", {flag, r, r2}, {r->type()});
  Value* row = b.broadcast(b.expandDims(r, 0), {4, 32});
  b.ret();
  AxisInfoAnalysis a(*f);
  EXPECT_EQ(a.get(sel->result(0)).contiguity[0], 32);
  EXPECT_EQ(a.get(sel->result(0)).divisibility[0], 32);
  EXPECT_EQ(a.get(row).constancy, (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(a.get(row).contiguity, (std::vector<int64_t>{1, 32}));
}
