// The MSL emulator: runs emitted Metal kernels on the CPU.
//
//   auto kernel = emulator::compile(mslSource, metadata);           // clang, cached
//   emulator::launch(kernel, {ArgSlot::buffer(x.data(), x.size() * 4, "x"),
//                             ArgSlot::scalar<int32_t>(n)},
//                    {gridX, 1, 1});                                // threadgroups per grid
//
// compile() turns the MSL into a shared object (MSL + msl_shim.h + a trampoline
// generated from the metadata), reusing a cached one when the same source was
// compiled before. launch() runs every threadgroup of the grid: its threads as
// fibers on one OS thread, threadgroups in parallel on a pool of OS threads.
// Barrier and SIMD-group divergence, and (sanitize mode) out-of-bounds buffer
// accesses, are reported as EmulatorError. docs/emulator.md has the details.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "tmetal/codegen/kernel_abi.h"

namespace tmetal::runtime::emulator {

// A kernel misbehaved at run time (divergent barrier or SIMD-group function,
// out-of-bounds access in sanitize mode, a crash in sanitize mode) or the
// launch arguments do not fit the kernel. Compile problems are CompileError.
class EmulatorError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct EmulatorOptions {
  // Run the grid in a child process whose buffers sit between guard pages:
  // out-of-bounds accesses, crashes (e.g. integer division by zero) and
  // timeouts become EmulatorErrors naming the buffer and the thread.
  bool sanitize = false;
  // Sanitize mode only: stop the kernel after this many seconds (0: no limit).
  unsigned timeoutSeconds = 0;
  // Where compiled kernels are cached; empty: $TMETAL_CACHE_DIR, else ~/.cache/tmetal/emulator.
  std::string cacheDir;
  // The C++ compiler; empty: $TMETAL_EMULATOR_CXX, else clang++.
  std::string compiler;
  std::vector<std::string> extraCompilerFlags;
  // OS threads running threadgroups; 0: one per hardware thread (bounded by the grid).
  unsigned workerThreads = 0;
  // Stack of each emulated thread (a fiber), in bytes.
  size_t fiberStackBytes = 256 * 1024;

  // Defaults, with TMETAL_EMULATOR_SANITIZE=1, TMETAL_EMULATOR_TIMEOUT=<seconds> and
  // TMETAL_EMULATOR_THREADS=<n> applied.
  static EmulatorOptions fromEnvironment();
};

// One kernel argument, in the metadata's parameter order: a buffer (host
// memory the kernel reads and writes in place) or a scalar's bytes.
class ArgSlot {
 public:
  // `name` labels the buffer in error messages; empty: the metadata's parameter name.
  static ArgSlot buffer(void* data, size_t bytes, std::string name = "");
  static ArgSlot scalarBytes(const void* bytes, size_t size);
  template <class T>
  static ArgSlot scalar(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "scalar arguments are plain values");
    return scalarBytes(&value, sizeof(T));
  }

  bool isBuffer() const { return isBuffer_; }
  void* data() const { return data_; }
  size_t bytes() const { return isBuffer_ ? bufferBytes_ : scalar_.size(); }
  const std::string& name() const { return name_; }
  const std::vector<unsigned char>& scalarValue() const { return scalar_; }

 private:
  bool isBuffer_ = false;
  void* data_ = nullptr;
  size_t bufferBytes_ = 0;
  std::string name_;
  std::vector<unsigned char> scalar_;
};

struct LoadedKernelObject;  // the dlopen'ed shared object (kernel_object_loader.h)

class EmulatorKernel {
 public:
  const codegen::KernelMetadata& metadata() const { return metadata_; }
  const EmulatorOptions& options() const { return options_; }
  void setOptions(const EmulatorOptions& options) { options_ = options; }
  // The compiled shared object in the cache, and whether compile() found it there.
  const std::string& sharedObjectPath() const { return sharedObjectPath_; }
  bool fromCache() const { return fromCache_; }
  // The file name clang's messages and the divergence reports use for the MSL ("<kernel>.metal").
  const std::string& sourceName() const { return sourceName_; }

 private:
  friend EmulatorKernel compile(const std::string&, const codegen::KernelMetadata&, const EmulatorOptions&);
  friend void launch(const EmulatorKernel&, const std::vector<ArgSlot>&, std::array<uint32_t, 3>);
  codegen::KernelMetadata metadata_;
  EmulatorOptions options_;
  std::string sharedObjectPath_;
  bool fromCache_ = false;
  std::string sourceName_;
  std::shared_ptr<const LoadedKernelObject> object_;
};

// Compiles `msl` (the emitter's output) for the emulator. Throws CompileError
// with clang's diagnostics when the shim cannot compile it, or when the
// metadata and the kernel's parameters disagree.
EmulatorKernel compile(const std::string& msl, const codegen::KernelMetadata& metadata,
                       const EmulatorOptions& options = EmulatorOptions::fromEnvironment());

// Runs grid[0] x grid[1] x grid[2] threadgroups of metadata.threadsPerThreadgroup
// threads. Returns after every thread finished; throws EmulatorError otherwise
// (buffer contents are then unspecified).
void launch(const EmulatorKernel& kernel, const std::vector<ArgSlot>& args, std::array<uint32_t, 3> grid);

}  // namespace tmetal::runtime::emulator
