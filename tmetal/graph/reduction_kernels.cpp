#include "tmetal/graph/reduction_kernels.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "tmetal/graph/index_walk.h"
#include "tmetal/graph/op_analysis.h"
#include "tmetal/graph/reduction_inputs.h"
#include "tmetal/graph/stage_kernel_builder.h"
#include "tmetal/support/diagnostic.h"
#include "tmetal/support/power_of_two.h"

namespace tmetal::graph {

using ir::ScalarKind;

const char* stageBufferName(StageBuffer b) {
  switch (b) {
    case StageBuffer::Input: return "input";
    case StageBuffer::PartialValues: return "partial_values";
    case StageBuffer::PartialIndices: return "partial_indices";
    case StageBuffer::Output: return "output";
  }
  return "?";
}

ScalarKind reductionOutputKind(Combiner c, ScalarKind input) {
  if (combinerCarriesIndex(c)) return ScalarKind::I32;
  if (c == Combiner::Any || c == Combiner::All) return ScalarKind::I8;
  return input;
}

namespace {

// Offsets and indices are int32 in the kernels, as in Triton kernels that
// do not ask for 64-bit offsets. Masked-off lanes compute indices up to
// about twice the largest real one, so the real ones stay below 2^30.
constexpr int64_t kLargestIndex = int64_t{1} << 30;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

void checkPowerOfTwo(int64_t v, const char* what) {
  if (!isPowerOfTwo(v))
    throw std::logic_error(std::string("reduction plan: ") + what + " is " + std::to_string(v) +
                           ", not a power of two the stage kernel's tile can hold");
}

void checkSupported(const ReductionPlan& plan) {
  const ScalarKind k = plan.dtype;
  if (k != ScalarKind::F32 && k != ScalarKind::F16 && k != ScalarKind::BF16 && k != ScalarKind::I32)
    throw CompileError("graph reduction kernels take float32, float16, bfloat16 or int32 inputs, not " +
                       dtypeName(k));
  if (plan.combiner == Combiner::Mean && !ir::isFloatKind(k))
    throw CompileError("mean of " + dtypeName(k) + " is not defined (as in torch, a mean needs a float input)");
  // Partials (outputs x splits) never outnumber the elements: splits <= sweeps.
  const int64_t span = inputSpan(plan);
  const int64_t elements = plan.outputCount * plan.reduceCount;
  if (span > kLargestIndex || elements > kLargestIndex)
    throw CompileError("the input has " + std::to_string(elements) + " elements spanning " + std::to_string(span) +
                       "; graph reduction kernels use 32-bit offsets and indices, so at most 2^30 of each");
}

// Row-major strides over either the kept dimensions (reduced = false: the
// output tensor's strides) or the reduced ones (reduced = true: the index
// argmax reports), in logical order; 0 for the other dimensions.
std::vector<int64_t> selectedStrides(const ReductionPlan& plan, bool reduced) {
  std::vector<int64_t> strides(plan.shape.size(), 0);
  int64_t stride = 1;
  for (int d = static_cast<int>(plan.shape.size()) - 1; d >= 0; --d) {
    if (std::binary_search(plan.axes.begin(), plan.axes.end(), d) != reduced) continue;
    strides[d] = stride;
    stride *= plan.shape[d];
  }
  return strides;
}

std::vector<int64_t> pick(const std::vector<int64_t>& perDim, const std::vector<int>& dims) {
  std::vector<int64_t> out;
  for (int d : dims) out.push_back(perDim[d]);
  return out;
}

void addScalar(std::vector<StageScalar>& scalars, const std::string& name, int64_t value) {
  scalars.push_back({name, ScalarKind::I32, value, 0.0});
}

void addWalk(std::vector<StageScalar>& scalars, const std::string& prefix, const IndexWalk& walk) {
  for (int k = 0; k < walk.dims(); ++k) {
    // The outermost coordinate is the index divided by the inner sizes; its
    // own size is never needed.
    if (k > 0) addScalar(scalars, prefix + "_size_" + std::to_string(k), walk.sizes[k]);
    addScalar(scalars, prefix + "_stride_" + std::to_string(k), walk.strides[k]);
  }
}

// What every stage of a plan shares: where a plan output lands in the
// output tensor, and the index argmax reports for a reduce index.
struct PlanWalks {
  IndexWalk positions;
  IndexWalk indices;
};

PlanWalks planWalks(const ReductionPlan& plan) {
  PlanWalks w;
  w.positions = simplifyWalk(plan.outputSpace.sizes, pick(selectedStrides(plan, false), plan.outputSpace.dims));
  w.indices = simplifyWalk(plan.reduceSpace.sizes, pick(selectedStrides(plan, true), plan.reduceSpace.dims));
  return w;
}

std::string kernelName(const ReductionPlan& plan, const ReductionStage& stage, size_t index) {
  std::string name = std::string(combinerName(plan.combiner)) + "_" + ir::scalarName(plan.dtype) + "_" +
                     stageShapeName(stage.shape);
  if (plan.twoStage()) name += index == 0 ? "_partials" : "_combine";
  return name;
}

StageKernel buildStage(const ReductionPlan& plan, size_t index, const PlanWalks& walks) {
  const ReductionStage& stage = plan.stages[index];
  const bool first = index == 0;
  const bool last = index + 1 == plan.stages.size();
  const int64_t splits = plan.partialsPerOutput();
  const int width = stage.vectorWidth;

  StageDesign d;
  d.name = kernelName(plan, stage, index);
  d.shape = stage.shape;
  d.combiner = plan.combiner;
  d.readsInput = first;
  d.writesPartials = !last;
  d.divideByCount = last && plan.combiner == Combiner::Mean;
  d.accumulatorKind = plan.accumulator;
  // Partials hold accumulators; arg-reductions keep the input's values.
  d.readKind = first ? plan.dtype : plan.accumulator;
  d.writeKind = last ? reductionOutputKind(plan.combiner, plan.dtype) : plan.accumulator;
  d.vectorWidth = width;

  // The memory walks, in vectors: stage 0 reads the input through the
  // plan's output and reduce spaces, stage 1 the partials, laid out as
  // plan.partialOffset() says ([output][partial] after rows, [partial][output]
  // after columns).
  IndexWalk outer, reduce;
  if (stage.shape == StageShape::Rows) {
    outer = first ? simplifyWalk(plan.outputSpace.sizes, pick(plan.strides, plan.outputSpace.dims))
                  : simplifyWalk({plan.outputCount}, {splits});
    reduce = first ? simplifyWalk(plan.reduceSpace.sizes, pick(plan.strides, plan.reduceSpace.dims))
                   : simplifyWalk({splits}, {1});
    outer = stridesInVectors(outer, width);
    reduce = vectorizeRun(reduce, width);
  } else {
    // Columns: a plan output is (run, column); the column walks the
    // contiguous run, so only the dimensions outside it need a walk.
    std::vector<int64_t> runSizes, runStrides;
    if (first) {
      const std::vector<int>& run = plan.layout.contiguousDims;
      for (size_t k = 0; k < plan.outputSpace.dims.size(); ++k) {
        const int dim = plan.outputSpace.dims[k];
        if (std::find(run.begin(), run.end(), dim) != run.end()) continue;
        runSizes.push_back(plan.outputSpace.sizes[k]);
        runStrides.push_back(plan.strides[dim]);
      }
    }
    outer = stridesInVectors(simplifyWalk(runSizes, runStrides), width);
    reduce = first ? simplifyWalk(plan.reduceSpace.sizes, pick(plan.strides, plan.reduceSpace.dims))
                   : simplifyWalk({splits}, {plan.outputCount});
    reduce = stridesInVectors(reduce, width);
  }
  d.outerWalkDims = outer.dims();
  d.reduceWalkDims = reduce.dims();
  d.positionWalkDims = last ? walks.positions.dims() : 0;
  d.indexWalkDims = first && d.carriesIndex() ? walks.indices.dims() : 0;
  d.indicesIncrease = first && walks.indices.increasing();

  std::vector<StageScalar> scalars;
  addScalar(scalars, "n_outputs", stage.outputs);
  // The tile is one trip of the threadgroup: lanes (or threads along the
  // rows) times the loads of a trip, all powers of two.
  checkPowerOfTwo(stage.lanesPerOutput, "lanes per output");
  checkPowerOfTwo(stage.threadsY, "threads along the rows");
  checkPowerOfTwo(stage.loadsPerTrip(), "loads per trip");
  if (stage.shape == StageShape::Rows) {
    const int64_t sweepVectors = int64_t(stage.lanesPerOutput) * stage.vectorsPerTrip;
    d.tileRows = nextPowerOfTwo(stage.outputsPerThreadgroup);
    d.tileColumns = sweepVectors * width;
    addScalar(scalars, "outputs_per_block", stage.outputsPerThreadgroup);
    addScalar(scalars, "sweep_vectors", sweepVectors);
    addScalar(scalars, "row_vectors", stage.reduceCount / width);
  } else {
    checkPowerOfTwo(stage.threadsX, "lanes along the run");
    d.tileRows = int64_t(stage.threadsY) * stage.vectorsPerTrip;
    // Arg-reductions combine a trip's loads before the accumulators (one
    // value and one index register per load saved); the others keep an
    // accumulator per load, which measured faster for them on the H200
    // (docs/planner.md, "Column stages").
    d.rowLoads = d.carriesIndex() ? stage.vectorsPerTrip : 1;
    d.tileColumns = int64_t(stage.threadsX) * width;
    addScalar(scalars, "run_outputs", stage.innerOutputs);
    addScalar(scalars, "run_vectors", stage.innerOutputs / width);
    addScalar(scalars, "blocks_per_run", ceilDiv(stage.innerOutputs, int64_t(stage.threadsX) * width));
    addScalar(scalars, "lanes_x", stage.threadsX);
    addScalar(scalars, "sweep_rows", d.tileRows);
    addScalar(scalars, "reduce_rows", stage.reduceCount);
  }
  addScalar(scalars, "splits", stage.splits);
  d.trips = stage.iterations;
  d.writeOutTrips = stage.tripsWrittenOut;
  if (!d.writeOutTrips) addScalar(scalars, "iterations", stage.iterations);
  addWalk(scalars, stage.shape == StageShape::Rows ? "out" : "run", outer);
  addWalk(scalars, "red", reduce);
  if (d.positionWalkDims) addWalk(scalars, "pos", walks.positions);
  if (d.indexWalkDims) addWalk(scalars, "idx", walks.indices);
  if (d.divideByCount) scalars.push_back({"count", ScalarKind::F32, 0, double(plan.reduceCount)});

  StageKernel k;
  k.module = buildStageModule(d, scalars);
  k.name = d.name;
  k.buffers = stageBuffers(d);
  k.scalars = std::move(scalars);
  k.threadgroups = stage.threadgroups;
  // Threads the tile needs (each holds one trip's loads), in whole SIMD
  // groups; the code generator takes powers of two up to 32.
  const int64_t threads = d.tileRows * d.tileColumns / (int64_t(width) * stage.loadsPerTrip());
  k.numWarps = static_cast<int>(std::clamp<int64_t>(threads / 32, 1, 32));
  k.minThreadgroupsPerCore = stage.minThreadgroupsPerCore;
  return k;
}

}  // namespace

ReductionKernels buildReductionKernels(const ReductionPlan& plan) {
  checkSupported(plan);
  const PlanWalks walks = planWalks(plan);
  ReductionKernels kernels;
  for (size_t i = 0; i < plan.stages.size(); ++i) kernels.stages.push_back(buildStage(plan, i, walks));
  kernels.inputKind = plan.dtype;
  kernels.outputKind = reductionOutputKind(plan.combiner, plan.dtype);
  kernels.outputElements = plan.outputCount;
  kernels.partialKind = plan.accumulator;
  kernels.partialElements = plan.twoStage() ? plan.outputCount * plan.partialsPerOutput() : 0;
  return kernels;
}

}  // namespace tmetal::graph
