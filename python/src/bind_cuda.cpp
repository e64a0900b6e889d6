// The CUDA runtime (tmetal/runtime/cuda) from Python, for the plugin's CUDA
// validation mode (python/triton_metal/cuda_driver.py): compile the CUDA
// dialect's source with NVRTC, then launch it on device memory the caller
// owns (PyTorch CUDA tensors' data_ptr(), passed as ints) and scalars, on a
// stream the caller names. libcuda and libnvrtc are loaded with dlopen on
// first use, so this module builds and imports without CUDA.
//
// Errors: CUDA or NVRTC missing, no GPU -> UnavailableError; source NVRTC
// rejects or a module the driver cannot load -> CompileError; arguments that
// do not fit the metadata, a failed launch or a kernel fault -> LaunchError.
#include <Python.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

#include "python/src/binding.h"
#include "tmetal/codegen/kernel_abi.h"
#include "tmetal/ir/float_bits.h"
#include "tmetal/runtime/cuda/cuda_launcher.h"
#include "tmetal/runtime/cuda/nvrtc_compiler.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::python {

namespace {

namespace cuda = runtime::cuda;

// CUDA that this machine lacks (driver, GPU, NVRTC): UnavailableError.
class CudaUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string typeName(nb::handle value) { return nb::type_name(value.type()).c_str(); }

[[noreturn]] void badArgument(size_t index, const codegen::KernelParam& param, const std::string& problem) {
  raiseTmetalError("LaunchError", "argument " + std::to_string(index) + " ('" + param.name + "'): " + problem);
}

template <class T>
cuda::LaunchArg integerArg(size_t index, const codegen::KernelParam& param, nb::handle value) {
  if (!PyLong_Check(value.ptr()))
    badArgument(index, param, "expected an integer for parameter of type " + param.dtype + ", got " + typeName(value));
  if constexpr (std::is_signed_v<T>) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow != 0 || v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())
      badArgument(index, param, nb::cast<std::string>(nb::str(value)) + " does not fit in " + param.dtype);
    return cuda::LaunchArg::scalar<T>(static_cast<T>(v));
  } else {
    unsigned long long v = PyLong_AsUnsignedLongLong(value.ptr());
    if (PyErr_Occurred() || v > std::numeric_limits<T>::max()) {
      PyErr_Clear();
      badArgument(index, param, nb::cast<std::string>(nb::str(value)) + " does not fit in " + param.dtype);
    }
    return cuda::LaunchArg::scalar<T>(static_cast<T>(v));
  }
}

// A Python number as the by-value parameter of the metadata's dtype.
cuda::LaunchArg scalarArg(size_t index, const codegen::KernelParam& param, nb::handle value) {
  const std::string& t = param.dtype;
  if (t == "i1") {
    if (!PyBool_Check(value.ptr()) && !PyLong_Check(value.ptr()))
      badArgument(index, param, "expected a bool for parameter of type i1, got " + typeName(value));
    return cuda::LaunchArg::scalar<uint8_t>(PyObject_IsTrue(value.ptr()) ? 1 : 0);
  }
  if (t == "i8") return integerArg<int8_t>(index, param, value);
  if (t == "i16") return integerArg<int16_t>(index, param, value);
  if (t == "i32") return integerArg<int32_t>(index, param, value);
  if (t == "i64") return integerArg<int64_t>(index, param, value);
  if (t == "u8") return integerArg<uint8_t>(index, param, value);
  if (t == "u16") return integerArg<uint16_t>(index, param, value);
  if (t == "u32") return integerArg<uint32_t>(index, param, value);
  if (t == "u64") return integerArg<uint64_t>(index, param, value);
  if (t == "f16" || t == "bf16" || t == "f32" || t == "f64") {
    if (!PyFloat_Check(value.ptr()) && !PyLong_Check(value.ptr()))
      badArgument(index, param, "expected a number for parameter of type " + t + ", got " + typeName(value));
    double v = PyFloat_AsDouble(value.ptr());
    if (t == "f32") return cuda::LaunchArg::scalar<float>(static_cast<float>(v));
    if (t == "f64") return cuda::LaunchArg::scalar<double>(v);
    auto bits = static_cast<uint16_t>(ir::floatToBits(v, t == "f16" ? ir::ScalarKind::F16 : ir::ScalarKind::BF16));
    return cuda::LaunchArg::scalar<uint16_t>(bits);
  }
  badArgument(index, param, "scalar parameters of type '" + t + "' are not supported by the cuda binding");
}

