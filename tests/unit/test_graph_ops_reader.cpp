// The ops-JSON reader and the --operation shorthand: accepted forms, and
// exact diagnostics (with line and column) for malformed input.
#include <gtest/gtest.h>

#include "tmetal/graph/operation_spec.h"
#include "tmetal/graph/ops_json_reader.h"

using namespace tmetal;
using namespace tmetal::graph;

namespace {
std::string readError(const std::string& text) {
  try {
    readOpsJson(text, "ops.json");
  } catch (const CompileError& e) {
    return e.what();
  }
  return "no error";
}
std::string specError(const std::string& spec) {
  try {
    parseOperationSpec(spec);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST(GraphOpsReader, ReadsTheObjectForm) {
  OpsGraph g = readOpsJson(
      R"({"ops":[{"type":"tt.sum","id":"sum_reduce_2d","input_shapes":[[512,512]],"args":{"axis":1}}]})", "a.json");
  ASSERT_EQ(g.ops.size(), 1u);
  const GraphOp& op = g.ops[0];
  EXPECT_EQ(g.source, "a.json");
  EXPECT_EQ(op.type, "tt.sum");
  EXPECT_EQ(op.id, "sum_reduce_2d");
  EXPECT_EQ(op.inputShapes, (std::vector<std::vector<int64_t>>{{512, 512}}));
  EXPECT_EQ(*op.axes, (std::vector<int64_t>{1}));
  EXPECT_FALSE(op.axisWasList);
  EXPECT_EQ(op.dtype, "float32");  // the default
  EXPECT_TRUE(op.inputStrides.empty());
  EXPECT_TRUE(op.readError.empty());
  EXPECT_EQ(op.label(), "ops[0] 'sum_reduce_2d' (tt.sum)");
}

TEST(GraphOpsReader, ReadsABareListAndEveryAxisForm) {
  OpsGraph g = readOpsJson(R"([
    {"type": "tt.max", "input_shapes": [[8, 16]], "args": {"axis": -1}},
    {"type": "tt.mean", "input_shapes": [[8, 16, 32]], "args": {"axis": [0, 2]}, "dtype": "float16"},
    {"type": "tt.sum", "input_shapes": [[64]]},
    {"type": "tt.sum", "input_shapes": [[4, 8]], "strides": [1, 4]},
    {"type": "tt.matmul", "input_shapes": [[4, 8], [8, 2]], "strides": [[8, 1], [2, 1]]}
  ])",
                           "b.json");
  ASSERT_EQ(g.ops.size(), 5u);
  EXPECT_EQ(*g.ops[0].axes, (std::vector<int64_t>{-1}));
  EXPECT_EQ(g.ops[0].label(), "ops[0] (tt.max)");
  EXPECT_EQ(*g.ops[1].axes, (std::vector<int64_t>{0, 2}));
  EXPECT_TRUE(g.ops[1].axisWasList);
  EXPECT_EQ(g.ops[1].dtype, "float16");
  EXPECT_FALSE(g.ops[2].axes.has_value());
  EXPECT_EQ(g.ops[3].inputStrides, (std::vector<std::vector<int64_t>>{{1, 4}}));
  EXPECT_EQ(g.ops[4].inputStrides.size(), 2u);
  // Each op knows where it starts.
  EXPECT_EQ(g.ops[0].pos.str(), "b.json:2:5");
  EXPECT_EQ(g.ops[4].pos.str(), "b.json:6:5");
}

TEST(GraphOpsReader, UnknownTypesAreReadForTheAnalyzerToReport) {
  OpsGraph g = readOpsJson(R"({"ops":[{"type":"tt.fft","input_shapes":[[8]]},{"type":"tt.sum","input_shapes":[[8]]}]})",
                           "c.json");
  ASSERT_EQ(g.ops.size(), 2u);
  EXPECT_EQ(g.ops[0].type, "tt.fft");
  EXPECT_TRUE(g.ops[0].readError.empty());
}

TEST(GraphOpsReader, MalformedJsonNamesLineAndColumn) {
  EXPECT_EQ(readError("{\"ops\": [\n  {\"type\": \"tt.sum\", \"input_shapes\": [[4]],\n   \"args\": {\"axis\": 1,}}\n]}"),
            "ops.json:3:23: error: malformed JSON: syntax error while parsing object key - unexpected '}'; expected "
            "string literal");
  EXPECT_EQ(readError(""),
            "ops.json:1:1: error: malformed JSON: syntax error while parsing value - unexpected end of input; "
            "expected '[', '{', or a literal");
  EXPECT_EQ(readError("42"), "ops.json:1:1: error: expected an object with an \"ops\" list, or a list of ops");
  EXPECT_EQ(readError("{\"operations\": []}"), "ops.json:1:1: error: expected an \"ops\" list at the top level");
  EXPECT_EQ(readError("{\"ops\": 3}"), "ops.json:1:1: error: \"ops\" must be a list of ops");
  // A number beyond a double (the fuzzer's find: nlohmann reports it without
  // a position, and it used to escape as a JSON library exception).
  EXPECT_EQ(readError("{\"ops\": [\n  {\"type\": \"tt.max\", \"input_shapes\": [[214E7483648]]}]}"),
            "ops.json:2:40: error: malformed JSON: the number 214E7483648 is out of range");
  EXPECT_EQ(readError("[-1e999]"), "ops.json:1:2: error: malformed JSON: the number -1e999 is out of range");
}

TEST(GraphOpsReader, MalformedOpsAreMarkedOneByOne) {
  OpsGraph g = readOpsJson(R"([
    {"input_shapes": [[4]]},
    {"type": "tt.sum"},
    {"type": "tt.sum", "input_shapes": [["N", 4]]},
    {"type": "tt.sum", "input_shapes": [[4.5]]},
    {"type": "tt.sum", "input_shapes": [4, 4]},
    {"type": "tt.sum", "input_shapes": [[4]], "args": {"axis": "last"}},
    {"type": "tt.sum", "input_shapes": [[18446744073709551615]]},
    "tt.sum",
    {"type": "tt.sum", "input_shapes": [[4, 4]], "args": {"axis": 1}}
  ])",
                           "d.json");
  ASSERT_EQ(g.ops.size(), 9u);
  EXPECT_EQ(g.ops[0].readError, "missing \"type\"");
  EXPECT_EQ(g.ops[1].readError, "missing \"input_shapes\"");
  EXPECT_EQ(g.ops[2].readError, "input_shapes[0][0] is the symbolic dimension \"N\"; only integer dimensions are supported");
  EXPECT_EQ(g.ops[3].readError, "input_shapes[0][0] is 4.5, not an integer");
  EXPECT_EQ(g.ops[4].readError, "input_shapes must be a list of shapes such as [[512, 512]], not [4,4]");
  EXPECT_EQ(g.ops[5].readError, "args.axis must be an integer or a list of integers, not \"last\"");
  EXPECT_EQ(g.ops[6].readError, "input_shapes[0][0] is 18446744073709551615, beyond the 64-bit signed range");
  EXPECT_EQ(g.ops[7].readError, "an op must be an object, not \"tt.sum\"");
  EXPECT_TRUE(g.ops[8].readError.empty());
}

