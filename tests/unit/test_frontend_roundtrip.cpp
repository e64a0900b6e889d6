// Every TTIR file of the corpus (tests/ttir) reads, verifies, prints and reads
// again to the same IR, with and without locations; str_nodebug() files
// print back exactly as Triton wrote them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/ir/equivalence.h"
#include "tmetal/ir/printer.h"
#include "tmetal/ir/verifier.h"

using namespace tmetal;
using namespace tmetal::ir;

namespace {

std::vector<std::string> corpusFiles() {
  std::vector<std::string> files;
  const std::filesystem::path dir = std::filesystem::path(TMETAL_SOURCE_DIR) / "tests" / "ttir";
  if (std::filesystem::is_directory(dir))
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.path().extension() == ".ttir") files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string readFile(const std::string& name) {
  std::ifstream in(std::filesystem::path(TMETAL_SOURCE_DIR) / "tests" / "ttir" / name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string testName(const testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.size() - std::string(".ttir").size());
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class CorpusRoundTrip : public testing::TestWithParam<std::string> {};

}  // namespace

TEST(CorpusRoundTrip, CorpusIsPresent) { EXPECT_FALSE(corpusFiles().empty()) << "tests/ttir has no .ttir files"; }

TEST_P(CorpusRoundTrip, PrintsAndReadsBackTheSameIr) {
  const std::string& file = GetParam();
  auto first = frontend::parseTtir(readFile(file), file);
  verify(*first);

  const std::string withLocations = printModule(*first);
  auto second = frontend::parseTtir(withLocations, "printed.ttir");
  verify(*second);
  EXPECT_EQ(firstDifference(*first, *second), "");
  EXPECT_EQ(printModule(*second), withLocations) << "printing is not stable";

  PrintOptions noLocations;
  noLocations.locations = false;
  const std::string bare = printModule(*first, noLocations);
  auto third = frontend::parseTtir(bare, "printed.nodebug.ttir");
  verify(*third);
  EquivalenceOptions ignoreLocations;
  ignoreLocations.locations = false;
  EXPECT_EQ(firstDifference(*first, *third, ignoreLocations), "");

  // Triton's own str_nodebug() text is what the printer writes.
  if (file.find(".nodebug.") != std::string::npos) EXPECT_EQ(bare, readFile(file));
}

INSTANTIATE_TEST_SUITE_P(Ttir, CorpusRoundTrip, testing::ValuesIn(corpusFiles()), testName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CorpusRoundTrip);
