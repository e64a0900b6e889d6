// The MSL emulator from Python: compile emitted MSL with its metadata, then
// launch it over a grid on host memory. Buffers are NumPy arrays, any
// writable C-contiguous buffer-protocol object, or objects with data_ptr()
// (PyTorch CPU tensors, triton_metal.HostTensor); scalars are Python numbers
// converted to the parameter's dtype from the metadata. The GIL is released
// while the kernel runs.
#include <Python.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "python/src/binding.h"
#include "tmetal/codegen/kernel_abi.h"
#include "tmetal/ir/float_bits.h"
#include "tmetal/runtime/emulator/dtype_bytes.h"
#include "tmetal/runtime/emulator/emulator.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::python {

namespace {

namespace emu = runtime::emulator;

// Buffer-protocol views taken for one launch; released (with the GIL held)
// when the launch is over.
class HeldBuffers {
 public:
  HeldBuffers() = default;
  HeldBuffers(const HeldBuffers&) = delete;
  HeldBuffers& operator=(const HeldBuffers&) = delete;
  ~HeldBuffers() {
    for (auto& view : views_) PyBuffer_Release(view.get());
  }
  Py_buffer* take() {
    views_.push_back(std::make_unique<Py_buffer>());
    return views_.back().get();
  }
  void dropLast() { views_.pop_back(); }  // a view whose PyObject_GetBuffer failed

 private:
  std::vector<std::unique_ptr<Py_buffer>> views_;
};

std::string typeName(nb::handle value) { return nb::type_name(value.type()).c_str(); }

[[noreturn]] void badArgument(const codegen::KernelParam& param, const std::string& problem) {
  raiseTmetalError("LaunchError", "argument " + std::to_string(param.binding) + " ('" + param.name + "'): " + problem);
}

// Host memory of a pointer argument: (address, bytes from there to the end of
// its allocation).
emu::ArgSlot bufferSlot(const codegen::KernelParam& param, nb::handle value, HeldBuffers& held) {
  if (nb::hasattr(value, "data_ptr")) {
    if (nb::hasattr(value, "device")) {
      nb::object device = value.attr("device");
      std::string kind = nb::hasattr(device, "type") ? nb::cast<std::string>(nb::str(device.attr("type")))
                                                     : nb::cast<std::string>(nb::str(device));
      if (kind != "cpu")
        badArgument(param, "a tensor on device '" + kind + "'; the emulator runs kernels on host (CPU) memory");
    }
    auto address = nb::cast<uintptr_t>(value.attr("data_ptr")());
    size_t bytes = 0;
    // triton.reinterpret's TensorWrapper (unsigned and fp8 views of a torch
    // tensor) has data_ptr() and its tensor as `base`.
    nb::object sized = nb::borrow(value);
    if (!nb::hasattr(value, "untyped_storage") && nb::hasattr(value, "base") &&
        nb::hasattr(value.attr("base"), "untyped_storage"))
      sized = value.attr("base");
    if (nb::hasattr(sized, "untyped_storage")) {
      // PyTorch: the kernel may reach anything from data_ptr() to the end of
      // the storage (views with offsets and strides), so that is the bound.
      nb::object storage = sized.attr("untyped_storage")();
      auto begin = nb::cast<uintptr_t>(storage.attr("data_ptr")());
      auto total = nb::cast<size_t>(storage.attr("nbytes")());
      bytes = begin + total - address;
    } else if (nb::hasattr(value, "nbytes")) {
      bytes = nb::cast<size_t>(value.attr("nbytes"));
    } else {
      badArgument(param, "an object of type " + typeName(value) + " with data_ptr() but neither untyped_storage() nor nbytes; "
                         "the emulator needs the buffer's size to check accesses");
    }
    if (address == 0 && bytes > 0) badArgument(param, "data_ptr() is 0");
    return emu::ArgSlot::buffer(reinterpret_cast<void*>(address), bytes, param.name);
  }
  if (PyObject_CheckBuffer(value.ptr())) {
    Py_buffer* view = held.take();
    if (PyObject_GetBuffer(value.ptr(), view, PyBUF_WRITABLE | PyBUF_ANY_CONTIGUOUS) != 0) {
      held.dropLast();
      PyErr_Clear();
      badArgument(param, "an object of type " + typeName(value) +
                             " that is not a writable contiguous buffer (kernels read and write buffers in place; "
                             "pass a contiguous, writable copy)");
    }
    return emu::ArgSlot::buffer(view->buf, static_cast<size_t>(view->len), param.name);
  }
  badArgument(param, "expected a buffer for pointer parameter of " + param.dtype + " (a NumPy array, a writable "
                     "buffer-protocol object or a CPU tensor with data_ptr()), got " + typeName(value));
}

template <class T>
emu::ArgSlot integerSlot(const codegen::KernelParam& param, nb::handle value) {
  if (!PyLong_Check(value.ptr()))
    badArgument(param, "expected an integer for parameter of type " + param.dtype + ", got " + typeName(value));
  int overflow = 0;
  if constexpr (std::is_signed_v<T>) {
    long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow != 0 || v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())
      badArgument(param, nb::cast<std::string>(nb::str(value)) + " does not fit in " + param.dtype);
    return emu::ArgSlot::scalar<T>(static_cast<T>(v));
  } else {
    unsigned long long v = PyLong_AsUnsignedLongLong(value.ptr());
    if (PyErr_Occurred() || v > std::numeric_limits<T>::max()) {
      PyErr_Clear();
      badArgument(param, nb::cast<std::string>(nb::str(value)) + " does not fit in " + param.dtype);
    }
    return emu::ArgSlot::scalar<T>(static_cast<T>(v));
  }
}

