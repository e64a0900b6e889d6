// `tmetal analyze`: which memory layout and which kernel plan each op of an
// ops graph gets, as the planner decides them, and how each reduction stage
// kernel built from the plan really compiles (codegen metadata).
#include <fstream>
#include <iostream>
#include <memory>

#include "tmetal/graph/analysis_report.h"
#include "tmetal/graph/op_analysis.h"
#include "tmetal/graph/operation_spec.h"
#include "tmetal/graph/ops_json_reader.h"
#include "tmetal/hw/hardware_selection.h"
#include "tmetal/support/diagnostic.h"
#include "tools/command.h"

namespace {

struct AnalyzeOptions {
  std::string jsonFile;
  std::vector<std::string> operations;
  std::string hardware;
  std::string output;
  std::string format = "text";
  bool verbose = false;
};

int runAnalyze(const AnalyzeOptions& o) {
  using namespace tmetal;
  if (o.jsonFile.empty() && o.operations.empty())
    throw CompileError("give an ops file with --json FILE or an op with --operation \"tt.sum:[1024,512]:1\"");
  hw::HardwareSelection hardware = hw::selectHardware(o.hardware);

  graph::OpsGraph ops;
  if (!o.jsonFile.empty()) {
    ops = graph::readOpsJsonFile(o.jsonFile);
  } else {
    ops.source = graph::kOperationSource;
    for (size_t i = 0; i < o.operations.size(); ++i) ops.ops.push_back(graph::parseOperationSpec(o.operations[i], i));
  }

  graph::GraphAnalysis analysis = graph::analyzeGraph(ops, hardware);
  const std::string report =
      o.format == "json" ? graph::renderAnalysisJson(analysis) : graph::renderAnalysisText(analysis, o.verbose);
  if (o.output.empty()) {
    std::cout << report;
  } else {
    std::ofstream out(o.output, std::ios::binary);
    if (!out || !(out << report)) throw CompileError("cannot write '" + o.output + "'");
  }
  // Ops that could not be analyzed are in the report too; say so on stderr
  // and fail, so scripts notice.
  for (const graph::OpAnalysis& a : analysis.ops)
    if (a.status != graph::OpStatus::Analyzed) std::cerr << a.diagnostic() << "\n";
  return analysis.allAnalyzed() ? 0 : 1;
}

}  // namespace

TMETAL_COMMAND(analyze, "analyze", [](CLI::App& app) -> std::function<int()> {
  auto options = std::make_shared<AnalyzeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "analyze", "Print the memory layout and kernel plan the compiler gives each op of an ops graph");
  CLI::Option* json = cmd->add_option("--json", options->jsonFile, "ops-JSON file ({\"ops\": [...]} or a list)");
  CLI::Option* operation = cmd->add_option(
      "--operation", options->operations, "one op, TYPE:[d0,d1,...][:AXES[:DTYPE]], e.g. tt.sum:[1024,512]:1");
  json->excludes(operation);
  cmd->add_option("--hardware", options->hardware,
                  "hardware profile (see `tmetal hardware`); default: TMETAL_HARDWARE, else detected");
  cmd->add_option("--output", options->output, "write the report to FILE instead of stdout");
  cmd->add_option("--format", options->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("--verbose", options->verbose, "add each plan's decisions and index mapping");
  return [options] { return tmetal::tools::guarded([&] { return runAnalyze(*options); }); };
});
