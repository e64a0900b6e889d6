#include "tmetal/interp/float_format.h"

#include <bit>
#include <cmath>
#include <limits>

#include "tmetal/ir/float_bits.h"

namespace tmetal::interp {

namespace {

using ir::ScalarKind;

// The layout of a binary float format: significand bits including the
// implicit leading one, and the exponent range of its normal numbers.
struct FormatShape {
  int significandBits;
  int minNormalExponent;
  int maxExponent;
};

constexpr FormatShape kHalf{11, -14, 15};
constexpr FormatShape kBFloat{8, -126, 127};

// Round to nearest even into a format narrower than double. Scaling by a
// power of two is exact, so `value / quantum` is exact and nearbyint (the
// default rounding mode is to nearest even) performs the single rounding.
double roundToShape(double value, FormatShape shape) {
  if (!std::isfinite(value) || value == 0) return value;
  int binaryExponent = 0;
  std::frexp(value, &binaryExponent);  // value = m * 2^e with 0.5 <= |m| < 1
  int exponent = std::max(binaryExponent - 1, shape.minNormalExponent);  // subnormals share the smallest quantum
  double quantum = std::ldexp(1.0, exponent - (shape.significandBits - 1));
  double rounded = std::nearbyint(value / quantum) * quantum;
  if (std::fabs(rounded) >= std::ldexp(1.0, shape.maxExponent + 1)) return std::copysign(INFINITY, value);
  return rounded;
}

uint32_t bitsOfFloat(float f) { return std::bit_cast<uint32_t>(f); }
float floatOfBits(uint32_t b) { return std::bit_cast<float>(b); }

uint16_t halfBits(double value) {
  uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  if (std::isnan(value)) {
    // Keep the top payload bits of the f32 NaN and make sure it stays a (quiet) NaN.
    uint32_t payload = (bitsOfFloat(static_cast<float>(value)) >> 13) & 0x3FF;
    return sign | 0x7C00 | 0x200 | payload;
  }
  if (std::isinf(value)) return sign | 0x7C00;
  double magnitude = std::fabs(value);
  if (magnitude == 0) return sign;
  int binaryExponent = 0;
  std::frexp(magnitude, &binaryExponent);
  int exponent = binaryExponent - 1;
  if (exponent < kHalf.minNormalExponent)  // subnormal: magnitude = fraction * 2^-24
    return sign | static_cast<uint16_t>(std::ldexp(magnitude, 24));
  uint16_t fraction = static_cast<uint16_t>(std::ldexp(magnitude, 10 - exponent) - 1024);
  return sign | static_cast<uint16_t>((exponent + 15) << 10) | fraction;
}

double halfValue(uint16_t bits) {
  bool negative = bits & 0x8000;
  int exponentField = (bits >> 10) & 0x1F;
  int fraction = bits & 0x3FF;
  if (exponentField == 0x1F) {
    if (fraction == 0) return negative ? -INFINITY : INFINITY;
    return floatOfBits((negative ? 0x80000000u : 0u) | 0x7F800000u | (static_cast<uint32_t>(fraction) << 13));
  }
  double magnitude = exponentField == 0 ? std::ldexp(fraction, -24) : std::ldexp(1024 + fraction, exponentField - 25);
  return negative ? -magnitude : magnitude;
}

uint16_t bfloatBits(double value) {
  uint32_t f32 = bitsOfFloat(static_cast<float>(value));  // exact: the caller rounded to bf16
  if (std::isnan(value)) return static_cast<uint16_t>((f32 >> 16) | 0x40);
  return static_cast<uint16_t>(f32 >> 16);
}

}  // namespace

double roundToFloatKind(double value, ScalarKind kind) {
  if (ir::isFloat8Kind(kind)) return ir::roundToFloat(value, kind);
  switch (kind) {
    case ScalarKind::F16:
      return roundToShape(value, kHalf);
    case ScalarKind::BF16:
      return roundToShape(value, kBFloat);
    case ScalarKind::F32:
      return static_cast<float>(value);  // C++ conversion rounds to nearest even
    default:
      return value;
  }
}

double integerToFloatKind(bool negative, uint64_t magnitude, ScalarKind kind) {
  if (kind == ScalarKind::F64 || kind == ScalarKind::F32) {
    // Native conversions round once, to nearest even.
    if (kind == ScalarKind::F64) {
      double d = static_cast<double>(magnitude);
      return negative ? -d : d;
    }
    float f = static_cast<float>(magnitude);
    return negative ? -f : f;
  }
  // Narrow formats: shrink the magnitude to 53 bits, folding the dropped bits
  // into a sticky lowest bit, so the double is exact up to a bit that only
  // breaks ties the right way; then round once to the narrow format.
  int shift = 0;
  uint64_t kept = magnitude;
  while (kept >> 53) {
    kept = (kept >> 1) | (kept & 1);
    ++shift;
  }
  double value = std::ldexp(static_cast<double>(kept), shift);
  // Integers convert to 8-bit floats as floats do: saturating.
  if (ir::isFloat8Kind(kind)) return convertToFloatKind(negative ? -value : value, kind, false);
  return roundToFloatKind(negative ? -value : value, kind);
}

double convertToFloatKind(double value, ScalarKind kind, bool towardZero) {
  if (!towardZero && !ir::isFloat8Kind(kind)) return roundToFloatKind(value, kind);
  if (kind == ScalarKind::F64) return value;
  const auto rounding = towardZero ? ir::FloatRounding::TowardZero : ir::FloatRounding::NearestEven;
  return ir::floatFromBits(ir::floatToBits(value, kind, rounding, ir::isFloat8Kind(kind)), kind);
}

uint64_t floatToBits(double value, ScalarKind kind) {
  if (ir::isFloat8Kind(kind)) return ir::floatToBits(value, kind);
  switch (kind) {
    case ScalarKind::F16:  // rounding first makes the encoding right for any input
      return halfBits(roundToShape(value, kHalf));
    case ScalarKind::BF16:
      return bfloatBits(roundToShape(value, kBFloat));
    case ScalarKind::F32:
      return bitsOfFloat(static_cast<float>(value));
    default:
      return std::bit_cast<uint64_t>(value);
  }
}

double floatFromBits(uint64_t bits, ScalarKind kind) {
  if (ir::isFloat8Kind(kind)) return ir::floatFromBits(bits, kind);
  switch (kind) {
    case ScalarKind::F16:
      return halfValue(static_cast<uint16_t>(bits));
    case ScalarKind::BF16:
      return floatOfBits(static_cast<uint32_t>(bits & 0xFFFF) << 16);
    case ScalarKind::F32:
      return floatOfBits(static_cast<uint32_t>(bits));
    default:
      return std::bit_cast<double>(bits);
  }
}

}  // namespace tmetal::interp
