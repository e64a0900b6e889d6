// triton_metal._core: the small binding between the Triton plugin (Python)
// and tmetal's C++ pipeline. Each stage's bindings live in bind_<stage>.cpp;
// capabilities() says which stages this build contains, so the plugin and its
// tests can tell "not built yet" apart from "broken".
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "python/src/binding.h"
#include "tmetal/support/grid_limits.h"

namespace nb = nanobind;

namespace {

#ifdef TMETAL_BINDING_HAS_FRONTEND
constexpr bool kHasFrontend = true;
#else
constexpr bool kHasFrontend = false;
#endif
#ifdef TMETAL_BINDING_HAS_CODEGEN
constexpr bool kHasCodegen = true;
#else
constexpr bool kHasCodegen = false;
#endif
#ifdef TMETAL_BINDING_HAS_EMULATOR
constexpr bool kHasEmulator = true;
#else
constexpr bool kHasEmulator = false;
#endif
#ifdef TMETAL_BINDING_HAS_CUDA
constexpr bool kHasCuda = true;
#else
constexpr bool kHasCuda = false;
#endif
#ifdef TMETAL_BINDING_HAS_HW
constexpr bool kHasHardware = true;
#else
constexpr bool kHasHardware = false;
#endif

}  // namespace

#ifndef TMETAL_BINDING_HAS_EMULATOR
namespace tmetal::python {
// Without the emulator the entry points exist and say why they cannot work.
void bindEmulator(nb::module_& m) {
  m.def(
      "emulator_compile",
      [](nb::args, nb::kwargs) { raiseUnavailable("the MSL emulator (tmetal/runtime/emulator)"); },
      "Unavailable in this build: the emulator has not landed.");
}
}  // namespace tmetal::python
#endif

#ifndef TMETAL_BINDING_HAS_CUDA
namespace tmetal::python {
void bindCuda(nb::module_& m) {
  m.def(
      "cuda_compile", [](nb::args, nb::kwargs) { raiseUnavailable("the CUDA runtime (tmetal/runtime/cuda)"); },
      "Unavailable in this build: the CUDA runtime is not part of it.");
}
}  // namespace tmetal::python
#endif

NB_MODULE(_core, m) {
  m.doc() = "tmetal's C++ core for the Triton plugin: TTIR -> MSL, hardware profiles, the CPU emulator";
  m.attr("__version__") = TMETAL_VERSION;
  m.def(
      "grid_problem",
      [](int64_t x, int64_t y, int64_t z) { return tmetal::gridProblem({x, y, z}); },
      nb::arg("x"), nb::arg("y"), nb::arg("z"),
      "'' when a launch grid of x * y * z programs is within what every device takes (0 to 2**31 - 1 along "
      "each dimension: tt.get_program_id is a 32-bit integer), else what is wrong.");
  m.def(
      "capabilities",
      []() {
        nb::dict d;
        d["frontend"] = kHasFrontend;
        d["codegen"] = kHasCodegen;
        d["emulator"] = kHasEmulator;
        d["hardware"] = kHasHardware;
        d["cuda"] = kHasCuda;
        return d;
      },
      "Which pipeline stages this build of the binding contains: {'frontend', 'codegen', 'emulator', "
      "'hardware', 'cuda'} -> bool ('cuda': the CUDA runtime is built in; whether a GPU and NVRTC exist is "
      "decided at run time).");
  tmetal::python::bindErrors(m);
  tmetal::python::bindFrontend(m);
  tmetal::python::bindHardware(m);
  tmetal::python::bindCodegen(m);
  tmetal::python::bindEmulator(m);
  tmetal::python::bindCuda(m);
}
