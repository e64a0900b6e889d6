// The shim's types, compiled into this test directly (no clang at run time):
// half and bfloat rounding checked exhaustively against midpoints of
// neighbouring values, vector layout and operators, math, as_type.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#define TMETAL_SHIM_NO_KEYWORD_MACROS  // no `device`, `thread`, ... macros in host code
#include "tmetal/runtime/emulator/msl_shim.h"

namespace {

uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Every finite 16-bit value decodes exactly, re-encodes to itself, and each
// midpoint between neighbours rounds to the one with the even mantissa;
// points just beside a midpoint round to the nearer neighbour.
template <class F, int kMantissaBits>
void checkRoundingExhaustively(uint16_t infinityBits) {
  for (uint32_t bits = 0; bits < infinityBits; ++bits) {
    const F value = F::fromBits(uint16_t(bits));
    const float f = float(value);
    ASSERT_EQ(F(f).tmetal_bits, bits);
    const F negative = F::fromBits(uint16_t(bits | 0x8000));
    ASSERT_EQ(float(negative), -f);

    const uint32_t upperBits = bits + 1;  // infinity above the largest finite value
    const double lower = f;
    const double upper = upperBits == infinityBits
                             ? double(f) + (double(f) - double(float(F::fromBits(uint16_t(bits - 1)))))
                             : double(float(F::fromBits(uint16_t(upperBits))));
    const double midpoint = (lower + upper) / 2;
    const uint32_t even = (bits % 2 == 0) ? bits : upperBits;
    ASSERT_EQ(F(midpoint).tmetal_bits, even) << "midpoint above bits " << bits;
    ASSERT_EQ(F(std::nextafter(midpoint, lower)).tmetal_bits, bits);
    ASSERT_EQ(F(std::nextafter(midpoint, upper)).tmetal_bits, upperBits);
    ASSERT_EQ(F(-midpoint).tmetal_bits, even | 0x8000);
  }
  (void)kMantissaBits;
}

TEST(EmulatorShim, HalfRoundsToNearestEvenEverywhere) { checkRoundingExhaustively<half, 10>(0x7c00); }

TEST(EmulatorShim, BfloatRoundsToNearestEvenEverywhere) { checkRoundingExhaustively<bfloat, 7>(0x7f80); }

TEST(EmulatorShim, SixteenBitSpecialValues) {
  EXPECT_EQ(half(INFINITY).tmetal_bits, 0x7c00);
  EXPECT_EQ(half(-INFINITY).tmetal_bits, 0xfc00);
  EXPECT_EQ(half(1e10f).tmetal_bits, 0x7c00);
  EXPECT_TRUE(metal::isnan(half(NAN)));
  EXPECT_TRUE(metal::isnan(bfloat(NAN)));
  EXPECT_EQ(bfloat(3.0e38f).tmetal_bits, 0x7f62);  // 0x7f61b1e6 rounds up
  EXPECT_EQ(bfloat(3.4e38f).tmetal_bits, 0x7f80);  // above bfloat's max + half an ulp
  EXPECT_EQ(half(0x1p-26f).tmetal_bits, 0x0000);
  EXPECT_EQ(float(std::numeric_limits<half>::max()), 65504.0f);
  EXPECT_EQ(float(std::numeric_limits<bfloat>::lowest()), -0x1.fep127f);
}

TEST(EmulatorShim, SixteenBitArithmeticFollowsMsl) {
  half a = 2048.0f;
  static_assert(std::is_same_v<decltype(a + a), half>);
  static_assert(std::is_same_v<decltype(a + 1), half>);
  static_assert(std::is_same_v<decltype(a * 1.0f), float>);
  static_assert(std::is_same_v<decltype(bfloat(1.0f) - 1), bfloat>);
  EXPECT_EQ(float(a + half(1.0f)), 2048.0f);  // rounded to half
  EXPECT_EQ(a * 1.0f + 1.0f, 2049.0f);        // a float expression stays float
  a += 2;
  EXPECT_EQ(float(a), 2050.0f);
  EXPECT_EQ(float(-a), -2050.0f);
  EXPECT_TRUE(half(1.0f) < 2);
  EXPECT_EQ(float(metal::abs(half(-3.0f))), 3.0f);
  EXPECT_EQ(float(metal::max(half(1.0f), half(NAN))), 1.0f);
  EXPECT_EQ(float(metal::exp(half(1.0f))), float(half(2.718281828f)));
}

TEST(EmulatorShim, VectorLayoutMatchesMsl) {
  static_assert(sizeof(float2) == 8 && alignof(float2) == 8);
  static_assert(sizeof(float3) == 16 && alignof(float3) == 16);
  static_assert(sizeof(float4) == 16 && alignof(float4) == 16);
  static_assert(sizeof(half3) == 8 && sizeof(half4) == 8);
  static_assert(sizeof(uchar4) == 4 && sizeof(long4) == 32);
  static_assert(std::is_trivially_copyable_v<float4> && std::is_trivially_default_constructible_v<float4>);
  static_assert(sizeof(metal::atomic_int) == 4);
}

TEST(EmulatorShim, VectorConstructionOperatorsAndSwizzles) {
  float4 v(1.0f, 2.0f, 3.0f, 4.0f);
  float4 w = float4(v.zw, 5.0f, 6.0f);
  EXPECT_EQ(w.x, 3.0f);
  EXPECT_EQ(w.w, 6.0f);
  float4 broadcast = 2.0f;
  float4 sum = v * broadcast + 1.0f;
  EXPECT_EQ(sum.y, 5.0f);
  float2 lo = v.xy;
  lo += v.zw;
  EXPECT_EQ(lo.y, 6.0f);
  float4 bgra = v.bgra;
  EXPECT_EQ(bgra.r, 3.0f);
  EXPECT_EQ(bgra.b, 1.0f);
  v.yx = float2(9.0f, 8.0f);
  EXPECT_EQ(v.x, 8.0f);
  EXPECT_EQ(v.y, 9.0f);
  bool4 greater = v > 3.0f;
  EXPECT_TRUE(metal::any(greater));
  EXPECT_FALSE(metal::all(greater));
  EXPECT_EQ(metal::select(float4(0.0f), v, greater).z, 0.0f);
  int4 i = int4(v);
  EXPECT_EQ((i % 3).x, 2);
  EXPECT_EQ((i << 1).w, 8);
  half4 h = half4(v);
  EXPECT_EQ(float((h + h).w), 8.0f);
  EXPECT_EQ(metal::dot(v.xy, v.zw), 8.0f * 3.0f + 9.0f * 4.0f);
  EXPECT_EQ(metal::max(v, 5.0f).x, 8.0f);
  EXPECT_EQ(metal::clamp(v, 0.0f, 4.0f).y, 4.0f);
  EXPECT_EQ(metal::fmax(float2(1.0f, NAN), 2.0f).y, 2.0f);
}

TEST(EmulatorShim, MathAndBitCasts) {
  EXPECT_EQ(metal::as_type<uint>(1.0f), 0x3f800000u);
  EXPECT_EQ(metal::as_type<ushort>(half(1.0f)), 0x3c00);
  EXPECT_EQ(metal::rsqrt(4.0f), 0.5f);
  EXPECT_EQ(metal::fract(-0.25f), 0.75f);
  EXPECT_EQ(metal::precise::exp2(3.0f), 8.0f);
  EXPECT_EQ(metal::fast::tanh(0.0f), 0.0f);
  EXPECT_EQ(metal::popcount(0xf0u), 4u);
  EXPECT_EQ(metal::clz(1u), 31u);
  EXPECT_EQ(metal::ctz(8), 3);
  EXPECT_EQ(metal::mulhi(0x80000000u, 4u), 2u);
  EXPECT_EQ(metal::abs(-7), 7);
  EXPECT_EQ(metal::max3(1, 5, 3), 5);
  EXPECT_EQ(metal::median3(4.0f, 1.0f, 3.0f), 3.0f);
  EXPECT_EQ(metal::ldexp(3.0f, 2), 12.0f);
  EXPECT_TRUE(metal::isinf(INFINITY));
  EXPECT_EQ(floatBits(metal::sign(-0.0f)), floatBits(-0.0f));
}

}  // namespace
