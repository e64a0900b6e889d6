// libFuzzer target for the ops-JSON reader and the analysis behind
// `tmetal analyze`: reading, planning, compiling each reduction's stages to
// MSL, and both reports. A CompileError from the reader is the normal answer
// to a malformed document, and a bad op must come back as an invalid or
// unsupported op with its message, never as another exception, a crash or a
// sanitizer report. The JSON report must itself be valid JSON.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "tmetal/graph/analysis_report.h"
#include "tmetal/graph/op_analysis.h"
#include "tmetal/graph/ops_json_reader.h"
#include "tmetal/hw/hardware_selection.h"
#include "tmetal/support/diagnostic.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  tmetal::graph::OpsGraph graph;
  try {
    graph = tmetal::graph::readOpsJson(text, "fuzz.json");
  } catch (const tmetal::CompileError&) {
    return 0;
  }
  static const tmetal::hw::HardwareSelection hardware = tmetal::hw::resolveHardware({});
  const tmetal::graph::GraphAnalysis analysis = tmetal::graph::analyzeGraph(graph, hardware);
  if (analysis.ops.size() != graph.ops.size()) {
    std::fprintf(stderr, "analysis has %zu ops for %zu read\n", analysis.ops.size(), graph.ops.size());
    std::abort();
  }
  tmetal::graph::renderAnalysisText(analysis, true);
  const std::string report = tmetal::graph::renderAnalysisJson(analysis);
  if (!nlohmann::json::accept(report)) {
    std::fprintf(stderr, "the JSON report is not valid JSON:\n%s\n", report.c_str());
    std::abort();
  }
  return 0;
}
