// The reduction planner: for a reduction of a given shape, strides, axes and
// dtype on a given hardware profile, the plan (reduction_plan.h). The
// decision table and where each threshold comes from: docs/planner.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tmetal/graph/reduction_plan.h"
#include "tmetal/hw/hardware_profile.h"

namespace tmetal::graph {

// The defaults with TMETAL_PLAN_TUNING applied. Throws CompileError naming the
// variable for an unknown key or a value that is not a power of two in range.
PlanTuning planTuningFromEnvironment();
PlanTuning parsePlanTuning(const std::string& text, const std::string& where);

struct ReductionRequest {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements; empty means row-major contiguous
  std::vector<int> axes;         // sorted, unique, in range, non-empty
  ir::ScalarKind dtype = ir::ScalarKind::F32;
  Combiner combiner = Combiner::Sum;
  PlanTuning tuning = planTuningFromEnvironment();
};

// Throws CompileError for a request it cannot plan (bad shape, strides or
// axes; a dtype the profile lacks; a grid beyond one dispatch).
ReductionPlan planReduction(const ReductionRequest& request, const hw::HardwareProfile& profile);

// Threads that keep every core of the profile fully occupied: one wave.
int64_t waveThreads(const hw::HardwareProfile& profile);

// The most threadgroups one dispatch may have (CUDA's grid x limit, which
// Metal's exceeds); beyond it a reduction is refused.
inline constexpr int64_t kMaxThreadgroupsPerDispatch = (int64_t(1) << 31) - 1;

}  // namespace tmetal::graph
