// Golden tests of `tmetal analyze` output on the sample file: the text
// report (plain and --verbose) and the JSON report, for a fixed hardware
// profile. The CLI prints exactly these renderings (tests/python checks the
// binary against the same goldens). To accept a deliberate change, run with
// TMETAL_UPDATE_GOLDEN=1 and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "tmetal/graph/analysis_report.h"
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
