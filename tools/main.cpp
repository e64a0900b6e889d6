// The `tmetal` command-line tool: one binary, one subcommand per job.
#include <CLI/CLI.hpp>
#include <functional>
#include <iostream>
#include <map>

#include "tools/command.h"

namespace tmetal::tools {
std::map<std::string, CommandSetup>& commandTable();
}

int main(int argc, char** argv) {
  CLI::App app{"tmetal: a Triton compiler backend for Apple-silicon GPUs"};
  app.set_version_flag("--version", std::string("tmetal ") + TMETAL_VERSION);
  app.require_subcommand(1);
  std::map<std::string, std::function<int()>> runners;
  for (auto& [name, setup] : tmetal::tools::commandTable()) runners[name] = setup(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  for (auto* sub : app.get_subcommands()) return runners.at(sub->get_name())();
  return 0;
}
