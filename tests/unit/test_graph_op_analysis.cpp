// Op analysis: which layout each op family gets, reductions always
// COALESCED with a plan, and a clear, located error for every kind of bad
// input while the other ops are still analyzed.
#include <gtest/gtest.h>

#include "tmetal/graph/op_analysis.h"
#include "tmetal/graph/operation_spec.h"
#include "tmetal/graph/ops_json_reader.h"

using namespace tmetal;
using namespace tmetal::graph;

namespace {
const hw::HardwareProfile& generic() {
  static const hw::HardwareProfile p = *hw::findHardwareProfile("apple-generic");
  return p;
}
OpAnalysis analyzeSpec(const std::string& spec) { return analyzeOp(parseOperationSpec(spec), generic()); }
std::string specError(const std::string& spec) {
  OpAnalysis a = analyzeSpec(spec);
  EXPECT_EQ(a.status, OpStatus::Invalid) << spec;
  return a.error;
}
}  // namespace

TEST(GraphOpAnalysis, EveryReductionIsCoalescedAndPlanned) {
  for (const char* type : {"tt.reduce", "tt.sum", "tt.mean", "tt.max", "tt.min", "tt.prod", "tt.argmax", "tt.argmin",
                           "tt.any", "tt.all"}) {
    OpAnalysis a = analyzeSpec(std::string(type) + ":[64,128]:1");
    ASSERT_EQ(a.status, OpStatus::Analyzed) << type << ": " << a.error;
    EXPECT_TRUE(a.isReduction()) << type;
    EXPECT_EQ(a.layout.policy, layout::MemoryLayout::COALESCED) << type;
    ASSERT_TRUE(a.plan.has_value()) << type;
    EXPECT_EQ(a.plan->kind, ReductionKind::Row) << type;
    EXPECT_EQ(a.outputShape, (std::vector<int64_t>{64})) << type;
  }
  EXPECT_EQ(analyzeSpec("tt.argmin:[64,128]:1").plan->combiner, Combiner::ArgMin);
}

TEST(GraphOpAnalysis, AxesAsWrittenBecomeSortedNonNegative) {
  OpAnalysis a = analyzeSpec("tt.sum:[2,3,4]:[-1,0]");
  EXPECT_EQ(a.axes, (std::vector<int>{0, 2}));
  EXPECT_EQ(a.outputShape, (std::vector<int64_t>{3}));
  // No axis: everything, like tl.sum(x, axis=None).
  OpAnalysis all = analyzeSpec("tt.sum:[2,3,4]");
  EXPECT_EQ(all.axes, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(all.outputShape.empty());
  EXPECT_EQ(all.plan->kind, ReductionKind::All);
}

TEST(GraphOpAnalysis, TheOtherFamiliesGetTheirLayouts) {
  EXPECT_EQ(analyzeSpec("tt.matmul:[128,64],[64,32]").layout.policy, layout::MemoryLayout::TILED);
  EXPECT_EQ(analyzeSpec("tt.matmul:[128,64],[64,32]").outputShape, (std::vector<int64_t>{128, 32}));
  EXPECT_EQ(analyzeSpec("tt.dot:[2,16,8],[2,8,4]").outputShape, (std::vector<int64_t>{2, 16, 4}));
  OpAnalysis conv = analyzeSpec("tt.conv2d:[1,3,32,32],[16,3,3,3]");
  EXPECT_EQ(conv.layout.policy, layout::MemoryLayout::TILED);
  EXPECT_EQ(conv.outputShape, (std::vector<int64_t>{1, 16, 30, 30}));
  EXPECT_EQ(analyzeSpec("tt.transpose:[64,32]").outputShape, (std::vector<int64_t>{32, 64}));
  EXPECT_EQ(analyzeSpec("tt.add:[64,32],[32]").outputShape, (std::vector<int64_t>{64, 32}));
  EXPECT_EQ(analyzeSpec("tt.exp:[64,32]").layout.policy, layout::MemoryLayout::ROW_MAJOR);
  EXPECT_FALSE(analyzeSpec("tt.exp:[64,32]").plan.has_value());
  // Softmax and layernorm reduce along their axis: COALESCED, with a plan.
  OpAnalysis softmax = analyzeSpec("tt.softmax:[32,1024]");
  EXPECT_EQ(softmax.layout.policy, layout::MemoryLayout::COALESCED);
  EXPECT_EQ(softmax.axes, (std::vector<int>{1}));
  ASSERT_TRUE(softmax.plan.has_value());
  EXPECT_FALSE(softmax.isReduction());
}

TEST(GraphOpAnalysis, UnknownTypeIsReportedWhileTheOthersAreAnalyzed) {
  OpsGraph g = readOpsJson(R"({"ops": [
    {"type": "tt.sum", "input_shapes": [[512, 512]], "args": {"axis": 1}},
    {"type": "tt.fft", "id": "spectrum", "input_shapes": [[1024]]},
    {"type": "tt.relu", "input_shapes": [[512, 512]]}
  ]})",
                           "g.json");
  GraphAnalysis a = analyzeGraph(g, hw::HardwareSelection{generic(), "test"});
  EXPECT_EQ(a.ops[0].status, OpStatus::Analyzed);
  EXPECT_EQ(a.ops[1].status, OpStatus::Unsupported);
  EXPECT_EQ(a.ops[1].error, "unsupported op type 'tt.fft'");
  EXPECT_EQ(a.ops[1].diagnostic(), "g.json:3:5: error: ops[1] 'spectrum' (tt.fft): unsupported op type 'tt.fft'");
  EXPECT_EQ(a.ops[2].status, OpStatus::Analyzed);
  EXPECT_FALSE(a.allAnalyzed());
  EXPECT_EQ(a.summary.ops, 3);
  EXPECT_EQ(a.summary.analyzed, 2);
  EXPECT_EQ(a.summary.unsupported, 1);
  EXPECT_EQ(a.summary.reductions, 1);
  EXPECT_EQ(a.summary.coalescedReductions, 1);
  EXPECT_EQ(a.summary.layoutCounts.at(layout::MemoryLayout::COALESCED), 1);
  EXPECT_EQ(a.summary.layoutCounts.at(layout::MemoryLayout::ROW_MAJOR), 1);
  EXPECT_EQ(a.summary.layoutCounts.at(layout::MemoryLayout::TILED), 0);
}

