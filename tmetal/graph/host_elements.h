// Elements of host buffers by scalar type: what the graph runner's input
// generator writes and its reference and checks read. Floats go through
// exact bit conversions (float16 and bfloat16 round to nearest even), so a
// value written and read back is the value the kernel sees.
#pragma once

#include <cstdint>
#include <vector>

#include "tmetal/ir/type.h"

namespace tmetal::graph {

// Element i of a buffer of `kind` (f16, bf16, f32, f64, i8, i16, i32, i64),
// as a double; integers convert exactly up to 2^53.
double readElement(const std::vector<uint8_t>& bytes, ir::ScalarKind kind, int64_t i);
// Integers exactly.
int64_t readIntElement(const std::vector<uint8_t>& bytes, ir::ScalarKind kind, int64_t i);

// Stores `value` as element i, rounded to `kind` (floats) or truncated to its
// width (integers, two's complement).
void writeElement(std::vector<uint8_t>& bytes, ir::ScalarKind kind, int64_t i, double value);

}  // namespace tmetal::graph
