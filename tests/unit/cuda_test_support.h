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

}  // namespace tmetal::cudatest
