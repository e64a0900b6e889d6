// Runs the C++ compiler (or any program) as a child process and collects
// what it printed, for the kernel cache.
#pragma once

#include <string>
#include <vector>

namespace tmetal::runtime::emulator {

struct ProcessResult {
  bool exitedNormally = false;
  int exitCode = -1;    // valid when exitedNormally
  int signal = 0;       // the terminating signal otherwise
  std::string output;   // stdout and stderr together
};

// Runs argv[0] (searched in PATH) with stdout and stderr going to `logPath`,
// waits for it and reads the log. Throws CompileError when it cannot start.
ProcessResult runProcess(const std::vector<std::string>& argv, const std::string& logPath);

}  // namespace tmetal::runtime::emulator
