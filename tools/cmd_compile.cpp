// `tmetal compile FILE.ttir --target metal|cuda [--layout L] [--num-warps N]
//  [--num-stages S] [--hardware H] [--fast-math] [-o OUT.metal] [--metadata OUT.json]`:
// TTIR in, Metal Shading Language (or, with --target cuda, CUDA C++ for
// measuring on NVIDIA GPUs) and its launch metadata (kernel_abi.h) out.
#include <iostream>
#include <memory>

#include "tmetal/codegen/compile_kernel.h"
#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/ir/verifier.h"
#include "tools/cli_support.h"
#include "tools/command.h"

namespace {

struct CompileCommandOptions {
  std::string file;
  tmetal::tools::CodegenFlags codegen;
  std::string output;
  std::string metadata;
};

int runCompile(const CompileCommandOptions& o) {
  auto module = tmetal::frontend::parseTtir(tmetal::tools::readTextFile(o.file), o.file);
  tmetal::ir::verify(*module);
  tmetal::codegen::CompiledKernel kernel = tmetal::codegen::compileKernel(*module, o.codegen.toCompileOptions());
  if (o.output.empty() || o.output == "-")
    std::cout << kernel.source;
  else
    tmetal::tools::writeTextFile(o.output, kernel.source);
  if (!o.metadata.empty()) tmetal::tools::writeTextFile(o.metadata, kernel.metadata.toJson().dump(2) + "\n");
  return 0;
}

}  // namespace

TMETAL_COMMAND(compile, "compile", [](CLI::App& app) {
  auto o = std::make_shared<CompileCommandOptions>();
  CLI::App* sub = app.add_subcommand("compile", "Compile a TTIR kernel to Metal Shading Language (or CUDA C++)");
  sub->add_option("file", o->file, "TTIR as Triton prints it (str(module) or str_nodebug())")->required();
  sub->add_option("--target", o->codegen.target, "code generation target: metal, or cuda (CUDA C++, docs/cuda.md)")->capture_default_str();
  o->codegen.addTo(sub);
  sub->add_option("-o,--output", o->output, "where to write the MSL (default: standard output)");
  sub->add_option("--metadata", o->metadata, "where to write the launch metadata JSON (kernel_abi.h)");
  return std::function<int()>([o] { return tmetal::tools::guarded([&] { return runCompile(*o); }); });
});
