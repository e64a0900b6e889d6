// Shared by the test_runtime_emulator_*.cpp binaries: kernel metadata in the
// shape the MSL emitter produces, and options that keep the compiled kernels
// in the build tree's own cache, so that re-running the tests compiles nothing.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "tmetal/codegen/kernel_abi.h"
#include "tmetal/runtime/emulator/emulator.h"

namespace tmetal::runtime::emulator::testing {

inline codegen::KernelParam pointerParam(std::string name, std::string dtype, int binding) {
  return {std::move(name), true, std::move(dtype), binding};
}

inline codegen::KernelParam scalarParam(std::string name, std::string dtype, int binding) {
  return {std::move(name), false, std::move(dtype), binding};
}

// The builtins most emitted kernels take: program id, then thread and lane indices.
inline std::vector<codegen::KernelBuiltin> standardBuiltins() {
  return {{"threadgroup_position_in_grid", "uint3"},
          {"thread_index_in_threadgroup", "uint"},
          {"thread_index_in_simdgroup", "uint"},
          {"simdgroup_index_in_threadgroup", "uint"}};
}

inline codegen::KernelMetadata metalKernel(std::string name, int threadsPerThreadgroup,
                                           std::vector<codegen::KernelParam> params,
                                           std::vector<codegen::KernelBuiltin> builtins = standardBuiltins()) {
  codegen::KernelMetadata md;
  md.target = "metal";
  md.kernelName = std::move(name);
  md.threadsPerThreadgroup = threadsPerThreadgroup;
  md.simdWidth = 32;
  md.params = std::move(params);
  md.builtins = std::move(builtins);
  return md;
}

inline EmulatorOptions testOptions() {
  EmulatorOptions options;
  options.cacheDir = std::string(TMETAL_BINARY_DIR) + "/emulator-test-cache";
  return options;
}

}  // namespace tmetal::runtime::emulator::testing
