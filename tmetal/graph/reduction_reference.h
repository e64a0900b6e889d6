// The host reference for a graph reduction and the check of a device's
// result against it. The reference reads the problem from the plan (shape,
// strides, axes, dtype, combiner) but none of its mapping: it walks the
// input in logical row-major order, so argmax/argmin report the first
// occurrence along the reduced axes (flattened row-major when several).
//
// Sums are computed in double, integers exactly (int32 sums and products
// wrap as the kernels' int32 arithmetic does). What a result may differ by:
//   exact       integers, max, min, argmax, argmin, any, all
//   sum         D * 2^-24 * sum|x| + e_out * |expected|
//   mean        the sum's bound / R + (2^-24 + e_out) * |expected|
//   prod        ((R - 1) * 2^-24 + e_out) * |expected|
// where the float32 accumulators round at most D times on any element's way
// to the result (D = per stage: loop trips x vector width + 5 butterfly
// steps + 32 SIMD-group partials, summed over the stages), and e_out is half
// an ulp of the output type (2^-24 float32, 2^-11 float16, 2^-8 bfloat16).
// Inputs are expected without NaN (NaN order in Triton's combiners is
// unspecified).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tmetal/graph/reduction_plan.h"

namespace tmetal::graph {

struct ReductionReference {
  ir::ScalarKind outputKind = ir::ScalarKind::F32;
  std::vector<int64_t> outputShape;  // the kept dimensions
  std::vector<double> expected;      // row-major over outputShape
  std::vector<double> tolerance;     // 0: must be equal
};

ReductionReference referenceReduction(const ReductionPlan& plan, const std::vector<uint8_t>& input);

// nullopt when every output of `actual` (bytes of outputKind) is within its
// tolerance; otherwise "3 of 4096 outputs differ; first at [0, 17]: got 1.5,
// expected 1.25 (tolerance 0)".
std::optional<std::string> compareWithReference(const ReductionReference& reference,
                                                const std::vector<uint8_t>& actual);

// "[2, 5]": the coordinates of a row-major index in `shape` ("[]" for a scalar).
std::string coordinatesText(const std::vector<int64_t>& shape, int64_t index);

}  // namespace tmetal::graph
