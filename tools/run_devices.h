// The devices a kernel can run on, one function each, shared by `tmetal run`
// and `tmetal graph-run`: the interpreter (the reference) and the emulator
// (the emitted MSL compiled for the CPU). A device takes the kernel's
// module, its arguments (buffers are read and written in place) and the
// grid; adding a device is adding one function to the table in
// run_devices.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tmetal/interp/kernel_args.h"
#include "tmetal/ir/module.h"
#include "tools/cli_support.h"

namespace tmetal::tools {

using Grid = std::array<int64_t, 3>;

// How devices that compile the kernel first compile it.
struct DeviceOptions {
  CodegenFlags codegen;   // resolved only by devices that compile
  bool sanitize = false;  // emulator: bounds-checked buffers in a child process
};

// Runs `kernel` (a function of `module`) over `grid` on `args`, writing
// results into the argument buffers. Throws CompileError (and, for the
// emulator, EmulatorError) on failure.
using DeviceRunner = std::function<void(const ir::Module& module, const ir::Function& kernel,
                                        std::vector<interp::KernelArg>& args, Grid grid,
                                        const DeviceOptions& options)>;

const std::map<std::string, DeviceRunner>& devices();

// The device called `name`; throws CompileError "--device 'x' is not
// available (devices: emulator, interpreter)" for an unknown name.
const DeviceRunner& findDevice(const std::string& name);

}  // namespace tmetal::tools
