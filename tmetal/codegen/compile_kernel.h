// The code generator's entry point: a TTIR kernel in, target source and its
// launch metadata out. Runs AxisInfo, the layout assignment for the chosen
// MemoryLayout policy, the target checks (hardware limits, types) and the
// lowering with the target's dialect.
#pragma once

#include <optional>
#include <string>

#include "tmetal/codegen/kernel_abi.h"
#include "tmetal/hw/hardware_profile.h"
#include "tmetal/ir/module.h"
#include "tmetal/layout/memory_layout.h"

namespace tmetal::codegen {

struct CompileOptions {
  std::string target = "metal";
  layout::MemoryLayout policy = layout::MemoryLayout::COALESCED;
  int numWarps = 4;  // SIMD groups per threadgroup: num_warps * 32 threads
  // The GPU whose limits apply; the generic Apple profile when not set. The
  // cuda target accepts an NVIDIA profile too and then applies the generic
  // Apple profile's limits as well (a kernel must also fit Metal).
  std::optional<hw::HardwareProfile> hardware;
  // metal::fast instead of metal::precise math (Triton's default is precise).
  bool fastMath = false;
  // Threadgroups each core should hold at once; 0: no minimum, the target
  // compiler's own choice of registers; unset: tmetal's choice, which for
  // CUDA is the registers a loop of loads holds with four trips in flight
  // (register_demand.h; the planner sets it for its stages, which it has
  // measured). The CUDA dialect turns it into __launch_bounds__'s minimum
  // blocks per multiprocessor, which caps the registers per thread; MSL has
  // no such hint (the Apple compiler always chooses), so the metal target
  // checks it and otherwise ignores it.
  std::optional<int> minThreadgroupsPerCore;
  // Triton's software-pipelining depth: loops with a tt.dot load
  // numStages - 1 trips ahead, at most two (docs/codegen.md, "Loads ahead");
  // 1 keeps every loop plain. A loop's own tt.num_stages takes precedence.
  int numStages = 3;
};

struct CompiledKernel {
  std::string source;
  KernelMetadata metadata;
};

// Compiles the module's kernel (its one public tt.func). Every failure is a
// CompileError naming the op and the user's source line where there is one.
CompiledKernel compileKernel(const ir::Module& module, const CompileOptions& options);

// The targets compileKernel knows ("metal"; "cuda", the same kernels as CUDA
// C++ for measurement on NVIDIA GPUs, docs/cuda.md).
const std::vector<std::string>& knownTargets();

}  // namespace tmetal::codegen
