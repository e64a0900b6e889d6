// libFuzzer target for the TTIR reader. A CompileError is the normal answer
// to bad input; anything else (a crash, a sanitizer report, a hang, an
// exception of another type) is a bug. Whatever the reader accepts must also
// survive the verifier, print, and read back to the same IR, with and
// without locations; a difference aborts with both texts.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/ir/equivalence.h"
#include "tmetal/ir/printer.h"
#include "tmetal/ir/verifier.h"
#include "tmetal/support/diagnostic.h"

namespace {

[[noreturn]] void roundTripBug(const std::string& what, const std::string& printed) {
  std::fprintf(stderr, "TTIR round trip failed: %s\n--- printed text ---\n%s\n", what.c_str(), printed.c_str());
  std::abort();
}

void checkRoundTrip(const tmetal::ir::Module& module, bool locations) {
  tmetal::ir::PrintOptions options;
  options.locations = locations;
  const std::string printed = tmetal::ir::printModule(module, options);
  std::unique_ptr<tmetal::ir::Module> again;
  try {
    again = tmetal::frontend::parseTtir(printed, "printed.ttir");
  } catch (const tmetal::CompileError& e) {
    roundTripBug(std::string("the printed text does not read back: ") + e.what(), printed);
  }
  tmetal::ir::EquivalenceOptions compare;
  compare.locations = locations;
  const std::string difference = tmetal::ir::firstDifference(module, *again, compare);
  if (!difference.empty()) roundTripBug(difference, printed);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::unique_ptr<tmetal::ir::Module> module;
  try {
    module = tmetal::frontend::parseTtir(text, "fuzz.ttir");
  } catch (const tmetal::CompileError&) {
    return 0;
  }
  try {
    tmetal::ir::verify(*module);
  } catch (const tmetal::CompileError&) {
  }
  checkRoundTrip(*module, true);
  checkRoundTrip(*module, false);
  return 0;
}
