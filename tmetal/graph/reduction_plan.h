// A reduction plan: which kernels run, with what launch geometry, and the
// exact index mapping those kernels use. It is plain data, produced by
// planReduction() (reduction_planner.h) and consumed unchanged by the printer
// and by kernel generation, so the analyzer shows what really runs.
//
// Vocabulary. The input's dimensions of size > 1 split into kept dimensions
// (the output space, O = product of their sizes) and reduced dimensions (the
// reduce space, R = product). A plan output o in [0, O) and a reduce index r
// in [0, R) name one input element. Each stage performs `outputs`
// reductions of `reduceCount` elements; stage 0 reads the input; when the
// plan has two stages, stage 0 writes `splits` partials per output and
// stage 1 reduces them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tmetal/graph/combiner.h"
#include "tmetal/ir/type.h"
#include "tmetal/layout/policy.h"

namespace tmetal::graph {

enum class ReductionKind {
  All,      // every dimension is reduced: one output
  Row,      // the unit-stride run is reduced: lanes split each output's row
  Column,   // the unit-stride run is kept: lanes split neighbouring outputs
  General,  // no dimension has unit stride: lanes gather single elements
};
const char* reductionKindName(ReductionKind k);  // "all", "row", "column", "general"

// How a stage spreads its work over the threads of a threadgroup. Each loop
// trip a thread issues `loadsPerTrip()` vector loads that do not depend on
// one another, so that several are in flight at once: a GPU issues in order
// and a load's first use waits for it, so one load per trip leaves the
// memory system underused whenever occupancy alone cannot hide latency.
enum class StageShape {
  // Threads [j*lanes, (j+1)*lanes) of a threadgroup reduce output slot j of
  // the threadgroup's block. The row is read in sweeps of
  // lanes*vectorsPerTrip vectors; split s takes sweeps s, s+splits, ...; on a
  // sweep, lane l reads vectors k*lanes + l for k < vectorsPerTrip. Short
  // rows instead give each thread `outputsPerThread` outputs: slot j covers
  // outputs k*(threads/lanes) + j of the block for k < outputsPerThread.
  Rows,
  // Thread (x, y) owns `vectorWidth` neighbouring outputs starting at column
  // x*vectorWidth of the block. The reduce rows are read in sweeps of
  // threadsY*vectorsPerTrip rows; split s takes sweeps s, s+splits, ...; on a
  // sweep, thread row y reads rows k*threadsY + y for k < vectorsPerTrip. The
  // threadgroup's rows are then combined.
  Columns,
};
const char* stageShapeName(StageShape s);  // "rows", "columns"

// How much work the planner gives each thread. The defaults were chosen by
// timing the stage kernels through the CUDA target (docs/planner.md, "Work per
// thread"); TMETAL_PLAN_TUNING overrides them, e.g. "loads=8,vectors=16,threads=256".
struct PlanTuning {
  int loadsPerTrip = 2;       // "loads": independent vector loads per thread per loop trip
  int vectorsPerThread = 8;   // "vectors": vectors a lane of a long row reads before more lanes join it
  int maxThreads = 512;       // "threads": threads per threadgroup at most (the profile's limit also applies)
  // "resident": threadgroups per core the first stage asks for (what a core
  // can hold at most); 0: the planner's rule.
  int residentThreadgroups = 0;
  // "waves": how many waves of threadgroups a split stage launches (its
  // partials per output grow with it).
  int splitWaves = 1;
  // "lanes": the fewest lanes (of a 16-byte vector each) along the outputs
  // of a column stage whose output blocks are too few for one wave, i.e.
  // the narrowest row segment its threadgroups read; 0: the planner's rule
  // (8, or 16 for a split stage of a sum, maximum or the like).
  int columnLanes = 0;

