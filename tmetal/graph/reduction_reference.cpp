#include "tmetal/graph/reduction_reference.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "tmetal/graph/host_elements.h"
#include "tmetal/graph/reduction_kernels.h"
#include "tmetal/ir/float_bits.h"

namespace tmetal::graph {

namespace {

constexpr double kFloat32Rounding = 0x1.0p-24;  // half an ulp of float32, relative

// How many times a float32 accumulator may round on an element's way to the
// result, in any combining order a device may use: per stage the loop trips,
// then the tt.reduce over the tile, which may combine the elements of one
// output one after another (the interpreter does): lanes x vector width for
// rows, the threads along the reduction for columns.
double roundingDepth(const ReductionPlan& plan) {
  double depth = 0;
  for (const ReductionStage& s : plan.stages)
    depth += double(s.iterations) +
             double(s.shape == StageShape::Rows ? int64_t(s.lanesPerOutput) * s.vectorWidth : s.threadsY);
  return depth;
}

// The exponent of the lowest set bit of x (x = odd * 2^result); 0 for x == 0.
int lowestBitExponent(double x) {
  if (x == 0 || !std::isfinite(x)) return 0;
  int exponent = 0;
  const double mantissa = std::frexp(std::fabs(x), &exponent);  // x = mantissa * 2^exponent
  uint64_t bits = static_cast<uint64_t>(std::ldexp(mantissa, 53));
  int trailing = 0;
  while ((bits & 1) == 0) bits >>= 1, ++trailing;
  return exponent - 53 + trailing;
}

struct Accumulator {
  double sum = 0;
  double absoluteSum = 0;
  int finestBit = 0;            // the smallest lowestBitExponent of the terms
  int64_t exponentTravel = 0;   // products of powers of two: sum of |log2 |x||
  bool powersOfTwo = true;      // every factor is +-2^k or 0
  uint32_t wrapped = 0;  // int32 sums and products, modulo 2^32
  double product = 1;
  double best = 0;
  int64_t bestIndex = -1;
  bool flag = false;
};

// Every partial sum, in any order, is a multiple of 2^finestBit no larger
// than sum|x|: when that fits float32's 24-bit significand, float32 adds
// without rounding.
bool sumIsExact(const Accumulator& a) { return std::ldexp(a.absoluteSum, -a.finestBit) <= 0x1.0p24; }

// Products of powers of two are exact while no partial product leaves
// float32's normal range, which the total exponent travel bounds.
constexpr int64_t kFloat32ExponentRange = 125;

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
        a.finestBit = std::min(a.finestBit, lowestBitExponent(x));
        a.wrapped += xi;
        break;
      case Combiner::Prod: {
        a.product *= x;
        a.wrapped *= xi;
        int exponent = 0;
        const bool powerOfTwo = x == 0 || std::frexp(std::fabs(x), &exponent) == 0.5;
        a.powersOfTwo = a.powersOfTwo && powerOfTwo;
        a.exponentTravel += x == 0 ? 0 : std::abs(exponent - 1);
        break;
      }
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
  for (const Accumulator& a : acc) {
    double expected = 0, tolerance = 0;
    switch (c) {
      case Combiner::Sum:
        expected = isFloat ? a.sum : double(static_cast<int32_t>(a.wrapped));
        if (isFloat && !sumIsExact(a)) tolerance = depth * kFloat32Rounding * a.absoluteSum;
        break;
      case Combiner::Mean:
        expected = a.sum / double(reduceCount);
        tolerance = (sumIsExact(a) ? 0 : depth * kFloat32Rounding * a.absoluteSum / double(reduceCount)) +
                    kFloat32Rounding * std::fabs(expected);  // the division
        break;
      case Combiner::Prod:
        expected = isFloat ? a.product : double(static_cast<int32_t>(a.wrapped));
        if (isFloat && !(a.powersOfTwo && a.exponentTravel <= kFloat32ExponentRange))
          tolerance = double(reduceCount - 1) * kFloat32Rounding * std::fabs(expected);
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

namespace {

// Whether `got` is what rounding some value in [want - tolerance, want +
// tolerance] to `kind` can give: rounding is monotone, so those are the
// values between the rounded ends. It covers the last rounding to a narrow
// output type, underflow to zero and overflow to infinity included.
bool withinRounded(double got, double want, double tolerance, ir::ScalarKind kind) {
  return ir::roundToFloat(want - tolerance, kind) <= got && got <= ir::roundToFloat(want + tolerance, kind);
}

}  // namespace

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
    const bool ok = ir::isFloatKind(reference.outputKind) ? withinRounded(got, want, tolerance, reference.outputKind)
                                                          : got == want;
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
