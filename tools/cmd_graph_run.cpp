// `tmetal graph-run (--json FILE | --operation SPEC ...) [--device D] [--dtype T] [--seed N] [--check]
//  [--emit-ttir DIR] [--hardware H] [--sanitize]`: runs the reductions of an
// ops graph as the planner's kernels on a device. Each op gets reproducible
// random inputs (tmetal/graph/reduction_inputs.h), its plan's stages run one
// after another, and with --check the result is compared with the host
// reference (tolerances in tmetal/graph/reduction_reference.h). One line per
// op says what ran and "ok" or the mismatch; the exit code is 1 when an op
// was invalid, failed or mismatched. Ops that are not reductions are skipped.
#include <filesystem>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "tmetal/graph/host_elements.h"
#include "tmetal/graph/op_analysis.h"
#include "tmetal/graph/operation_spec.h"
#include "tmetal/graph/ops_json_reader.h"
#include "tmetal/graph/reduction_inputs.h"
#include "tmetal/graph/reduction_kernels.h"
#include "tmetal/graph/reduction_reference.h"
#include "tmetal/graph/tensor_checks.h"
#include "tmetal/hw/hardware_selection.h"
#include "tmetal/ir/printer.h"
#include "tmetal/support/diagnostic.h"
#include "tools/cli_support.h"
#include "tools/command.h"
#include "tools/graph_reduction_run.h"
#include "tools/run_devices.h"

