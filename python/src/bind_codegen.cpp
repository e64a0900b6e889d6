// TTIR text -> (MSL source, kernel metadata JSON): the `msl` stage of the
// Triton plugin.
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <iostream>
#include <tuple>
#include <utility>
#include <vector>

#include "python/src/binding.h"

#ifdef TMETAL_BINDING_HAS_FRONTEND
#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/ir/verifier.h"
#endif
#ifdef TMETAL_BINDING_HAS_LAYOUT
#include "tmetal/layout/memory_layout.h"
#endif
#ifdef TMETAL_BINDING_HAS_CODEGEN
#include "tmetal/codegen/compile_kernel.h"
#include "tmetal/codegen/debug_buffer.h"
#include "tmetal/hw/hardware_selection.h"
#include "tmetal/codegen/libdevice/libdevice_calls.h"
#include "tmetal/ir/libdevice.h"
#endif

namespace tmetal::python {

namespace {

struct CompileRequest {
  std::string text;
  std::string filename;
  int numWarps = 4;
  std::string layout;
  std::string hardware;
  bool fastMath = false;
  std::string target = "metal";
  int numStages = 3;
};

std::pair<std::string, std::string> compileTtir(const CompileRequest& request) {
  if (request.numWarps <= 0 || (request.numWarps & (request.numWarps - 1)) != 0)
    throw CompileError("num_warps must be a power of 2, got " + std::to_string(request.numWarps));
#ifdef TMETAL_BINDING_HAS_LAYOUT
  if (!layout::parseMemoryLayout(request.layout))
    throw CompileError("unknown layout policy '" + request.layout +
                       "' (DEFAULT, ROW_MAJOR, COLUMN_MAJOR, TILED or COALESCED)");
#endif
#ifdef TMETAL_BINDING_HAS_FRONTEND
  // Reading comes first even while the code generator is missing, so that
  // unsupported constructs are reported at the user's line either way.
  std::unique_ptr<ir::Module> module = frontend::parseTtir(request.text, request.filename);
  ir::verify(*module);
#endif
#ifdef TMETAL_BINDING_HAS_CODEGEN
  const std::vector<std::string>& targets = codegen::knownTargets();
  if (std::find(targets.begin(), targets.end(), request.target) == targets.end())
    throw CompileError("unknown target '" + request.target + "' (metal, or cuda: the CUDA validation mode)");
  codegen::CompileOptions options;
  options.target = request.target;
  options.policy = *layout::parseMemoryLayout(request.layout);
  options.numWarps = request.numWarps;
  options.hardware = hw::selectHardware(request.hardware).profile;
  options.fastMath = request.fastMath;
  options.numStages = request.numStages;
  codegen::CompiledKernel compiled = codegen::compileKernel(*module, options);
  return {compiled.source, compiled.metadata.toJson().dump()};
#else
  throw CompileError("the MSL code generator (tmetal/codegen) is not part of this build of triton_metal._core");
#endif
}

#ifdef TMETAL_BINDING_HAS_CODEGEN
codegen::KernelMetadata metadataFrom(const std::string& json) {
  try {
    return codegen::KernelMetadata::fromJson(nlohmann::json::parse(json));
  } catch (const nlohmann::json::exception& e) {
    throw CompileError(std::string("bad kernel metadata: ") + e.what());
  }
}

// A kernel's failed device-side assertion (debug_buffer.h), which both
// runtimes throw after the launch: triton_metal.DeviceAssertionError.
void translateDeviceAssertion(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const codegen::DeviceAssertionError& e) {
    try {
      const codegen::KernelAssertion& a = e.assertion();
      raiseTmetalError("DeviceAssertionError", e.what(), a.file, a.line, a.col, a.message);
    } catch (nb::python_error& pending) {
      pending.restore();
    }
  }
}
#endif

}  // namespace

