// `tmetal parse FILE.ttir`: reads TTIR, verifies it and prints it back
// normalized (inline locations, Triton's pretty syntax).
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/ir/printer.h"
#include "tmetal/ir/verifier.h"
#include "tmetal/support/diagnostic.h"
#include "tools/command.h"

namespace {

struct ParseOptions {
  std::string file;
  bool noLocations = false;
};

int runParse(const ParseOptions& options) {
  std::ifstream in(options.file, std::ios::binary);
  if (!in) throw tmetal::CompileError("cannot open '" + options.file + "'");
  std::ostringstream text;
  text << in.rdbuf();
  auto module = tmetal::frontend::parseTtir(text.str(), options.file);
  tmetal::ir::verify(*module);
  tmetal::ir::PrintOptions print;
  print.locations = !options.noLocations;
  std::cout << tmetal::ir::printModule(*module, print);
  return 0;
}

}  // namespace

TMETAL_COMMAND(parse, "parse", [](CLI::App& app) {
  auto options = std::make_shared<ParseOptions>();
  CLI::App* sub = app.add_subcommand("parse", "Read a TTIR file, verify it and print it normalized");
  sub->add_option("file", options->file, "TTIR as Triton prints it (str(module) or str_nodebug())")->required();
  sub->add_flag("--no-locations", options->noLocations, "Leave out loc(...) (as str_nodebug() does)");
  return std::function<int()>([options] { return tmetal::tools::guarded([&] { return runParse(*options); }); });
});
