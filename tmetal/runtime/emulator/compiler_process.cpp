#include "tmetal/runtime/emulator/compiler_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "tmetal/support/diagnostic.h"

extern char** environ;

namespace tmetal::runtime::emulator {

ProcessResult runProcess(const std::vector<std::string>& argv, const std::string& logPath) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  pid_t pid = 0;
  const int spawnError = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawnError != 0)
    throw CompileError("emulator: cannot run '" + argv[0] + "': " + std::strerror(spawnError) +
                       " (install clang, see scripts/setup.sh, or set TMETAL_EMULATOR_CXX)");

  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw CompileError("emulator: waiting for '" + argv[0] + "' failed: " + std::strerror(errno));
  }
  ProcessResult result;
  result.exitedNormally = WIFEXITED(status);
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  std::ifstream log(logPath, std::ios::binary);
  std::ostringstream text;
  text << log.rdbuf();
  result.output = text.str();
  return result;
}

}  // namespace tmetal::runtime::emulator