emu::ArgSlot scalarSlot(const codegen::KernelParam& param, nb::handle value) {
  const std::string& t = param.dtype;
  if (t == "i1") {
    if (!PyBool_Check(value.ptr()) && !PyLong_Check(value.ptr()))
      badArgument(param, "expected a bool for parameter of type i1, got " + typeName(value));
    return emu::ArgSlot::scalar<uint8_t>(PyObject_IsTrue(value.ptr()) ? 1 : 0);
  }
  if (t == "i8") return integerSlot<int8_t>(param, value);
  if (t == "i16") return integerSlot<int16_t>(param, value);
  if (t == "i32") return integerSlot<int32_t>(param, value);
  if (t == "i64") return integerSlot<int64_t>(param, value);
  if (t == "u8") return integerSlot<uint8_t>(param, value);
  if (t == "u16") return integerSlot<uint16_t>(param, value);
  if (t == "u32") return integerSlot<uint32_t>(param, value);
  if (t == "u64") return integerSlot<uint64_t>(param, value);
  if (t == "f16" || t == "bf16" || t == "f32" || t == "f64") {
    if (!PyFloat_Check(value.ptr()) && !PyLong_Check(value.ptr()))
      badArgument(param, "expected a number for parameter of type " + t + ", got " + typeName(value));
    double v = PyFloat_AsDouble(value.ptr());
    if (t == "f32") return emu::ArgSlot::scalar<float>(static_cast<float>(v));
    if (t == "f64") return emu::ArgSlot::scalar<double>(v);
    auto bits = static_cast<uint16_t>(ir::floatToBits(v, t == "f16" ? ir::ScalarKind::F16 : ir::ScalarKind::BF16));
    return emu::ArgSlot::scalar<uint16_t>(bits);
  }
  badArgument(param, "scalar parameters of type '" + t + "' are not supported by the emulator binding");
}

class PyEmulatorKernel {
 public:
  explicit PyEmulatorKernel(emu::EmulatorKernel kernel) : kernel_(std::move(kernel)) {}

