// Analysis of an ops graph: for every op, its checked shapes and axes, the
// layout policy it gets and, for reductions (softmax and layernorm too, which
// reduce along their axis), the plan from the reduction planner. Deciding is
// kept apart from printing (analysis_report.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

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

OpAnalysis analyzeOp(const GraphOp& op, const hw::HardwareProfile& profile);
GraphAnalysis analyzeGraph(const OpsGraph& graph, const hw::HardwareSelection& hardware);

}  // namespace tmetal::graph
