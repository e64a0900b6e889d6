// tt.reduce and tt.scan: combiners are interpreted, lines are combined left
// to right (right to left for reverse scans).
#include <gtest/gtest.h>

#include "interp_test_support.h"

using namespace tmetal;
using namespace tmetal::interp;
using namespace tmetal::interp::testing;
using ir::Attribute;
using ir::Type;

namespace {

std::vector<ir::Value*> addCombiner(ir::Builder& b, std::vector<ir::Value*> args) {
  const char* add = args[0]->type().isFloat() ? "arith.addf" : "arith.addi";
  return {b.binary(add, args[0], args[1])};
}

// Triton's argmax combiner with tie_break_left (as tl.argmax emits it):
// keep the accumulator when it is greater, or equal with a smaller index.
std::vector<ir::Value*> argmaxCombiner(ir::Builder& b, std::vector<ir::Value*> args) {
  ir::Value *v1 = args[0], *i1 = args[1], *v2 = args[2], *i2 = args[3];
  ir::Value* tie = b.binary("arith.andi", b.cmpi("eq", v1, v2), b.cmpi("slt", i1, i2));
  ir::Value* gt = b.binary("arith.ori", b.cmpi("sgt", v1, v2), tie);
  return {b.create1("arith.select", {gt, v1, v2}, v1->type()), b.create1("arith.select", {gt, i1, i2}, i1->type())};
}

// Loads a rows x cols i32 matrix, reduces it along `axis` with `combiner`
// (first result), stores the result row-major.
std::vector<int32_t> reduceMatrix(const std::vector<int32_t>& m, int64_t rows, int64_t cols, int64_t axis) {
  KernelUnderTest t;
  ir::Value* in = t.arg(Type::pointer(Type::i32()), "in_ptr");
  ir::Value* out = t.arg(Type::pointer(Type::i32()), "out_ptr");
  ir::Value* x = t.b.load(pointersAtShape(t.b, in, matrixOffsets(t.b, rows, cols)));
  int64_t n = axis == 0 ? cols : rows;
  ir::Value* sums = combineOp(t.b, "tt.reduce", {x}, axis, {Type::tensor({n}, Type::i32())}, addCombiner)->result(0);
  t.b.store(pointersAt(t.b, out, t.b.makeRange(0, n)), sums);
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(m), bufferOf(std::vector<int32_t>(n))};
  interpret(*t.kernel, args, {1, 1, 1});
  return contentsOf<int32_t>(args[1]);
}

}  // namespace

TEST(InterpReduce, SumsAlongEitherAxis) {
  std::vector<int32_t> m{1, 2, 3, 4, 10, 20, 30, 40, 100, 200, 300, 400};
  EXPECT_EQ(reduceMatrix(m, 3, 4, 1), (std::vector<int32_t>{10, 100, 1000}));
  EXPECT_EQ(reduceMatrix(m, 3, 4, 0), (std::vector<int32_t>{111, 222, 333, 444}));
}

TEST(InterpReduce, FloatSumRunsLeftToRight) {
  // ((1e8 + 1) - 1e8) + 1 = 1 in f32, where a pairwise tree would give 0.
  KernelUnderTest t;
  ir::Value* in = t.arg(Type::pointer(Type::f32()), "in_ptr");
  ir::Value* out = t.arg(Type::pointer(Type::f32()), "out_ptr");
  ir::Value* x = t.b.load(pointersAt(t.b, in, t.b.makeRange(0, 4)));
  ir::Value* sum = combineOp(t.b, "tt.reduce", {x}, 0, {Type::f32()}, addCombiner)->result(0);
  t.b.store(out, sum);
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<float>{1e8f, 1.0f, -1e8f, 1.0f}), bufferOf(std::vector<float>{0})};
  interpret(*t.kernel, args, {1, 1, 1});
  EXPECT_EQ(contentsOf<float>(args[1])[0], 1.0f);
}

TEST(InterpReduce, ArgmaxBreaksTiesAsItsCombinerSays) {
  KernelUnderTest t;
  ir::Value* in = t.arg(Type::pointer(Type::i32()), "in_ptr");
  ir::Value* out = t.arg(Type::pointer(Type::i32()), "out_ptr");
  ir::Value* x = t.b.load(pointersAtShape(t.b, in, matrixOffsets(t.b, 2, 5)));
  ir::Value* index = t.b.broadcast(t.b.expandDims(t.b.makeRange(0, 5), 0), {2, 5});
  ir::Operation* r = combineOp(t.b, "tt.reduce", {x, index}, 1,
                               {Type::tensor({2}, Type::i32()), Type::tensor({2}, Type::i32())}, argmaxCombiner);
  ir::Value* range = t.b.makeRange(0, 2);
  t.b.store(pointersAt(t.b, out, range), r->result(0));
  t.b.store(pointersAt(t.b, out, t.b.binary("arith.addi", range, t.b.constantSplat(intAttr(2), Type::tensor({2}, Type::i32())))),
            r->result(1));
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<int32_t>{3, 7, 7, 1, 7, -4, -2, -9, -2, -3}),
                              bufferOf(std::vector<int32_t>(4))};
  interpret(*t.kernel, args, {1, 1, 1});
  EXPECT_EQ(contentsOf<int32_t>(args[1]), (std::vector<int32_t>{7, -2, 1, 1}));  // maxima, then first indices
}

