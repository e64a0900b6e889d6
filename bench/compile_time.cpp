// Compile time: TTIR text to MSL for every kernel of the suite (read, verify,
// AxisInfo, layout assignment, lowering, emission), one benchmark per kernel.
// The target is under 5 ms per kernel on a 2-core machine; results live in
// bench/results/ (scripts/bench_compile_time.sh records them).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tmetal/codegen/compile_kernel.h"
#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/ir/verifier.h"

namespace {

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void compileToMsl(benchmark::State& state, const std::string& text, const std::string& name) {
  tmetal::codegen::CompileOptions options;  // COALESCED, 4 warps, the generic Apple profile
  size_t bytes = 0;
  for (auto _ : state) {
    auto module = tmetal::frontend::parseTtir(text, name);
    tmetal::ir::verify(*module);
    auto kernel = tmetal::codegen::compileKernel(*module, options);
    bytes = kernel.source.size();
    benchmark::DoNotOptimize(kernel.source.data());
  }
  state.counters["msl_bytes"] = static_cast<double>(bytes);
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path corpus = std::filesystem::path(TMETAL_SOURCE_DIR) / "tests" / "ttir";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(corpus)) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".ttir") && !name.ends_with(".nodebug.ttir")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::string text = readFile(path);
    std::string name = path.stem().string();
    std::string relative = "tests/ttir/" + path.filename().string();
    benchmark::RegisterBenchmark(("ttir_to_msl/" + name).c_str(), [text, relative](benchmark::State& state) {
      compileToMsl(state, text, relative);
    })->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
