// `tmetal bench layouts|graph|suite|flush|all [ARGS...]`: the GPU benchmarks of
// bench/gpu_bench.py (docs/performance.md), run with python3 and given this
// binary's path as --tmetal. The script is looked for in the source tree this
// binary was built from, then next to the binary (build/bin/tmetal ->
// ../../bench), unless TMETAL_SOURCE_DIR names the tree; TMETAL_BENCH_PYTHON
// names another interpreter than python3.
//
// `tmetal bench stages --operation SPEC... --out DIR [--hardware H]` is what
// the graph benchmark reads: for each op, the planner's stage kernels as TTIR
// (as `tmetal graph-run --emit-ttir` writes them) plus DIR/stages.json with
// everything a launcher needs (buffers, scalar arguments and their values,
// threadgroups, num_warps, element types and counts) and the plan itself.
// Unlike graph-run it runs nothing, so it is instant for 1 GB tensors.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#if __has_include("tmetal/graph/reduction_kernels.h")
#define TMETAL_BENCH_HAS_STAGE_KERNELS 1
#include "tmetal/graph/analysis_report.h"
#include "tmetal/graph/combiner.h"
#include "tmetal/graph/op_analysis.h"
#include "tmetal/graph/operation_spec.h"
#include "tmetal/graph/reduction_kernels.h"
#include "tmetal/hw/hardware_selection.h"
#include "tmetal/ir/printer.h"
#include "tmetal/ir/verifier.h"
#else
#define TMETAL_BENCH_HAS_STAGE_KERNELS 0
#endif

#include "tmetal/support/diagnostic.h"
#include "tools/cli_support.h"
#include "tools/command.h"

