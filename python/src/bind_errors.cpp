// C++ exceptions become the Python classes defined in triton_metal/errors.py,
// so that users catch one family (triton_metal.TmetalError) whatever raised it
// and read the user's file:line from the exception's attributes.
#include <Python.h>

#include <exception>

#include "python/src/binding.h"
#include "tmetal/support/diagnostic.h"
#include "tmetal/support/grid_limits.h"

namespace tmetal::python {

void raiseTmetalError(const char* className, const std::string& message, const std::string& file, int line, int col,
                      const std::string& reason) {
  nb::object errors = nb::module_::import_("triton_metal.errors");
  nb::object cls = errors.attr(className);
  nb::object instance = cls(message, nb::arg("file") = file, nb::arg("line") = line, nb::arg("col") = col,
                            nb::arg("reason") = reason.empty() ? message : reason);
  PyErr_SetObject(cls.ptr(), instance.ptr());
  throw nb::python_error();
}

void raiseUnavailable(const std::string& what) {
  raiseTmetalError("UnavailableError", what + " is not part of this build of triton_metal._core "
                                              "(its pipeline stage has not landed in tmetal yet, or was built without it)");
}

std::array<uint32_t, 3> launchGrid(const std::vector<int64_t>& grid) {
  if (grid.empty() || grid.size() > 3)
    raiseTmetalError("LaunchError", "the grid has 1 to 3 dimensions, got " + std::to_string(grid.size()));
  std::array<int64_t, 3> wide = {1, 1, 1};
  for (size_t i = 0; i < grid.size(); ++i) wide[i] = grid[i];
  if (std::string problem = gridProblem(wide); !problem.empty()) raiseTmetalError("LaunchError", problem);
  return {uint32_t(wide[0]), uint32_t(wide[1]), uint32_t(wide[2])};
}

namespace {

// Called by nanobind with the GIL held for any C++ exception leaving a bound
// function. Exceptions it does not know are rethrown to nanobind's defaults.
void translateCompileError(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const ResourceLimitError& e) {
    try {
      nb::object cls = nb::module_::import_("triton_metal.errors").attr("OutOfResourcesError");
      nb::object instance = cls(e.what(), nb::arg("file") = e.pos().file, nb::arg("line") = e.pos().line,
                                nb::arg("col") = e.pos().col, nb::arg("reason") = e.message(),
                                nb::arg("resource") = e.resource(), nb::arg("required") = e.required(),
                                nb::arg("limit") = e.limit());
      PyErr_SetObject(cls.ptr(), instance.ptr());
    } catch (nb::python_error& pending) {
      pending.restore();  // an import failure becomes the pending exception
    }
  } catch (const CompileError& e) {
    try {
      raiseTmetalError("CompileError", e.what(), e.pos().file, e.pos().line, e.pos().col, e.message());
    } catch (nb::python_error& pending) {
      pending.restore();  // the CompileError instance (or an import failure) becomes the pending exception
    }
  }
}

}  // namespace

void bindErrors(nb::module_& m) {
  nb::register_exception_translator(translateCompileError);
  m.def(
      "_raise_compile_error_for_test",
      [](const std::string& file, int line, int col, const std::string& message) {
        throw CompileError(SourcePos{file, line, col}, message);
      },
      "Throws a C++ tmetal::CompileError, to test how it reaches Python.");
}

}  // namespace tmetal::python