TEST(GraphOpsReader, MissingFileIsAClearError) {
  try {
    readOpsJsonFile("/nonexistent/ops.json");
    FAIL() << "no error";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()), "error: cannot read ops file '/nonexistent/ops.json': No such file or directory");
  }
}

TEST(GraphOperationSpec, ParsesTheShorthand) {
  GraphOp a = parseOperationSpec("tt.reduce:[1024,512]:1");
  EXPECT_EQ(a.type, "tt.reduce");
  EXPECT_EQ(a.inputShapes, (std::vector<std::vector<int64_t>>{{1024, 512}}));
  EXPECT_EQ(*a.axes, (std::vector<int64_t>{1}));
  EXPECT_EQ(a.pos.str(), "--operation:1:1");

  GraphOp b = parseOperationSpec("tt.mean:[8, 16, 32]:[0,-1]:float16");
  EXPECT_EQ(*b.axes, (std::vector<int64_t>{0, -1}));
  EXPECT_EQ(b.dtype, "float16");

  GraphOp c = parseOperationSpec("tt.matmul:[128,64],[64,32]");
  EXPECT_EQ(c.inputShapes.size(), 2u);
  EXPECT_FALSE(c.axes.has_value());

  GraphOp d = parseOperationSpec("tt.sum:[16]::bfloat16");  // no axis, a dtype
  EXPECT_FALSE(d.axes.has_value());
  EXPECT_EQ(d.dtype, "bfloat16");
}

TEST(GraphOperationSpec, SyntaxErrorsNameTheColumn) {
  EXPECT_EQ(specError("tt.sum:[M,512]:1"),
            "--operation:1:9: error: symbolic dimension 'M' in --operation; give every dimension as an integer");
  EXPECT_EQ(specError("tt.sum:[1024,N_ROWS]:1"),
            "--operation:1:14: error: symbolic dimension 'N_ROWS' in --operation; give every dimension as an integer");
  EXPECT_EQ(specError("tt.sum"),
            "--operation:1:7: error: expected ':' and the input shapes, as in tt.sum:[1024,512]:1 at the end");
  EXPECT_EQ(specError(":[4]:0"), "--operation:1:1: error: expected an op type such as tt.sum before ':'");
  EXPECT_EQ(specError("tt.sum:[4,]:0"), "--operation:1:11: error: expected an integer at ']:0'");
  EXPECT_EQ(specError("tt.sum:[4]:0 extra"), "--operation:1:14: error: unexpected text at 'extra'");
  EXPECT_EQ(specError("tt.sum:[99999999999999999999]:0"),
            "--operation:1:9: error: integer 99999999999999999999 does not fit in 64 bits");
}
