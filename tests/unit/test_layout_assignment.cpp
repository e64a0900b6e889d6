#include <gtest/gtest.h>

#include <set>

#include "tmetal/analysis/axis_info.h"
#include "tmetal/ir/builder.h"
#include "tmetal/layout/layout_assignment.h"
#include "tmetal/support/diagnostic.h"

using namespace tmetal;
using namespace tmetal::ir;
using namespace tmetal::layout;

namespace {

AttrList divisibility(int64_t d) {
  AttrList a;
  a.set("tt.divisibility", Attribute::integer(d));
  return a;
}

Operation* sumReduce(Builder& b, Value* x, int axis) {
  std::vector<int64_t> shape = x->type().shape();
  shape.erase(shape.begin() + axis);
  Type result = shape.empty() ? x->type().element() : Type::tensor(shape, x->type().element());
  AttrList a;
  a.set("axis", Attribute::integer(axis));
  Operation* red = b.create("tt.reduce", {x}, {result}, a);
  Block* body = red->addRegion()->addBlock();
  Value* acc = body->addArgument(x->type().element());
  Value* cur = body->addArgument(x->type().element());
  Builder rb(body);
  rb.create("tt.reduce.return", {rb.binary("arith.addf", acc, cur)}, {});
  return red;
}

// out[row] = sum(x[row, :]) over an [8, 512] tile; x rows are 16-byte aligned.
struct RowSum {
  Module m;
  Function* f;
  Value *x, *rows, *sum;
  Operation *load, *store;
  RowSum() {
    f = m.addFunction("row_sum", true);
    Value* xp = f->addArgument(Type::pointer(Type::f32()), "x", divisibility(16));
    Value* out = f->addArgument(Type::pointer(Type::f32()), "out", divisibility(16));
    Value* stride = f->addArgument(Type::i32(), "stride", divisibility(16));
    Builder b(f->entry());
    rows = b.makeRange(0, 8);
    Value* cols = b.makeRange(0, 512);
    Value* rowOff = b.binary("arith.muli", b.expandDims(rows, 1), b.splat(stride, {8, 1}));
    Value* ptr = b.addPtr(b.broadcast(b.addPtr(b.splat(xp, {8, 1}), rowOff), {8, 512}),
                          b.broadcast(b.expandDims(cols, 0), {8, 512}));
    x = b.load(ptr);
    load = x->definingOp();
    sum = sumReduce(b, x, 1)->result(0);
    b.store(b.addPtr(b.splat(out, {8}), rows), sum);
    store = f->entry()->ops().back().get();
    b.ret();
  }
};

}  // namespace

TEST(LayoutAssignment, VectorAddNeedsNoConversion) {
  Module m;
  Function* f = m.addFunction("add", true);
  Value* x = f->addArgument(Type::pointer(Type::f32()), "x", divisibility(16));
  Value* y = f->addArgument(Type::pointer(Type::f32()), "y", divisibility(16));
  Value* n = f->addArgument(Type::i32(), "n");
  Builder b(f->entry());
  Value* offs = b.binary("arith.addi", b.splat(b.binary("arith.muli", b.programId(0), b.constantInt(1024)), {1024}),
                         b.makeRange(0, 1024));
  Value* mask = b.cmpi("slt", offs, b.splat(n, {1024}));
  Value* xv = b.load(b.addPtr(b.splat(x, {1024}), offs), mask);
  Value* yv = b.load(b.addPtr(b.splat(y, {1024}), offs), mask);
  Value* sum = b.binary("arith.addf", xv, yv);
  b.store(b.addPtr(b.splat(x, {1024}), offs), sum, mask);
  b.ret();
  analysis::AxisInfoAnalysis axis(*f);
  LayoutAssignment a(*f, axis, {MemoryLayout::COALESCED, 4});
  EXPECT_EQ(a.home(xv)->str(), "blocked{spt=[4], lanes=[32], simds=[4], order=[0]}");
  EXPECT_TRUE(sameLayout(a.home(sum), a.home(xv)));
  EXPECT_TRUE(a.isRematerializable(offs));
  EXPECT_TRUE(a.isRematerializable(mask));
  ASSERT_EQ(a.layoutsOf(offs).size(), 1u);
  EXPECT_TRUE(a.conversions().empty());

  LayoutAssignment rowMajor(*f, axis, {MemoryLayout::ROW_MAJOR, 4});
  EXPECT_EQ(rowMajor.home(xv)->str(), "blocked{spt=[1], lanes=[32], simds=[4], order=[0]}");
}

