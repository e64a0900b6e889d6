// Reproducible pseudo-random inputs for a reduction, chosen per combiner so
// that the result says something and float32 computes it exactly in any
// order (reduction_reference.h then allows no error beyond the rounding to
// the output type and, for mean, the division):
//   sum, mean      floats k / 2^q in [-1, 1] with q as large as keeps R * 2^q
//                  <= 2^24 (and the input type exact: q <= 16 float32, 10
//                  float16, 7 bfloat16); int32 uniform in [-1000, 1000]
//   max, min,      floats in [-1, 1] on a grid of 1/32 and int32 in [-8, 8],
//   argmax, argmin so that equal values are common and argmax/argmin must
//                  pick the first occurrence
//   prod           floats +-1, or with probability min(1, 16 / R) +-2 or
//                  +-1/2: a missing or repeated factor shows in the sign or
//                  the exponent; int32 odd values in [-9, 9] (wrapping
//                  products never collapse to 0)
//   any / all      mostly 0 (any) or mostly non-zero (all), the exception
//                  with probability ln 2 / R, so about half the outputs flip
// Element k of the buffer depends only on (seed, k): the same seed gives the
// same tensor on every machine.
#pragma once

#include <cstdint>
#include <vector>

#include "tmetal/graph/reduction_plan.h"

namespace tmetal::graph {

// Elements the input buffer of a plan holds: the largest offset its shape
// and strides reach, plus one.
int64_t inputSpan(const ReductionPlan& plan);

// The input buffer (inputSpan elements of plan.dtype), as bytes.
std::vector<uint8_t> makeReductionInput(const ReductionPlan& plan, uint64_t seed);

}  // namespace tmetal::graph