void bindCodegen(nb::module_& m) {
#ifdef TMETAL_BINDING_HAS_CODEGEN
  nb::register_exception_translator(translateDeviceAssertion);
#endif
  m.def(
      "compile_ttir",
      [](std::string text, std::string filename, int numWarps, std::string layout, std::string hardware,
         bool fastMath, std::string target, int numStages) {
        CompileRequest request{std::move(text),     std::move(filename), numWarps,     std::move(layout),
                               std::move(hardware), fastMath,            std::move(target), numStages};
        nb::gil_scoped_release release;
        return compileTtir(request);
      },
      nb::arg("text"), nb::arg("filename") = "<ttir>", nb::kw_only(), nb::arg("num_warps") = 4,
      nb::arg("layout") = "COALESCED", nb::arg("hardware") = "", nb::arg("fast_math") = false,
      nb::arg("target") = "metal", nb::arg("num_stages") = 3,
      "Compiles TTIR text (as Triton 3.6 prints it) to Metal Shading Language, or with target='cuda' to the CUDA "
      "dialect's CUDA C++ (same passes, layouts and lowering; docs/cuda.md). Returns (source, "
      "metadata_json); the metadata follows tmetal/codegen/kernel_abi.h. `layout` is a MemoryLayout policy name, "
      "`hardware` a hardware profile id ('' selects as `tmetal hardware` does); `num_stages` is Triton's "
      "pipelining depth: loops with a tt.dot load num_stages - 1 trips ahead (at most 2; 1 keeps them "
      "plain). Raises triton_metal.CompileError naming the user's file:line.");
  m.def(
      "libdevice_functions",
      []() {
        std::vector<std::tuple<std::string, std::string, std::string, std::vector<std::string>, bool>> out;
#ifdef TMETAL_BINDING_HAS_CODEGEN
        for (const ir::LibdeviceFunction& f : ir::libdeviceFunctions()) {
          std::vector<std::string> arguments;
          for (ir::LibdeviceType t : f.arguments) arguments.emplace_back(ir::libdeviceTypeName(t));
          out.emplace_back(f.pythonName, f.symbol, ir::libdeviceTypeName(f.result), std::move(arguments),
                           codegen::libdeviceImplemented(f));
        }
#else
        raiseUnavailable("the code generator");
#endif
        return out;
      },
      "The libdevice functions tmetal knows (tmetal/ir/libdevice.def), as (name, symbol, result type, [argument "
      "types], implemented) with Triton's type names ('fp32', 'int32', 'uint32', ...); `implemented` is false "
      "where the code generators lack the function's helper yet.");
  m.def(
      "debug_buffer_words",
      [](const std::string& metadataJson) -> std::vector<int32_t> {
#ifdef TMETAL_BINDING_HAS_CODEGEN
        codegen::KernelMetadata metadata = metadataFrom(metadataJson);
        std::vector<int32_t> header(codegen::kDebugHeaderWords);
        codegen::prepareDebugBuffer(metadata, header.data());
        header.resize(codegen::debugBufferWords(metadata));
        return header;
#else
        raiseUnavailable("the code generator");
#endif
      },
      nb::arg("metadata_json"),
      "The debug buffer a kernel with tt.assert or tt.print takes after its arguments, as int32 words ready for "
      "the launch (debug_buffer.h); empty for other kernels. For launchers outside tmetal's runtimes.");
  m.def(
      "report_debug_buffer",
      [](const std::string& metadataJson, const std::vector<int32_t>& words) {
#ifdef TMETAL_BINDING_HAS_CODEGEN
        codegen::KernelMetadata metadata = metadataFrom(metadataJson);
        codegen::reportDebugBuffer(metadata, words.data(), words.size(), std::cout);
#else
        raiseUnavailable("the code generator");
#endif
      },
      nb::arg("metadata_json"), nb::arg("words"),
      "After a launch: writes the lines the kernel printed to stdout and raises triton_metal.DeviceAssertionError "
      "when one of its assertions failed; `words` is the debug buffer as the kernel left it.");
}

}  // namespace tmetal::python
