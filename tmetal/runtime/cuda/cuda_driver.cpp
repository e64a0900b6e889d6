#include "tmetal/runtime/cuda/cuda_driver.h"

#include <cstdlib>
#include <memory>
#include <type_traits>

#include "tmetal/runtime/cuda/cuda_error.h"
#include "tmetal/runtime/cuda/dynamic_library.h"

namespace tmetal::runtime::cuda::driver {

namespace {

struct Loaded {
  Api api;
  std::unique_ptr<DynamicLibrary> library;
  std::string error;  // why the driver cannot be used; empty when it can
};

Loaded* load() {
  auto* loaded = new Loaded();  // never freed: the driver outlives every static destructor
  std::vector<std::string> candidates;
  // Only the versioned name: the toolkit's stubs/libcuda.so is a link-time
  // stand-in that fails every call. An explicit choice is the only candidate.
  const char* path = std::getenv("TMETAL_CUDA_DRIVER_LIBRARY");
  candidates.push_back(path && *path ? path : "libcuda.so.1");
  std::string tried;
  loaded->library = DynamicLibrary::openFirst(candidates, &tried);
  if (!loaded->library) {
    loaded->error = "CUDA driver not found (libcuda.so.1): the cuda device needs an NVIDIA GPU and its driver.\n" + tried;
    return loaded;
  }
  Api& a = loaded->api;
  a.libraryPath = loaded->library->resolvedPath();
  // The _v2 entry points are the ones cuda.h maps the plain names to.
  auto bind = [&](auto& fn, std::initializer_list<const char*> names) {
    for (const char* name : names) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(loaded->library->symbol(name));
      if (fn) return;
    }
    if (loaded->error.empty())
      loaded->error = a.libraryPath + " lacks " + *names.begin() + ": the NVIDIA driver is too old for tmetal";
  };
  bind(a.init, {"cuInit"});
  bind(a.driverGetVersion, {"cuDriverGetVersion"});
  bind(a.getErrorName, {"cuGetErrorName"});
  bind(a.getErrorString, {"cuGetErrorString"});
  bind(a.deviceGetCount, {"cuDeviceGetCount"});
  bind(a.deviceGet, {"cuDeviceGet"});
  bind(a.deviceGetName, {"cuDeviceGetName"});
  bind(a.deviceGetAttribute, {"cuDeviceGetAttribute"});
  bind(a.deviceTotalMem, {"cuDeviceTotalMem_v2"});
  bind(a.primaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  bind(a.ctxSetCurrent, {"cuCtxSetCurrent"});
  bind(a.ctxSynchronize, {"cuCtxSynchronize"});
  bind(a.moduleLoadDataEx, {"cuModuleLoadDataEx"});
  bind(a.moduleUnload, {"cuModuleUnload"});
  bind(a.moduleGetFunction, {"cuModuleGetFunction"});
  bind(a.funcGetAttribute, {"cuFuncGetAttribute"});
  bind(a.memAlloc, {"cuMemAlloc_v2"});
  bind(a.memFree, {"cuMemFree_v2"});
  bind(a.memcpyHtoD, {"cuMemcpyHtoD_v2"});
  bind(a.memcpyDtoH, {"cuMemcpyDtoH_v2"});
  bind(a.memsetD8, {"cuMemsetD8_v2"});
  bind(a.launchKernel, {"cuLaunchKernel"});
  bind(a.eventCreate, {"cuEventCreate"});
  bind(a.eventRecord, {"cuEventRecord"});
  bind(a.streamIsCapturing, {"cuStreamIsCapturing"});
  bind(a.eventSynchronize, {"cuEventSynchronize"});
  bind(a.eventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  bind(a.eventDestroy, {"cuEventDestroy_v2"});
  if (!loaded->error.empty()) return loaded;
  CUresult r = a.init(0);
  if (r != kSuccess) {
    loaded->error = "the CUDA driver (" + a.libraryPath + ") did not start: cuInit gave " + describe(r) +
                    (r == kErrorNoDevice ? "; the cuda device needs an NVIDIA GPU" : "");
  }
  return loaded;
}

Loaded& loaded() {
  static Loaded* l = load();
  return *l;
}

}  // namespace

const Api& api() {
  Loaded& l = loaded();
  if (!l.error.empty()) throw CudaError(l.error);
  return l.api;
}

std::string describe(CUresult r) {
  const Api& a = loaded().api;
  const char* name = nullptr;
  const char* text = nullptr;
  if (a.getErrorName) a.getErrorName(r, &name);
  if (a.getErrorString) a.getErrorString(r, &text);
  std::string s = name ? name : "CUDA error " + std::to_string(r);
  if (text) s += std::string(" (") + text + ")";
  return s;
}

void check(CUresult r, const std::string& what) {
  if (r != kSuccess) throw CudaError(what + ": " + describe(r));
}

}  // namespace tmetal::runtime::cuda::driver
