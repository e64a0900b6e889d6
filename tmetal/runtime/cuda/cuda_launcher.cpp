#include "tmetal/runtime/cuda/cuda_launcher.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>

#include "tmetal/codegen/debug_buffer.h"
#include "tmetal/runtime/cuda/cuda_driver.h"
#include "tmetal/runtime/cuda/nvrtc_compiler.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::runtime::cuda {

using namespace driver;

struct LoadedCudaModule {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
  ~LoadedCudaModule() {
    // A failure is ignored: at process exit the driver may be shutting down.
    if (module) api().moduleUnload(module);
  }
};

// The kernel's private parts, for launch() and timeLaunches().
struct LaunchAccess {
  static CUfunction function(const CudaKernel& k) { return k.module_->function; }
};

namespace {

// Makes the device's primary context current on the calling thread (it is
// retained once per process and device, and shared with any CUDA library
// the host program uses, e.g. PyTorch).
void bindContext(int device) {
  const Api& a = api();
  static std::mutex mutex;
  static std::map<int, CUcontext> contexts;
  CUcontext context = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = contexts.find(device);
    if (it == contexts.end()) {
      int count = 0;
      check(a.deviceGetCount(&count), "cuDeviceGetCount");
      if (count == 0) throw CudaError("no NVIDIA GPU found: the cuda device needs one");
      if (device < 0 || device >= count)
        throw CudaError("CUDA device " + std::to_string(device) + " does not exist (this machine has " +
                        std::to_string(count) + ")");
      CUdevice handle = 0;
      check(a.deviceGet(&handle, device), "cuDeviceGet");
      check(a.primaryCtxRetain(&context, handle), "cuDevicePrimaryCtxRetain");
      contexts[device] = context;
    } else {
      context = it->second;
    }
  }
  check(a.ctxSetCurrent(context), "cuCtxSetCurrent");
}

int attribute(int attr, CUdevice device) {
  int v = 0;
  check(api().deviceGetAttribute(&v, attr, device), "cuDeviceGetAttribute");
  return v;
}

int functionAttribute(int attr, CUfunction f) {
  int v = 0;
  check(api().funcGetAttribute(&v, attr, f), "cuFuncGetAttribute");
  return v;
}

// Bytes of a scalar of the metadata's dtype, as the kernel's by-value parameter has them.
size_t scalarBytesOf(const std::string& dtype) {
  static const std::map<std::string, size_t> sizes = {{"i1", 1},  {"i8", 1},  {"i16", 2},  {"i32", 4}, {"i64", 8},
                                                      {"f16", 2}, {"bf16", 2}, {"f32", 4}, {"f64", 8}};
  auto it = sizes.find(dtype);
  if (it == sizes.end()) throw CudaError("kernel parameter of dtype '" + dtype + "' is not supported by the cuda runtime");
  return it->second;
}

void checkArguments(const CudaKernel& kernel, const std::vector<LaunchArg>& args) {
  const codegen::KernelMetadata& m = kernel.metadata();
  if (args.size() != m.params.size())
    throw CudaError("kernel '" + m.kernelName + "' takes " + std::to_string(m.params.size()) + " arguments, " +
                    std::to_string(args.size()) + " were given");
  for (size_t i = 0; i < args.size(); ++i) {
    const codegen::KernelParam& p = m.params[i];
    std::string where = "argument " + std::to_string(i) + " ('" + p.name + "') of kernel '" + m.kernelName + "'";
    bool isBuffer = args[i].kind() != LaunchArg::Kind::Scalar;
    if (p.isPointer && !isBuffer) throw CudaError(where + " is a pointer to " + p.dtype + ": pass a buffer");
    if (!p.isPointer && isBuffer) throw CudaError(where + " is a " + p.dtype + " scalar: pass its value");
    if (!p.isPointer && args[i].bytes() != scalarBytesOf(p.dtype))
      throw CudaError(where + " is a " + p.dtype + " scalar of " + std::to_string(scalarBytesOf(p.dtype)) +
                      " bytes; " + std::to_string(args[i].bytes()) + " were given");
  }
}

