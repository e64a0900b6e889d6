// Pieces several subcommands share: file I/O with clear errors, and the code
// generation flags (--layout, --num-warps, --num-stages, --hardware, --fast-math) that
// `compile` and `run --device emulator` both take.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "tmetal/codegen/compile_kernel.h"

namespace tmetal::tools {

std::string readTextFile(const std::string& path);
void writeTextFile(const std::string& path, const std::string& text);

struct CodegenFlags {
  std::string target = "metal";
  std::string layout = "coalesced";
  int numWarps = 4;
  int numStages = 3;
  std::string hardware;
  bool fastMath = false;
  std::optional<int> minThreadgroupsPerCore;

  // Adds --layout, --num-warps, --num-stages, --hardware, --fast-math and
  // --min-threadgroups-per-core (not --target).
  void addTo(CLI::App* command);
  // Throws CompileError for an unknown layout or hardware name.
  codegen::CompileOptions toCompileOptions() const;
};

}  // namespace tmetal::tools
