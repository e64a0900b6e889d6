// The `cuda` device of `tmetal run`: the kernel compiled with the CUDA
// dialect (target "cuda"), NVRTC, and run on an NVIDIA GPU through the CUDA
// driver (tmetal/runtime/cuda). On a machine without one it fails with the
// runtime's message saying what is missing.
#pragma once

#include <vector>

#include "tmetal/interp/kernel_args.h"
#include "tmetal/ir/module.h"
#include "tools/run_devices.h"

namespace tmetal::tools {

// A DeviceRunner: runs `kernel` over `grid` on `args` (buffers are copied to
// the GPU and back into the arguments). options.codegen chooses layout,
// num_warps, hardware profile and fast math; its target becomes "cuda".
void runOnCuda(const ir::Module& module, const ir::Function& kernel, std::vector<interp::KernelArg>& args, Grid grid,
               const DeviceOptions& options);

}  // namespace tmetal::tools