void checkGrid(const CudaKernel& kernel, std::array<uint32_t, 3> grid) {
  static const int limits[3] = {kAttrMaxGridDimX, kAttrMaxGridDimY, kAttrMaxGridDimZ};
  CUdevice device = 0;
  check(api().deviceGet(&device, kernel.options().device), "cuDeviceGet");
  for (int d = 0; d < 3; ++d) {
    int64_t limit = attribute(limits[d], device);
    if (grid[d] > limit)
      throw CudaError("grid of kernel '" + kernel.metadata().kernelName + "': " + std::to_string(grid[d]) + " blocks along " +
                      "xyz"[d] + ", more than the " + std::to_string(limit) + " CUDA allows");
  }
}

// Events time the launches; destroyed with the object.
class Event {
 public:
  Event() { check(api().eventCreate(&event_, 0), "cuEventCreate"); }
  ~Event() {
    if (event_) api().eventDestroy(event_);
  }
  Event(Event&& o) noexcept : event_(o.event_) { o.event_ = nullptr; }
  Event(const Event&) = delete;
  CUevent get() const { return event_; }

 private:
  CUevent event_ = nullptr;
};

// The arguments as device memory: host buffers copied to fresh device
// buffers, device buffers and scalars as they are.
class PreparedArguments {
 public:
  PreparedArguments(const CudaKernel& kernel, const std::vector<LaunchArg>& args) : kernel_(kernel), args_(args) {
    checkArguments(kernel, args);
    const codegen::KernelMetadata& m = kernel.metadata();
    pointers_.resize(args.size() + (m.takesDebugBuffer() ? 1 : 0));
    params_.resize(pointers_.size());
    if (m.takesDebugBuffer()) {
      // The debug buffer (kernel_abi.h) after the arguments; only its header needs writing.
      std::vector<int32_t> header(codegen::kDebugHeaderWords);
      codegen::prepareDebugBuffer(m, header.data());
      debug_ = std::make_unique<DeviceBuffer>(codegen::debugBufferWords(m) * sizeof(int32_t), kernel.options().device);
      debug_->copyFromHost(header.data(), header.size() * sizeof(int32_t));
      pointers_.back() = debug_->pointer();
      params_.back() = &pointers_.back();
    }
    for (size_t i = 0; i < args.size(); ++i) {
      switch (args[i].kind()) {
        case LaunchArg::Kind::HostBuffer:
          owned_.emplace_back(i, DeviceBuffer::upload(args[i].hostData(), args[i].bytes(), kernel.options().device));
          pointers_[i] = owned_.back().second.pointer();
          params_[i] = &pointers_[i];
          break;
        case LaunchArg::Kind::DeviceBuffer:
          pointers_[i] = args[i].devicePointer();
          params_[i] = &pointers_[i];
          break;
        case LaunchArg::Kind::Scalar:
          params_[i] = const_cast<unsigned char*>(args[i].scalarValue().data());
          break;
      }
    }
  }
  void** params() { return params_.empty() ? nullptr : params_.data(); }
  void copyBack() {
    for (auto& [i, buffer] : owned_) buffer.copyToHost(args_[i].hostData(), args_[i].bytes());
  }
  // After the kernel has finished: prints what it printed, and throws
  // DeviceAssertionError when one of its assertions failed.
  void reportDebugBuffer() const {
    if (!debug_) return;
    const codegen::KernelMetadata& m = kernel_.metadata();
    std::vector<int32_t> words(codegen::kDebugHeaderWords);
    debug_->copyToHost(words.data(), words.size() * sizeof(int32_t));
    // Only the records written are copied back.
    const int64_t records = std::min<int64_t>(static_cast<uint32_t>(words[codegen::kPrintCountWord]),
                                              words[codegen::kPrintCapacityWord]);
    words.resize(codegen::debugBufferWords(m));
    if (records > 0)
      debug_->copyToHost(words.data(), (codegen::kDebugHeaderWords + records * codegen::kPrintRecordWords) *
                                           sizeof(int32_t));
    codegen::reportDebugBuffer(m, words.data(), words.size(), std::cout);
  }

 private:
  const CudaKernel& kernel_;
  const std::vector<LaunchArg>& args_;
  std::unique_ptr<DeviceBuffer> debug_;
  std::vector<std::pair<size_t, DeviceBuffer>> owned_;
  std::vector<CUdeviceptr> pointers_;
  std::vector<void*> params_;
};