TEST(InterpReduce, CombinerWithControlFlowRunsPerLine) {
  // max written with scf.if: not elementwise, so each line runs on its own.
  KernelUnderTest t;
  ir::Value* in = t.arg(Type::pointer(Type::i32()), "in_ptr");
  ir::Value* out = t.arg(Type::pointer(Type::i32()), "out_ptr");
  ir::Value* x = t.b.load(pointersAtShape(t.b, in, matrixOffsets(t.b, 2, 3)));
  ir::Value* maxima = combineOp(t.b, "tt.reduce", {x}, 1, {Type::tensor({2}, Type::i32())},
                                [](ir::Builder& b, std::vector<ir::Value*> a) -> std::vector<ir::Value*> {
                                  ir::Operation* ifOp = b.create("scf.if", {b.cmpi("sgt", a[0], a[1])}, {Type::i32()});
                                  ir::Builder thenB(ifOp->addRegion()->addBlock());
                                  thenB.create("scf.yield", {a[0]}, {});
                                  ir::Builder elseB(ifOp->addRegion()->addBlock());
                                  elseB.create("scf.yield", {a[1]}, {});
                                  return {ifOp->result(0)};
                                })->result(0);
  t.b.store(pointersAt(t.b, out, t.b.makeRange(0, 2)), maxima);
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<int32_t>{4, 9, 2, -1, -7, -3}), bufferOf(std::vector<int32_t>(2))};
  interpret(*t.kernel, args, {1, 1, 1});
  EXPECT_EQ(contentsOf<int32_t>(args[1]), (std::vector<int32_t>{9, -1}));
}

TEST(InterpScan, ForwardAndReverseAlongAnAxis) {
  for (bool reverse : {false, true}) {
    KernelUnderTest t;
    ir::Value* in = t.arg(Type::pointer(Type::i32()), "in_ptr");
    ir::Value* out = t.arg(Type::pointer(Type::i32()), "out_ptr");
    ir::Value* offsets = matrixOffsets(t.b, 2, 4);
    ir::Value* x = t.b.load(pointersAtShape(t.b, in, offsets));
    ir::Value* scanned = combineOp(t.b, "tt.scan", {x}, 1, {x->type()}, addCombiner, reverse)->result(0);
    t.b.store(pointersAtShape(t.b, out, offsets), scanned);
    t.b.ret();
    std::vector<KernelArg> args{bufferOf(std::vector<int32_t>{1, 2, 3, 4, 10, 20, 30, 40}), bufferOf(std::vector<int32_t>(8))};
    interpret(*t.kernel, args, {1, 1, 1});
    if (!reverse)
      EXPECT_EQ(contentsOf<int32_t>(args[1]), (std::vector<int32_t>{1, 3, 6, 10, 10, 30, 60, 100}));
    else
      EXPECT_EQ(contentsOf<int32_t>(args[1]), (std::vector<int32_t>{10, 9, 7, 4, 100, 90, 70, 40}));
  }
}

TEST(InterpScan, AlongTheOuterAxis) {
  KernelUnderTest t;
  ir::Value* in = t.arg(Type::pointer(Type::f32()), "in_ptr");
  ir::Value* out = t.arg(Type::pointer(Type::f32()), "out_ptr");
  ir::Value* offsets = matrixOffsets(t.b, 3, 2);
  ir::Value* x = t.b.load(pointersAtShape(t.b, in, offsets));
  ir::Value* scanned = combineOp(t.b, "tt.scan", {x}, 0, {x->type()}, addCombiner)->result(0);
  t.b.store(pointersAtShape(t.b, out, offsets), scanned);
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<float>{1, 2, 3, 4, 5, 6}), bufferOf(std::vector<float>(6))};
  interpret(*t.kernel, args, {1, 1, 1});
  EXPECT_EQ(contentsOf<float>(args[1]), (std::vector<float>{1, 2, 4, 6, 9, 12}));
}

TEST(InterpHistogram, CountsMaskedValuesInRange) {
  KernelUnderTest t;
  ir::Value* in = t.arg(Type::pointer(Type::i32()), "in_ptr");
  ir::Value* out = t.arg(Type::pointer(Type::i32()), "out_ptr");
  ir::Value* range = t.b.makeRange(0, 8);
  ir::Value* x = t.b.load(pointersAt(t.b, in, range));
  ir::Value* mask = t.b.cmpi("slt", range, t.b.constantSplat(intAttr(7), Type::tensor({8}, Type::i32())));
  ir::Value* counts = t.b.create1("tt.histogram", {x, mask}, Type::tensor({4}, Type::i32()));
  t.b.store(pointersAt(t.b, out, t.b.makeRange(0, 4)), counts);
  t.b.ret();
  // -1 and 4 are outside [0, 4); the last element (a 0) is masked off.
  std::vector<KernelArg> args{bufferOf(std::vector<int32_t>{0, 3, 3, -1, 4, 1, 3, 0}), bufferOf(std::vector<int32_t>(4))};
  interpret(*t.kernel, args, {1, 1, 1});
  EXPECT_EQ(contentsOf<int32_t>(args[1]), (std::vector<int32_t>{1, 1, 0, 3}));
}
