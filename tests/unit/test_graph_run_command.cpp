// `tmetal graph-run` end to end: one line per op ("ok" with --check, the
// first values without), the TTIR it writes, skipped and refused ops, and
// the exact errors for bad command lines. Runs the built binary ($TMETAL_BIN,
// or bin/tmetal of this build).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/unit/cli_test_support.h"
#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/ir/verifier.h"

using namespace tmetal;
namespace fs = std::filesystem;

namespace {

class GraphRunCommand : public clitest::CliTest {
 protected:
  void SetUp() override {
    startIn("tmetal_graph_run_");
  }

  // Runs `tmetal graph-run ARGS` in the temporary directory; returns the exit
  // code and what it printed (stdout, then stderr).
  // The planner's default tuning unless `tuning` names one.
  std::pair<int, std::string> run(const std::string& args, const std::string& tuning = "") {
    const std::string cache = std::string(TMETAL_BINARY_DIR) + "/emulator-test-cache";
    const std::string env = tuning.empty() ? "env -u TMETAL_PLAN_TUNING" : "env TMETAL_PLAN_TUNING='" + tuning + "'";
    return shell("TMETAL_CACHE_DIR=\"${TMETAL_CACHE_DIR:-" + cache + "}\" " + env + " '" + binary_ + "' graph-run " +
                 args + " 2>err.txt; status=$?; cat err.txt; exit $status");
  }
};

}  // namespace

TEST_F(GraphRunCommand, ChecksEachOpAgainstTheReference) {
  EXPECT_EQ(run("--operation tt.sum:[1048576]:0 --operation tt.argmax:[6,10,34]:[0,2] --operation "
                "tt.all:[4096,4]:0:int32 --check"),
            std::make_pair(0, std::string("[0] tt.sum [1048576] float32 axes [0] on interpreter: 2 stages (48 + 1 "
                                          "threadgroups): ok\n"
                                          "[1] tt.argmax [6, 10, 34] float32 axes [0, 2] on interpreter: 1 stage (10 "
                                          "threadgroups): ok\n"
                                          "[2] tt.all [4096, 4] int32 axes [0] on interpreter: 2 stages (4 + 1 "
                                          "threadgroups): ok\n")));
  EXPECT_EQ(run("--operation tt.mean:[4,4096]:0 --dtype float16 --device emulator --check --seed 3"),
            std::make_pair(0, std::string("[0] tt.mean [4, 4096] float16 axes [0] on emulator: 1 stage (64 "
                                          "threadgroups): ok\n")));
}

TEST_F(GraphRunCommand, TuningChangesTheGeometryNotTheResult) {
  EXPECT_EQ(run("--operation tt.sum:[1048576]:0 --check", "loads=1,vectors=4,threads=1024"),
            std::make_pair(0, std::string("[0] tt.sum [1048576] float32 axes [0] on interpreter: 2 stages (24 + 1 "
                                          "threadgroups): ok\n")));
  EXPECT_EQ(run("--operation tt.sum:[8]:0", "loads=3"),
            std::make_pair(1, std::string("[0] tt.sum: invalid\n--operation:1:1: error: ops[0] (tt.sum): "
                                          "TMETAL_PLAN_TUNING: 'loads=3' needs a power of two from 1 to 64, as in "
                                          "loads=4\n")));
  EXPECT_EQ(run("--operation tt.sum:[8]:0", "rows=4").second,
            "[0] tt.sum: invalid\n--operation:1:1: error: ops[0] (tt.sum): TMETAL_PLAN_TUNING: unknown key 'rows' "
            "(known: loads, vectors, threads, resident, waves, lanes)\n");
  EXPECT_EQ(run("--operation tt.sum:[8]:0", "lanes=2048").second,
            "[0] tt.sum: invalid\n--operation:1:1: error: ops[0] (tt.sum): TMETAL_PLAN_TUNING: 'lanes=2048' needs 0 "
            "(the planner's rule) or a power of two from 1 to 1024, as in lanes=16\n");
  // Wider row segments for a column stage: fewer output blocks, more splits.
  EXPECT_EQ(run("--operation tt.sum:[4096,1024]:0 --check", "lanes=8"),
            std::make_pair(0, std::string("[0] tt.sum [4096, 1024] float32 axes [0] on interpreter: 2 stages (64 + 32 "
                                          "threadgroups): ok\n")));
  EXPECT_EQ(run("--operation tt.sum:[4096,1024]:0 --check", "lanes=32"),
            std::make_pair(0, std::string("[0] tt.sum [4096, 1024] float32 axes [0] on interpreter: 2 stages (48 + 8 "
                                          "threadgroups): ok\n")));
  EXPECT_EQ(run("--operation tt.sum:[8]:0", "resident=33").second,
            "[0] tt.sum: invalid\n--operation:1:1: error: ops[0] (tt.sum): TMETAL_PLAN_TUNING: 'resident=33' needs a "
            "count of threadgroups per core from 0 (the planner's rule) to 32, as in resident=4\n");
}

