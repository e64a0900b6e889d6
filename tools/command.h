// Subcommands of the `tmetal` binary register themselves here, so adding one
// is adding one cmd_<name>.cpp file.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace tmetal::tools {

// Adds the subcommand to `app`; the returned callback runs it and gives the
// process exit code.
using CommandSetup = std::function<std::function<int()>(CLI::App& app)>;

struct CommandRegistrar {
  CommandRegistrar(const std::string& name, CommandSetup setup);
};

// Runs `body`, turning a CompileError or other failure into a diagnostic on
// stderr and exit code 1. Every subcommand wraps its work in it.
int guarded(const std::function<int()>& body);

}  // namespace tmetal::tools

#define TMETAL_COMMAND(ident, name, setup) \
  static ::tmetal::tools::CommandRegistrar tmetal_command_##ident(name, setup)
