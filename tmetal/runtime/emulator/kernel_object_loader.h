// Loads compiled kernel objects (dlopen) and binds them to the emulator's
// hooks. Objects stay loaded for the life of the process: worker threads may
// still hold thread-local threadgroup memory of a kernel, and the same cache
// entry is shared by every EmulatorKernel compiled from the same source.
#pragma once

#include <memory>
#include <string>

#include "tmetal/runtime/emulator/emulator.h"
#include "tmetal/runtime/emulator/threadgroup_scheduler.h"

namespace tmetal::runtime::emulator {

struct LoadedKernelObject {
  std::string path;
  void* handle = nullptr;
  ThreadEntry entry = nullptr;
};

// Throws CompileError when the object cannot be loaded or lacks the entry points.
std::shared_ptr<const LoadedKernelObject> loadKernelObject(const std::string& path);

}  // namespace tmetal::runtime::emulator