TEST_F(GraphRunCommand, WithoutCheckPrintsTheFirstValues) {
  // Seed 0: the int32 inputs of a max are in [-8, 8].
  auto [code, output] = run("--operation tt.max:[2,3]:1:int32");
  EXPECT_EQ(code, 0);
  EXPECT_EQ(output, "[0] tt.max [2, 3] int32 axes [1] on interpreter: 1 stage (1 threadgroup): 2 int32 values: 3, 8\n");
  // The inputs depend on the seed alone, so these indices are the same everywhere.
  EXPECT_EQ(run("--operation tt.argmin:[3,40]:1 --seed 1"),
            std::make_pair(0, std::string("[0] tt.argmin [3, 40] float32 axes [1] on interpreter: 1 stage (2 "
                                          "threadgroups): 3 int32 values: 29, 9, 39\n")));
}

TEST_F(GraphRunCommand, WritesEachStagesTtir) {
  auto [code, output] = run("--operation tt.sum:[1048576]:0 --operation tt.max:[4,4096]:1 --emit-ttir ttir");
  ASSERT_EQ(code, 0) << output;
  for (const char* name : {"op0_stage1_sum_f32_rows_partials.ttir", "op0_stage2_sum_f32_rows_combine.ttir",
                           "op1_stage1_max_f32_rows.ttir"}) {
    SCOPED_TRACE(name);
    std::ifstream in(dir_ / "ttir" / name);
    ASSERT_TRUE(in.good());
    std::stringstream text;
    text << in.rdbuf();
    std::unique_ptr<ir::Module> module = frontend::parseTtir(text.str(), name);
    ir::verify(*module);
    EXPECT_EQ(module->kernel()->name(), std::string(name).substr(11, std::string(name).size() - 16));
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "ttir"), fs::directory_iterator()), 3);
}

TEST_F(GraphRunCommand, SkipsOtherOpsAndReportsBadOnes) {
  EXPECT_EQ(run("--operation tt.softmax:[4,4]:1 --operation tt.matmul:[4,4],[4,4]"),
            std::make_pair(0, std::string("[0] tt.softmax: skipped (graph-run runs reductions only)\n"
                                          "[1] tt.matmul: skipped (graph-run runs reductions only)\n"
                                          "note: no reduction to run\n")));
  EXPECT_EQ(run("--operation tt.sum:[4,4]:2 --operation tt.sum:[4,4]:1 --check"),
            std::make_pair(1, std::string("[0] tt.sum: invalid\n"
                                          "[1] tt.sum [4, 4] float32 axes [1] on interpreter: 1 stage (1 threadgroup): "
                                          "ok\n"
                                          "--operation:1:1: error: ops[0] (tt.sum): axis 2 is out of range for the "
                                          "rank-2 input [4, 4] (valid: -2..1)\n")));
  EXPECT_EQ(run("--operation tt.mean:[4,4]:1 --dtype int32"),
            std::make_pair(1, std::string("[0] tt.mean [4, 4] int32 axes [1] on interpreter: FAILED: mean of int32 is "
                                          "not defined (as in torch, a mean needs a float input)\n")));
  EXPECT_EQ(run("--operation tt.sum:[8]:0:int8"),
            std::make_pair(1, std::string("[0] tt.sum [8] int8 axes [0] on interpreter: FAILED: graph reduction kernels "
                                          "take float32, float16, bfloat16 or int32 inputs, not int8\n")));
}

TEST_F(GraphRunCommand, BadCommandLines) {
  EXPECT_EQ(run(""), std::make_pair(1, std::string("error: give an ops file with --json FILE or an op with --operation "
                                                   "\"tt.sum:[1048576]:0\"\n")));
  EXPECT_EQ(run("--operation tt.sum:[8]:0 --dtype bogus"),
            std::make_pair(1, std::string("error: --dtype 'bogus': unknown (graph-run kernels take float32, float16, "
                                          "bfloat16 and int32)\n")));
  auto [code, output] = run("--operation tt.sum:[8]:0 --device metal");
  EXPECT_EQ(code, 1);
  EXPECT_EQ(output.rfind("error: --device 'metal' is not available (devices: ", 0), 0u) << output;
}
