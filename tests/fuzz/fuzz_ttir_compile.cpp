// libFuzzer target for the code generator behind `tmetal compile`: every
// module the TTIR reader and the verifier accept is compiled, with a layout
// policy, a SIMD-group count and a target (metal or cuda) chosen from a hash
// of the input, so that each input is compiled the same way every time.
// compileKernel promises that every failure is a CompileError naming the op;
// any other exception, a crash or a sanitizer report is a bug.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "tmetal/codegen/compile_kernel.h"
#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/ir/verifier.h"
#include "tmetal/layout/memory_layout.h"
#include "tmetal/support/diagnostic.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<tmetal::ir::Module> module;
  try {
    module = tmetal::frontend::parseTtir(text, "fuzz.ttir");
    tmetal::ir::verify(*module);
  } catch (const tmetal::CompileError&) {
    return 0;
  }
  const size_t choice = std::hash<std::string_view>{}(text);
  const std::vector<tmetal::layout::MemoryLayout>& policies = tmetal::layout::allMemoryLayouts();
  tmetal::codegen::CompileOptions options;
  options.policy = policies[choice % policies.size()];
  options.numWarps = 1 << ((choice / 8) % 4);
  options.target = (choice / 32) % 2 ? "cuda" : "metal";
  try {
    tmetal::codegen::compileKernel(*module, options);
  } catch (const tmetal::CompileError&) {
  }
  return 0;
}