TEST(LayoutAssignment, RowReductionResultIsStoredInItsSlice) {
  RowSum k;
  analysis::AxisInfoAnalysis axis(*k.f);
  LayoutAssignment a(*k.f, axis, {MemoryLayout::COALESCED, 4});
  LayoutPtr tile = a.home(k.x);
  EXPECT_EQ(tile->str(), "blocked{spt=[1,4], lanes=[1,32], simds=[1,4], order=[1,0]}");
  EXPECT_TRUE(sameLayout(a.home(k.sum), DistributedLayout::slice(tile, 1)));
  EXPECT_TRUE(sameLayout(a.operandLayout(k.store, 0), a.home(k.sum)));
  // The row indices are needed twice: as a 2-D operand of the load's
  // pointers and as the store's 1-D offsets; both are rematerialized.
  EXPECT_EQ(a.layoutsOf(k.rows).size(), 1u);
  EXPECT_TRUE(a.conversions().empty());
}

TEST(LayoutAssignment, PoliciesAssignDifferentLayoutsToOneKernel) {
  RowSum k;
  analysis::AxisInfoAnalysis axis(*k.f);
  std::set<std::string> homes;
  for (MemoryLayout p : {MemoryLayout::COALESCED, MemoryLayout::ROW_MAJOR, MemoryLayout::COLUMN_MAJOR, MemoryLayout::TILED}) {
    LayoutAssignment a(*k.f, axis, {p, 4});
    homes.insert(a.home(k.x)->str());
    EXPECT_TRUE(a.home(k.sum)->isSlice() || a.home(k.sum)->isBlocked());
  }
  EXPECT_EQ(homes.size(), 4u);
}

TEST(LayoutAssignment, DifferentAccessOrdersMeetThroughAConversion) {
  // out = x + transpose-read(y): y is contiguous along dimension 0.
  Module m;
  Function* f = m.addFunction("k", true);
  Value* x = f->addArgument(Type::pointer(Type::f32()), "x", divisibility(16));
  Value* y = f->addArgument(Type::pointer(Type::f32()), "y", divisibility(16));
  Builder b(f->entry());
  Value* i = b.makeRange(0, 32);
  Value* j = b.makeRange(0, 32);
  Value* c32 = b.constantSplat(Attribute::integer(32), Type::tensor({32, 1}, Type::i32()));
  Value* rowMajor = b.binary("arith.addi", b.broadcast(b.binary("arith.muli", b.expandDims(i, 1), c32), {32, 32}),
                             b.broadcast(b.expandDims(j, 0), {32, 32}));
  Value* c32t = b.constantSplat(Attribute::integer(32), Type::tensor({1, 32}, Type::i32()));
  Value* colMajor = b.binary("arith.addi", b.broadcast(b.expandDims(i, 1), {32, 32}),
                             b.broadcast(b.binary("arith.muli", b.expandDims(j, 0), c32t), {32, 32}));
  Value* xv = b.load(b.addPtr(b.splat(x, {32, 32}), rowMajor));
  Value* yv = b.load(b.addPtr(b.splat(y, {32, 32}), colMajor));
  Value* sum = b.binary("arith.addf", xv, yv);
  b.store(b.addPtr(b.splat(x, {32, 32}), rowMajor), sum);
  b.ret();
  analysis::AxisInfoAnalysis axis(*f);
  LayoutAssignment a(*f, axis, {MemoryLayout::COALESCED, 4});
  EXPECT_EQ(a.home(xv)->root().order, (std::vector<int>{1, 0}));
  EXPECT_EQ(a.home(yv)->root().order, (std::vector<int>{0, 1}));
  auto conv = a.conversions();
  ASSERT_EQ(conv.size(), 1u);
  EXPECT_EQ(conv[0].value, yv);
  EXPECT_TRUE(sameLayout(conv[0].to, a.home(xv)));
}

