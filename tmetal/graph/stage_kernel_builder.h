// Writes the TTIR of one reduction stage from its design: the structure a
// kernel has (tile, vector width, combiner, types, how many dimensions each
// index walk has, how many trips each thread makes when they are written
// out). Everything else, the sizes and strides of one shape, is a scalar
// argument, so equal designs give equal kernels. reduction_kernels.cpp
// derives the designs and the argument values from a plan.
//
// Scalar arguments the kernels read, by name (walk W contributes W_stride_k
// for k = 0 .. dims-1, outermost first, and W_size_k for k >= 1: the
// outermost coordinate is the index divided by the inner sizes):
//   both shapes   n_outputs, splits, iterations (unless the trips are
//                 written out); `count` (f32) for mean's
//                 division; walks `pos` (plan output -> position in the
//                 output tensor) and, for arg-reductions reading the input,
//                 `idx` (reduce index -> the index argmax reports)
//   Rows          outputs_per_block, lanes, row_vectors; walks `out` (plan
//                 output -> its first element, in vectors) and `red` (vector
//                 of the row -> its offset, in vectors)
//   Columns       run_outputs, run_vectors, blocks_per_run, lanes_x,
//                 threads_y, reduce_rows; walks `run` (run of outputs -> its
//                 offset, in vectors) and `red` (reduce row -> its offset,
//                 in vectors)
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tmetal/graph/combiner_ir.h"
#include "tmetal/graph/reduction_kernels.h"

namespace tmetal::graph {

struct StageDesign {
  std::string name;
  StageShape shape = StageShape::Rows;
  Combiner combiner = Combiner::Sum;
  bool readsInput = true;        // stage 0: raw input elements; stage 1: partials (and their indices)
  bool writesPartials = false;   // stage 0 of a two-stage plan
  bool divideByCount = false;    // mean's last stage
  ir::ScalarKind readKind = ir::ScalarKind::F32;         // elements of the value buffer read
  ir::ScalarKind accumulatorKind = ir::ScalarKind::F32;
  ir::ScalarKind writeKind = ir::ScalarKind::F32;        // elements of the buffer written
  int vectorWidth = 1;
  // The tile one program holds, both powers of two: Rows: outputs of a
  // block x (lanes x vectorWidth); Columns: threadsY x (threadsX x vectorWidth).
  int64_t tileRows = 1;
  int64_t tileColumns = 1;
  // Columns: the loads of a trip that are combined with one another before
  // the accumulators, each of tileRows / rowLoads rows of the tile (thread
  // row y reads rows k * tileRows / rowLoads + y); 1: one accumulator per
  // row of the tile.
  int rowLoads = 1;
  // Trips every thread makes (ReductionStage::iterations), written out one
  // after another when writeOutTrips holds (ReductionStage::tripsWrittenOut),
  // else an scf.for over the `iterations` argument.
  int64_t trips = 1;
  bool writeOutTrips = true;
  int outerWalkDims = 0;   // Rows: `out`; Columns: `run`
  int reduceWalkDims = 0;  // `red`
  int positionWalkDims = 0;
  int indexWalkDims = 0;
  // Stage 0 of an arg-reduction whose `idx` walk increases with the reduce
  // index: each accumulator then meets its pairs in index order
  // (combineInIndexOrder), since trips advance every slot's reduce index.
  bool indicesIncrease = false;

  bool carriesIndex() const { return combinerCarriesIndex(combiner); }
  bool combinesInIndexOrder() const {
    return indicesIncrease && readsInput && graph::combinesInIndexOrder(combiner, accumulatorKind);
  }
};

// The buffers, in argument order, a stage of this design takes.
std::vector<StageBuffer> stageBuffers(const StageDesign& design);

// The module with the stage's kernel; `scalars` gives the scalar arguments
// in order (names as listed above); walk strides equal to 1 are folded into
// the code, every other value is an argument.
std::unique_ptr<ir::Module> buildStageModule(const StageDesign& design, const std::vector<StageScalar>& scalars);

}  // namespace tmetal::graph