TEST(GraphOpAnalysis, BadShapesAreClearErrors) {
  EXPECT_EQ(specError("tt.sum:[]:0"), "input_shapes[0]: input shape is empty; a tensor needs at least one dimension");
  EXPECT_EQ(specError("tt.sum:[512,0]:1"),
            "input_shapes[0]: dimension 1 of [512, 0] is 0; dimensions must be positive");
  EXPECT_EQ(specError("tt.sum:[-4,8]:1"),
            "input_shapes[0]: dimension 0 of [-4, 8] is -4; dimensions must be positive");
  EXPECT_EQ(specError("tt.sum:[4294967296,4294967296]:1"),
            "input_shapes[0]: element count of [4294967296, 4294967296] overflows 64 bits");
  EXPECT_EQ(specError("tt.add:[4,4],[4,0]"),
            "input_shapes[1]: dimension 1 of [4, 0] is 0; dimensions must be positive");
}

TEST(GraphOpAnalysis, BadAxesAreClearErrors) {
  EXPECT_EQ(specError("tt.sum:[512,512]:2"), "axis 2 is out of range for the rank-2 input [512, 512] (valid: -2..1)");
  EXPECT_EQ(specError("tt.sum:[512,512]:-3"), "axis -3 is out of range for the rank-2 input [512, 512] (valid: -2..1)");
  EXPECT_EQ(specError("tt.sum:[512,512]:[1,-1]"), "axis -1 repeats axis 1");
  EXPECT_EQ(specError("tt.sum:[512,512]:[]"), "args.axis is an empty list; give at least one axis");
  EXPECT_EQ(specError("tt.softmax:[8,8]:[0,1]"), "tt.softmax normalizes along one axis; args.axis lists 2");
}

TEST(GraphOpAnalysis, OtherBadInputsAreClearErrors) {
  EXPECT_EQ(specError("tt.sum:[8]:0:float8"),
            "unknown dtype 'float8' (known: float32, float16, bfloat16, float64, int8, int16, int32, int64, bool)");
  EXPECT_EQ(specError("tt.sum:[8]:0:float64"),
            "float64 is not supported on Generic Apple GPU (M1-class baseline): Metal has no 64-bit float type");
  EXPECT_EQ(analyzeOp(parseOperationSpec("tt.sum:[8]:0:float64"), *hw::findHardwareProfile("h100")).status,
            OpStatus::Analyzed);
  EXPECT_EQ(specError("tt.matmul:[4,8]"), "tt.matmul takes 2 input shape(s), got 1");
  EXPECT_EQ(specError("tt.matmul:[4,8],[4,8]"), "inner dimensions differ: [4, 8] x [4, 8] (8 != 4)");
  EXPECT_EQ(specError("tt.add:[4,3],[4,5]"), "input shapes [4, 3] and [4, 5] do not broadcast");
  EXPECT_EQ(specError("tt.conv2d:[1,3,2,2],[8,3,3,3]"), "the kernel [3, 3] is larger than the padded input [2, 2]");

  OpsGraph g = readOpsJson(R"([
    {"type": "tt.sum", "input_shapes": [[4, 4]], "strides": [4]},
    {"type": "tt.sum", "input_shapes": [[4, 4]], "strides": [-4, 1]},
    {"type": "tt.reduce", "input_shapes": [[4, 4]], "args": {"combiner": "median"}},
    {"type": "tt.transpose", "input_shapes": [[4, 4]], "args": {"perm": [0, 0]}}
  ])",
                           "h.json");
  GraphAnalysis a = analyzeGraph(g, hw::HardwareSelection{generic(), "test"});
  EXPECT_EQ(a.ops[0].error, "strides[0]: 1 strides given for the rank-2 input [4, 4]");
  EXPECT_EQ(a.ops[1].error, "strides[0]: stride 0 is -4; strides must be >= 0");
  EXPECT_EQ(a.ops[2].error, "unknown combiner 'median' (known: sum, mean, max, min, prod, argmax, argmin, any, all)");
  EXPECT_EQ(a.ops[3].error, "args.perm [0, 0] is not a permutation of the 2 dimensions of [4, 4]");
  EXPECT_EQ(a.summary.invalid, 4);
}