// A device pointer: a Python int (what torch.Tensor.data_ptr() returns).
cuda::LaunchArg pointerArg(size_t index, const codegen::KernelParam& param, nb::handle value) {
  if (!PyLong_Check(value.ptr()) || PyBool_Check(value.ptr()))
    badArgument(index, param, "expected a device pointer (an int, e.g. a CUDA tensor's data_ptr()) for pointer "
                              "parameter of " + param.dtype + ", got " + typeName(value));
  unsigned long long v = PyLong_AsUnsignedLongLong(value.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    badArgument(index, param, "device pointer " + nb::cast<std::string>(nb::str(value)) + " is not a 64-bit address");
  }
  return cuda::LaunchArg::devicePointer(v, 0, param.name);
}

class PyCudaKernel {
 public:
  explicit PyCudaKernel(cuda::CudaKernel kernel) : kernel_(std::move(kernel)) {}

  void launch(nb::sequence args, std::vector<int64_t> grid, unsigned long long stream) {
    const codegen::KernelMetadata& metadata = kernel_.metadata();
    size_t given = nb::len(args);
    if (given != metadata.params.size())
      raiseTmetalError("LaunchError", "kernel '" + metadata.kernelName + "' takes " +
                                          std::to_string(metadata.params.size()) + " arguments, got " +
                                          std::to_string(given));
    const std::array<uint32_t, 3> grid3 = launchGrid(grid);
    std::vector<cuda::LaunchArg> launchArgs;
    launchArgs.reserve(given);
    for (size_t i = 0; i < given; ++i) {
      const codegen::KernelParam& param = metadata.params[i];
      launchArgs.push_back(param.isPointer ? pointerArg(i, param, args[i]) : scalarArg(i, param, args[i]));
    }
    nb::gil_scoped_release release;
    cuda::launchOnStream(kernel_, launchArgs, grid3, stream);
  }

  std::string metadataJson() const { return kernel_.metadata().toJson().dump(); }
  const std::string& arch() const { return kernel_.arch(); }
  const std::string& ptx() const { return kernel_.ptx(); }
  const std::string& compileLog() const { return kernel_.compileLog(); }
  int registers() const { return kernel_.registersPerThread(); }
  int localBytes() const { return kernel_.localMemoryBytesPerThread(); }
  int sharedBytes() const { return kernel_.staticSharedMemoryBytes(); }
  int maxThreads() const { return kernel_.maxThreadsPerBlock(); }

 private:
  cuda::CudaKernel kernel_;
};

void translateCudaError(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const CudaUnavailable& e) {
    try {
      raiseTmetalError("UnavailableError", e.what());
    } catch (nb::python_error& pending) {
      pending.restore();
    }
  } catch (const cuda::CudaError& e) {
    try {
      raiseTmetalError("LaunchError", e.what());
    } catch (nb::python_error& pending) {
      pending.restore();
    }
  }
}

PyCudaKernel compileCuda(const std::string& source, const codegen::KernelMetadata& metadata, int device,
                         const std::string& arch) {
  cuda::CudaOptions options = cuda::CudaOptions::fromEnvironment();
  if (device >= 0) options.device = device;
  if (!arch.empty()) options.arch = arch;
  // What this machine lacks is UnavailableError; what the kernel cannot do here is CompileError.
  std::string why;
  if (!cuda::nvrtcAvailable(&why)) throw CudaUnavailable("NVRTC is not available: " + why);
  try {
    cuda::deviceInfo(options.device);
  } catch (const cuda::CudaError& e) {
    throw CudaUnavailable(e.what());
  }
  try {
    return PyCudaKernel(cuda::compile(source, metadata, options));
  } catch (const cuda::CudaError& e) {
    throw CompileError(std::string("kernel '") + metadata.kernelName + "' cannot run on the GPU as compiled: " +
                       e.what());
  }
}

}  // namespace

