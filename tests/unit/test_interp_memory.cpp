// Loads, stores, atomics and block pointers: masked-off lanes never touch
// memory, unmasked out-of-bounds accesses are errors naming the place.
#include <gtest/gtest.h>

#include <cmath>

#include "interp_test_support.h"

using namespace tmetal;
using namespace tmetal::interp;
using namespace tmetal::interp::testing;
using ir::Attribute;
using ir::Type;

TEST(InterpMemory, MaskedOffLanesAreNeverAccessed) {
  KernelUnderTest t;
  ir::Value* x = t.arg(Type::pointer(Type::f32()), "x_ptr");
  ir::Value* out = t.arg(Type::pointer(Type::f32()), "out_ptr");
  // Lane i points at element 1000*i: only lane 0 is in bounds and unmasked.
  ir::Value* range = t.b.makeRange(0, 4);
  ir::Value* far = t.b.binary("arith.muli", range, t.b.constantSplat(intAttr(1000), Type::tensor({4}, Type::i32())));
  ir::Value* mask = t.b.cmpi("eq", range, t.b.constantSplat(intAttr(0), Type::tensor({4}, Type::i32())));
  ir::Value* other = t.b.constantSplat(Attribute::floating(7.5), Type::tensor({4}, Type::f32()));
  ir::Value* loaded = t.b.load(pointersAt(t.b, x, far), mask, other);
  t.b.store(pointersAt(t.b, out, far), loaded, mask);                                // only lane 0 stores
  t.b.store(pointersAt(t.b, out, t.b.binary("arith.addi", range, range)), loaded, nullptr);  // lanes 0..3 at 0,2,4,6
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<float>{3.0f}), bufferOf(std::vector<float>(8, 0.0f))};
  interpret(*t.kernel, args, {1, 1, 1});
  EXPECT_EQ(contentsOf<float>(args[1]), (std::vector<float>{3.0f, 0, 7.5f, 0, 7.5f, 0, 7.5f, 0}));
}

TEST(InterpMemory, OutOfBoundsLoadNamesOpLineProgramAndElement) {
  KernelUnderTest t;
  ir::Value* x = t.arg(Type::pointer(Type::f32()), "x_ptr");
  ir::Value* out = t.arg(Type::pointer(Type::f32()), "out_ptr");
  ir::Value* offs = blockOffsets(t.b, 4);
  t.at(20, 13);
  ir::Value* v = t.b.load(pointersAt(t.b, x, offs));  // no mask: the last program runs off the end
  t.at(21);
  t.b.store(pointersAt(t.b, out, offs), v);
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<float>(10)), bufferOf(std::vector<float>(12))};
  EXPECT_EQ(errorOf([&] { interpret(*t.kernel, args, {3, 1, 1}); }),
            "kernel.py:20:13: error: 'tt.load': out-of-bounds access in program (2, 0, 0), element [2]: "
            "element offset 10 is outside buffer 'x_ptr' of 10 elements");
}

TEST(InterpMemory, OutOfBoundsStoreBeforeTheStart) {
  KernelUnderTest t;
  ir::Value* out = t.arg(Type::pointer(Type::i16()), "out_ptr");
  ir::Value* range = t.b.makeRange(0, 4);
  ir::Value* back = t.b.binary("arith.subi", range, t.b.constantSplat(intAttr(1), Type::tensor({4}, Type::i32())));
  ir::Value* values = t.b.constantSplat(Attribute::integer(5, Type::i16()), Type::tensor({4}, Type::i16()));
  t.at(7, 3);
  t.b.store(pointersAt(t.b, out, back), values);
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<int16_t>(4))};
  EXPECT_EQ(errorOf([&] { interpret(*t.kernel, args, {1, 2, 1}); }),
            "kernel.py:7:3: error: 'tt.store': out-of-bounds access in program (0, 0, 0), element [0]: "
            "element offset -1 is outside buffer 'out_ptr' of 4 elements");
}

