// Elementwise semantics of the interpreter: exact results for integer wrap,
// division and shift conventions, NaN rules, saturating casts and f16/bf16
// rounding on every op result.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "interp_test_support.h"

using namespace tmetal;
using namespace tmetal::interp;
using namespace tmetal::interp::testing;
using ir::Attribute;
using ir::Type;

namespace {
ir::AttrList predicate(const std::string& p) { return attrs({{"predicate", Attribute::symbol(p)}}); }
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
}  // namespace

TEST(InterpElementwise, MaskedVectorAddCoversGridAndTail) {
  KernelUnderTest t;
  ir::Value* x = t.arg(Type::pointer(Type::f32()), "x_ptr");
  ir::Value* y = t.arg(Type::pointer(Type::f32()), "y_ptr");
  ir::Value* out = t.arg(Type::pointer(Type::f32()), "out_ptr");
  ir::Value* n = t.arg(Type::i32(), "n");
  ir::Value* offs = blockOffsets(t.b, 4);
  ir::Value* mask = t.b.cmpi("slt", offs, t.b.splat(n, {4}));
  ir::Value* sum = t.b.binary("arith.addf", t.b.load(pointersAt(t.b, x, offs), mask), t.b.load(pointersAt(t.b, y, offs), mask));
  t.b.store(pointersAt(t.b, out, offs), sum, mask);
  t.b.ret();

  std::vector<float> xs, ys;
  for (int i = 0; i < 10; ++i) {
    xs.push_back(i * 0.5f);
    ys.push_back(100.0f + i);
  }
  // Buffers hold exactly 10 elements: the masked-off lanes 10 and 11 of the
  // last program point past the end and must not be touched.
  std::vector<KernelArg> args{bufferOf(xs), bufferOf(ys), bufferOf(std::vector<float>(10, -1.0f)), KernelArg::fromInt(10)};
  interpret(*t.kernel, args, {3, 1, 1});
  std::vector<float> got = contentsOf<float>(args[2]);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(got[i], xs[i] + ys[i]) << i;
}

TEST(InterpElementwise, IntegersWrapAtTheirWidth) {
  EXPECT_EQ((applyOp<int8_t, int8_t>("arith.addi", Type::i8(), Type::i8(), {{127, -128, 100}, {1, -1, 100}})),
            (std::vector<int8_t>{-128, 127, -56}));
  EXPECT_EQ((applyOp<int8_t, int8_t>("arith.muli", Type::i8(), Type::i8(), {{16, -128}, {16, -1}})),
            (std::vector<int8_t>{0, -128}));
  EXPECT_EQ((applyOp<int16_t, int16_t>("arith.subi", Type::i16(), Type::i16(), {{-32768}, {1}})), (std::vector<int16_t>{32767}));
  EXPECT_EQ((applyOp<int32_t, int32_t>("arith.muli", Type::i32(), Type::i32(), {{65536, 65537}, {65536, 65537}})),
            (std::vector<int32_t>{0, 131073}));
  EXPECT_EQ((applyOp<int64_t, int64_t>("arith.addi", Type::i64(), Type::i64(), {{INT64_MAX}, {1}})),
            (std::vector<int64_t>{INT64_MIN}));
  EXPECT_EQ((applyOp<int32_t, int32_t>("math.absi", Type::i32(), Type::i32(), {{-5, INT32_MIN}})),
            (std::vector<int32_t>{5, INT32_MIN}));
}