void launchOnce(const CudaKernel& kernel, std::array<uint32_t, 3> grid, void** params, CUstream stream = nullptr) {
  check(api().launchKernel(LaunchAccess::function(kernel), grid[0], grid[1], grid[2],
                           static_cast<unsigned>(kernel.metadata().threadsPerThreadgroup), 1, 1, 0, stream, params,
                           nullptr),
        "launching kernel '" + kernel.metadata().kernelName + "'");
}

void synchronize(const CudaKernel& kernel) {
  CUresult r = api().ctxSynchronize();
  if (r != kSuccess)
    throw CudaError("kernel '" + kernel.metadata().kernelName + "' failed on the GPU: " + describe(r) +
                    " (compute-sanitizer finds out-of-bounds accesses; the GPU context is unusable for the rest of "
                    "this process)");
}

}  // namespace

CudaDeviceInfo deviceInfo(int ordinal) {
  const Api& a = api();
  bindContext(ordinal);
  CUdevice device = 0;
  check(a.deviceGet(&device, ordinal), "cuDeviceGet");
  CudaDeviceInfo info;
  info.ordinal = ordinal;
  char name[256] = {};
  check(a.deviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
  info.name = name;
  info.computeMajor = attribute(kAttrComputeCapabilityMajor, device);
  info.computeMinor = attribute(kAttrComputeCapabilityMinor, device);
  info.multiprocessors = attribute(kAttrMultiprocessorCount, device);
  info.l2CacheBytes = attribute(kAttrL2CacheSize, device);
  info.sharedMemoryPerBlockBytes = attribute(kAttrMaxSharedMemoryPerBlock, device);
  size_t total = 0;
  check(a.deviceTotalMem(&total, device), "cuDeviceTotalMem");
  info.globalMemoryBytes = static_cast<int64_t>(total);
  check(a.driverGetVersion(&info.driverVersion), "cuDriverGetVersion");
  info.driverLibrary = a.libraryPath;
  return info;
}

CudaOptions CudaOptions::fromEnvironment() {
  CudaOptions o;
  if (const char* d = std::getenv("TMETAL_CUDA_DEVICE"); d && *d) o.device = std::atoi(d);
  if (const char* arch = std::getenv("TMETAL_CUDA_ARCH"); arch && *arch) o.arch = arch;
  return o;
}

// ---- arguments and buffers --------------------------------------------------

LaunchArg LaunchArg::hostBuffer(void* data, size_t bytes, std::string name) {
  LaunchArg a;
  a.kind_ = Kind::HostBuffer;
  a.host_ = data;
  a.bytes_ = bytes;
  a.name_ = std::move(name);
  return a;
}

LaunchArg LaunchArg::deviceBuffer(const DeviceBuffer& buffer) {
  LaunchArg a;
  a.kind_ = Kind::DeviceBuffer;
  a.device_ = buffer.pointer();
  a.bytes_ = buffer.bytes();
  return a;
}

LaunchArg LaunchArg::devicePointer(unsigned long long pointer, size_t bytes, std::string name) {
  LaunchArg a;
  a.kind_ = Kind::DeviceBuffer;
  a.device_ = pointer;
  a.bytes_ = bytes;
  a.name_ = std::move(name);
  return a;
}

LaunchArg LaunchArg::scalarBytes(const void* bytes, size_t size) {
  LaunchArg a;
  a.kind_ = Kind::Scalar;
  const auto* p = static_cast<const unsigned char*>(bytes);
  a.scalar_.assign(p, p + size);
  return a;
}

DeviceBuffer::DeviceBuffer(size_t bytes, int device) : bytes_(bytes), device_(device) {
  bindContext(device);
  // At least one allocation granule, so that an empty buffer is still a
  // valid (16-byte aligned) pointer, as the TTIR's divisibility assumes.
  check(api().memAlloc(&pointer_, std::max<size_t>(bytes, 256)),
        "cuMemAlloc of " + std::to_string(bytes) + " bytes");
}

DeviceBuffer DeviceBuffer::upload(const void* data, size_t bytes, int device) {
  DeviceBuffer b(bytes, device);
  b.copyFromHost(data, bytes);
  return b;
}

DeviceBuffer::~DeviceBuffer() {
  // A failure is ignored: after a kernel fault the context refuses every call.
  if (pointer_) api().memFree(pointer_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : pointer_(other.pointer_), bytes_(other.bytes_), device_(other.device_) {
  other.pointer_ = 0;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (pointer_) api().memFree(pointer_);
    pointer_ = other.pointer_;
    bytes_ = other.bytes_;
    device_ = other.device_;
    other.pointer_ = 0;
  }
  return *this;
}

void DeviceBuffer::copyFromHost(const void* data, size_t bytes) {
  if (bytes > bytes_) throw CudaError("copying " + std::to_string(bytes) + " bytes into a device buffer of " + std::to_string(bytes_));
  if (bytes == 0) return;
  bindContext(device_);
  check(api().memcpyHtoD(pointer_, data, bytes), "cuMemcpyHtoD");
}

void DeviceBuffer::copyToHost(void* data, size_t bytes) const {
  if (bytes > bytes_) throw CudaError("copying " + std::to_string(bytes) + " bytes out of a device buffer of " + std::to_string(bytes_));
  if (bytes == 0) return;
  bindContext(device_);
  check(api().memcpyDtoH(data, pointer_, bytes), "cuMemcpyDtoH");
}

// ---- compile, launch, time ----------------------------------------------------

CudaKernel compile(const std::string& source, const codegen::KernelMetadata& metadata, const CudaOptions& options) {
  if (metadata.target != "cuda")
    throw CompileError("the cuda runtime runs kernels compiled for target 'cuda'; kernel '" + metadata.kernelName +
                       "' was compiled for '" + metadata.target + "'");
  CudaDeviceInfo info = deviceInfo(options.device);
  CudaKernel k;
  k.metadata_ = metadata;
  k.options_ = options;
  k.arch_ = options.arch.empty() ? info.arch() : options.arch;
  NvrtcOutput out = compileWithNvrtc(source, metadata.kernelName + ".cu", {k.arch_, options.extraNvrtcFlags});
  k.ptx_ = out.ptx;
  k.log_ = out.log;

  bindContext(options.device);
  auto module = std::make_shared<LoadedCudaModule>();
  // A cubin when NVRTC made one for a real architecture, else the PTX for the driver to finish.
  std::string ptxImage = out.ptx;
  const void* image = out.cubin.empty() ? static_cast<const void*>(ptxImage.c_str()) : out.cubin.data();
  char errorLog[8192] = {};
  int jitOptions[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes};
  void* jitValues[] = {errorLog, reinterpret_cast<void*>(static_cast<uintptr_t>(sizeof errorLog))};
  CUresult r = api().moduleLoadDataEx(&module->module, image, 2, jitOptions, jitValues);
  if (r != kSuccess)
    throw CudaError("loading kernel '" + metadata.kernelName + "' (" + k.arch_ + ") on " + info.name + ": " +
                    describe(r) + (errorLog[0] ? std::string("\n") + errorLog : ""));
  r = api().moduleGetFunction(&module->function, module->module, metadata.kernelName.c_str());
  if (r != kSuccess)
    throw CompileError("the CUDA source has no kernel '" + metadata.kernelName + "' (the metadata's name): " +
                       describe(r));
  k.registers_ = functionAttribute(kFuncNumRegs, module->function);
  k.localBytes_ = functionAttribute(kFuncLocalSizeBytes, module->function);
  k.sharedBytes_ = functionAttribute(kFuncSharedSizeBytes, module->function);
  k.maxThreads_ = functionAttribute(kFuncMaxThreadsPerBlock, module->function);
  if (metadata.threadsPerThreadgroup > k.maxThreads_)
    throw CudaError("kernel '" + metadata.kernelName + "' is launched with " +
                    std::to_string(metadata.threadsPerThreadgroup) + " threads per block, but as compiled (" +
                    std::to_string(k.registers_) + " registers per thread) it can run at most " +
                    std::to_string(k.maxThreads_) + " on " + info.name);
  k.module_ = std::move(module);
  return k;
}

void launch(const CudaKernel& kernel, const std::vector<LaunchArg>& args, std::array<uint32_t, 3> grid) {
  bindContext(kernel.options().device);
  PreparedArguments prepared(kernel, args);
  if (static_cast<uint64_t>(grid[0]) * grid[1] * grid[2] == 0) return;  // nothing runs, as on the emulator
  checkGrid(kernel, grid);
  launchOnce(kernel, grid, prepared.params());
  synchronize(kernel);
  prepared.copyBack();
  prepared.reportDebugBuffer();
}

void launchOnStream(const CudaKernel& kernel, const std::vector<LaunchArg>& args, std::array<uint32_t, 3> grid,
                    unsigned long long stream) {
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].kind() == LaunchArg::Kind::HostBuffer)
      throw CudaError("launchOnStream: argument " + std::to_string(i) + " of kernel '" +
                      kernel.metadata().kernelName + "' is host memory; pass device memory");
  bindContext(kernel.options().device);
  const CUstream cuStream = reinterpret_cast<CUstream>(static_cast<uintptr_t>(stream));
  // A stream being captured into a CUDA graph (torch.cuda.graph,
  // triton.testing.do_bench_cudagraph) records the launch: nothing may wait
  // for the device, which would end the capture, and nothing runs yet.
  int captureStatus = 0;
  check(api().streamIsCapturing(cuStream, &captureStatus), "cuStreamIsCapturing");
  const bool capturing = captureStatus != 0;
  if (capturing && kernel.metadata().takesDebugBuffer())
    throw CudaError("kernel '" + kernel.metadata().kernelName +
                    "' prints or asserts, which reads its debug buffer back after every launch: it cannot be "
                    "captured into a CUDA graph");
  PreparedArguments prepared(kernel, args);
  if (static_cast<uint64_t>(grid[0]) * grid[1] * grid[2] == 0) return;
  checkGrid(kernel, grid);
  launchOnce(kernel, grid, prepared.params(), cuStream);
  if (capturing) return;
  synchronize(kernel);
  prepared.reportDebugBuffer();
}

