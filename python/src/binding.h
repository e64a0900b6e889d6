// Pieces of the Python module triton_metal._core, one file per pipeline stage
// it exposes. core_module.cpp assembles them.
#pragma once

#include <nanobind/nanobind.h>
// Every file of the binding must see the same type casters (a std::string
// caster missing in one file breaks the others at link time: ODR).
#include <nanobind/stl/string.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tmetal::python {

namespace nb = nanobind;

// Maps tmetal's C++ exceptions to the Python classes of triton_metal.errors.
void bindErrors(nb::module_& m);
void bindFrontend(nb::module_& m);
void bindHardware(nb::module_& m);
void bindCodegen(nb::module_& m);
void bindEmulator(nb::module_& m);
void bindCuda(nb::module_& m);

// Raises the Python exception `className` of triton_metal.errors with keyword
// arguments file/line/col/reason. Call with the GIL held; it never returns
// normally (throws nb::python_error).
[[noreturn]] void raiseTmetalError(const char* className, const std::string& message, const std::string& file = "",
                                   int line = 0, int col = 0, const std::string& reason = "");

// Raises triton_metal.errors.UnavailableError: `what` is not part of this build.
[[noreturn]] void raiseUnavailable(const std::string& what);

// A launch's grid of 1 to 3 dimensions as (x, y, z), the missing ones 1;
// raises triton_metal.errors.LaunchError for another number of dimensions or
// for a grid past tmetal/support/grid_limits.h.
std::array<uint32_t, 3> launchGrid(const std::vector<int64_t>& grid);

}  // namespace tmetal::python