TEST(InterpElementwise, SignedAndUnsignedDivision) {
  std::vector<int32_t> a{7, -7, 7, -7, INT32_MIN, 9, -1};
  std::vector<int32_t> b{-2, 2, 2, -2, -1, 0, 2};
  EXPECT_EQ((applyOp<int32_t, int32_t>("arith.divsi", Type::i32(), Type::i32(), {a, b})),
            (std::vector<int32_t>{-3, -3, 3, 3, INT32_MIN, -1, 0}));
  EXPECT_EQ((applyOp<int32_t, int32_t>("arith.remsi", Type::i32(), Type::i32(), {a, b})),
            (std::vector<int32_t>{1, -1, 1, -1, 0, 9, -1}));
  EXPECT_EQ((applyOp<int32_t, int32_t>("arith.floordivsi", Type::i32(), Type::i32(), {a, b})),
            (std::vector<int32_t>{-4, -4, 3, 3, INT32_MIN, -1, -1}));
  EXPECT_EQ((applyOp<int32_t, int32_t>("arith.ceildivsi", Type::i32(), Type::i32(), {a, b})),
            (std::vector<int32_t>{-3, -3, 4, 4, INT32_MIN, -1, 0}));
  // Unsigned: -1 reads as 4294967295.
  EXPECT_EQ((applyOp<uint32_t, uint32_t>("arith.divui", Type::i32(), Type::i32(), {{0xFFFFFFFFu, 7, 9}, {2, 0, 4}})),
            (std::vector<uint32_t>{0x7FFFFFFFu, 0xFFFFFFFFu, 2}));
  EXPECT_EQ((applyOp<uint32_t, uint32_t>("arith.remui", Type::i32(), Type::i32(), {{0xFFFFFFFFu, 7}, {10, 0}})),
            (std::vector<uint32_t>{5, 7}));
}

TEST(InterpElementwise, ShiftsByTheWidthOrMore) {
  EXPECT_EQ((applyOp<int32_t, int32_t>("arith.shli", Type::i32(), Type::i32(), {{1, 1, 3}, {31, 33, 1}})),
            (std::vector<int32_t>{INT32_MIN, 0, 6}));
  EXPECT_EQ((applyOp<int32_t, int32_t>("arith.shrsi", Type::i32(), Type::i32(), {{-8, -8, 8}, {1, 40, 40}})),
            (std::vector<int32_t>{-4, -1, 0}));
  EXPECT_EQ((applyOp<uint32_t, uint32_t>("arith.shrui", Type::i32(), Type::i32(), {{0x80000000u, 0x80000000u}, {31, 32}})),
            (std::vector<uint32_t>{1, 0}));
}

