// Bit patterns of the float types (f16, bf16, f32, f64). TTIR writes
// infinities and NaNs as their bit patterns (`dense<0xFF800000>`), and a float
// constant must be rounded to its type before two constants can be compared,
// so the reader and the printer need exact conversions that keep NaN payloads
// (hardware conversions may quiet a signalling NaN).
#pragma once

#include <cstdint>
#include <string>

#include "tmetal/ir/type.h"

namespace tmetal::ir {

// The bit pattern of `value` in the float type `kind`, rounded to nearest even.
uint64_t floatToBits(double value, ScalarKind kind);
// The value that a bit pattern of `kind` stands for (exact).
double floatFromBits(uint64_t bits, ScalarKind kind);
// `value` rounded to the float type `kind` (exact for f64).
double roundToFloat(double value, ScalarKind kind);

// The text MLIR uses for a float of type `kind`: "1.000000e+00" when six digits
// after the point give back the same bits, more digits when needed, and the
// hex bit pattern ("0xFF800000") for infinities and NaNs.
std::string formatFloatLiteral(double value, ScalarKind kind);

}  // namespace tmetal::ir
