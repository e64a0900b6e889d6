// `tmetal run FILE.ttir --grid X[,Y,Z] --arg NAME=FILE.npy|SCALAR ... --out NAME=FILE.npy ...
//  [--device interpreter|emulator|cuda] [--layout L] [--num-warps N] [--sanitize]`:
// runs a kernel on NumPy inputs and saves chosen buffers afterwards. The
// interpreter is the oracle; the emulator compiles the kernel to MSL and runs
// that MSL on the CPU; cuda emits CUDA C++ instead and runs it on an NVIDIA
// GPU (tools/run_device_cuda.h). NAME is the kernel argument's name (debug TTIR) or its
// position (0, 1, ...). Scalars take the type of their kernel argument;
// arrays must have the pointer's element size (bf16 as uint16/int16 bit
// patterns, f16 as float16). Each device is one function in devices()
// (tools/run_devices.h).
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/ir/verifier.h"
#include "tmetal/support/diagnostic.h"
#include "tmetal/support/npy.h"
#include "tools/cli_support.h"
#include "tools/command.h"
#include "tools/run_devices.h"

namespace tmetal::tools {

namespace {

using interp::KernelArg;

struct RunRequest {
  std::string file;
  std::string grid;
  std::vector<std::string> args;
  std::vector<std::string> outs;
  std::string device = "interpreter";
  CodegenFlags codegen;   // the emulator compiles the kernel first
  bool sanitize = false;  // emulator: bounds-checked buffers in a child process
};

template <typename T>
std::optional<T> parseNumber(const std::string& text) {
  T value{};
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

Grid parseGrid(const std::string& text) {
  Grid grid{1, 1, 1};
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ',');) parts.push_back(part);
  bool ok = !parts.empty() && parts.size() <= 3 && text.back() != ',';
  for (size_t i = 0; ok && i < parts.size(); ++i) {
    auto v = parseNumber<int64_t>(parts[i]);
    ok = v && *v >= 0;
    if (ok) grid[i] = *v;
  }
  if (!ok) throw CompileError("--grid '" + text + "': expected 1 to 3 non-negative integers separated by commas");
  return grid;
}

std::string argumentName(const ir::Function& kernel, size_t i) {
  const std::string& name = kernel.argument(i)->name();
  return name.empty() ? "arg" + std::to_string(i) : name;
}

// "argument 2 ('n', i32)"
std::string describeArgument(const ir::Function& kernel, size_t i) {
  return "argument " + std::to_string(i) + " ('" + argumentName(kernel, i) + "', " + kernel.argument(i)->type().str() + ")";
}

// Splits "NAME=VALUE" and finds the kernel argument NAME stands for.
std::pair<size_t, std::string> resolveAssignment(const ir::Function& kernel, const std::string& option,
                                                 const std::string& assignment) {
  size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw CompileError(option + " '" + assignment + "': expected NAME=VALUE, NAME an argument name or position");
  std::string name = assignment.substr(0, eq), value = assignment.substr(eq + 1);
  if (auto position = parseNumber<size_t>(name)) {
    if (*position >= kernel.numArguments())
      throw CompileError(option + " '" + assignment + "': kernel '" + kernel.name() + "' has " +
                         std::to_string(kernel.numArguments()) + " arguments, so no argument " + name);
    return {*position, value};
  }
  // Unnamed arguments (Triton prints %arg0, %arg1, ... as the reader keeps
  // no name for them) go by the names the errors list them under.
  for (size_t i = 0; i < kernel.numArguments(); ++i)
    if (argumentName(kernel, i) == name) return {i, value};
  std::string known;
  for (size_t i = 0; i < kernel.numArguments(); ++i) known += (i ? ", " : "") + argumentName(kernel, i);
  throw CompileError(option + " '" + assignment + "': kernel '" + kernel.name() + "' has no argument '" + name +
                     "' (its arguments: " + known + ")");
}

// Whether an array of NumPy dtype `dtype` can stand behind a pointer to `pointee`.
bool dtypeFits(const std::string& dtype, const ir::Type& pointee) {
  if (!pointee.isScalar()) return false;
  switch (pointee.scalarKind()) {
    case ir::ScalarKind::F16:
      return dtype == "f2";
    case ir::ScalarKind::BF16:  // bit patterns: NumPy has no bfloat16
      return dtype == "u2" || dtype == "i2";
    case ir::ScalarKind::F32:
      return dtype == "f4";
    case ir::ScalarKind::F64:
      return dtype == "f8";
    case ir::ScalarKind::I1:
    case ir::ScalarKind::I8:
      return dtype == "b1" || dtype == "i1" || dtype == "u1";
    case ir::ScalarKind::I16:
      return dtype == "i2" || dtype == "u2";
    case ir::ScalarKind::I32:
      return dtype == "i4" || dtype == "u4";
    case ir::ScalarKind::I64:
      return dtype == "i8" || dtype == "u8";
    case ir::ScalarKind::F8E4M3FN:  // bit patterns: NumPy has no 8-bit floats
    case ir::ScalarKind::F8E5M2:
    case ir::ScalarKind::F8E4M3FNUZ:
    case ir::ScalarKind::F8E5M2FNUZ:
    case ir::ScalarKind::F8E4M3B11FNUZ:
      return dtype == "u1" || dtype == "i1";
  }
  return false;
}

KernelArg bufferArgument(const ir::Function& kernel, size_t i, const std::string& path, NpyArray& array) {
  const ir::Type& pointee = kernel.argument(i)->type().pointee();
  try {
    array = readNpy(path);
  } catch (const CompileError& e) {
    throw CompileError(e.pos(), e.message() + " (the file of --arg " + std::to_string(i) + ", " + describeArgument(kernel, i) + ")");
  }
  if (!dtypeFits(array.dtype, pointee))
    throw CompileError("--arg " + std::to_string(i) + "=" + path + ": " + describeArgument(kernel, i) + " points to " +
                       pointee.str() + ", but " + path + " holds dtype '" + array.dtype + "'" +
                       (pointee == ir::Type::bf16() ? " (give bf16 as uint16 bit patterns)" : ""));
  interp::HostBuffer buffer;
  buffer.name = argumentName(kernel, i);
  buffer.elementKind = pointee.scalarKind();
  buffer.bytes = array.data;
  return KernelArg::fromBuffer(std::move(buffer));
}

KernelArg scalarArgument(const ir::Function& kernel, size_t i, const std::string& text) {
  const ir::Type& type = kernel.argument(i)->type();
  std::string where = "--arg " + std::to_string(i) + "=" + text + ": " + describeArgument(kernel, i);
  if (type.isInt()) {
    int width = type.bitWidth();
    if (width == 1 && (text == "true" || text == "True")) return KernelArg::fromInt(1);
    if (width == 1 && (text == "false" || text == "False")) return KernelArg::fromInt(0);
    // Signed or unsigned spellings are both fine as long as the bits fit.
    if (auto v = parseNumber<int64_t>(text)) {
      bool fits = width == 64 || (*v >= -(int64_t{1} << (width - 1)) && *v < (int64_t{1} << width));
      if (!fits) throw CompileError(where + " does not fit " + std::to_string(width) + " bits");
      return KernelArg::fromInt(*v);
    }
    if (auto u = parseNumber<uint64_t>(text); u && width == 64) return KernelArg::fromInt(static_cast<int64_t>(*u));
    throw CompileError(where + " needs an integer");
  }
  if (type.isFloat()) {
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) throw CompileError(where + " needs a number");
    return KernelArg::fromFloat(v);
  }
  throw CompileError(where + " needs an .npy file");
}

