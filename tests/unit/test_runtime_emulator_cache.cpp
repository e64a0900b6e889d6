// The compiled-kernel cache (kernel_cache.h): hits, misses, protection against
// a stale or colliding entry, and two processes compiling one kernel at once.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "emulator_test_support.h"
#include "tmetal/support/diagnostic.h"

using namespace tmetal::runtime::emulator;
using namespace tmetal::runtime::emulator::testing;
namespace fs = std::filesystem;
using tmetal::codegen::KernelMetadata;

namespace {

const char* kFill = R"msl(#include <metal_stdlib>
using namespace metal;
kernel void fill(device int* out [[buffer(0)]], constant int& value [[buffer(1)]],
                 uint3 pid [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                 uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  out[pid.x * 32 + tid] = value + 0;
}
)msl";

KernelMetadata fillMetadata() {
  return metalKernel("fill", 32, {pointerParam("out", "i32", 0), scalarParam("value", "i32", 1)});
}

// A cache directory of its own, removed afterwards.
class EmulatorCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(TMETAL_BINARY_DIR) / ("emulator-cache-test-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    options_ = testOptions();
    options_.cacheDir = dir_.string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  size_t countEntries(const std::string& extension) const {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir_)) n += e.path().extension() == extension;
    return n;
  }
  bool hasTemporaryDirectories() const {
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().filename().string().rfind("tmp-", 0) == 0) return true;
    return false;
  }

  fs::path dir_;
  EmulatorOptions options_;
};

TEST_F(EmulatorCache, SecondCompileIsAHit) {
  EmulatorKernel first = compile(kFill, fillMetadata(), options_);
  EXPECT_FALSE(first.fromCache());
  EmulatorKernel second = compile(kFill, fillMetadata(), options_);
  EXPECT_TRUE(second.fromCache());
  EXPECT_EQ(first.sharedObjectPath(), second.sharedObjectPath());
  EXPECT_EQ(fs::path(first.sharedObjectPath()).parent_path(), dir_);
  EXPECT_EQ(countEntries(".so"), 1u);
  EXPECT_FALSE(hasTemporaryDirectories());

  std::vector<int32_t> out(64, 0);
  launch(second, {ArgSlot::buffer(out.data(), 256), ArgSlot::scalar<int32_t>(7)}, {2, 1, 1});
  EXPECT_EQ(out, std::vector<int32_t>(64, 7));
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

TEST_F(EmulatorCache, DifferentSourceOrMetadataIsADifferentEntry) {
  compile(kFill, fillMetadata(), options_);
  EXPECT_FALSE(compile(replaced(kFill, "value + 0", "value + 1"), fillMetadata(), options_).fromCache());
  // The program id as a scalar: another trampoline, so another entry.
  KernelMetadata scalarProgramId = fillMetadata();
  scalarProgramId.builtins[0].type = "uint";
  const std::string source = replaced(replaced(kFill, "uint3 pid", "uint pid"), "pid.x", "pid");
  EmulatorKernel kernel = compile(source, scalarProgramId, options_);
  EXPECT_FALSE(kernel.fromCache());
  EXPECT_EQ(countEntries(".so"), 3u);
  std::vector<int32_t> out(64, 0);
  launch(kernel, {ArgSlot::buffer(out.data(), 256), ArgSlot::scalar<int32_t>(5)}, {2, 1, 1});
  EXPECT_EQ(out, std::vector<int32_t>(64, 5));
}

TEST_F(EmulatorCache, EntryWhoseSourceDiffersIsRecompiled) {
  EmulatorKernel first = compile(kFill, fillMetadata(), options_);
  // Make the stored source disagree, as a hash collision or a damaged entry would.
  fs::path stored = fs::path(first.sharedObjectPath()).replace_extension(".cpp");
  std::ofstream(stored, std::ios::app) << "// changed\n";
  EmulatorKernel second = compile(kFill, fillMetadata(), options_);
  EXPECT_FALSE(second.fromCache());
  EXPECT_TRUE(compile(kFill, fillMetadata(), options_).fromCache());
}

TEST_F(EmulatorCache, TwoProcessesCompilingTheSameKernelAtOnce) {
  pid_t children[2];
  for (pid_t& child : children) {
    child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      int code = 1;
      try {
        EmulatorKernel k = compile(kFill, fillMetadata(), options_);
        std::vector<int32_t> out(32, 0);
        launch(k, {ArgSlot::buffer(out.data(), 128), ArgSlot::scalar<int32_t>(3)}, {1, 1, 1});
        code = out == std::vector<int32_t>(32, 3) ? 0 : 2;
      } catch (...) {
        code = 3;
      }
      _exit(code);
    }
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  }
  EXPECT_TRUE(compile(kFill, fillMetadata(), options_).fromCache());
  EXPECT_EQ(countEntries(".so"), 1u);
  EXPECT_FALSE(hasTemporaryDirectories());
}

TEST_F(EmulatorCache, MissingCompilerIsACompileError) {
  options_.compiler = "no-such-clang++";
  try {
    compile(kFill, fillMetadata(), options_);
    FAIL() << "expected a CompileError";
  } catch (const tmetal::CompileError& e) {
    EXPECT_EQ(e.message(),
              "emulator: cannot run 'no-such-clang++': No such file or directory (install clang, see "
              "scripts/setup.sh, or set TMETAL_EMULATOR_CXX)");
  }
}

}  // namespace
