// Golden tests of `tmetal analyze` output on the sample file: the text
// report (plain and --verbose) and the JSON report, for a fixed hardware
// profile. The CLI prints exactly these renderings (tests/python checks the
// binary against the same goldens). To accept a deliberate change, run with
// TMETAL_UPDATE_GOLDEN=1 and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "tmetal/codegen/compile_kernel.h"
#include "tmetal/graph/analysis_report.h"
#include "tmetal/graph/operation_spec.h"
#include "tmetal/graph/reduction_kernels.h"
#include "tmetal/graph/ops_json_reader.h"
#include "tmetal/graph/sample_ops.h"

using namespace tmetal;
using namespace tmetal::graph;

namespace {

const std::string kGoldenDir = std::string(TMETAL_SOURCE_DIR) + "/tests/golden/";

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void expectGolden(const std::string& name, const std::string& actual) {
  const std::string path = kGoldenDir + name;
  if (std::getenv("TMETAL_UPDATE_GOLDEN")) {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  const std::string expected = readFile(path);
  ASSERT_FALSE(expected.empty()) << path << " is missing; run with TMETAL_UPDATE_GOLDEN=1";
  EXPECT_EQ(actual, expected) << "differs from " << path;
}

// As `tmetal analyze --json tests/golden/<file> --hardware m3-max` run from the
// repository root sees it.
GraphAnalysis analyzeGolden(const std::string& file) {
  const std::string relative = "tests/golden/" + file;
  OpsGraph graph = readOpsJson(readFile(kGoldenDir + file), relative);
  hw::HardwareSelection hardware{*hw::findHardwareProfile("m3-max"), "selected with --hardware m3-max"};
  return analyzeGraph(graph, hardware);
}

}  // namespace

TEST(GraphAnalyzeGolden, SampleFileIsTheLargeSampleWithSeed7) {
  // The sample file is what `tmetal sample-ops --large --seed 7` writes.
  EXPECT_EQ(generateSampleOps(true, 7).dump(2) + "\n", readFile(kGoldenDir + "sample_ops.json"));
}

TEST(GraphAnalyzeGolden, SampleText) {
  GraphAnalysis a = analyzeGolden("sample_ops.json");
  EXPECT_TRUE(a.allAnalyzed());
  expectGolden("analyze_sample.txt", renderAnalysisText(a, false));
}

TEST(GraphAnalyzeGolden, SampleVerboseText) {
  expectGolden("analyze_sample_verbose.txt", renderAnalysisText(analyzeGolden("sample_ops.json"), true));
}

TEST(GraphAnalyzeGolden, SampleJson) {
  expectGolden("analyze_sample.json", renderAnalysisJson(analyzeGolden("sample_ops.json")));
}

TEST(GraphAnalyzeGolden, BadOpsText) {
  GraphAnalysis a = analyzeGolden("bad_ops.json");
  EXPECT_EQ(a.summary.analyzed, 2);
  expectGolden("analyze_bad_ops.txt", renderAnalysisText(a, false));
}

// The analyzer reports what the compiled stage kernel does, not the plan's
// words: the 4 rows of tt.sum:[4,4096]:0 are combined by the kernel the code
// generator compiles (as `tmetal graph-run` builds and compiles it) with a
// shuffle butterfly across lanes, and analyze says so in text and JSON.
TEST(GraphAnalyzeCompiled, SumOfFourRowsStatesTheCompiledButterfly) {
  const hw::HardwareProfile profile = *hw::findHardwareProfile("m3-max");
  OpsGraph graph;
  graph.source = kOperationSource;
  graph.ops.push_back(parseOperationSpec("tt.sum:[4,4096]:0", 0));
  GraphAnalysis a = analyzeGraph(graph, hw::HardwareSelection{profile, "test"});
  ASSERT_TRUE(a.allAnalyzed());
  const OpAnalysis& op = a.ops[0];
  ASSERT_TRUE(op.plan);

  // The kernels, compiled here independently of the analyzer.
  ReductionKernels kernels = buildReductionKernels(*op.plan);
  ASSERT_EQ(kernels.stages.size(), op.plan->stages.size());
  ASSERT_EQ(op.compiled.size(), kernels.stages.size());
  const std::string text = renderAnalysisText(a, false);
  const nlohmann::json report = analysisToJson(a);
  bool butterfly = false;
  for (size_t i = 0; i < kernels.stages.size(); ++i) {
    codegen::CompileOptions options;
    options.numWarps = kernels.stages[i].numWarps;
    options.hardware = profile;
    const codegen::KernelMetadata m = codegen::compileKernel(*kernels.stages[i].module, options).metadata;
    const nlohmann::json& compiled = report["ops"][0]["plan"]["stages"][i]["compiled"];
    EXPECT_EQ(compiled["threads_per_threadgroup"], m.threadsPerThreadgroup);
    EXPECT_EQ(compiled["threadgroup_memory_bytes"], m.threadgroupMemoryBytes);
    EXPECT_EQ(compiled["reductions"], m.layouts["reductions"]);
    EXPECT_NE(text.find(fmt::format("{} threads per threadgroup", m.threadsPerThreadgroup)), std::string::npos);
    for (const nlohmann::json& r : m.layouts["reductions"]) {
      if (!r.contains("lanes")) continue;
      const std::string combine = r["lanes"]["combine"].get<std::string>();
      if (combine.find("butterfly") == std::string::npos) continue;
      butterfly = true;
      EXPECT_NE(text.find(fmt::format("then {} lanes by {}", r["lanes"]["count"].get<int>(), combine)),
                std::string::npos)
          << text;
    }
  }
  EXPECT_TRUE(butterfly) << "the compiled kernels of tt.sum:[4,4096]:0 combine lanes with no butterfly";
  // The planner's own threadgroup-memory combine is not printed as fact.
  EXPECT_EQ(text.find("combine (planned"), std::string::npos) << text;
}