std::vector<double> timeLaunches(const CudaKernel& kernel, const std::vector<LaunchArg>& args,
                                 std::array<uint32_t, 3> grid, const TimingOptions& options) {
  if (options.iterations < 1 || options.warmup < 0)
    throw CudaError("timeLaunches: needs at least one timed launch and no negative warm-up count");
  bindContext(kernel.options().device);
  PreparedArguments prepared(kernel, args);
  if (static_cast<uint64_t>(grid[0]) * grid[1] * grid[2] == 0)
    throw CudaError("timeLaunches: the grid of kernel '" + kernel.metadata().kernelName + "' is empty");
  checkGrid(kernel, grid);
  std::unique_ptr<DeviceBuffer> flush;
  if (options.flushL2) {
    CudaDeviceInfo info = deviceInfo(kernel.options().device);
    flush = std::make_unique<DeviceBuffer>(static_cast<size_t>(std::max<int64_t>(info.l2CacheBytes, 1 << 20)) * 2,
                                           kernel.options().device);
  }
  for (int i = 0; i < options.warmup; ++i) launchOnce(kernel, grid, prepared.params());
  std::vector<Event> starts, ends;
  for (int i = 0; i < options.iterations; ++i) {
    starts.emplace_back();
    ends.emplace_back();
  }
  for (int i = 0; i < options.iterations; ++i) {
    if (flush) check(api().memsetD8(flush->pointer(), static_cast<unsigned char>(i), flush->bytes()), "cuMemsetD8");
    check(api().eventRecord(starts[i].get(), nullptr), "cuEventRecord");
    launchOnce(kernel, grid, prepared.params());
    check(api().eventRecord(ends[i].get(), nullptr), "cuEventRecord");
  }
  synchronize(kernel);
  std::vector<double> ms;
  for (int i = 0; i < options.iterations; ++i) {
    float t = 0;
    check(api().eventElapsedTime(&t, starts[i].get(), ends[i].get()), "cuEventElapsedTime");
    ms.push_back(t);
  }
  prepared.copyBack();
  prepared.reportDebugBuffer();
  return ms;
}

}  // namespace tmetal::runtime::cuda
