// Bit patterns of the float types (f16, bf16, f32, f64 and the 8-bit ones). TTIR writes
// infinities and NaNs as their bit patterns (`dense<0xFF800000>`), and a float
// constant must be rounded to its type before two constants can be compared,
// so the reader and the printer need exact conversions that keep NaN payloads
// (hardware conversions may quiet a signalling NaN).
#pragma once

#include <cstdint>
#include <string>

#include "tmetal/ir/type.h"

namespace tmetal::ir {

enum class FloatRounding { NearestEven, TowardZero };

// A binary float format. IEEE formats spend their largest exponent on
// infinities and NaNs; the 8-bit "FN" formats only on NaN (S.1111.111, so
// they have no infinities), the "FNUZ" ones on nothing (0x80, the would-be
// negative zero, is their one NaN).
struct FloatFormat {
  enum class Specials { Ieee, NanOnly, NegativeZeroIsNan };
  int exponentBits;
  int mantissaBits;
  int bias;
  Specials specials = Specials::Ieee;

  uint64_t mantissaMask() const;
  uint64_t maxExponentField() const;
  uint64_t signBit() const;
  uint64_t maxFiniteCode() const;  // the magnitude bits of the largest finite value
  uint64_t nanCode(bool negative) const;
};

FloatFormat floatFormat(ScalarKind kind);

// The bit pattern of `value` in the float type `kind`, rounded to nearest
// even or toward zero. A magnitude beyond the largest finite value becomes
// that value when `saturate` (Triton's conversions to 8-bit floats, as
// PTX's cvt.satfinite) or when a finite value is rounded toward zero; else
// infinity, or NaN in the 8-bit formats that have no infinity (as LLVM's
// APFloat). FNUZ formats give +0 for a negative zero.
uint64_t floatToBits(double value, ScalarKind kind, FloatRounding rounding = FloatRounding::NearestEven,
                     bool saturate = false);
// The value that a bit pattern of `kind` stands for (exact).
double floatFromBits(uint64_t bits, ScalarKind kind);
// `value` rounded to the float type `kind` (exact for f64).
double roundToFloat(double value, ScalarKind kind);

// The text MLIR uses for a float of type `kind`: "1.000000e+00" when six digits
// after the point give back the same bits, more digits when needed, and the
// hex bit pattern ("0xFF800000") for infinities and NaNs.
std::string formatFloatLiteral(double value, ScalarKind kind);

}  // namespace tmetal::ir
