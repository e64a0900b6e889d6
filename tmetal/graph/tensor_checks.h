// Checks of shapes, strides and axes shared by op analysis and the planner.
// Each throws CompileError with a message that names the offending value;
// callers add where (which op) it happened.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tmetal::graph {

// "[512, 512]"
std::string shapeText(const std::vector<int64_t>& shape);

// Non-empty, every dimension >= 1, element count within int64. Returns the
// element count.
int64_t checkShape(const std::vector<int64_t>& shape);

// One stride per dimension, none negative (0 broadcasts).
void checkStrides(const std::vector<int64_t>& strides, const std::vector<int64_t>& shape);

// Turns axes as written (negative counts from the end) into sorted, unique,
// non-negative axes. Throws for an axis out of range or repeated.
std::vector<int> normalizeAxes(const std::vector<int64_t>& axes, const std::vector<int64_t>& shape);

// a * b, or nullopt-like -1 when it overflows int64 (inputs >= 0).
int64_t checkedMultiply(int64_t a, int64_t b);

}  // namespace tmetal::graph