namespace tmetal::tools {

namespace fs = std::filesystem;

namespace {

constexpr const char* kScriptPath = "bench/gpu_bench.py";
const std::vector<std::string> kPythonVerbs = {"layouts", "graph", "suite", "flush", "all"};

std::string selfPath() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : p.string();
}

// Where bench/gpu_bench.py is: TMETAL_SOURCE_DIR; the source tree this file
// was compiled from (__FILE__ is tools/cmd_bench.cpp there); the binary's
// ancestors (a build folder inside the tree). `tried` lists the candidates.
std::string findScript(std::vector<std::string>& tried) {
  std::vector<fs::path> roots;
  if (const char* env = std::getenv("TMETAL_SOURCE_DIR"); env && *env) {
    roots.push_back(env);
  } else {
    fs::path source(__FILE__);
    if (source.is_absolute()) roots.push_back(source.parent_path().parent_path());
    fs::path exe = selfPath();
    for (fs::path dir = exe.parent_path(); !dir.empty() && roots.size() < 8; dir = dir.parent_path()) {
      roots.push_back(dir);
      if (dir == dir.parent_path()) break;
    }
  }
  std::error_code ec;
  for (const fs::path& root : roots) {
    fs::path script = root / kScriptPath;
    tried.push_back(script.string());
    if (fs::is_regular_file(script, ec)) return script.string();
  }
  return "";
}

// The interpreter's full path, searched on PATH like a shell would.
std::string findExecutable(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  if (!path) return "";
  std::string dirs = path;
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

bool hasOption(const std::vector<std::string>& args, const std::string& option) {
  for (const std::string& a : args)
    if (a == option || a.rfind(option + "=", 0) == 0) return true;
  return false;
}

// Replaces this process with `python3 bench/gpu_bench.py VERB ARGS... --tmetal SELF`.
int runPythonBench(const std::vector<std::string>& args) {
  std::vector<std::string> tried;
  const std::string script = findScript(tried);
  if (script.empty())
    throw CompileError(fmt::format("cannot find {} (set TMETAL_SOURCE_DIR to the tmetal source tree); tried:\n  {}",
                                   kScriptPath, fmt::join(tried, "\n  ")));
  const char* pythonEnv = std::getenv("TMETAL_BENCH_PYTHON");
  const std::string pythonName = pythonEnv && *pythonEnv ? pythonEnv : "python3";
  const std::string python = findExecutable(pythonName);
  if (python.empty())
    throw CompileError("cannot find '" + pythonName + "' on PATH: the GPU benchmarks are a Python script (" + script +
                       ") and need python3 with torch, triton, cupy, numpy and matplotlib; set TMETAL_BENCH_PYTHON "
                       "to choose the interpreter");
  std::vector<std::string> argv = {python, script};
  argv.insert(argv.end(), args.begin(), args.end());
  const std::string self = selfPath();
  if (!hasOption(args, "--tmetal") && !self.empty()) {
    argv.push_back("--tmetal");
    argv.push_back(self);
  }
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::cout.flush();
  execv(python.c_str(), cargv.data());
  throw CompileError("cannot run " + python + ": " + std::strerror(errno));
}

#if TMETAL_BENCH_HAS_STAGE_KERNELS

nlohmann::json stageJson(const graph::StageKernel& s, const std::string& ttirFile) {
  nlohmann::json j;
  j["name"] = s.name;
  j["ttir"] = ttirFile;
  j["threadgroups"] = s.threadgroups;
  j["num_warps"] = s.numWarps;
  j["min_threadgroups_per_core"] = s.minThreadgroupsPerCore;
  j["buffers"] = nlohmann::json::array();
  for (graph::StageBuffer b : s.buffers) j["buffers"].push_back(graph::stageBufferName(b));
  j["scalars"] = nlohmann::json::array();
  for (const graph::StageScalar& sc : s.scalars) {
    nlohmann::json v = {{"name", sc.name}, {"dtype", ir::scalarName(sc.kind)}};
    if (ir::isFloatKind(sc.kind))
      v["value"] = sc.floatValue;
    else
      v["value"] = sc.intValue;
    j["scalars"].push_back(v);
  }
  return j;
}

// One op: its stage kernels written into `dir`, described in the returned JSON.
nlohmann::json exportOp(const graph::OpAnalysis& a, const std::string& spec, const fs::path& dir) {
  nlohmann::json j;
  j["operation"] = spec;
  j["type"] = a.op.type;
  j["shape"] = a.op.inputShapes.empty() ? nlohmann::json::array() : nlohmann::json(a.op.inputShapes[0]);
  j["axes"] = a.axes;
  j["output_shape"] = a.outputShape;
  if (a.status != graph::OpStatus::Analyzed) {
    j["error"] = a.diagnostic();
    return j;
  }
  if (!a.isReduction() || !a.plan) {
    j["error"] = a.op.type + " is not a reduction";
    return j;
  }
  try {
    graph::ReductionKernels kernels = graph::buildReductionKernels(*a.plan);
    j["input"] = {{"dtype", ir::scalarName(kernels.inputKind)}};
    j["output"] = {{"dtype", ir::scalarName(kernels.outputKind)}, {"elements", kernels.outputElements}};
    j["partials"] = {{"dtype", ir::scalarName(kernels.partialKind)}, {"elements", kernels.partialElements}};
    j["stages"] = nlohmann::json::array();
    for (size_t k = 0; k < kernels.stages.size(); ++k) {
      const graph::StageKernel& s = kernels.stages[k];
      ir::verify(*s.module);
      const std::string file = fmt::format("op{}_stage{}_{}.ttir", a.op.index, k + 1, s.name);
      writeTextFile((dir / file).string(), ir::printModule(*s.module, ir::PrintOptions{false}));
      j["stages"].push_back(stageJson(s, file));
    }
    j["plan"] = graph::planToJson(*a.plan);
  } catch (const CompileError& e) {
    j["error"] = e.message();
  }
  return j;
}

int exportStages(const std::vector<std::string>& args) {
  CLI::App app{"Write the planner's stage kernels of reductions as TTIR, with their launch description (stages.json)",
               "tmetal bench stages"};
  std::vector<std::string> operations;
  std::string out;
  std::string hardware;
  app.add_option("--operation", operations, "one op, TYPE:[d0,d1,...][:AXES[:DTYPE]], e.g. tt.sum:[4096,4096]:1")
      ->required();
  app.add_option("--out", out, "folder for the .ttir files and stages.json")->required();
  app.add_option("--hardware", hardware, "hardware profile to plan for (see `tmetal hardware`)");
  try {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  hw::HardwareSelection selection = hw::selectHardware(hardware);
  fs::create_directories(out);
  nlohmann::json doc;
  doc["tool"] = "tmetal bench stages";
  doc["hardware"] = selection.profile.id;
  doc["ops"] = nlohmann::json::array();
  int failed = 0;
  for (size_t i = 0; i < operations.size(); ++i) {
    nlohmann::json op;
    try {
      graph::OpAnalysis a = graph::analyzeOp(graph::parseOperationSpec(operations[i], i), selection.profile);
      op = exportOp(a, operations[i], out);
    } catch (const CompileError& e) {
      op = {{"operation", operations[i]}, {"error", e.message()}};
    }
    if (op.contains("error")) ++failed;
    doc["ops"].push_back(op);
  }
  writeTextFile((fs::path(out) / "stages.json").string(), doc.dump(2) + "\n");
  std::cout << fmt::format("wrote {} op{} to {}/stages.json ({} failed)\n", operations.size(),
                           operations.size() == 1 ? "" : "s", out, failed);
  return 0;
}

#else

int exportStages(const std::vector<std::string>&) {
  throw CompileError("this tmetal was built without the planner's stage kernels (tmetal/graph/reduction_kernels.h)");
}

#endif

int bench(const std::vector<std::string>& rest) {
  const std::string usage = "usage: tmetal bench layouts|graph|suite|flush|all [ARGS...] (see docs/performance.md; "
                            "`tmetal bench VERB --help` lists a benchmark's options)";
  if (rest.empty()) throw CompileError(usage);
  const std::string& verb = rest.front();
  std::vector<std::string> args(rest.begin() + 1, rest.end());
  if (verb == "stages") return exportStages(args);
  for (const std::string& v : kPythonVerbs)
    if (verb == v) return runPythonBench(rest);
  throw CompileError("unknown benchmark '" + verb + "'; " + usage);
}

}  // namespace

TMETAL_COMMAND(bench, "bench", [](CLI::App& app) -> std::function<int()> {
  CLI::App* cmd = app.add_subcommand(
      "bench",
      "GPU benchmarks on an NVIDIA machine through the CUDA target: layouts, graph, suite, flush or all (runs "
      "bench/gpu_bench.py; arguments after the benchmark's name go to it)");
  cmd->prefix_command();
  return [cmd] { return guarded([&] { return bench(cmd->remaining()); }); };
});

}  // namespace tmetal::tools