  std::string text() const;  // "loads=2,vectors=8,threads=512" (",resident=N", ",waves=N", ",lanes=N" when set)
};

// One element a thread reads: which output, which reduce index of this
// stage, and which partial slot of that output it accumulates into.
struct StageElement {
  int64_t output = 0;
  int64_t reduce = 0;
  int64_t partial = 0;
};

struct ReductionStage {
  std::string kernel;  // variant name, e.g. "row_reduce_lanes_per_row"
  StageShape shape = StageShape::Rows;
  int64_t outputs = 0;       // reductions this stage performs
  int64_t reduceCount = 0;   // elements combined per output by this stage
  int64_t innerOutputs = 1;  // Columns: length of the contiguous output run
  int vectorWidth = 1;       // elements per vector load
  int lanesPerOutput = 1;    // Rows: threads sharing one output
  int vectorsPerTrip = 1;    // Rows: vectors per lane per trip along the row; Columns: rows per thread per trip
  int outputsPerThread = 1;  // Rows: outputs each thread reads per trip (short rows)
  int threadsX = 1;          // Rows: threads per threadgroup; Columns: lanes along outputs
  int threadsY = 1;          // Columns: threads along the reduction
  int threadgroupSize = 1;   // threadsX * threadsY
  int simdgroupsPerThreadgroup = 1;
  int64_t outputsPerThreadgroup = 1;  // Rows: outputs of one block (slots x outputsPerThread); Columns: threadsX * vectorWidth
  int64_t outputBlocks = 1;           // blocks of outputs
  int64_t splits = 1;                 // threadgroups sharing one block: partials per output
  int64_t sweeps = 0;                 // sweeps over one output's reduction (see StageShape)
  int64_t threadgroups = 0;           // the grid: outputBlocks * splits, threadgroup g = block * splits + split
  int64_t iterations = 0;             // loop trips per thread
  // The trips are written out one after another in the kernel (a constant
  // count, no loop), so that the compilers see every load at once and can
  // issue later trips' loads while earlier ones are combined; otherwise a
  // loop over a trip count argument (docs/planner.md, "Trips written out").
  bool tripsWrittenOut = false;
  int64_t elementsPerThread = 0;      // iterations * loadsPerTrip() * vectorWidth (at most)
  int accumulatorBytes = 0;
  int64_t threadgroupMemoryBytes = 0;  // for combining threads of one threadgroup
  std::string combine;                 // how the threads of one output combine, in words
  // Threadgroups each core should hold at once (codegen::CompileOptions);
  // 0: no minimum, the target compiler's choice of registers.
  int minThreadgroupsPerCore = 0;

  // Independent vector loads per thread per loop trip.
  int loadsPerTrip() const { return vectorsPerTrip * outputsPerThread; }

  // The element thread `thread` of threadgroup `threadgroup` reads at loop
  // trip `iteration`, load `load` of the trip, vector lane `lane`; nullopt
  // when that slot is masked off (past the end of the reduction or of the
  // outputs). Threads are numbered as the plan arranges its tile; the code
  // generator's layout decides which hardware thread holds each tile slot
  // (kernel metadata, `tmetal analyze`), the elements of a trip stay these.
  std::optional<StageElement> locate(int64_t threadgroup, int64_t thread, int64_t iteration, int load,
                                     int lane) const;
};

// A list of input dimensions linearized row-major in the listed order (the
// last one varies fastest).
struct DimSpace {
  std::vector<int> dims;
  std::vector<int64_t> sizes;
  int64_t count() const;
  // The coordinate of each listed dimension for a linear index.
  std::vector<int64_t> coordinates(int64_t index) const;
};

struct ReductionPlan {
  // What is reduced.
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements
  std::vector<int> axes;         // sorted, unique, non-negative
  ir::ScalarKind dtype = ir::ScalarKind::F32;
  Combiner combiner = Combiner::Sum;
  std::string hardware;  // profile id the plan was made for
  PlanTuning tuning;     // the work-per-thread settings it was made with

  ReductionKind kind = ReductionKind::All;
  layout::PolicyChoice layout;  // always COALESCED
  DimSpace outputSpace;         // kept dimensions in plan order
  DimSpace reduceSpace;         // reduced dimensions, the contiguous run fastest
  int64_t outputCount = 1;      // O
  int64_t reduceCount = 1;      // R
  ir::ScalarKind accumulator = ir::ScalarKind::F32;

  std::vector<ReductionStage> stages;  // one, or two when partials are combined
  std::vector<std::string> decisions;  // why, step by step

  // Cost figures from the profile.
  int64_t inputBytes = 0;
  double dramMicroseconds = 0;  // inputBytes at peak DRAM bandwidth: a lower bound
  bool fitsInLastLevelCache = false;

  bool twoStage() const { return stages.size() == 2; }
  int64_t partialsPerOutput() const { return stages.front().splits; }

  // Stage 0: the input element of (plan output, reduce index), as a
  // row-major index into the logical input shape, and as a memory offset
  // through the strides.
  int64_t inputIndex(int64_t output, int64_t reduce) const;
  int64_t inputOffset(int64_t output, int64_t reduce) const;
  // Row-major index into the output tensor (reduced dimensions removed) of a
  // plan output.
  int64_t logicalOutput(int64_t output) const;
  // Where stage 0 writes partial `partial` of `output` and stage 1 reads it:
  // [output][partial] for Rows plans, [partial][output] for Columns plans,
  // so both stages access it contiguously.
  int64_t partialOffset(int64_t output, int64_t partial) const;
};

}  // namespace tmetal::graph
