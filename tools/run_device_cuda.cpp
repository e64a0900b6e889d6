#include "tools/run_device_cuda.h"

#include "tmetal/codegen/compile_kernel.h"
#include "tmetal/interp/float_format.h"
#include "tmetal/runtime/cuda/cuda_launcher.h"
#include "tmetal/support/diagnostic.h"
#include "tmetal/support/grid_limits.h"

namespace tmetal::tools {

namespace {

using interp::KernelArg;
namespace cuda = runtime::cuda;

// A scalar kernel argument as the bytes of the kernel's by-value parameter.
cuda::LaunchArg scalarArg(const KernelArg& arg, const ir::Type& type) {
  if (type.isFloat()) {
    uint64_t bits = interp::floatToBits(arg.floatValue, type.scalarKind());
    return cuda::LaunchArg::scalarBytes(&bits, static_cast<size_t>(type.bitWidth() / 8));  // little-endian low bytes
  }
  uint64_t bits = static_cast<uint64_t>(arg.intValue);
  return cuda::LaunchArg::scalarBytes(&bits, static_cast<size_t>(std::max(1, type.bitWidth() / 8)));
}

}  // namespace

void runOnCuda(const ir::Module& module, const ir::Function& kernel, std::vector<KernelArg>& args, Grid grid,
               const DeviceOptions& options) {
  CodegenFlags flags = options.codegen;
  flags.target = "cuda";
  codegen::CompiledKernel compiled = codegen::compileKernel(module, flags.toCompileOptions());
  if (std::string problem = gridProblem(grid); !problem.empty()) throw CompileError("--grid: " + problem);
  std::array<uint32_t, 3> blocks{};
  for (int d = 0; d < 3; ++d) blocks[d] = static_cast<uint32_t>(grid[d]);  // CUDA's own limits: cuda_launcher
  cuda::CudaKernel executable = cuda::compile(compiled.source, compiled.metadata);
  std::vector<cuda::LaunchArg> launchArgs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].kind == KernelArg::Kind::Buffer)
      launchArgs.push_back(cuda::LaunchArg::hostBuffer(args[i].buffer.bytes.data(), args[i].buffer.bytes.size(),
                                                       args[i].buffer.name));
    else
      launchArgs.push_back(scalarArg(args[i], kernel.argument(i)->type()));
  }
  cuda::launch(executable, launchArgs, blocks);  // an empty grid runs nothing, as on the interpreter
}

}  // namespace tmetal::tools