TEST(InterpElementwise, IntegerComparisonsAndMinMax) {
  std::vector<int32_t> a{-1, 1, 5}, b{1, -1, 5};
  EXPECT_EQ((applyOp<uint8_t, int32_t>("arith.cmpi", Type::i32(), Type::i1(), {a, b}, predicate("ult"))),
            (std::vector<uint8_t>{0, 1, 0}));
  EXPECT_EQ((applyOp<uint8_t, int32_t>("arith.cmpi", Type::i32(), Type::i1(), {a, b}, predicate("slt"))),
            (std::vector<uint8_t>{1, 0, 0}));
  EXPECT_EQ((applyOp<uint8_t, int32_t>("arith.cmpi", Type::i32(), Type::i1(), {a, b}, predicate("uge"))),
            (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ((applyOp<int32_t, int32_t>("arith.maxui", Type::i32(), Type::i32(), {a, b})), (std::vector<int32_t>{-1, -1, 5}));
  EXPECT_EQ((applyOp<int32_t, int32_t>("arith.minsi", Type::i32(), Type::i32(), {a, b})), (std::vector<int32_t>{-1, -1, 5}));
  EXPECT_EQ((applyOp<uint32_t, uint32_t>("tt.mulhiui", Type::i32(), Type::i32(), {{0xFFFFFFFFu, 0x10000u}, {0xFFFFFFFFu, 0x10000u}})),
            (std::vector<uint32_t>{0xFFFFFFFEu, 1}));
}

TEST(InterpElementwise, NaNRulesOfMinMaxAndComparisons) {
  std::vector<float> a{kNaN, 1.0f, -0.0f, 2.0f}, b{1.0f, kNaN, 0.0f, kNaN};
  std::vector<float> maxnum = applyOp<float, float>("arith.maxnumf", Type::f32(), Type::f32(), {a, b});
  EXPECT_EQ(maxnum[0], 1.0f);
  EXPECT_EQ(maxnum[1], 1.0f);
  EXPECT_FALSE(std::signbit(maxnum[2]));  // +0 is above -0
  std::vector<float> maximum = applyOp<float, float>("arith.maximumf", Type::f32(), Type::f32(), {a, b});
  EXPECT_TRUE(std::isnan(maximum[0]));
  EXPECT_TRUE(std::isnan(maximum[1]));
  std::vector<float> minimum = applyOp<float, float>("arith.minimumf", Type::f32(), Type::f32(), {a, b});
  EXPECT_TRUE(std::signbit(minimum[2]));
  EXPECT_TRUE(std::isnan(minimum[3]));
  std::vector<float> minnum = applyOp<float, float>("arith.minnumf", Type::f32(), Type::f32(), {a, b});
  EXPECT_EQ(minnum[3], 2.0f);

  auto cmp = [&](const std::string& p) { return applyOp<uint8_t, float>("arith.cmpf", Type::f32(), Type::i1(), {a, b}, predicate(p)); };
  EXPECT_EQ(cmp("oeq"), (std::vector<uint8_t>{0, 0, 1, 0}));
  EXPECT_EQ(cmp("ueq"), (std::vector<uint8_t>{1, 1, 1, 1}));
  EXPECT_EQ(cmp("une"), (std::vector<uint8_t>{1, 1, 0, 1}));
  EXPECT_EQ(cmp("one"), (std::vector<uint8_t>{0, 0, 0, 0}));
  EXPECT_EQ(cmp("olt"), (std::vector<uint8_t>{0, 0, 0, 0}));
  EXPECT_EQ(cmp("uge"), (std::vector<uint8_t>{1, 1, 1, 1}));
  EXPECT_EQ(cmp("ord"), (std::vector<uint8_t>{0, 0, 1, 0}));
  EXPECT_EQ(cmp("uno"), (std::vector<uint8_t>{1, 1, 0, 1}));
}

TEST(InterpElementwise, ClampfNaNPropagation) {
  std::vector<float> x{kNaN, -5.0f, 0.5f, 7.0f}, lo(4, -1.0f), hi(4, 1.0f);
  std::vector<float> none = applyOp<float, float>("tt.clampf", Type::f32(), Type::f32(), {x, lo, hi},
                                                  attrs({{"propagateNan", Attribute::symbol("none")}}));
  EXPECT_EQ(none, (std::vector<float>{-1.0f, -1.0f, 0.5f, 1.0f}));
  std::vector<float> all = applyOp<float, float>("tt.clampf", Type::f32(), Type::f32(), {x, lo, hi},
                                                 attrs({{"propagateNan", Attribute::symbol("all")}}));
  EXPECT_TRUE(std::isnan(all[0]));
  EXPECT_EQ(all[3], 1.0f);
}

TEST(InterpElementwise, FloatToIntSaturates) {
  std::vector<float> x{3e9f, -3e9f, kNaN, -1.9f, 1.9f, INFINITY};
  EXPECT_EQ((applyOp<int32_t, float>("arith.fptosi", Type::f32(), Type::i32(), {x})),
            (std::vector<int32_t>{INT32_MAX, INT32_MIN, 0, -1, 1, INT32_MAX}));
  EXPECT_EQ((applyOp<uint32_t, float>("arith.fptoui", Type::f32(), Type::i32(), {x})),
            (std::vector<uint32_t>{3000000000u, 0, 0, 0, 1, 0xFFFFFFFFu}));
  EXPECT_EQ((applyOp<int8_t, float>("arith.fptosi", Type::f32(), Type::i8(), {{300.0f, -300.0f, 127.9f}})),
            (std::vector<int8_t>{127, -128, 127}));
}

TEST(InterpElementwise, HalfOpsRoundEveryResult) {
  // Inputs and outputs are f16 bit patterns.
  std::vector<uint16_t> a{0x3C00, 0x3C01, 0x7BFF, 0x3C00}, b{0x1000, 0x1000, 0x4C00, 0x0001};
  // 1 + 2^-11: tie, stays 1.0; (1+2^-10) + 2^-11: tie, rounds to the even 1+2^-9;
  // 65504 + 16 = 65520 rounds to infinity; 1 + smallest subnormal stays 1.
  EXPECT_EQ((applyOp<uint16_t, uint16_t>("arith.addf", Type::f16(), Type::f16(), {a, b})),
            (std::vector<uint16_t>{0x3C00, 0x3C02, 0x7C00, 0x3C00}));
  // bf16: (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14 rounds to 1 + 2^-6.
  EXPECT_EQ((applyOp<uint16_t, uint16_t>("arith.mulf", Type::bf16(), Type::bf16(), {{0x3F81}, {0x3F81}})),
            (std::vector<uint16_t>{0x3F82}));
}

TEST(InterpElementwise, CastsBetweenFormats) {
  std::vector<float> x{1.0f + 0x1p-11f, 1.0f + 0x1p-8f + 0x1p-20f, 70000.0f, 0x1p-25f};
  EXPECT_EQ((applyOp<uint16_t, float>("arith.truncf", Type::f32(), Type::f16(), {x})),
            (std::vector<uint16_t>{0x3C00, 0x3C04, 0x7C00, 0x0000}));
  EXPECT_EQ((applyOp<uint16_t, float>("arith.truncf", Type::f32(), Type::bf16(), {x})),
            (std::vector<uint16_t>{0x3F80, 0x3F81, 0x4789, 0x3300}));
  EXPECT_EQ((applyOp<float, uint16_t>("arith.extf", Type::f16(), Type::f32(), {{0x3555, 0x0001, 0xFC00}})),
            (std::vector<float>{0.333251953125f, 0x1p-24f, -INFINITY}));
  EXPECT_EQ((applyOp<uint16_t, int32_t>("arith.sitofp", Type::i32(), Type::f16(), {{2049, -2051, 100000}})),
            (std::vector<uint16_t>{0x6800, 0xE802, 0x7C00}));
  EXPECT_EQ((applyOp<float, uint32_t>("arith.uitofp", Type::i32(), Type::f32(), {{0xFFFFFFFFu}})),
            (std::vector<float>{4294967296.0f}));
  EXPECT_EQ((applyOp<int64_t, int8_t>("arith.extui", Type::i8(), Type::i64(), {{-1}})), (std::vector<int64_t>{255}));
  EXPECT_EQ((applyOp<int64_t, int8_t>("arith.extsi", Type::i8(), Type::i64(), {{-1}})), (std::vector<int64_t>{-1}));
  EXPECT_EQ((applyOp<int8_t, int32_t>("arith.trunci", Type::i32(), Type::i8(), {{0x1FF}})), (std::vector<int8_t>{-1}));
  EXPECT_EQ((applyOp<uint32_t, float>("arith.bitcast", Type::f32(), Type::i32(), {{1.0f, -0.0f}})),
            (std::vector<uint32_t>{0x3F800000u, 0x80000000u}));
}

TEST(InterpElementwise, UnsupportedOpNamesItsLine) {
  KernelUnderTest t;
  ir::Value* x = t.arg(Type::pointer(Type::f32()), "x_ptr");
  ir::Value* v = t.b.load(x);
  t.at(12, 9);
  t.b.create1("tt.extern_elementwise", {v}, Type::f32(), attrs({{"symbol", Attribute::string("my_device_fn")}}));
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<float>{1.0f})};
  EXPECT_EQ(errorOf([&] { interpret(*t.kernel, args, {1, 1, 1}); }),
            "kernel.py:12:9: error: 'tt.extern_elementwise': the interpreter does not have the function "
            "'my_device_fn' (tmetal has libdevice's float32 and integer functions, docs/codegen.md \"libdevice\")");
}
