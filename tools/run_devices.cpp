#include "tools/run_devices.h"

#include <cstdint>

#include "tmetal/codegen/compile_kernel.h"
#include "tmetal/interp/float_format.h"
#include "tmetal/interp/interpreter.h"
#include "tmetal/runtime/emulator/emulator.h"
#include "tmetal/support/diagnostic.h"
#include "tmetal/support/grid_limits.h"
#include "tools/run_device_cuda.h"

namespace tmetal::tools {

namespace {

using interp::KernelArg;

void runOnInterpreter(const ir::Module& module, const ir::Function& kernel, std::vector<KernelArg>& args, Grid grid,
                      const DeviceOptions&) {
  interp::InterpretOptions options;
  options.module = &module;
  interp::interpret(kernel, args, grid, options);
}

// A scalar kernel argument as the bytes the emitted `constant T&` parameter reads.
runtime::emulator::ArgSlot scalarSlot(const KernelArg& arg, const ir::Type& type) {
  using runtime::emulator::ArgSlot;
  if (type.isFloat()) {
    uint64_t bits = interp::floatToBits(arg.floatValue, type.scalarKind());
    return ArgSlot::scalarBytes(&bits, static_cast<size_t>(type.bitWidth() / 8));  // little-endian low bytes
  }
  uint64_t bits = static_cast<uint64_t>(arg.intValue);
  return ArgSlot::scalarBytes(&bits, static_cast<size_t>(std::max(1, type.bitWidth() / 8)));
}

void runOnEmulator(const ir::Module& module, const ir::Function& kernel, std::vector<KernelArg>& args, Grid grid,
                   const DeviceOptions& device) {
  namespace emu = runtime::emulator;
  codegen::CompiledKernel compiled = codegen::compileKernel(module, device.codegen.toCompileOptions());
  emu::EmulatorOptions options = emu::EmulatorOptions::fromEnvironment();
  options.sanitize = options.sanitize || device.sanitize;
  emu::EmulatorKernel executable = emu::compile(compiled.source, compiled.metadata, options);
  std::vector<emu::ArgSlot> slots;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind == KernelArg::Kind::Buffer)
      slots.push_back(emu::ArgSlot::buffer(args[i].buffer.bytes.data(), args[i].buffer.bytes.size(), args[i].buffer.name));
    else
      slots.push_back(scalarSlot(args[i], kernel.argument(i)->type()));
  }
  if (std::string problem = gridProblem(grid); !problem.empty()) throw CompileError("--grid: " + problem);
  std::array<uint32_t, 3> threadgroups{};
  for (int d = 0; d < 3; ++d) threadgroups[d] = static_cast<uint32_t>(grid[d]);
  if (grid[0] * grid[1] * grid[2] == 0) return;  // an empty grid runs nothing, as on the interpreter
  emu::launch(executable, slots, threadgroups);
}

}  // namespace

const std::map<std::string, DeviceRunner>& devices() {
  static const std::map<std::string, DeviceRunner> table = {
      {"interpreter", runOnInterpreter},
      {"emulator", runOnEmulator},
      {"cuda", runOnCuda},
  };
  return table;
}

const DeviceRunner& findDevice(const std::string& name) {
  auto device = devices().find(name);
  if (device == devices().end()) {
    std::string known;
    for (const auto& [deviceName, runner] : devices()) known += (known.empty() ? "" : ", ") + deviceName;
    throw CompileError("--device '" + name + "' is not available (devices: " + known + ")");
  }
  return device->second;
}

}  // namespace tmetal::tools
