// Rounding and bit encodings of the float formats kernels use: f16 (IEEE
// binary16), bf16 (bfloat16), f32, f64 and the 8-bit floats (storage only). The interpreter keeps every float
// element as a double holding a value that is exactly representable in its
// type; these functions are the only places where values are rounded or
// turned into bits, so that "round to nearest even on every cast, op result
// and store" is implemented once.
#pragma once

#include <cstdint>

#include "tmetal/ir/type.h"

namespace tmetal::interp {

// Rounds `value` to the nearest value of float kind `kind`, ties to even, as
// one rounding (not through an intermediate format). Overflow gives an
// infinity, NaN stays NaN. f64 is returned unchanged.
double roundToFloatKind(double value, ir::ScalarKind kind);

// `value` converted to float kind `kind` as tt.fp_to_fp does: rounded to
// nearest even or (towardZero) toward zero; conversions to 8-bit floats saturate
// (infinities and values beyond the largest finite one become the largest
// finite value of their sign, as Triton's conversions on NVIDIA GPUs do).
double convertToFloatKind(double value, ir::ScalarKind kind, bool towardZero);

// The nearest value of float kind `kind` to an integer given as sign and
// magnitude, rounded once (an i64 is not first rounded to a double).
double integerToFloatKind(bool negative, uint64_t magnitude, ir::ScalarKind kind);

// The bit pattern of `value` (already representable in `kind`) in the width
// of `kind`, zero-extended to 64 bits. NaN payloads survive f32 and bf16
// round trips; f16 NaNs keep the top 10 payload bits, as a hardware convert does.
uint64_t floatToBits(double value, ir::ScalarKind kind);
// The value of a bit pattern of float kind `kind` (low bits of `bits`).
double floatFromBits(uint64_t bits, ir::ScalarKind kind);

}  // namespace tmetal::interp