TEST(InterpMemory, ScalarLoadAndStore) {
  KernelUnderTest t;
  ir::Value* x = t.arg(Type::pointer(Type::i64()), "x_ptr");
  ir::Value* v = t.b.load(t.b.addPtr(x, t.b.constantInt(1)));
  t.b.store(x, t.b.binary("arith.addi", v, v));
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<int64_t>{0, int64_t{1} << 40})};
  interpret(*t.kernel, args, {1, 1, 1});
  EXPECT_EQ(contentsOf<int64_t>(args[0]), (std::vector<int64_t>{int64_t{1} << 41, int64_t{1} << 40}));
}

TEST(InterpMemory, AtomicsApplyInOrderAndReturnOldValues) {
  KernelUnderTest t;
  ir::Value* counter = t.arg(Type::pointer(Type::i32()), "counter_ptr");
  ir::Value* olds = t.arg(Type::pointer(Type::i32()), "olds_ptr");
  ir::Value* sum = t.arg(Type::pointer(Type::f32()), "sum_ptr");
  ir::Value* range = t.b.makeRange(0, 4);
  ir::Value* zero = t.b.constantSplat(intAttr(0), Type::tensor({4}, Type::i32()));
  ir::Value* ones = t.b.constantSplat(intAttr(1), Type::tensor({4}, Type::i32()));
  ir::Value* mask = t.b.cmpi("ne", range, t.b.constantSplat(intAttr(2), Type::tensor({4}, Type::i32())));
  ir::Value* old = t.b.create1("tt.atomic_rmw", {pointersAt(t.b, counter, zero), ones, mask}, Type::tensor({4}, Type::i32()),
                               attrs({{"atomic_rmw_op", Attribute::symbol("add")}, {"sem", Attribute::symbol("acq_rel")},
                                      {"scope", Attribute::symbol("gpu")}}));
  ir::Value* pid = t.b.programId(0);
  ir::Value* slot = t.b.binary("arith.addi", t.b.splat(t.b.binary("arith.muli", pid, t.b.constantInt(4)), {4}), range);
  t.b.store(pointersAt(t.b, olds, slot), old);
  ir::Value* halves = t.b.constantSplat(Attribute::floating(0.5), Type::tensor({4}, Type::f32()));
  t.b.create1("tt.atomic_rmw", {pointersAt(t.b, sum, zero), halves}, Type::tensor({4}, Type::f32()),
              attrs({{"atomic_rmw_op", Attribute::symbol("fadd")}}));
  // Only the first compare-and-swap of 0 -> 9 on counter[1] succeeds.
  ir::Value* second = t.b.addPtr(counter, t.b.constantInt(1));
  ir::Value* casOld = t.b.create1("tt.atomic_cas", {second, t.b.constantInt(0), t.b.constantInt(9)}, Type::i32());
  t.b.store(t.b.addPtr(counter, t.b.binary("arith.addi", t.b.constantInt(2), pid)), casOld);
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<int32_t>{0, 0, -1, -1}), bufferOf(std::vector<int32_t>(8, -5)),
                              bufferOf(std::vector<float>{0.0f})};
  interpret(*t.kernel, args, {2, 1, 1});
  // Lane 2 is masked off: its old value is 0 and it adds nothing.
  EXPECT_EQ(contentsOf<int32_t>(args[1]), (std::vector<int32_t>{0, 1, 0, 2, 3, 4, 0, 5}));
  EXPECT_EQ(contentsOf<int32_t>(args[0]), (std::vector<int32_t>{6, 9, 0, 9}));
  EXPECT_EQ(contentsOf<float>(args[2]), (std::vector<float>{4.0f}));
}

