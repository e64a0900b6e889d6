// Kernels for a reduction plan: one TTIR module per stage, built with
// ir::Builder in the form Triton itself produces (a public tt.func whose
// pointer arguments carry tt.divisibility, tt.get_program_id, tt.make_range,
// masked tt.load, an scf.for over the plan's loop trips, a tt.reduce with a
// combiner region, masked tt.store), so the code generator compiles them
// like any user kernel, under the plan's layout policy (COALESCED).
//
// Every kernel follows the plan's index mapping (ReductionStage::locate,
// ReductionPlan::inputOffset / partialOffset / logicalOutput) element for
// element: the tile of a program is indexed by (thread, vector lane) exactly
// as locate() numbers them, padded to powers of two where the plan's
// counts are not (Triton tensors must be); the padding is masked off.
// Sizes and strides are scalar arguments, so one compiled kernel serves
// every shape with the same tile and the same number of dimensions.
// docs/planner.md ("From plans to kernels") shows a stage's TTIR.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tmetal/graph/reduction_plan.h"
#include "tmetal/ir/module.h"

namespace tmetal::graph {

// The buffers a stage kernel takes, in argument order.
enum class StageBuffer {
  Input,           // the tensor being reduced (read)
  PartialValues,   // stage 0 writes them, stage 1 reads them: plan.partialOffset()
  PartialIndices,  // arg-reductions: the index of each partial value
  Output,          // the result, row-major over the kept dimensions
};
const char* stageBufferName(StageBuffer b);  // "input", "partial_values", ...

struct StageScalar {
  std::string name;
  ir::ScalarKind kind = ir::ScalarKind::I32;
  int64_t intValue = 0;    // integer scalars
  double floatValue = 0;   // float scalars
};

struct StageKernel {
  std::unique_ptr<ir::Module> module;  // one public tt.func
  std::string name;                    // the tt.func's name, e.g. "sum_f32_rows_partials"
  std::vector<StageBuffer> buffers;    // the first arguments
  std::vector<StageScalar> scalars;    // the arguments after the buffers
  int64_t threadgroups = 0;            // a 1-D grid, as the plan's stage
  int numWarps = 1;                    // SIMD groups per threadgroup to compile for
  // Threadgroups a core should hold at once (CompileOptions), always passed
  // on; 0: no minimum, the target compiler's choice of registers.
  int minThreadgroupsPerCore = 0;
};

struct ReductionKernels {
  std::vector<StageKernel> stages;  // as plan.stages
  ir::ScalarKind inputKind = ir::ScalarKind::F32;  // plan.dtype
  ir::ScalarKind outputKind = ir::ScalarKind::F32;
  int64_t outputElements = 0;  // plan.outputCount
  ir::ScalarKind partialKind = ir::ScalarKind::F32;  // two-stage plans: the partial values
  int64_t partialElements = 0;                       // outputs x partials per output; 0 for one stage
};

// The element type of a reduction's result: the input type for sum, mean,
// prod, max and min (accumulated wider, rounded once at the end); int32
// indices for argmax and argmin (as Triton's); int8 holding 0 or 1 for any
// and all (a bool array's bytes).
ir::ScalarKind reductionOutputKind(Combiner c, ir::ScalarKind input);

// Builds every stage's kernel. Throws CompileError for what the kernels do
// not cover: input types other than float32, float16, bfloat16 and int32,
// mean of integers, and offsets or indices beyond int32.
ReductionKernels buildReductionKernels(const ReductionPlan& plan);

}  // namespace tmetal::graph
