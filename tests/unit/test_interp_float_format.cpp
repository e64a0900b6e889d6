// Rounding to f16/bf16 and their bit patterns, checked against known values.
#include <gtest/gtest.h>

#include <cmath>

#include "tmetal/interp/float_format.h"

using namespace tmetal::interp;
using tmetal::ir::ScalarKind;

namespace {
uint64_t halfOf(double v) { return floatToBits(roundToFloatKind(v, ScalarKind::F16), ScalarKind::F16); }
uint64_t bfloatOf(double v) { return floatToBits(roundToFloatKind(v, ScalarKind::BF16), ScalarKind::BF16); }
}  // namespace

TEST(InterpFloatFormat, HalfBitPatterns) {
  EXPECT_EQ(halfOf(1.0), 0x3C00u);
  EXPECT_EQ(halfOf(-2.0), 0xC000u);
  EXPECT_EQ(halfOf(65504.0), 0x7BFFu);                // largest finite
  EXPECT_EQ(halfOf(65519.99), 0x7BFFu);               // below the halfway point to 2^16
  EXPECT_EQ(halfOf(65520.0), 0x7C00u);                // halfway rounds to even, which is infinity
  EXPECT_EQ(halfOf(std::ldexp(1.0, -24)), 0x0001u);   // smallest subnormal
  EXPECT_EQ(halfOf(std::ldexp(1.0, -25)), 0x0000u);   // half of it: tie to even zero
  EXPECT_EQ(halfOf(std::ldexp(3.0, -25)), 0x0002u);   // 1.5 subnormal steps: tie to even 2
  EXPECT_EQ(halfOf(1.0 + std::ldexp(1.0, -11)), 0x3C00u);  // tie between 1 and 1+ulp: even
  EXPECT_EQ(halfOf(1.0 + std::ldexp(3.0, -11)), 0x3C02u);  // tie between 1+ulp and 1+2ulp: even
  EXPECT_EQ(halfOf(1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -30)), 0x3C01u);  // just above the tie
  EXPECT_EQ(halfOf(-0.0), 0x8000u);
  EXPECT_EQ(halfOf(-INFINITY), 0xFC00u);
  EXPECT_EQ(floatFromBits(0x7BFF, ScalarKind::F16), 65504.0);
  EXPECT_EQ(floatFromBits(0x0001, ScalarKind::F16), std::ldexp(1.0, -24));
  EXPECT_EQ(floatFromBits(0x3555, ScalarKind::F16), (1024 + 0x155) * std::ldexp(1.0, -12));  // 0.333252
}

TEST(InterpFloatFormat, BFloatBitPatterns) {
  EXPECT_EQ(bfloatOf(1.0), 0x3F80u);
  EXPECT_EQ(bfloatOf(1.0 + std::ldexp(1.0, -8)), 0x3F80u);  // tie: even
  EXPECT_EQ(bfloatOf(1.0 + std::ldexp(3.0, -8)), 0x3F82u);  // tie: even
  EXPECT_EQ(bfloatOf(3.0e38), 0x7F62u);
  EXPECT_EQ(bfloatOf(3.4e38), 0x7F80u);  // above the largest finite bf16 plus half an ulp
  EXPECT_EQ(floatFromBits(0x7F7F, ScalarKind::BF16), 3.3895313892515355e38);
}

TEST(InterpFloatFormat, NaNPayloadsSurviveRoundTrips) {
  EXPECT_EQ(floatToBits(floatFromBits(0x7FC1, ScalarKind::BF16), ScalarKind::BF16), 0x7FC1u);
  EXPECT_EQ(floatToBits(floatFromBits(0x7E01, ScalarKind::F16), ScalarKind::F16), 0x7E01u);
  EXPECT_EQ(floatToBits(floatFromBits(0xFFC00001u, ScalarKind::F32), ScalarKind::F32), 0xFFC00001u);
  EXPECT_TRUE(std::isnan(roundToFloatKind(NAN, ScalarKind::F16)));
}

TEST(InterpFloatFormat, IntegersRoundOnce) {
  // 2^24 + 2^16 + 1 is just above halfway between two bf16 values; going
  // through f32 first would land exactly on the halfway point and round down.
  EXPECT_EQ(integerToFloatKind(false, (1u << 24) + (1u << 16) + 1, ScalarKind::BF16), (1u << 24) + (1u << 17));
  // The same above 2^53, where a double would lose the deciding bit.
  uint64_t big = (uint64_t{1} << 62) + (uint64_t{1} << 54) + 1;
  EXPECT_EQ(integerToFloatKind(false, big, ScalarKind::BF16), std::ldexp(1.0, 62) + std::ldexp(1.0, 55));
  EXPECT_EQ(integerToFloatKind(true, 2049, ScalarKind::F16), -2048.0);  // tie to even
  EXPECT_EQ(integerToFloatKind(false, 2051, ScalarKind::F16), 2052.0);
  EXPECT_EQ(integerToFloatKind(false, 70000, ScalarKind::F16), INFINITY);
  EXPECT_EQ(integerToFloatKind(false, (uint64_t{1} << 53) + 1, ScalarKind::F64), std::ldexp(1.0, 53));
}
