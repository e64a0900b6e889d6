#include "tmetal/graph/analysis_report.h"

#include <fmt/format.h>

#include "tmetal/graph/tensor_checks.h"

namespace tmetal::graph {

namespace {

using nlohmann::json;

std::string listText(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

std::string shapesText(const std::vector<std::vector<int64_t>>& shapes) {
  std::string s;
  for (size_t i = 0; i < shapes.size(); ++i) s += (i ? " x " : "") + shapeText(shapes[i]);
  return s;
}

std::string formatMicroseconds(double us) {
  if (us < 1000) return fmt::format("{:.1f} us", us);
  if (us < 1e6) return fmt::format("{:.2f} ms", us / 1e3);
  return fmt::format("{:.2f} s", us / 1e6);
}

std::string outputText(const std::vector<int64_t>& shape) {
  return shape.empty() ? "[] (a scalar)" : shapeText(shape);
}

std::string layoutLine(const OpAnalysis& a) {
  const layout::PolicyChoice& l = a.layout;
  std::string s = fmt::format("{} ({}): order {}", layout::memoryLayoutName(l.policy), static_cast<int>(l.policy),
                              listText(l.order));
  if (!l.contiguousDims.empty())
    s += fmt::format(", vector {} x {} ({} bytes), contiguous run {} of {}", l.vectorWidth, dtypeName(a.dtype),
                     l.vectorBytes, listText(l.contiguousDims), l.contiguousElements);
  if (!l.tile.empty()) {
    std::string tile;
    for (size_t i = 0; i < l.tile.size(); ++i) tile += (i ? "x" : "") + std::to_string(l.tile[i]);
    s += fmt::format(", tile {}, {} of threadgroup memory", tile, formatBytes(l.threadgroupMemoryBytes));
  }
  return s;
}

std::string mappingText(const ReductionPlan& plan, const ReductionStage& s, size_t index) {
  std::string m;
  if (s.shape == StageShape::Rows && s.outputsPerThread > 1) {
    m = fmt::format(
        "threadgroup g: output block g / {0}, split g % {0}; thread t, load k < {1}: output block*{2} + k*{3} + t / "
        "{4}, lane t % {4}; trip i, vector lane v: reduce index ((i*{0} + split)*{4} + lane)*{5} + v",
        s.splits, s.outputsPerThread, s.outputsPerThreadgroup, s.threadgroupSize / s.lanesPerOutput,
        s.lanesPerOutput, s.vectorWidth);
  } else if (s.shape == StageShape::Rows) {
    m = fmt::format(
        "threadgroup g: output block g / {0}, split g % {0}; thread t: output block*{1} + t / {2}, lane t % {2}; "
        "trip i, load k < {3}, vector lane v: reduce index (((i*{0} + split)*{3} + k)*{2} + lane)*{4} + v",
        s.splits, s.outputsPerThreadgroup, s.lanesPerOutput, s.vectorsPerTrip, s.vectorWidth);
  } else {
    m = fmt::format(
        "threadgroup g: output block g / {0}, split g % {0}; block b: run b / {1}, first column (b % {1})*{2}; "
        "thread t: x = t % {3}, y = t / {3}; vector lane v: output run*{4} + column + x*{5} + v; trip i, load k < "
        "{7}: reduce row ((i*{0} + split)*{7} + k)*{6} + y",
        s.splits, (s.innerOutputs + s.threadsX * s.vectorWidth - 1) / (s.threadsX * s.vectorWidth),
        int64_t(s.threadsX) * s.vectorWidth, s.threadsX, s.innerOutputs, s.vectorWidth, s.threadsY,
        s.vectorsPerTrip);
  }
  if (index == 0)
    m += fmt::format("; output o over dims {} of sizes {}, reduce index over dims {} of sizes {}",
                     listText(plan.outputSpace.dims), shapeText(plan.outputSpace.sizes),
                     listText(plan.reduceSpace.dims), shapeText(plan.reduceSpace.sizes));
  else
    m += fmt::format("; reads partial (o, reduce index) at {}",
                     s.shape == StageShape::Rows ? fmt::format("o*{} + r", s.reduceCount)
                                                 : fmt::format("r*{} + o", s.outputs));
  return m;
}

// One compiled reduction, from the kernel metadata's layouts.reductions
// entry: "tt.reduce axis 1: 4 registers per thread, then 32 lanes by simd_sum, then 4
// SIMD groups through threadgroup memory".
std::string compiledCombineText(const nlohmann::json& r) {
  const int64_t regs = r.value("registers_per_thread", int64_t{0});
  std::string t = fmt::format("tt.reduce axis {}: {} register{} per thread", r.value("axis", -1), regs, regs == 1 ? "" : "s");
  if (r.contains("lanes"))
    t += fmt::format(", then {} lanes by {}", r["lanes"].value("count", 0), r["lanes"].value("combine", std::string()));
  if (r.contains("simd_groups"))
    t += fmt::format(", then {} SIMD groups through {}", r["simd_groups"].value("count", 0),
                     r["simd_groups"].value("combine", std::string()));
  return t;
}

void renderPlan(std::string& out, const OpAnalysis& a, const hw::HardwareProfile& profile, bool verbose) {
  const ReductionPlan& plan = *a.plan;
  const char* indent = "    ";
  out += fmt::format("{}plan:    {} reduction, {}, combiner {} (accumulate in {})\n", indent,
                     reductionKindName(plan.kind),
                     plan.twoStage() ? fmt::format("two stages, {} partials per output", plan.partialsPerOutput())
                                     : std::string("one stage"),
                     combinerName(plan.combiner), dtypeName(plan.accumulator));
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    const ReductionStage& s = plan.stages[i];
    out += fmt::format("{}  stage {}  {}\n", indent, i + 1, s.kernel);
    const std::string pad = std::string(indent) + "           ";
    const CompiledStage* c = i < a.compiled.size() && a.compiled[i].compiled() ? &a.compiled[i] : nullptr;
    // The planner's thread arrangement; when the compiled kernel runs a
    // different number of threads per threadgroup (whole SIMD groups), the
    // line names the plan's tile and the compiled block gives the threadgroup.
    const char* tileLabel = !c || c->threadsPerThreadgroup == s.threadgroupSize ? "threadgroup" : "planned tile";
    if (s.shape == StageShape::Rows)
      out += fmt::format("{}{} {} threads ({} SIMD group{}): {} output{} x {} lane{}\n", pad, tileLabel,
                         s.threadgroupSize, s.simdgroupsPerThreadgroup, s.simdgroupsPerThreadgroup == 1 ? "" : "s",
                         s.outputsPerThreadgroup, s.outputsPerThreadgroup == 1 ? "" : "s", s.lanesPerOutput,
                         s.lanesPerOutput == 1 ? "" : "s");
    else
      out += fmt::format("{}{} {} threads ({} SIMD group{}): {} lane{} x {} output{} along the run, {} along "
                         "the reduction\n",
                         pad, tileLabel, s.threadgroupSize, s.simdgroupsPerThreadgroup, s.simdgroupsPerThreadgroup == 1 ? "" : "s",
                         s.threadsX, s.threadsX == 1 ? "" : "s", s.vectorWidth, s.vectorWidth == 1 ? "" : "s",
                         s.threadsY);
    out += fmt::format("{}per thread: {} trip{}{} x {} load{} of a {}-wide vector = up to {} elements\n", pad,
                       s.iterations, s.iterations == 1 ? "" : "s",
                       s.tripsWrittenOut && s.iterations > 1 ? " (written out)" : "", s.loadsPerTrip(),
                       s.loadsPerTrip() == 1 ? "" : "s", s.vectorWidth, s.elementsPerThread);
    out += fmt::format("{}grid: {} threadgroup{} ({} output block{} x {} split{})", pad, s.threadgroups,
                       s.threadgroups == 1 ? "" : "s", s.outputBlocks, s.outputBlocks == 1 ? "" : "s", s.splits,
                       s.splits == 1 ? "" : "s");
    out += i == 0 && plan.twoStage() ? fmt::format(", writes {} partials\n", s.outputs * s.splits)
                                     : fmt::format(", writes {} output{}\n", s.outputs, s.outputs == 1 ? "" : "s");
    if (c) {
      // The compiled kernel's own combine replaces the planner's words: the
      // code generator decides it, and it may differ from the plan's intent.
      out += fmt::format("{}as compiled: {} (metal, {}, num_warps {}): {} threads per threadgroup, {}\n", pad,
                         c->kernel, c->policy, c->numWarps, c->threadsPerThreadgroup,
                         c->threadgroupMemoryBytes
                             ? fmt::format("{} of threadgroup memory", formatBytes(c->threadgroupMemoryBytes))
                             : std::string("no threadgroup memory"));
      // Stages write their trips out one after another (stage_kernel_builder.h),
      // each with its own tt.reduce: alike neighbours are counted, not repeated.
      const nlohmann::json& reductions = c->reductions;
      for (size_t k = 0; k < reductions.size();) {
        const std::string text = compiledCombineText(reductions[k]);
        size_t alike = 1;
        while (k + alike < reductions.size() && compiledCombineText(reductions[k + alike]) == text) ++alike;
        out += fmt::format("{}  combine: {}{}\n", pad, text, alike > 1 ? fmt::format(" ({} alike)", alike) : "");
        k += alike;
      }
    } else {
      const std::string why = i < a.compiled.size() ? a.compiled[i].error
                              : !a.compiled.empty()  ? a.compiled[0].error
                                                     : std::string("not compiled");
      out += fmt::format("{}combine (planned; no compiled kernel: {}): {}", pad, why, s.combine);
      if (s.threadgroupMemoryBytes) out += fmt::format(" ({})", formatBytes(s.threadgroupMemoryBytes));
      out += "\n";
    }
    if (verbose) out += fmt::format("{}mapping: {}\n", pad, mappingText(plan, s, i));
  }
  out += fmt::format("{}  reads {}: at least {} at {} GB/s; {} the {} last-level cache\n", indent,
                     formatBytes(plan.inputBytes), formatMicroseconds(plan.dramMicroseconds), profile.dramBandwidthGBs,
                     plan.fitsInLastLevelCache ? "fits in" : "exceeds", formatBytes(profile.lastLevelCacheBytes));
  if (verbose) {
    out += fmt::format("{}  decisions:\n", indent);
    for (const std::string& d : plan.decisions) out += fmt::format("{}    - {}\n", indent, d);
  }
}

void renderOp(std::string& out, const OpAnalysis& a, const hw::HardwareProfile& profile, bool verbose) {
  const GraphOp& op = a.op;
  out += fmt::format("[{}] {}{}", op.index, op.id.empty() ? "" : op.id + ": ", op.type.empty() ? "?" : op.type);
  if (a.status == OpStatus::Analyzed) out += a.isReduction() ? ", reduction" : ", not a reduction";
  out += "\n";
  if (a.status != OpStatus::Analyzed) {
    out += fmt::format("    {}: {}\n", a.status == OpStatus::Unsupported ? "unsupported" : "error", a.error);
    return;
  }
  out += fmt::format("    input:   {} {}, strides {}\n", shapesText(op.inputShapes), dtypeName(a.dtype),
                     shapeText(a.strides));
  if (a.plan)
    out += fmt::format("    axes:    {} -> output {}\n", listText(a.axes), outputText(a.outputShape));
  else
    out += fmt::format("    output:  {}\n", shapeText(a.outputShape));
  out += fmt::format("    layout:  {}\n", layoutLine(a));
  out += fmt::format("             {}\n", a.layout.reason);
  if (a.plan) {
    if (!a.note.empty()) out += fmt::format("    note:    {}\n", a.note);
    renderPlan(out, a, profile, verbose);
  } else
    out += "    plan:    none: the planner plans reductions; this op's kernel uses the layout above\n";
}

json layoutToJson(const layout::PolicyChoice& l) {
  return json{{"name", layout::memoryLayoutName(l.policy)},
              {"value", static_cast<int>(l.policy)},
              {"order", l.order},
              {"contiguous_dims", l.contiguousDims},
              {"contiguous_elements", l.contiguousElements},
              {"contiguous_run_reduced", l.contiguousRunReduced},
              {"vector_width", l.vectorWidth},
              {"vector_bytes", l.vectorBytes},
              {"tile", l.tile},
              {"threadgroup_memory_bytes", l.threadgroupMemoryBytes},
              {"reason", l.reason}};
}

json compiledToJson(const CompiledStage& c) {
  if (!c.compiled()) return json{{"kernel", c.kernel.empty() ? json(nullptr) : json(c.kernel)}, {"error", c.error}};
  return json{{"kernel", c.kernel},
              {"target", "metal"},
              {"policy", c.policy},
              {"num_warps", c.numWarps},
              {"threads_per_threadgroup", c.threadsPerThreadgroup},
              {"threadgroup_memory_bytes", c.threadgroupMemoryBytes},
              {"reductions", c.reductions}};
}

json stageToJson(const ReductionStage& s) {
  return json{{"kernel", s.kernel},
              {"shape", stageShapeName(s.shape)},
              {"outputs", s.outputs},
              {"reduce_count", s.reduceCount},
              {"inner_outputs", s.innerOutputs},
              {"vector_width", s.vectorWidth},
              {"lanes_per_output", s.lanesPerOutput},
              {"vectors_per_trip", s.vectorsPerTrip},
              {"outputs_per_thread", s.outputsPerThread},
              {"loads_per_trip", s.loadsPerTrip()},
              {"threads", {s.threadsX, s.threadsY}},
              {"threadgroup_size", s.threadgroupSize},
              {"simdgroups_per_threadgroup", s.simdgroupsPerThreadgroup},
              {"outputs_per_threadgroup", s.outputsPerThreadgroup},
              {"output_blocks", s.outputBlocks},
              {"splits", s.splits},
              {"sweeps", s.sweeps},
              {"threadgroups", s.threadgroups},
              {"grid", {s.threadgroups, 1, 1}},
              {"iterations", s.iterations},
              {"trips_written_out", s.tripsWrittenOut},
              {"elements_per_thread", s.elementsPerThread},
              {"accumulator_bytes", s.accumulatorBytes},
              {"min_threadgroups_per_core", s.minThreadgroupsPerCore},
              // The planner's intent; what the compiled kernel does is in the
              // stage's "compiled" object (added by analysisToJson).
              {"planned_threadgroup_memory_bytes", s.threadgroupMemoryBytes},
              {"planned_combine", s.combine}};
}

json hardwareToJson(const hw::HardwareSelection& h) {
  const hw::HardwareProfile& p = h.profile;
  return json{{"id", p.id},
              {"name", p.name},
              {"vendor", hw::gpuVendorName(p.vendor)},
              {"origin", h.origin},
              {"gpu_cores", p.gpuCores},
              {"dram_bandwidth_gbs", p.dramBandwidthGBs},
              {"last_level_cache_bytes", p.lastLevelCacheBytes},
              {"simd_width", p.simdWidth},
              {"max_threads_per_threadgroup", p.maxThreadsPerThreadgroup},
              {"threadgroup_memory_bytes", p.threadgroupMemoryBytes},
              {"max_resident_threads_per_core", p.maxResidentThreadsPerCore}};
}

}  // namespace

json planToJson(const ReductionPlan& plan) {
  json stages = json::array();
  for (const ReductionStage& s : plan.stages) stages.push_back(stageToJson(s));
  return json{{"kind", reductionKindName(plan.kind)},
              {"combiner", combinerName(plan.combiner)},
              {"accumulator", dtypeName(plan.accumulator)},
              {"tuning",
               {{"loads_per_trip", plan.tuning.loadsPerTrip},
                {"vectors_per_thread", plan.tuning.vectorsPerThread},
                {"max_threads", plan.tuning.maxThreads},
                {"resident_threadgroups", plan.tuning.residentThreadgroups},
                {"split_waves", plan.tuning.splitWaves}}},
              {"output_count", plan.outputCount},
              {"reduce_count", plan.reduceCount},
              {"output_space", {{"dims", plan.outputSpace.dims}, {"sizes", plan.outputSpace.sizes}}},
              {"reduce_space", {{"dims", plan.reduceSpace.dims}, {"sizes", plan.reduceSpace.sizes}}},
              {"two_stage", plan.twoStage()},
              {"partials_per_output", plan.partialsPerOutput()},
              {"stages", stages},
              {"input_bytes", plan.inputBytes},
              {"dram_time_us", plan.dramMicroseconds},
              {"fits_in_last_level_cache", plan.fitsInLastLevelCache},
              {"decisions", plan.decisions}};
}

std::string renderAnalysisText(const GraphAnalysis& g, bool verbose) {
  const hw::HardwareProfile& p = g.hardware.profile;
  std::string out = fmt::format("tmetal analyze: {} op{} from {}\n", g.summary.ops, g.summary.ops == 1 ? "" : "s",
                                g.source);
  out += fmt::format("hardware: {} - {}: {} {}, {} GB/s, {} last-level cache\n", p.id, p.name, p.gpuCores,
                     p.vendor == hw::GpuVendor::Apple ? "GPU cores" : "SMs", p.dramBandwidthGBs,
                     formatBytes(p.lastLevelCacheBytes));
  out += fmt::format("          {}\n\n", g.hardware.origin);
  for (const OpAnalysis& a : g.ops) {
    renderOp(out, a, p, verbose);
    out += "\n";
  }
  const AnalysisSummary& s = g.summary;
  out += "summary\n";
  out += fmt::format("  ops:         {} ({} analyzed, {} unsupported, {} invalid)\n", s.ops, s.analyzed,
                     s.unsupported, s.invalid);
  out += fmt::format("  reductions:  {}\n", s.reductions);
  std::string layouts;
  for (const auto& [l, count] : s.layoutCounts)
    layouts += fmt::format("{}{}={}", layouts.empty() ? "" : " ", layout::memoryLayoutName(l), count);
  out += fmt::format("  layouts:     {}\n", layouts);
  out += s.reductions ? fmt::format("  COALESCED coverage of reductions: {}/{} ({:.0f}%)\n", s.coalescedReductions,
                                    s.reductions, 100.0 * s.coalescedCoverage())
                       : std::string("  COALESCED coverage of reductions: no reductions analyzed\n");
  return out;
}

json analysisToJson(const GraphAnalysis& g) {
  json ops = json::array();
  for (const OpAnalysis& a : g.ops) {
    json op{{"index", a.op.index},
            {"id", a.op.id.empty() ? json(nullptr) : json(a.op.id)},
            {"type", a.op.type},
            {"status", opStatusName(a.status)},
            {"is_reduction", a.isReduction()},
            {"input_shapes", a.op.inputShapes}};
    if (a.status != OpStatus::Analyzed) {
      op["error"] = a.error;
      op["diagnostic"] = a.diagnostic();
      ops.push_back(op);
      continue;
    }
    op["dtype"] = dtypeName(a.dtype);
    op["strides"] = a.strides;
    op["axes"] = a.plan ? json(a.axes) : json(nullptr);
    op["output_shape"] = a.outputShape;
    op["layout"] = layoutToJson(a.layout);
    op["plan"] = a.plan ? planToJson(*a.plan) : json(nullptr);
    if (a.plan) {
      // Each stage's kernel as compiled, next to the plan's stage.
      for (size_t i = 0; i < op["plan"]["stages"].size(); ++i) {
        static const CompiledStage none = [] {
          CompiledStage s;
          s.error = "not compiled";
          return s;
        }();
        const CompiledStage& c = i < a.compiled.size() ? a.compiled[i] : !a.compiled.empty() ? a.compiled[0] : none;
        op["plan"]["stages"][i]["compiled"] = compiledToJson(c);
      }
    }
    if (!a.note.empty()) op["note"] = a.note;
    ops.push_back(op);
  }
  json layouts = json::object();
  for (const auto& [l, count] : g.summary.layoutCounts) layouts[layout::memoryLayoutName(l)] = count;
  const AnalysisSummary& s = g.summary;
  return json{{"tool", "tmetal analyze"},
              {"schema_version", 2},
              {"source", g.source},
              {"hardware", hardwareToJson(g.hardware)},
              {"ops", ops},
              {"summary",
               {{"ops", s.ops},
                {"analyzed", s.analyzed},
                {"unsupported", s.unsupported},
                {"invalid", s.invalid},
                {"reductions", s.reductions},
                {"layout_distribution", layouts},
                {"coalesced_reductions", s.coalescedReductions},
                {"coalesced_coverage", s.coalescedCoverage()}}}};
}

std::string renderAnalysisJson(const GraphAnalysis& g) { return analysisToJson(g).dump(2) + "\n"; }

}  // namespace tmetal::graph
