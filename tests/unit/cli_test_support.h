// Tests that run the built `tmetal` binary ($TMETAL_BIN, or bin/tmetal of
// this build) in a temporary directory of their own, removed afterwards.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <sys/wait.h>
#include <unistd.h>

namespace tmetal::clitest {

class CliTest : public ::testing::Test {
 protected:
  // Call from SetUp: skips the test when there is no binary.
  void startIn(const std::string& prefix) {
    const char* env = std::getenv("TMETAL_BIN");
    binary_ = env ? env : std::string(TMETAL_BINARY_DIR) + "/bin/tmetal";
    if (!std::filesystem::exists(binary_)) GTEST_SKIP() << "no tmetal binary at " << binary_;
    dir_ = std::filesystem::path(::testing::TempDir()) / (prefix + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  // Runs `command` (a shell command) in the temporary directory; returns the
  // exit code and what it printed.
  std::pair<int, std::string> shell(const std::string& command) const {
    const std::string line = "cd '" + dir_.string() + "' && " + command;
    FILE* pipe = popen(line.c_str(), "r");
    std::string output;
    std::array<char, 512> buffer;
    while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) output.append(buffer.data(), n);
    int status = pclose(pipe);
    return {WEXITSTATUS(status), output};
  }
  // `tmetal ARGUMENTS`, with stderr after stdout.
  std::pair<int, std::string> tmetal(const std::string& arguments) const {
    return shell("'" + binary_ + "' " + arguments + " 2>&1");
  }

  std::string binary_;
  std::filesystem::path dir_;
};

}  // namespace tmetal::clitest
