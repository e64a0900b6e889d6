// `tmetal compile FILE.ttir --target metal`: TTIR in, Metal Shading Language
// and its launch metadata (kernel_abi.h) out.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "tmetal/codegen/compile_kernel.h"
#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/hw/hardware_selection.h"
#include "tmetal/ir/verifier.h"
#include "tmetal/layout/memory_layout.h"
#include "tmetal/support/diagnostic.h"
#include "tools/command.h"

namespace {

struct CompileCommandOptions {
  std::string file;
  std::string target = "metal";
  std::string layout = "coalesced";
  int numWarps = 4;
  std::string hardware;
  std::string output;
  std::string metadata;
  bool fastMath = false;
};

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw tmetal::CompileError("cannot write '" + path + "'");
  out << text;
  if (!out) throw tmetal::CompileError("cannot write '" + path + "'");
}

int runCompile(const CompileCommandOptions& o) {
  std::ifstream in(o.file, std::ios::binary);
  if (!in) throw tmetal::CompileError("cannot open '" + o.file + "'");
  std::ostringstream text;
  text << in.rdbuf();
  auto module = tmetal::frontend::parseTtir(text.str(), o.file);
  tmetal::ir::verify(*module);

  tmetal::codegen::CompileOptions options;
  options.target = o.target;
  auto policy = tmetal::layout::parseMemoryLayout(o.layout);
  if (!policy)
    throw tmetal::CompileError("unknown layout '" + o.layout +
                               "' (known: coalesced, row_major, column_major, tiled, default)");
  options.policy = *policy;
  options.numWarps = o.numWarps;
  options.hardware = tmetal::hw::selectHardware(o.hardware).profile;
  options.fastMath = o.fastMath;
  tmetal::codegen::CompiledKernel kernel = tmetal::codegen::compileKernel(*module, options);

  if (o.output.empty() || o.output == "-")
    std::cout << kernel.source;
  else
    writeFile(o.output, kernel.source);
  if (!o.metadata.empty()) writeFile(o.metadata, kernel.metadata.toJson().dump(2) + "\n");
  return 0;
}

}  // namespace

TMETAL_COMMAND(compile, "compile", [](CLI::App& app) {
  auto o = std::make_shared<CompileCommandOptions>();
  CLI::App* sub = app.add_subcommand("compile", "Compile a TTIR kernel to Metal Shading Language");
  sub->add_option("file", o->file, "TTIR as Triton prints it (str(module) or str_nodebug())")->required();
  sub->add_option("--target", o->target, "code generation target (metal)")->capture_default_str();
  sub->add_option("--layout", o->layout, "MemoryLayout policy: coalesced, row_major, column_major, tiled, default")
      ->capture_default_str();
  sub->add_option("--num-warps", o->numWarps, "SIMD groups per threadgroup (threads = num_warps * 32)")
      ->capture_default_str();
  sub->add_option("--hardware", o->hardware,
                  "hardware profile whose limits apply (see `tmetal hardware`); default: TMETAL_HARDWARE, else "
                  "detected, else the generic Apple profile");
  sub->add_option("-o,--output", o->output, "where to write the MSL (default: standard output)");
  sub->add_option("--metadata", o->metadata, "where to write the launch metadata JSON (kernel_abi.h)");
  sub->add_flag("--fast-math", o->fastMath, "use metal::fast math instead of metal::precise");
  return std::function<int()>([o] { return tmetal::tools::guarded([&] { return runCompile(*o); }); });
});
