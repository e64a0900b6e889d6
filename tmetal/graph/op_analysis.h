// Analysis of an ops graph: for every op, its checked shapes and axes, the
// layout policy it gets and, for reductions (softmax and layernorm too, which
// reduce along their axis), the plan from the reduction planner. Deciding is
// kept apart from printing (analysis_report.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tmetal/graph/graph_op.h"
#include "tmetal/graph/op_vocabulary.h"
#include "tmetal/graph/reduction_plan.h"
#include "tmetal/hw/hardware_selection.h"

namespace tmetal::graph {

enum class OpStatus {
  Analyzed,
  Unsupported,  // an op type outside the vocabulary
  Invalid,      // a known type with bad shapes, axes, dtype or fields
};
const char* opStatusName(OpStatus s);  // "ok", "unsupported", "invalid"

// One stage kernel of a plan as the code generator really compiled it: the
// kernel reduction_kernels builds (what `tmetal graph-run` runs), compiled
// with codegen::compileKernel for metal under COALESCED, the selected
// hardware profile and the stage's num_warps. The facts come from the
// compiled kernel's metadata, not from the plan.
struct CompiledStage {
  std::string kernel;  // the tt.func's name, e.g. "sum_f32_rows"
  int numWarps = 0;
  std::string error;   // why there is no compiled kernel; empty when compiled
  int threadsPerThreadgroup = 0;
  int64_t threadgroupMemoryBytes = 0;
  std::string policy;  // the layout policy the code generator applied
  // metadata.layouts["reductions"]: per tt.reduce, registers_per_thread,
  // lanes {count, combine}, simd_groups {count, combine}, axis, layout.
  nlohmann::json reductions = nlohmann::json::array();
  bool compiled() const { return error.empty(); }
};

struct OpAnalysis {
  GraphOp op;  // as read
  OpStatus status = OpStatus::Analyzed;
  std::string error;  // why it was not analyzed (no location)

  const OpInfo* info = nullptr;
  ir::ScalarKind dtype = ir::ScalarKind::F32;
  std::vector<int64_t> strides;  // of the first input, resolved
  std::vector<int> axes;         // reductions, softmax, layernorm: sorted, non-negative
  std::vector<int64_t> outputShape;
  layout::PolicyChoice layout;
  std::optional<ReductionPlan> plan;
  std::string note;  // what the plan stands for when the op is more than a reduction
  // With a plan: its stage kernels as compiled, one per plan stage (or one
  // entry with the error when the kernels could not be built).
  std::vector<CompiledStage> compiled;

  bool isReduction() const { return info && info->isReduction(); }
  // "file:line:col: error: ops[1] 'x' (tt.foo): unsupported op type 'tt.foo'"
  std::string diagnostic() const;
};

struct AnalysisSummary {
  int ops = 0;
  int analyzed = 0;
  int unsupported = 0;
  int invalid = 0;
  int reductions = 0;            // analyzed reduction ops
  int coalescedReductions = 0;   // of those, how many got COALESCED
  std::map<layout::MemoryLayout, int> layoutCounts;  // analyzed ops per policy, every policy present
  double coalescedCoverage() const { return reductions ? double(coalescedReductions) / reductions : 1.0; }
};

struct GraphAnalysis {
  std::string source;
  hw::HardwareSelection hardware;
  std::vector<OpAnalysis> ops;
  AnalysisSummary summary;
  bool allAnalyzed() const { return summary.analyzed == summary.ops; }
};

// The dtype names the ops format accepts: float32 float16 bfloat16 float64
// int8 int16 int32 int64 bool, and the IR spellings (f32, bf16, i32, ...).
std::optional<ir::ScalarKind> parseDtype(const std::string& name);
std::string dtypeName(ir::ScalarKind k);  // "float32", "bfloat16", "bool", ...

// Builds the plan's stage kernels and compiles them as `tmetal graph-run`
// does; failures are recorded in the entries, never thrown.
std::vector<CompiledStage> compilePlanStages(const ReductionPlan& plan, const hw::HardwareProfile& profile);

OpAnalysis analyzeOp(const GraphOp& op, const hw::HardwareProfile& profile);
GraphAnalysis analyzeGraph(const OpsGraph& graph, const hw::HardwareSelection& hardware);

}  // namespace tmetal::graph
