// The index mapping of a reduction plan: which element every thread reads.
// This is the arithmetic the generated kernels perform, written once here so
// that the coverage test checks the same code the kernels are made from.
#include <algorithm>

#include "tmetal/graph/reduction_plan.h"

namespace tmetal::graph {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

const char* reductionKindName(ReductionKind k) {
  switch (k) {
    case ReductionKind::All: return "all";
    case ReductionKind::Row: return "row";
    case ReductionKind::Column: return "column";
    case ReductionKind::General: return "general";
  }
  return "?";
}

const char* stageShapeName(StageShape s) { return s == StageShape::Rows ? "rows" : "columns"; }

std::optional<StageElement> ReductionStage::locate(int64_t threadgroup, int64_t thread, int64_t iteration, int load,
                                                   int lane) const {
  if (threadgroup < 0 || threadgroup >= threadgroups || thread < 0 || thread >= threadgroupSize || iteration < 0 ||
      iteration >= iterations || load < 0 || load >= loadsPerTrip() || lane < 0 || lane >= vectorWidth)
    return std::nullopt;
  const int64_t block = threadgroup / splits;
  const int64_t split = threadgroup % splits;
  // Splits interleave by sweep, so they finish within one sweep of each other.
  const int64_t sweep = iteration * splits + split;

  if (shape == StageShape::Rows) {
    const int64_t slotsPerThreadgroup = threadgroupSize / lanesPerOutput;
    const int64_t slot = (load / vectorsPerTrip) * slotsPerThreadgroup + thread / lanesPerOutput;
    const int64_t laneOfOutput = thread % lanesPerOutput;
    const int64_t output = block * outputsPerThreadgroup + slot;
    if (slot >= outputsPerThreadgroup || output >= outputs) return std::nullopt;
    const int64_t vectors = reduceCount / vectorWidth;
    const int64_t vector = (sweep * vectorsPerTrip + load % vectorsPerTrip) * lanesPerOutput + laneOfOutput;
    if (vector >= vectors) return std::nullopt;
    return StageElement{output, vector * vectorWidth + lane, split};
  }

  // Columns: blocks tile the contiguous output run; a block never crosses
  // from one run to the next, so a vector never mixes two runs.
  const int64_t blockWidth = int64_t(threadsX) * vectorWidth;
  const int64_t blocksPerRun = ceilDiv(innerOutputs, blockWidth);
  const int64_t run = block / blocksPerRun;
  const int64_t blockInRun = block % blocksPerRun;
  const int64_t x = thread % threadsX;
  const int64_t y = thread / threadsX;
  const int64_t column = blockInRun * blockWidth + x * vectorWidth + lane;
  if (column >= innerOutputs) return std::nullopt;
  const int64_t reduce = (sweep * vectorsPerTrip + load) * threadsY + y;
  if (reduce >= reduceCount) return std::nullopt;
  return StageElement{run * innerOutputs + column, reduce, split};
}

int64_t DimSpace::count() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

std::vector<int64_t> DimSpace::coordinates(int64_t index) const {
  std::vector<int64_t> coords(sizes.size());
  for (int i = static_cast<int>(sizes.size()) - 1; i >= 0; --i) {
    coords[i] = index % sizes[i];
    index /= sizes[i];
  }
  return coords;
}

namespace {

// Full input coordinates (size-1 dimensions stay 0) of (output, reduce).
std::vector<int64_t> inputCoordinates(const ReductionPlan& p, int64_t output, int64_t reduce) {
  std::vector<int64_t> coords(p.shape.size(), 0);
  std::vector<int64_t> o = p.outputSpace.coordinates(output);
  for (size_t i = 0; i < o.size(); ++i) coords[p.outputSpace.dims[i]] = o[i];
  std::vector<int64_t> r = p.reduceSpace.coordinates(reduce);
  for (size_t i = 0; i < r.size(); ++i) coords[p.reduceSpace.dims[i]] = r[i];
  return coords;
}

}  // namespace

int64_t ReductionPlan::inputIndex(int64_t output, int64_t reduce) const {
  std::vector<int64_t> coords = inputCoordinates(*this, output, reduce);
  int64_t index = 0;
  for (size_t d = 0; d < shape.size(); ++d) index = index * shape[d] + coords[d];
  return index;
}

int64_t ReductionPlan::inputOffset(int64_t output, int64_t reduce) const {
  std::vector<int64_t> coords = inputCoordinates(*this, output, reduce);
  int64_t offset = 0;
  for (size_t d = 0; d < shape.size(); ++d) offset += coords[d] * strides[d];
  return offset;
}

int64_t ReductionPlan::logicalOutput(int64_t output) const {
  std::vector<int64_t> coords = inputCoordinates(*this, output, 0);
  int64_t index = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    if (!std::binary_search(axes.begin(), axes.end(), static_cast<int>(d))) index = index * shape[d] + coords[d];
  return index;
}

int64_t ReductionPlan::partialOffset(int64_t output, int64_t partial) const {
  const int64_t partials = stages.front().splits;
  if (stages.front().shape == StageShape::Rows) return output * partials + partial;
  return partial * outputCount + output;
}

}  // namespace tmetal::graph
