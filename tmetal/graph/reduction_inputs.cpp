#include "tmetal/graph/reduction_inputs.h"

#include <algorithm>
#include <cmath>

#include "tmetal/graph/host_elements.h"

namespace tmetal::graph {

namespace {

// SplitMix64: a counter-based generator, so element k needs no state.
uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) from 53 random bits; `stream` separates independent draws.
double uniform(uint64_t seed, int64_t element, uint64_t stream) {
  const uint64_t bits = mix(mix(seed ^ (stream * 0xD1B54A32D192ED03ull)) + static_cast<uint64_t>(element));
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

int64_t uniformInt(double u, int64_t lo, int64_t hi) {  // in [lo, hi]
  return lo + std::min<int64_t>(hi - lo, static_cast<int64_t>(u * double(hi - lo + 1)));
}

// The q of sums' inputs k / 2^q: R * 2^q <= 2^24 keeps float32 sums exact,
// and q stays within what the input type holds exactly for |k| <= 2^q.
int sumGrid(ir::ScalarKind dtype, int64_t reduceCount) {
  int q = dtype == ir::ScalarKind::F16 ? 10 : dtype == ir::ScalarKind::BF16 ? 7 : 16;
  while (q > 0 && (reduceCount << q) > (int64_t{1} << 24)) --q;
  return q;
}

double element(const ReductionPlan& plan, uint64_t seed, int64_t k) {
  const bool isFloat = ir::isFloatKind(plan.dtype);
  const double u = uniform(seed, k, 0);
  const double R = static_cast<double>(plan.reduceCount);
  switch (plan.combiner) {
    case Combiner::Sum:
    case Combiner::Mean: {
      if (!isFloat) return double(uniformInt(u, -1000, 1000));
      const int q = sumGrid(plan.dtype, plan.reduceCount);
      return double(uniformInt(u, -(int64_t{1} << q), int64_t{1} << q)) / double(int64_t{1} << q);
    }
    case Combiner::Max:
    case Combiner::Min:
    case Combiner::ArgMax:
    case Combiner::ArgMin: return isFloat ? double(uniformInt(u, -32, 32)) / 32 : double(uniformInt(u, -8, 8));
    case Combiner::Prod: {
      if (!isFloat) return double(2 * uniformInt(u, 0, 9) - 9);
      const double sign = uniform(seed, k, 1) < 0.5 ? -1 : 1;
      const double rare = std::min(1.0, 16 / R);
      return sign * (u < rare / 2 ? 2.0 : u < rare ? 0.5 : 1.0);
    }
    case Combiner::Any:
    case Combiner::All: {
      const bool exception = u < std::min(1.0, std::log(2.0) / R);
      const bool nonzero = (plan.combiner == Combiner::Any) == exception;
      if (!nonzero) return 0;
      const double magnitude = uniform(seed, k, 1);
      return isFloat ? 0.5 + magnitude : double(uniformInt(magnitude, 1, 100));
    }
  }
  return 0;
}

}  // namespace

int64_t inputSpan(const ReductionPlan& plan) {
  int64_t span = 1;
  for (size_t d = 0; d < plan.shape.size(); ++d) span += (plan.shape[d] - 1) * plan.strides[d];
  return span;
}

std::vector<uint8_t> makeReductionInput(const ReductionPlan& plan, uint64_t seed) {
  const int64_t span = inputSpan(plan);
  std::vector<uint8_t> bytes(static_cast<size_t>(span) * scalarBytes(plan.dtype));
  for (int64_t k = 0; k < span; ++k) writeElement(bytes, plan.dtype, k, element(plan, seed, k));
  return bytes;
}

}  // namespace tmetal::graph