  void launch(nb::sequence args, std::vector<int64_t> grid) {
    const codegen::KernelMetadata& metadata = kernel_.metadata();
    size_t given = nb::len(args);
    if (given != metadata.params.size())
      raiseTmetalError("LaunchError", "kernel '" + metadata.kernelName + "' takes " +
                                          std::to_string(metadata.params.size()) + " arguments, got " +
                                          std::to_string(given));
    const std::array<uint32_t, 3> grid3 = launchGrid(grid);

    HeldBuffers held;
    std::vector<emu::ArgSlot> slots;
    slots.reserve(given);
    for (size_t i = 0; i < given; ++i) {
      const codegen::KernelParam& param = metadata.params[i];
      nb::handle value = args[i];
      slots.push_back(param.isPointer ? bufferSlot(param, value, held) : scalarSlot(param, value));
    }
    if (grid3[0] == 0 || grid3[1] == 0 || grid3[2] == 0) return;  // an empty grid runs nothing, as on a GPU
    nb::gil_scoped_release release;
    emu::launch(kernel_, slots, grid3);
  }

  std::string metadataJson() const { return kernel_.metadata().toJson().dump(); }
  const std::string& sharedObjectPath() const { return kernel_.sharedObjectPath(); }
  bool fromCache() const { return kernel_.fromCache(); }

 private:
  emu::EmulatorKernel kernel_;
};

void translateEmulatorError(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const emu::EmulatorError& e) {
    try {
      raiseTmetalError("EmulatorError", e.what());
    } catch (nb::python_error& pending) {
      pending.restore();
    }
  }
}

}  // namespace

void bindEmulator(nb::module_& m) {
  nb::register_exception_translator(translateEmulatorError);

  nb::class_<PyEmulatorKernel>(m, "EmulatorKernel",
                               "MSL compiled for the CPU emulator (see emulator_compile). Launch it with "
                               "launch(args, grid).")
      .def("launch", &PyEmulatorKernel::launch, nb::arg("args"), nb::arg("grid"),
           "Runs grid[0] x grid[1] x grid[2] threadgroups. `args` follow the metadata's parameters: buffers for "
           "pointers (NumPy arrays, writable contiguous buffers, CPU tensors with data_ptr()), Python numbers for "
           "scalars. Releases the GIL while the kernel runs. Raises triton_metal.LaunchError for arguments that do "
           "not fit and triton_metal.EmulatorError when the kernel misbehaves.")
      .def_prop_ro("metadata_json", &PyEmulatorKernel::metadataJson)
      .def_prop_ro("shared_object_path", &PyEmulatorKernel::sharedObjectPath)
      .def_prop_ro("from_cache", &PyEmulatorKernel::fromCache);

  m.def(
      "emulator_compile",
      [](const std::string& msl, const std::string& metadataJson, nb::object sanitize, nb::object timeoutSeconds,
         nb::object workerThreads) {
        codegen::KernelMetadata metadata;
        try {
          metadata = codegen::KernelMetadata::fromJson(nlohmann::json::parse(metadataJson));
        } catch (const nlohmann::json::exception& e) {
          throw CompileError(std::string("kernel metadata is not JSON: ") + e.what());
        }
        emu::EmulatorOptions options = emu::EmulatorOptions::fromEnvironment();
        if (!sanitize.is_none()) options.sanitize = nb::cast<bool>(sanitize);
        if (!timeoutSeconds.is_none()) options.timeoutSeconds = nb::cast<unsigned>(timeoutSeconds);
        if (!workerThreads.is_none()) options.workerThreads = nb::cast<unsigned>(workerThreads);
        nb::gil_scoped_release release;
        return PyEmulatorKernel(emu::compile(msl, metadata, options));
      },
      nb::arg("msl"), nb::arg("metadata_json"), nb::arg("sanitize") = nb::none(),
      nb::arg("timeout_seconds") = nb::none(), nb::arg("worker_threads") = nb::none(),
      "Compiles emitted MSL with its metadata JSON (kernel_abi.h) for the CPU emulator, reusing the emulator's "
      "cache. Options left at None come from the environment (TMETAL_EMULATOR_SANITIZE, TMETAL_EMULATOR_TIMEOUT, "
      "TMETAL_EMULATOR_THREADS). Raises triton_metal.CompileError with clang's diagnostics on failure.");

  m.def("dtype_bytes", &emu::dtypeBytes, nb::arg("dtype"),
        "Bytes of one value of a metadata dtype ('f32', 'bf16', 'i1', ...); 0 when unknown.");
}

}  // namespace tmetal::python