namespace {
// A 2x2 block pointer over a 3x5 row-major f32 matrix at offsets (row, col).
ir::Value* blockPointer(KernelUnderTest& t, ir::Value* base, int64_t row, int64_t col) {
  ir::Builder& b = t.b;
  std::vector<ir::Value*> operands{base, b.constantInt(3, Type::i64()), b.constantInt(5, Type::i64()),
                                   b.constantInt(5, Type::i64()), b.constantInt(1, Type::i64()), b.constantInt(row),
                                   b.constantInt(col)};
  return b.create1("tt.make_block_ptr", operands, Type::pointer(Type::tensor({2, 2}, Type::f32())),
                   attrs({{"order", Attribute::denseArray({1, 0})}}));
}
}  // namespace

TEST(InterpMemory, BlockPointersCheckBoundsAndPad) {
  KernelUnderTest t;
  ir::Value* matrix = t.arg(Type::pointer(Type::f32()), "m_ptr");
  ir::Value* out = t.arg(Type::pointer(Type::f32()), "out_ptr");
  ir::Value* corner = blockPointer(t, matrix, 2, 4);  // rows 2..3, cols 4..5: only (2,4) is inside
  ir::Value* zeroPadded = t.b.create1("tt.load", {corner}, Type::tensor({2, 2}, Type::f32()),
                                      attrs({{"boundaryCheck", Attribute::denseArray({0, 1})}, {"padding", intAttr(1)}}));
  ir::Value* nanPadded = t.b.create1("tt.load", {corner}, Type::tensor({2, 2}, Type::f32()),
                                     attrs({{"boundaryCheck", Attribute::denseArray({0, 1})}, {"padding", intAttr(2)}}));
  ir::Value* outBlock = blockPointer(t, out, 0, 0);
  t.b.create("tt.store", {outBlock, zeroPadded}, {});
  ir::Value* moved = t.b.create1("tt.advance", {outBlock, t.b.constantInt(1), t.b.constantInt(2)}, outBlock->type());
  t.b.create("tt.store", {moved, nanPadded}, {});
  // A checked store at the corner writes the one element inside, (2, 4).
  ir::Value* ones = t.b.constantSplat(Attribute::floating(1.0), Type::tensor({2, 2}, Type::f32()));
  t.b.create("tt.store", {corner, ones}, {}, attrs({{"boundaryCheck", Attribute::denseArray({0, 1})}}));
  t.b.ret();
  std::vector<float> m(15);
  for (int i = 0; i < 15; ++i) m[i] = 100.0f + i;
  std::vector<KernelArg> args{bufferOf(m), bufferOf(std::vector<float>(15, 0.0f))};
  interpret(*t.kernel, args, {1, 1, 1});
  std::vector<float> got = contentsOf<float>(args[1]);
  EXPECT_EQ(got[0], 114.0f);
  EXPECT_EQ(got[1], 0.0f);
  EXPECT_EQ(got[5], 0.0f);
  EXPECT_EQ(got[6], 0.0f);
  EXPECT_EQ(got[7], 114.0f);  // advanced by (1, 2)
  EXPECT_TRUE(std::isnan(got[8]));
  EXPECT_TRUE(std::isnan(got[12]));
  EXPECT_TRUE(std::isnan(got[13]));
  std::vector<float> expected = m;
  expected[14] = 1.0f;
  EXPECT_EQ(contentsOf<float>(args[0]), expected);
}

TEST(InterpMemory, UncheckedBlockAccessOutOfBoundsIsAnError) {
  KernelUnderTest t;
  ir::Value* matrix = t.arg(Type::pointer(Type::f32()), "m_ptr");
  ir::Value* corner = blockPointer(t, matrix, 2, 3);
  t.at(30, 9);
  t.b.create1("tt.load", {corner}, Type::tensor({2, 2}, Type::f32()), attrs({{"boundaryCheck", Attribute::denseArray({1})}}));
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<float>(15))};
  EXPECT_EQ(errorOf([&] { interpret(*t.kernel, args, {1, 1, 1}); }),
            "kernel.py:30:9: error: 'tt.load': out-of-bounds access in program (0, 0, 0), element [1, 0]: "
            "element offset 18 is outside buffer 'm_ptr' of 15 elements");
}
