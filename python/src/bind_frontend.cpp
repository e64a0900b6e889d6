// TTIR reading: parse (and verify) the text Triton printed, so that the plugin
// reports malformed or unsupported TTIR at the user's source line before any
// later stage runs.
#include <nanobind/stl/string.h>

#include <map>
#include <string>

#include "python/src/binding.h"

#ifdef TMETAL_BINDING_HAS_FRONTEND
#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/ir/module.h"
#include "tmetal/ir/verifier.h"
#endif

namespace tmetal::python {

namespace {

#ifdef TMETAL_BINDING_HAS_FRONTEND
// What the plugin and tests want to know about a parsed kernel.
nb::dict summarize(const ir::Module& module) {
  const ir::Function* kernel = module.kernel();
  nb::dict out;
  out["kernel"] = kernel->name();
  nb::list args;
  for (size_t i = 0; i < kernel->numArguments(); ++i) {
    nb::dict arg;
    arg["name"] = kernel->argument(i)->name();
    arg["type"] = kernel->argument(i)->type().str();
    arg["divisibility"] = kernel->argDivisibility(i);
    args.append(arg);
  }
  out["arguments"] = args;
  std::map<std::string, int> opCounts;
  for (const auto& function : module.functions())
    ir::walk(*function->body(), [&](const ir::Operation* op) { ++opCounts[op->name()]; });
  nb::dict ops;
  for (const auto& [name, count] : opCounts) ops[name.c_str()] = count;
  out["ops"] = ops;
  return out;
}
#endif

}  // namespace

void bindFrontend(nb::module_& m) {
  m.def(
      "parse_ttir",
      [](const std::string& text, const std::string& filename, bool verify) -> nb::dict {
#ifdef TMETAL_BINDING_HAS_FRONTEND
        std::unique_ptr<ir::Module> module;
        {
          nb::gil_scoped_release release;
          module = frontend::parseTtir(text, filename);
          if (verify) ir::verify(*module);
        }
        return summarize(*module);
#else
        raiseUnavailable("the TTIR reader (tmetal/frontend)");
#endif
      },
      nb::arg("text"), nb::arg("filename") = "<ttir>", nb::arg("verify") = true,
      "Parses TTIR as Triton 3.6 prints it and (by default) verifies it. Returns a summary: "
      "{'kernel': name, 'arguments': [{'name', 'type', 'divisibility'}], 'ops': {op name: count}}. "
      "Raises triton_metal.CompileError at the user's file:line for bad or unsupported input.");
}

}  // namespace tmetal::python