namespace tmetal::tools {

namespace {

struct GraphRunRequest {
  std::string jsonFile;
  std::vector<std::string> operations;
  std::string device = "interpreter";
  std::string dtype;  // empty: each op's own
  uint64_t seed = 0;
  bool check = false;
  std::string emitTtirDir;
  std::string hardware;
  bool sanitize = false;
};

graph::OpsGraph readOps(const GraphRunRequest& request) {
  if (request.jsonFile.empty() && request.operations.empty())
    throw CompileError("give an ops file with --json FILE or an op with --operation \"tt.sum:[1048576]:0\"");
  if (!request.jsonFile.empty()) return graph::readOpsJsonFile(request.jsonFile);
  graph::OpsGraph ops;
  ops.source = graph::kOperationSource;
  for (size_t i = 0; i < request.operations.size(); ++i)
    ops.ops.push_back(graph::parseOperationSpec(request.operations[i], i));
  return ops;
}

// "tt.sum [4096, 4] float32 axes [1]"
std::string describe(const graph::OpAnalysis& a) {
  std::vector<int64_t> axes(a.axes.begin(), a.axes.end());
  return fmt::format("{} {} {} axes {}", a.op.type, graph::shapeText(a.op.inputShapes[0]), graph::dtypeName(a.dtype),
                     graph::shapeText(axes));
}

// "2 stages (24 + 1 threadgroups)"
std::string describeStages(const graph::ReductionKernels& kernels) {
  std::vector<int64_t> grids;
  for (const graph::StageKernel& s : kernels.stages) grids.push_back(s.threadgroups);
  return fmt::format("{} stage{} ({} threadgroup{})", kernels.stages.size(), kernels.stages.size() == 1 ? "" : "s",
                     fmt::join(grids, " + "), grids.size() == 1 && grids[0] == 1 ? "" : "s");
}

// The first few output values, for a run without --check.
std::string previewOutput(const std::vector<uint8_t>& output, ir::ScalarKind kind, int64_t count) {
  const int64_t shown = std::min<int64_t>(count, 8);
  std::vector<std::string> values;
  for (int64_t i = 0; i < shown; ++i) values.push_back(fmt::format("{}", graph::readElement(output, kind, i)));
  return fmt::format("{} {} value{}: {}{}", count, graph::dtypeName(kind), count == 1 ? "" : "s",
                     fmt::join(values, ", "), shown < count ? ", ..." : "");
}

void emitTtir(const std::string& dir, const graph::OpAnalysis& a, const graph::ReductionKernels& kernels) {
  std::filesystem::create_directories(dir);
  for (size_t k = 0; k < kernels.stages.size(); ++k) {
    const graph::StageKernel& s = kernels.stages[k];
    const std::string path = fmt::format("{}/op{}_stage{}_{}.ttir", dir, a.op.index, k + 1, s.name);
    writeTextFile(path, ir::printModule(*s.module, ir::PrintOptions{false}));
  }
}

// Runs one analyzed reduction; returns whether it passed.
bool runOp(const graph::OpAnalysis& a, const GraphRunRequest& request, const DeviceRunner& device,
           const DeviceOptions& options) {
  const std::string head = fmt::format("[{}] {} on {}", a.op.index, describe(a), request.device);
  try {
    graph::ReductionKernels kernels = graph::buildReductionKernels(*a.plan);
    if (!request.emitTtirDir.empty()) emitTtir(request.emitTtirDir, a, kernels);
    const std::vector<uint8_t> input = graph::makeReductionInput(*a.plan, request.seed);
    const std::vector<uint8_t> output = runReductionKernels(kernels, input, device, options).output;
    const std::string ran = head + ": " + describeStages(kernels);
    if (!request.check) {
      std::cout << ran << ": " << previewOutput(output, kernels.outputKind, kernels.outputElements) << "\n";
      return true;
    }
    const graph::ReductionReference reference = graph::referenceReduction(*a.plan, input);
    if (std::optional<std::string> mismatch = graph::compareWithReference(reference, output)) {
      std::cout << ran << ": MISMATCH: " << *mismatch << "\n";
      return false;
    }
    std::cout << ran << ": ok\n";
    return true;
  } catch (const CompileError& e) {
    std::cout << head << ": FAILED: " << e.message() << "\n";
  } catch (const std::exception& e) {  // EmulatorError: the kernel misbehaved at run time
    std::cout << head << ": FAILED: " << e.what() << "\n";
  }
  return false;
}

int graphRun(GraphRunRequest request) {
  const DeviceRunner& device = findDevice(request.device);
  if (!request.dtype.empty() && !graph::parseDtype(request.dtype))
    throw CompileError("--dtype '" + request.dtype + "': unknown (graph-run kernels take float32, float16, "
                       "bfloat16 and int32)");
  hw::HardwareSelection hardware = hw::selectHardware(request.hardware);
  graph::OpsGraph ops = readOps(request);
  if (!request.dtype.empty())
    for (graph::GraphOp& op : ops.ops) op.dtype = request.dtype;

  DeviceOptions options;
  options.codegen.hardware = hardware.profile.id;  // compile for the limits the plans were made for
  options.sanitize = request.sanitize;
  bool allPassed = true;
  int ran = 0;
  for (const graph::OpAnalysis& a : graph::analyzeGraph(ops, hardware).ops) {
    if (a.status != graph::OpStatus::Analyzed) {
      std::cout << "[" << a.op.index << "] " << a.op.type << ": " << graph::opStatusName(a.status) << "\n";
      std::cerr << a.diagnostic() << "\n";
      allPassed = false;
      continue;
    }
    if (!a.info->isReduction()) {
      std::cout << "[" << a.op.index << "] " << a.op.type << ": skipped (graph-run runs reductions only)\n";
      continue;
    }
    ++ran;
    allPassed = runOp(a, request, device, options) && allPassed;
  }
  if (ran == 0 && allPassed) std::cerr << "note: no reduction to run\n";
  return allPassed ? 0 : 1;
}

}  // namespace

TMETAL_COMMAND(graph_run, "graph-run", [](CLI::App& app) -> std::function<int()> {
  auto request = std::make_shared<GraphRunRequest>();
  CLI::App* cmd = app.add_subcommand(
      "graph-run", "Run the reductions of an ops graph as the planner's kernels on random inputs, optionally checked");
  CLI::Option* json = cmd->add_option("--json", request->jsonFile, "ops-JSON file ({\"ops\": [...]} or a list)");
  CLI::Option* operation = cmd->add_option("--operation", request->operations,
                                           "one op, TYPE:[d0,d1,...][:AXES[:DTYPE]], e.g. tt.sum:[1048576]:0");
  json->excludes(operation);
  cmd->add_option("--device", request->device,
                  "where to run: interpreter (the reference), emulator (the emitted MSL on the CPU) or cuda (the "
                  "kernels as CUDA C++ on an NVIDIA GPU)")
      ->capture_default_str();
  cmd->add_option("--dtype", request->dtype,
                  "input dtype for every op (float32, float16, bfloat16, int32); default: each op's own");
  cmd->add_option("--seed", request->seed, "seed of the random inputs")->capture_default_str();
  cmd->add_flag("--check", request->check, "compare each result with the host reference; exit 1 on a mismatch");
  cmd->add_option("--emit-ttir", request->emitTtirDir, "write each stage's kernel as TTIR into DIR");
  cmd->add_option("--hardware", request->hardware,
                  "hardware profile to plan and compile for (see `tmetal hardware`); default: TMETAL_HARDWARE, else "
                  "the detected GPU, else the generic Apple profile");
  cmd->add_flag("--sanitize", request->sanitize,
                "emulator: run in a child process with guarded buffers, reporting out-of-bounds accesses");
  return [request] { return guarded([&] { return graphRun(*request); }); };
});

}  // namespace tmetal::tools
