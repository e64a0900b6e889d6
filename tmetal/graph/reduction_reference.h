// The host reference for a graph reduction and the check of a device's
// result against it. The reference reads the problem from the plan (shape,
// strides, axes, dtype, combiner) but none of its mapping: it walks the
// input in logical row-major order, so argmax/argmin report the first
// occurrence along the reduced axes (flattened row-major when several).
//
// Sums are computed in double, integers exactly (int32 sums and products
// wrap as the kernels' int32 arithmetic does). Integer results, argmax,
// argmin, any and all must be equal. A float result of expected value e and
// bound t passes when it lies between e - t and e + t, each rounded to the
// output type (rounding is monotone, so this admits exactly the float32
// accumulators' error followed by the final rounding to float16/bfloat16,
// underflow and overflow included; max and min have t = 0), with
//   sum   t = 0 when float32 adds every partial sum exactly, in any order:
//         all terms are multiples of 2^-q and sum|x| * 2^q <= 2^24;
//         otherwise t = D * 2^-24 * sum|x|
//   mean  the sum's t / R, plus 2^-24 * |e| for the division
//   prod  t = 0 for factors +-2^k (or 0) whose exponents add up to at most 125
//         in absolute value (no partial product leaves float32's range);
//         otherwise t = (R - 1) * 2^-24 * |e| (every product rounds once)
// D bounds how often an accumulator rounds on one element's way to the
// result, in any combining order: per stage its loop trips plus the
// elements one tt.reduce may combine one after another (lanes x vector
// width for rows, threads along the reduction for columns), summed.
// makeReductionInput() draws inputs for which every t is 0 or half an ulp.
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
  std::vector<double> tolerance;     // t above; 0: must be equal
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
