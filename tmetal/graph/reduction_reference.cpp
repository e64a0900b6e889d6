#include "tmetal/graph/reduction_reference.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "tmetal/graph/host_elements.h"
#include "tmetal/graph/reduction_kernels.h"

namespace tmetal::graph {

namespace {

constexpr double kFloat32Rounding = 0x1.0p-24;  // half an ulp of float32, relative

double outputRounding(ir::ScalarKind k) {
  switch (k) {
    case ir::ScalarKind::F16: return 0x1.0p-11;
    case ir::ScalarKind::BF16: return 0x1.0p-8;
    default: return kFloat32Rounding;
  }
}

// How many times a float32 accumulator may round on an element's way to the
// result: the loop trips of each stage, plus 64 for combining the vector
// lanes, the shuffle butterfly and the SIMD-group partials of a threadgroup.
double roundingDepth(const ReductionPlan& plan) {
  double depth = 0;
  for (const ReductionStage& s : plan.stages) depth += double(s.iterations) + 64;
  return depth;
}

struct Accumulator {
  double sum = 0;
  double absoluteSum = 0;
  uint32_t wrapped = 0;  // int32 sums and products, modulo 2^32
  double product = 1;
  double best = 0;
  int64_t bestIndex = -1;
  bool flag = false;
};

}  // namespace

std::string coordinatesText(const std::vector<int64_t>& shape, int64_t index) {
  std::vector<int64_t> coords(shape.size());
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    coords[d] = index % shape[d];
    index /= shape[d];
  }
  return "[" + fmt::format("{}", fmt::join(coords, ", ")) + "]";
}

ReductionReference referenceReduction(const ReductionPlan& plan, const std::vector<uint8_t>& input) {
  ReductionReference ref;
  ref.outputKind = reductionOutputKind(plan.combiner, plan.dtype);
  const int rank = static_cast<int>(plan.shape.size());
  auto isReduced = [&](int d) { return std::binary_search(plan.axes.begin(), plan.axes.end(), d); };
  int64_t outputs = 1, reduceCount = 1, elements = 1;
  for (int d = 0; d < rank; ++d) {
    (isReduced(d) ? reduceCount : outputs) *= plan.shape[d];
    if (!isReduced(d)) ref.outputShape.push_back(plan.shape[d]);
    elements *= plan.shape[d];
  }
  const bool isFloat = ir::isFloatKind(plan.dtype);
  const Combiner c = plan.combiner;
  std::vector<Accumulator> acc(outputs);
  for (Accumulator& a : acc) {
    a.flag = c == Combiner::All;
    a.wrapped = c == Combiner::Prod ? 1 : 0;
  }

  // Walk the input in logical row-major order with an odometer.
  std::vector<int64_t> coords(rank, 0);
  for (int64_t n = 0; n < elements; ++n) {
    int64_t offset = 0, output = 0, reduceIndex = 0;
    for (int d = 0; d < rank; ++d) {
      offset += coords[d] * plan.strides[d];
      int64_t& linear = isReduced(d) ? reduceIndex : output;
      linear = linear * plan.shape[d] + coords[d];
    }
    Accumulator& a = acc[output];
    const double x = readElement(input, plan.dtype, offset);
    const uint32_t xi = isFloat ? 0 : static_cast<uint32_t>(readIntElement(input, plan.dtype, offset));
    switch (c) {
      case Combiner::Sum:
      case Combiner::Mean:
        a.sum += x;
        a.absoluteSum += std::fabs(x);
        a.wrapped += xi;
        break;
      case Combiner::Prod:
        a.product *= x;
        a.wrapped *= xi;
        break;
      case Combiner::Max:
      case Combiner::ArgMax:
        if (!std::isnan(x) && (a.bestIndex < 0 || x > a.best)) {
          a.best = x;
          a.bestIndex = reduceIndex;
        }
        break;
      case Combiner::Min:
      case Combiner::ArgMin:
        if (!std::isnan(x) && (a.bestIndex < 0 || x < a.best)) {
          a.best = x;
          a.bestIndex = reduceIndex;
        }
        break;
      case Combiner::Any: a.flag = a.flag || x != 0; break;
      case Combiner::All: a.flag = a.flag && x != 0; break;
    }
    for (int d = rank - 1; d >= 0 && ++coords[d] == plan.shape[d]; --d) coords[d] = 0;
  }

  const double depth = roundingDepth(plan);
  const double rounding = outputRounding(ref.outputKind);
  for (const Accumulator& a : acc) {
    double expected = 0, tolerance = 0;
    switch (c) {
      case Combiner::Sum:
        expected = isFloat ? a.sum : double(static_cast<int32_t>(a.wrapped));
        if (isFloat) tolerance = depth * kFloat32Rounding * a.absoluteSum + rounding * std::fabs(expected);
        break;
      case Combiner::Mean:
        expected = a.sum / double(reduceCount);
        tolerance = depth * kFloat32Rounding * a.absoluteSum / double(reduceCount) +
                    (kFloat32Rounding + rounding) * std::fabs(expected);
        break;
      case Combiner::Prod:
        expected = isFloat ? a.product : double(static_cast<int32_t>(a.wrapped));
        if (isFloat) tolerance = (double(reduceCount - 1) * kFloat32Rounding + rounding) * std::fabs(expected);
        break;
      case Combiner::Max:
      case Combiner::Min: expected = a.bestIndex < 0 ? NAN : a.best; break;
      case Combiner::ArgMax:
      case Combiner::ArgMin: expected = double(std::max<int64_t>(a.bestIndex, 0)); break;
      case Combiner::Any:
      case Combiner::All: expected = a.flag ? 1 : 0; break;
    }
    ref.expected.push_back(expected);
    ref.tolerance.push_back(tolerance);
  }
  return ref;
}

std::optional<std::string> compareWithReference(const ReductionReference& reference,
                                                const std::vector<uint8_t>& actual) {
  const int64_t count = static_cast<int64_t>(reference.expected.size());
  const int64_t held = static_cast<int64_t>(actual.size()) / scalarBytes(reference.outputKind);
  if (held != count)
    return fmt::format("the output holds {} elements of {}, expected {}", held, ir::scalarName(reference.outputKind),
                       count);
  int64_t differing = 0;
  std::string first;
  for (int64_t i = 0; i < count; ++i) {
    const double got = readElement(actual, reference.outputKind, i);
    const double want = reference.expected[i], tolerance = reference.tolerance[i];
    const bool ok = tolerance == 0 ? got == want : std::fabs(got - want) <= tolerance;
    if (ok) continue;
    if (differing++ == 0)
      first = fmt::format("first at {}: got {}, expected {} (tolerance {})",
                          coordinatesText(reference.outputShape, i), got, want, tolerance);
  }
  if (differing == 0) return std::nullopt;
  return fmt::format("{} of {} output{} {}; {}", differing, count, count == 1 ? "" : "s",
                     differing == 1 ? "differs" : "differ", first);
}

}  // namespace tmetal::graph