TEST(LayoutAssignment, ABroadcastLoadIsIssuedInTheLayoutItIsReadIn) {
  // y = x[4, 128] * w[None, :]: w is loaded directly in the slice of x's
  // layout instead of in its own and then converted.
  Module m;
  Function* f = m.addFunction("k", true);
  Value* x = f->addArgument(Type::pointer(Type::f32()), "x", divisibility(16));
  Value* w = f->addArgument(Type::pointer(Type::f32()), "w", divisibility(16));
  Builder b(f->entry());
  Value* rows = b.makeRange(0, 4);
  Value* cols = b.makeRange(0, 128);
  Value* c128 = b.constantSplat(Attribute::integer(128), Type::tensor({4, 1}, Type::i32()));
  Value* offs = b.binary("arith.addi", b.broadcast(b.binary("arith.muli", b.expandDims(rows, 1), c128), {4, 128}),
                         b.broadcast(b.expandDims(cols, 0), {4, 128}));
  Value* xv = b.load(b.addPtr(b.splat(x, {4, 128}), offs));
  Value* wv = b.load(b.addPtr(b.splat(w, {128}), cols));
  Value* wb = b.broadcast(b.expandDims(wv, 0), {4, 128});
  Value* y = b.binary("arith.mulf", xv, wb);
  b.store(b.addPtr(b.splat(x, {4, 128}), offs), y);
  b.ret();
  analysis::AxisInfoAnalysis axis(*f);
  LayoutAssignment a(*f, axis, {MemoryLayout::COALESCED, 4});
  EXPECT_TRUE(a.conversions().empty());
  LayoutPtr rowsLayout = DistributedLayout::slice(a.home(xv), 0);
  ASSERT_EQ(a.layoutsOf(wv).size(), 1u);
  EXPECT_TRUE(sameLayout(a.layoutsOf(wv)[0], rowsLayout));
  EXPECT_FALSE(a.homeMaterialized(wv));
  EXPECT_TRUE(a.isRecomputedIn(wv, rowsLayout));
  EXPECT_TRUE(a.isRecomputedIn(wb, a.home(xv)));
}

TEST(LayoutAssignment, LoopCarriedAccumulatorTakesTheLoadedLayout) {
  // acc = zeros([8, 128]); for k: acc += load(...); out = sum(acc, 1)
  Module m;
  Function* f = m.addFunction("k", true);
  Value* x = f->addArgument(Type::pointer(Type::f32()), "x", divisibility(16));
  Value* n = f->addArgument(Type::i32(), "n");
  Builder b(f->entry());
  Type tile = Type::tensor({8, 128}, Type::f32());
  Value* zeros = b.constantSplat(Attribute::floating(0.0), tile);
  Value* c0 = b.constantInt(0);
  Value* c128 = b.constantInt(128);
  Operation* loop = b.create("scf.for", {c0, n, c128, zeros}, {tile});
  Block* body = loop->addRegion()->addBlock();
  Value* k = body->addArgument(Type::i32(), "k");
  Value* acc = body->addArgument(tile, "acc");
  Builder lb(body);
  Value* cols = lb.binary("arith.addi", lb.splat(k, {128}), lb.makeRange(0, 128));
  Value* off = lb.binary("arith.addi",
                         lb.broadcast(lb.expandDims(lb.binary("arith.muli", lb.makeRange(0, 8),
                                                              lb.splat(n, {8})), 1), {8, 128}),
                         lb.broadcast(lb.expandDims(cols, 0), {8, 128}));
  Value* v = lb.load(lb.addPtr(lb.splat(x, {8, 128}), off));
  Value* next = lb.binary("arith.addf", acc, v);
  lb.create("scf.yield", {next}, {});
  Value* total = sumReduce(b, loop->result(0), 1)->result(0);
  b.ret();
  analysis::AxisInfoAnalysis axis(*f);
  LayoutAssignment a(*f, axis, {MemoryLayout::COALESCED, 4});
  EXPECT_TRUE(sameLayout(a.home(acc), a.home(v)));
  EXPECT_TRUE(sameLayout(a.home(loop->result(0)), a.home(v)));
  // The loaded data flows into a reduction along axis 1 after the loop:
  // lanes go along the rows, SIMD groups across them.
  EXPECT_EQ(a.home(v)->str(), "blocked{spt=[1,1], lanes=[1,32], simds=[4,1], order=[1,0]}");
  EXPECT_TRUE(a.home(total)->isSlice());
  EXPECT_TRUE(a.conversions().empty());
  // The zero initializer is rematerialized in the accumulator's layout.
  EXPECT_TRUE(sameLayout(a.operandLayout(loop, 3), a.home(acc)));
}

TEST(LayoutAssignment, RejectsBadWarpCounts) {
  RowSum k;
  analysis::AxisInfoAnalysis axis(*k.f);
  try {
    LayoutAssignment a(*k.f, axis, {MemoryLayout::COALESCED, 3});
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_EQ(e.message(), "num_warps must be a power of two between 1 and 32, got 3");
  }
}