void bindCuda(nb::module_& m) {
  nb::register_exception_translator(translateCudaError);

  nb::class_<PyCudaKernel>(m, "CudaKernel",
                           "CUDA source of the cuda target compiled with NVRTC and loaded on the GPU (see "
                           "cuda_compile). Launch it with launch(args, grid, stream).")
      .def("launch", &PyCudaKernel::launch, nb::arg("args"), nb::arg("grid"), nb::arg("stream") = 0,
           "Runs grid[0] x grid[1] x grid[2] blocks of the metadata's threads_per_threadgroup threads on `stream` "
           "(a CUstream handle as an int; 0: the legacy default stream) and waits for the device "
           "(cuCtxSynchronize). `args` follow the metadata's parameters: device pointers as ints (a CUDA tensor's "
           "data_ptr()) for pointers, Python numbers for scalars. Releases the GIL. Raises "
           "triton_metal.LaunchError for arguments that do not fit, a failed launch or a kernel fault.")
      .def_prop_ro("metadata_json", &PyCudaKernel::metadataJson)
      .def_prop_ro("arch", &PyCudaKernel::arch)
      .def_prop_ro("ptx", &PyCudaKernel::ptx)
      .def_prop_ro("compile_log", &PyCudaKernel::compileLog)
      .def_prop_ro("registers_per_thread", &PyCudaKernel::registers)
      .def_prop_ro("local_memory_bytes_per_thread", &PyCudaKernel::localBytes)
      .def_prop_ro("static_shared_memory_bytes", &PyCudaKernel::sharedBytes)
      .def_prop_ro("max_threads_per_block", &PyCudaKernel::maxThreads);

  m.def(
      "cuda_compile",
      [](const std::string& source, const std::string& metadataJson, int device, const std::string& arch) {
        codegen::KernelMetadata metadata;
        try {
          metadata = codegen::KernelMetadata::fromJson(nlohmann::json::parse(metadataJson));
        } catch (const nlohmann::json::exception& e) {
          throw CompileError(std::string("kernel metadata is not JSON: ") + e.what());
        }
        nb::gil_scoped_release release;
        return compileCuda(source, metadata, device, arch);
      },
      nb::arg("source"), nb::arg("metadata_json"), nb::kw_only(), nb::arg("device") = -1, nb::arg("arch") = "",
      "Compiles the CUDA source that compile_ttir(..., target='cuda') emitted, with its metadata JSON, using "
      "NVRTC for the GPU, and loads it (tmetal/runtime/cuda). device -1 and arch '' take TMETAL_CUDA_DEVICE / "
      "TMETAL_CUDA_ARCH or the defaults (device 0, its own architecture). Raises triton_metal.UnavailableError "
      "without a driver, GPU or NVRTC, triton_metal.CompileError when NVRTC rejects the source.");

  m.def(
      "cuda_device_info",
      [](int ordinal) {
        cuda::CudaDeviceInfo info;
        try {
          info = cuda::deviceInfo(ordinal);
        } catch (const cuda::CudaError& e) {
          throw CudaUnavailable(e.what());
        }
        nb::dict d;
        d["ordinal"] = info.ordinal;
        d["name"] = info.name;
        d["arch"] = info.arch();
        d["multiprocessors"] = info.multiprocessors;
        d["l2_cache_bytes"] = info.l2CacheBytes;
        d["global_memory_bytes"] = info.globalMemoryBytes;
        d["shared_memory_per_block_bytes"] = info.sharedMemoryPerBlockBytes;
        d["driver_version"] = info.driverVersion;
        d["driver_library"] = info.driverLibrary;
        return d;
      },
      nb::arg("ordinal") = 0,
      "The NVIDIA GPU `ordinal` as the cuda runtime sees it; raises triton_metal.UnavailableError without a "
      "driver or GPU.");
}

}  // namespace tmetal::python
