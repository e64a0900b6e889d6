// The CUDA runtime: runs kernels that the CUDA dialect emitted
// (compileKernel with target "cuda") on an NVIDIA GPU, to measure tmetal's
// layouts and reductions on real hardware. API as the emulator's:
//
//   auto kernel = cuda::compile(source, metadata);          // NVRTC -> cubin for the device
//   cuda::launch(kernel, {LaunchArg::hostBuffer(x.data(), x.size() * 4),
//                         LaunchArg::scalar<int32_t>(n)},
//                {gridX, 1, 1});                           // threadgroups (CUDA blocks) per grid
//   std::vector<double> ms = cuda::timeLaunches(kernel, args, grid, {.iterations = 50});
//
// Host buffers are copied to device memory (cuMemAlloc, never managed
// memory) before the launch and back after it. timeLaunches runs the kernel
// repeatedly on device-resident buffers and times each launch with a pair of
// CUDA events. The driver (libcuda.so.1) and NVRTC are loaded at run time:
// without them every call throws CudaError saying which is missing.
// docs/cuda.md has the details.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "tmetal/codegen/kernel_abi.h"
#include "tmetal/runtime/cuda/cuda_error.h"

namespace tmetal::runtime::cuda {

struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;  // "NVIDIA H100 80GB HBM3"
  int computeMajor = 0;
  int computeMinor = 0;
  int multiprocessors = 0;
  int64_t l2CacheBytes = 0;
  int64_t globalMemoryBytes = 0;
  int64_t sharedMemoryPerBlockBytes = 0;  // static shared memory, without the opt-in
  int driverVersion = 0;                  // 13000 for CUDA 13.0
  std::string driverLibrary;

  std::string arch() const { return "sm_" + std::to_string(computeMajor) + std::to_string(computeMinor); }
};

// Throws CudaError when there is no driver, no GPU, or no device `ordinal`.
CudaDeviceInfo deviceInfo(int ordinal = 0);

struct CudaOptions {
  int device = 0;
  // The GPU code's architecture; empty: the device's own (sm_90 on H100).
  std::string arch;
  std::vector<std::string> extraNvrtcFlags;
  // Defaults, with TMETAL_CUDA_DEVICE=<ordinal> and TMETAL_CUDA_ARCH=sm_XY applied.
  static CudaOptions fromEnvironment();
};

class DeviceBuffer;

// One kernel argument, in the metadata's parameter order.
class LaunchArg {
 public:
  enum class Kind { HostBuffer, DeviceBuffer, Scalar };
  // Host memory the kernel reads and writes: copied to the device before and
  // back after the launch. `name` labels it in errors (default: the parameter's).
  static LaunchArg hostBuffer(void* data, size_t bytes, std::string name = "");
  // Device memory that stays where it is (see DeviceBuffer).
  static LaunchArg deviceBuffer(const DeviceBuffer& buffer);
  // Device memory someone else allocated (a PyTorch CUDA tensor's data_ptr(),
  // in the current context's address space), passed as it is. `bytes` is
  // informational (0 when unknown): nothing is copied or checked against it.
  static LaunchArg devicePointer(unsigned long long pointer, size_t bytes = 0, std::string name = "");
  static LaunchArg scalarBytes(const void* bytes, size_t size);
  template <class T>
  static LaunchArg scalar(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "scalar arguments are plain values");
    return scalarBytes(&value, sizeof(T));
  }

  Kind kind() const { return kind_; }
  void* hostData() const { return host_; }
  size_t bytes() const { return kind_ == Kind::Scalar ? scalar_.size() : bytes_; }
  const std::string& name() const { return name_; }
  unsigned long long devicePointer() const { return device_; }
  const std::vector<unsigned char>& scalarValue() const { return scalar_; }

 private:
  Kind kind_ = Kind::Scalar;
  void* host_ = nullptr;
  unsigned long long device_ = 0;
  size_t bytes_ = 0;
  std::string name_;
  std::vector<unsigned char> scalar_;
};

