// `tmetal sample-ops`: writes a varied, reproducible ops-JSON file.
#include <fstream>
#include <iostream>
#include <memory>

#include "tmetal/graph/sample_ops.h"
#include "tmetal/support/diagnostic.h"
#include "tools/command.h"

namespace {

struct SampleOptions {
  bool large = false;
  uint64_t seed = 42;
  std::string output;
};

int runSampleOps(const SampleOptions& o) {
  const std::string text = tmetal::graph::generateSampleOps(o.large, o.seed).dump(2) + "\n";
  if (o.output.empty() || o.output == "-") {
    std::cout << text;
    return 0;
  }
  std::ofstream out(o.output, std::ios::binary);
  if (!out || !(out << text)) throw tmetal::CompileError("cannot write '" + o.output + "'");
  return 0;
}

}  // namespace

TMETAL_COMMAND(sample_ops, "sample-ops", [](CLI::App& app) -> std::function<int()> {
  auto options = std::make_shared<SampleOptions>();
  CLI::App* cmd = app.add_subcommand("sample-ops", "Write a varied, reproducible ops-JSON file for `tmetal analyze`");
  cmd->add_flag("--large", options->large, "the large set (24 ops instead of 10)");
  cmd->add_option("--seed", options->seed, "seed for the sizes (default 42); the same seed gives the same file");
  cmd->add_option("--output", options->output, "file to write (default: stdout)");
  return [options] { return tmetal::tools::guarded([&] { return runSampleOps(*options); }); };
});