int run(const RunRequest& request) {
  const DeviceRunner& device = findDevice(request.device);
  Grid grid = parseGrid(request.grid);
  std::unique_ptr<ir::Module> module = frontend::parseTtir(readTextFile(request.file), request.file);
  ir::verify(*module);  // devices may then rely on well-formed IR
  const ir::Function& kernel = *module->kernel();
  size_t count = kernel.numArguments();

  std::vector<std::optional<KernelArg>> given(count);
  std::vector<NpyArray> arrays(count);  // the input files, for the dtype and shape of outputs
  for (const std::string& assignment : request.args) {
    auto [i, value] = resolveAssignment(kernel, "--arg", assignment);
    if (given[i]) throw CompileError("--arg '" + assignment + "': " + describeArgument(kernel, i) + " is given twice");
    given[i] = kernel.argument(i)->type().isPointer() ? bufferArgument(kernel, i, value, arrays[i])
                                                      : scalarArgument(kernel, i, value);
  }
  std::string missing;
  for (size_t i = 0; i < count; ++i)
    if (!given[i]) missing += "\n  " + describeArgument(kernel, i);
  if (!missing.empty()) throw CompileError("every kernel argument needs an --arg; missing:" + missing);

  std::vector<std::pair<size_t, std::string>> outputs;
  for (const std::string& assignment : request.outs) {
    auto [i, path] = resolveAssignment(kernel, "--out", assignment);
    if (!kernel.argument(i)->type().isPointer())
      throw CompileError("--out '" + assignment + "': " + describeArgument(kernel, i) + " is not a buffer");
    for (const auto& [j, other] : outputs)
      if (j == i) throw CompileError("--out '" + assignment + "': " + describeArgument(kernel, i) + " is given twice");
    if (path.empty()) throw CompileError("--out '" + assignment + "': expected a file name after '='");
    outputs.emplace_back(i, path);
  }

  std::vector<KernelArg> args;
  for (auto& g : given) args.push_back(std::move(*g));
  device(*module, kernel, args, grid, DeviceOptions{request.codegen, request.sanitize});

  for (const auto& [i, path] : outputs) {
    NpyArray out = arrays[i];
    out.data = args[i].buffer.bytes;
    writeNpy(path, out);
  }
  return 0;
}

}  // namespace

TMETAL_COMMAND(run, "run", [](CLI::App& app) -> std::function<int()> {
  auto request = std::make_shared<RunRequest>();
  CLI::App* cmd = app.add_subcommand("run", "Run a TTIR kernel on .npy inputs and save its buffers as .npy");
  cmd->add_option("file", request->file, "TTIR file (as Triton prints it)")->required();
  cmd->add_option("--grid", request->grid, "programs along x[,y[,z]]")->required();
  cmd->add_option("--arg", request->args, "NAME=FILE.npy for a pointer, NAME=VALUE for a scalar; NAME is the "
                                          "argument's name or position; every argument needs one")
      ->allow_extra_args(false)  // one value per --arg, so the TTIR file may come last
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--out", request->outs, "NAME=FILE.npy: save that buffer after the run (dtype and shape of its --arg)")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--device", request->device,
                  "where to run: interpreter (the reference), emulator (the emitted MSL on the CPU) or cuda (the "
                  "kernel as CUDA C++ on an NVIDIA GPU, docs/cuda.md)")
      ->capture_default_str();
  request->codegen.addTo(cmd);
  cmd->add_flag("--sanitize", request->sanitize,
                "emulator: run in a child process with guarded buffers, reporting out-of-bounds accesses");
  return [request] { return guarded([&] { return run(*request); }); };
});

}  // namespace tmetal::tools