// A block of device memory (cuMemAlloc: 256-byte aligned), freed with the
// object. Move-only.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes, int device = 0);
  static DeviceBuffer upload(const void* data, size_t bytes, int device = 0);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void copyFromHost(const void* data, size_t bytes);
  void copyToHost(void* data, size_t bytes) const;
  unsigned long long pointer() const { return pointer_; }
  size_t bytes() const { return bytes_; }

 private:
  unsigned long long pointer_ = 0;
  size_t bytes_ = 0;
  int device_ = 0;
};

struct LoadedCudaModule;  // the cuModule and its function

class CudaKernel {
 public:
  const codegen::KernelMetadata& metadata() const { return metadata_; }
  const CudaOptions& options() const { return options_; }
  const std::string& arch() const { return arch_; }
  const std::string& ptx() const { return ptx_; }
  const std::string& compileLog() const { return log_; }
  // What the compiler gave the kernel (cuFuncGetAttribute).
  int registersPerThread() const { return registers_; }
  int localMemoryBytesPerThread() const { return localBytes_; }  // spills and stack
  int staticSharedMemoryBytes() const { return sharedBytes_; }
  int maxThreadsPerBlock() const { return maxThreads_; }

 private:
  friend CudaKernel compile(const std::string&, const codegen::KernelMetadata&, const CudaOptions&);
  friend struct LaunchAccess;
  codegen::KernelMetadata metadata_;
  CudaOptions options_;
  std::string arch_;
  std::string ptx_;
  std::string log_;
  int registers_ = 0;
  int localBytes_ = 0;
  int sharedBytes_ = 0;
  int maxThreads_ = 0;
  std::shared_ptr<const LoadedCudaModule> module_;
};

// Compiles the CUDA dialect's source with NVRTC for the device and loads it.
// Throws CompileError (with NVRTC's log) when the source does not compile or
// metadata.target is not "cuda"; CudaError when CUDA is missing.
CudaKernel compile(const std::string& source, const codegen::KernelMetadata& metadata,
                   const CudaOptions& options = CudaOptions::fromEnvironment());

// Runs grid[0] x grid[1] x grid[2] blocks of metadata.threadsPerThreadgroup
// threads and waits for them. Host buffers are copied back afterwards.
// Throws CudaError when the arguments do not fit the metadata or the kernel
// fails on the GPU (an illegal address, say: the GPU's context is then
// unusable for the rest of the process, as CUDA makes it).
void launch(const CudaKernel& kernel, const std::vector<LaunchArg>& args, std::array<uint32_t, 3> grid);

// As launch(), on device memory the caller owns (LaunchArg::devicePointer,
// deviceBuffer) and scalars, enqueued on `stream` (a CUstream handle; 0 is
// the legacy default stream), e.g. PyTorch's current stream. Host buffers are
// refused. Synchronous: waits for the context (cuCtxSynchronize) before it
// returns, so kernel faults surface here. Throws as launch() does. On a
// stream being captured into a CUDA graph the launch is only recorded (no
// wait; a kernel that prints or asserts is refused: its debug buffer is read
// back after each launch).
void launchOnStream(const CudaKernel& kernel, const std::vector<LaunchArg>& args, std::array<uint32_t, 3> grid,
                    unsigned long long stream);

struct TimingOptions {
  int warmup = 3;       // untimed launches first (clocks, caches, instruction cache)
  int iterations = 20;  // timed launches
  // Overwrite a buffer twice the L2's size before each timed launch (outside
  // its event pair), so that no launch finds its inputs in the L2.
  bool flushL2 = true;
};

// Launches the kernel options.warmup + options.iterations times and returns
// the time of each timed launch in milliseconds (cuEvent pairs around each
// launch). Host buffers are uploaded once before and downloaded once after
// all launches, so every launch runs on device-resident data; the kernel must
// tolerate running repeatedly on its own output (in-place updates then
// accumulate). Throws as launch() does.
std::vector<double> timeLaunches(const CudaKernel& kernel, const std::vector<LaunchArg>& args,
                                 std::array<uint32_t, 3> grid, const TimingOptions& options = {});

}  // namespace tmetal::runtime::cuda
