// Shared by the test_*cuda*.cpp binaries: the suite's TTIR corpus, and the
// rule for a machine without NVRTC or without an NVIDIA GPU.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tmetal/codegen/compile_kernel.h"
#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/ir/verifier.h"
#include "tmetal/runtime/cuda/nvrtc_compiler.h"

namespace tmetal::cudatest {

inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string ttirDir() { return std::string(TMETAL_SOURCE_DIR) + "/tests/ttir"; }

// tests/ttir/MANIFEST.json: one entry per suite case (grid, num_warps, args).
inline const nlohmann::json& manifest() {
  static const nlohmann::json m = nlohmann::json::parse(readFile(ttirDir() + "/MANIFEST.json"));
  return m;
}

inline std::vector<std::string> suiteCaseNames() {
  std::vector<std::string> names;
  for (const auto& [name, entry] : manifest().items()) names.push_back(name);
  return names;
}

inline std::unique_ptr<ir::Module> parseCase(const std::string& name) {
  std::string path = ttirDir() + "/" + name + ".ttir";
  auto module = frontend::parseTtir(readFile(path), path);
  ir::verify(*module);
  return module;
}

// out[i] = x[i] + 1 after `tl.device_assert(x < 100, "x must stay below 100")`,
// 64 elements per program: a kernel with the assertion buffer (kernel_abi.h).
constexpr const char* kAssertKernelTtir = R"(#loc = loc("assert.py":3:0)
module {
  tt.func public @assert_kernel(%x_ptr: !tt.ptr<i32> loc("x_ptr"(#loc)), %out_ptr: !tt.ptr<i32> loc("out_ptr"(#loc))) attributes {noinline = false} {
    %c64 = arith.constant 64 : i32 loc(#loc1)
    %limit = arith.constant dense<100> : tensor<64xi32> loc(#loc2)
    %one = arith.constant dense<1> : tensor<64xi32> loc(#loc3)
    %0 = tt.get_program_id x : i32 loc(#loc1)
    %1 = arith.muli %0, %c64 : i32 loc(#loc1)
    %2 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32> loc(#loc1)
    %3 = tt.splat %1 : i32 -> tensor<64xi32> loc(#loc1)
    %4 = arith.addi %3, %2 : tensor<64xi32> loc(#loc1)
    %5 = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>> loc(#loc1)
    %6 = tt.addptr %5, %4 : tensor<64x!tt.ptr<i32>>, tensor<64xi32> loc(#loc1)
    %x = tt.load %6 : tensor<64x!tt.ptr<i32>> loc(#loc1)
    %c = arith.cmpi slt, %x, %limit : tensor<64xi32> loc(#loc2)
    tt.assert %c, "x must stay below 100" : tensor<64xi1> loc(#loc2)
    %y = arith.addi %x, %one : tensor<64xi32> loc(#loc3)
    %7 = tt.splat %out_ptr : !tt.ptr<i32> -> tensor<64x!tt.ptr<i32>> loc(#loc3)
    %8 = tt.addptr %7, %4 : tensor<64x!tt.ptr<i32>>, tensor<64xi32> loc(#loc3)
    tt.store %8, %y : tensor<64x!tt.ptr<i32>> loc(#loc3)
    tt.return loc(#loc3)
  } loc(#loc)
} loc(#loc)
#loc1 = loc("assert.py":4:9)
#loc2 = loc("assert.py":5:5)
#loc3 = loc("assert.py":6:5)
)";

inline std::unique_ptr<ir::Module> parseAssertKernel() {
  auto module = frontend::parseTtir(kAssertKernelTtir, "assert.ttir");
  ir::verify(*module);
  return module;
}

inline bool inCi() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

// NVRTC is part of CI's machines (the CUDA toolkit in /usr/local/cuda): there
// its absence fails the test; elsewhere the test skips, saying why.
#define TMETAL_REQUIRE_NVRTC()                                                                        \
  do {                                                                                               \
    std::string why;                                                                                 \
    if (!::tmetal::runtime::cuda::nvrtcAvailable(&why)) {                                            \
      if (::tmetal::cudatest::inCi()) FAIL() << "NVRTC is required in CI (CI=true): " << why;        \
      GTEST_SKIP() << why;                                                                           \
    }                                                                                                \
  } while (0)

// Compiles TTIR for the CUDA target and the result with NVRTC for sm_90; a
// failure shows the CUDA source.
inline void expectCompilesWithNvrtc(const std::string& ttir, const std::string& name) {
  auto module = frontend::parseTtir(ttir, name + ".ttir");
  ir::verify(*module);
  codegen::CompileOptions options;
  options.target = "cuda";
  codegen::CompiledKernel kernel = codegen::compileKernel(*module, options);
  try {
    runtime::cuda::NvrtcOutput out = runtime::cuda::compileWithNvrtc(kernel.source, name + ".cu", {"sm_90", {}});
    EXPECT_FALSE(out.cubin.empty());
  } catch (const CompileError& e) {
    ADD_FAILURE() << e.what() << "\n---- the CUDA source ----\n" << kernel.source;
  }
}

}  // namespace tmetal::cudatest
