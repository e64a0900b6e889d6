// `tmetal run` end to end: arguments by name or position, outputs with the
// input's dtype and shape, and the exact errors for bad command lines. Runs
// the built binary ($TMETAL_BIN, or bin/tmetal of this build).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/unit/cli_test_support.h"
#include "tmetal/support/npy.h"

using namespace tmetal;

namespace {

// out[i] = 2 * x[i] for i < n, four elements per program.
constexpr const char* kDoubleKernel = R"(module {
  tt.func public @double_kernel(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>, %n: i32) attributes {noinline = false} {
    %c4_i32 = arith.constant 4 : i32
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c4_i32 : i32
    %2 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %3 = tt.splat %1 : i32 -> tensor<4xi32>
    %4 = arith.addi %3, %2 : tensor<4xi32>
    %5 = tt.splat %n : i32 -> tensor<4xi32>
    %6 = arith.cmpi slt, %4, %5 : tensor<4xi32>
    %7 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %8 = tt.addptr %7, %4 : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    %9 = tt.load %8, %6 : tensor<4x!tt.ptr<f32>>
    %10 = arith.addf %9, %9 : tensor<4xf32>
    %11 = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %12 = tt.addptr %11, %4 : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    tt.store %12, %10, %6 : tensor<4x!tt.ptr<f32>>
    tt.return
  }
}
)";

// The double kernel with `tl.device_assert(x < 10, "x must be below 10")`
// (and Triton's `loc` information, so that errors name the Python line).
constexpr const char* kAssertKernel = R"(#loc = loc("assert.py":3:0)
module {
  tt.func public @assert_kernel(%x_ptr: !tt.ptr<f32> loc("x_ptr"(#loc)), %out_ptr: !tt.ptr<f32> loc("out_ptr"(#loc))) attributes {noinline = false} {
    %c4_i32 = arith.constant 4 : i32 loc(#loc1)
    %ten = arith.constant dense<1.000000e+01> : tensor<4xf32> loc(#loc3)
    %0 = tt.get_program_id x : i32 loc(#loc1)
    %1 = arith.muli %0, %c4_i32 : i32 loc(#loc1)
    %2 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32> loc(#loc1)
    %3 = tt.splat %1 : i32 -> tensor<4xi32> loc(#loc1)
    %4 = arith.addi %3, %2 : tensor<4xi32> loc(#loc1)
    %7 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>> loc(#loc2)
    %8 = tt.addptr %7, %4 : tensor<4x!tt.ptr<f32>>, tensor<4xi32> loc(#loc2)
    %9 = tt.load %8 : tensor<4x!tt.ptr<f32>> loc(#loc2)
    %c = arith.cmpf olt, %9, %ten : tensor<4xf32> loc(#loc3)
    tt.assert %c, "x must be below 10" : tensor<4xi1> loc(#loc4)
    %10 = arith.addf %9, %9 : tensor<4xf32> loc(#loc5)
    %11 = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>> loc(#loc5)
    %12 = tt.addptr %11, %4 : tensor<4x!tt.ptr<f32>>, tensor<4xi32> loc(#loc5)
    tt.store %12, %10 : tensor<4x!tt.ptr<f32>> loc(#loc5)
    tt.return loc(#loc5)
  } loc(#loc)
} loc(#loc)
#loc1 = loc("assert.py":4:11)
#loc2 = loc("assert.py":5:9)
#loc3 = loc("assert.py":6:22)
#loc4 = loc("assert.py":6:5)
#loc5 = loc("assert.py":7:5)
)";

// out[i] = sign(x[i] - 7.5) through tl.map_elementwise of a function that
// returns inside ifs (the region's blocks, as Triton prints them).
constexpr const char* kMapElementwiseKernel = R"(module {
  tt.func public @sign_kernel(%x_ptr: !tt.ptr<f32>, %out_ptr: !tt.ptr<f32>) attributes {noinline = false} {
    %minus = arith.constant -1.000000e+00 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %plus = arith.constant 1.000000e+00 : f32
    %mid = arith.constant 7.500000e+00 : f32
    %c4_i32 = arith.constant 4 : i32
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c4_i32 : i32
    %2 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %3 = tt.splat %1 : i32 -> tensor<4xi32>
    %4 = arith.addi %3, %2 : tensor<4xi32>
    %5 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %6 = tt.addptr %5, %4 : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    %x = tt.load %6 : tensor<4x!tt.ptr<f32>>
    %s = "tt.map_elementwise"(%x) <{pack = 1 : i32}> ({
    ^bb0(%v: f32):
      %lt = arith.cmpf olt, %v, %mid : f32
      cf.cond_br %lt, ^bb2(%minus : f32), ^bb1
    ^bb1:
      %eq = arith.cmpf oeq, %v, %mid : f32
      cf.cond_br %eq, ^bb2(%zero : f32), ^bb2(%plus : f32)
    ^bb2(%r: f32):
      tt.map_elementwise.return %r : f32
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %7 = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>
    %8 = tt.addptr %7, %4 : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    tt.store %8, %s : tensor<4x!tt.ptr<f32>>
    tt.return
  }
}
)";

class RunCommand : public clitest::CliTest {
 protected:
  void SetUp() override {
    startIn("tmetal_run_");
    if (IsSkipped()) return;
    std::ofstream(dir_ / "double.ttir") << kDoubleKernel;
    std::ofstream(dir_ / "assert.ttir") << kAssertKernel;
    std::ofstream(dir_ / "map.ttir") << kMapElementwiseKernel;
    NpyArray x{"f4", {2, 5}, {}};
    for (int i = 0; i < 10; ++i) {
      float v = 1.5f * i;
      uint8_t bytes[4];
      std::memcpy(bytes, &v, 4);
      x.data.insert(x.data.end(), bytes, bytes + 4);
    }
    writeNpy((dir_ / "x.npy").string(), x);
    writeNpy((dir_ / "zeros.npy").string(), NpyArray{"f4", {2, 5}, std::vector<uint8_t>(40, 0)});
    writeNpy((dir_ / "ints.npy").string(), NpyArray{"i4", {10}, std::vector<uint8_t>(40, 0)});
  }

  // Runs `tmetal run FILE ARGS` in the temporary directory; returns the exit
  // code and what it printed.
  std::pair<int, std::string> run(const std::string& args, const std::string& file = "double.ttir") {
    return tmetal("run " + file + " " + args);
  }

};

}  // namespace

TEST_F(RunCommand, RunsByNameAndPositionAndKeepsDtypeAndShape) {
  for (const char* args : {"--grid 3 --arg x_ptr=x.npy --arg out_ptr=zeros.npy --arg n=10 --out out_ptr=out.npy",
                           "--grid 3,1,1 --arg 0=x.npy --arg 1=zeros.npy --arg 2=10 --out 1=out.npy --device interpreter"}) {
    auto [code, output] = run(args);
    ASSERT_EQ(code, 0) << output;
    NpyArray out = readNpy((dir_ / "out.npy").string());
    EXPECT_EQ(out.dtype, "f4");
    EXPECT_EQ(out.shape, (std::vector<int64_t>{2, 5}));
    std::vector<float> values(10);
    std::memcpy(values.data(), out.data.data(), 40);
    for (int i = 0; i < 10; ++i) EXPECT_EQ(values[i], 3.0f * i);
  }
}

// Triton prints the arguments of kernels it compiles from source without
// their names (%arg0, %arg1, ...); the names the errors list them under
// select them too.
TEST_F(RunCommand, UnnamedArgumentsGoByTheirPrintedNames) {
  std::string text = kDoubleKernel;
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"%x_ptr", "%arg0"}, {"%out_ptr", "%arg1"}, {"%n", "%arg2"}})
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  std::ofstream(dir_ / "unnamed.ttir") << text;
  auto [code, output] = run("--grid 3 --arg arg0=x.npy --arg arg1=zeros.npy --arg arg2=10 --out arg1=out.npy", "unnamed.ttir");
  ASSERT_EQ(code, 0) << output;
  std::vector<float> values(10);
  std::memcpy(values.data(), readNpy((dir_ / "out.npy").string()).data.data(), 40);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(values[i], 3.0f * i);
  EXPECT_EQ(run("--grid 3 --arg arg3=x.npy", "unnamed.ttir"),
            std::make_pair(1, std::string("error: --arg 'arg3=x.npy': kernel 'double_kernel' has no argument 'arg3' "
                                          "(its arguments: arg0, arg1, arg2)\n")));
}

TEST_F(RunCommand, EveryArgumentMustBeGiven) {
  EXPECT_EQ(run("--grid 3 --arg 0=x.npy"),
            std::make_pair(1, std::string("error: every kernel argument needs an --arg; missing:\n"
                                          "  argument 1 ('out_ptr', !tt.ptr<f32>)\n"
                                          "  argument 2 ('n', i32)\n")));
}

TEST_F(RunCommand, UnknownArgumentsAreNamed) {
  EXPECT_EQ(run("--grid 3 --arg y_ptr=x.npy"),
            std::make_pair(1, std::string("error: --arg 'y_ptr=x.npy': kernel 'double_kernel' has no argument 'y_ptr' "
                                          "(its arguments: x_ptr, out_ptr, n)\n")));
  EXPECT_EQ(run("--grid 3 --arg 3=x.npy"),
            std::make_pair(1, std::string("error: --arg '3=x.npy': kernel 'double_kernel' has 3 arguments, so no argument 3\n")));
  EXPECT_EQ(run("--grid 3 --arg 0=x.npy --arg 1=zeros.npy --arg 2=10 --out n=out.npy"),
            std::make_pair(1, std::string("error: --out 'n=out.npy': argument 2 ('n', i32) is not a buffer\n")));
}

TEST_F(RunCommand, ArraysMustMatchThePointerType) {
  EXPECT_EQ(run("--grid 3 --arg 0=ints.npy --arg 1=zeros.npy --arg 2=10"),
            std::make_pair(1, std::string("error: --arg 0=ints.npy: argument 0 ('x_ptr', !tt.ptr<f32>) points to f32, "
                                          "but ints.npy holds dtype 'i4'\n")));
  EXPECT_EQ(run("--grid 3 --arg 0=x.npy --arg 1=zeros.npy --arg 2=ten"),
            std::make_pair(1, std::string("error: --arg 2=ten: argument 2 ('n', i32) needs an integer\n")));
}

TEST_F(RunCommand, OutOfBoundsAccessIsReportedWithTheLine) {
  auto [code, output] = run("--grid 3 --arg 0=x.npy --arg 1=zeros.npy --arg 2=12");
  EXPECT_EQ(code, 1);
  EXPECT_EQ(output, "double.ttir:13:5: error: 'tt.load': out-of-bounds access in program (2, 0, 0), element [2]: "
                    "element offset 10 is outside buffer 'x_ptr' of 10 elements\n");
}

TEST_F(RunCommand, FailedAssertionNamesTheLineOnEveryDevice) {
  // x.npy holds 1.5 * i: x[7] = 10.5, element [3] of program 1, is the only one of 8 that reaches 10.
  EXPECT_EQ(run("--grid 1 --arg 0=x.npy --arg 1=zeros.npy --device emulator", "assert.ttir"),
            std::make_pair(0, std::string("")));
  EXPECT_EQ(run("--grid 2 --arg 0=x.npy --arg 1=zeros.npy", "assert.ttir"),
            std::make_pair(1, std::string("assert.py:6:5: error: 'tt.assert': assertion failed in program (1, 0, 0), "
                                          "element [3]: x must be below 10\n")));
  // The emulator runs the kernel to its end (Metal cannot stop one) and
  // reports the first failure its assertion buffer recorded: with 128
  // threads and 4 elements, thread i holds element [i].
  auto [code, output] = run("--grid 2,1,1 --arg 0=x.npy --arg 1=zeros.npy --device emulator", "assert.ttir");
  EXPECT_EQ(code, 1);
  EXPECT_EQ(output, "assert.py:6:5: error: device-side assertion failed: x must be below 10 (program (1, 0, 0), "
                    "thread 3, element [3])\n");
  // Sanitize mode runs the grid in a child process, which hands the buffer back.
  setenv("TMETAL_EMULATOR_SANITIZE", "1", 1);
  std::pair<int, std::string> sanitized =
      run("--grid 2,1,1 --arg 0=x.npy --arg 1=zeros.npy --device emulator", "assert.ttir");
  unsetenv("TMETAL_EMULATOR_SANITIZE");
  EXPECT_EQ(sanitized, std::make_pair(code, output));
}

TEST_F(RunCommand, PrintsTheSameLinesOnEveryDevice) {
  std::string source = kDoubleKernel;
  const std::string store = "    tt.store %12, %10, %6";
  source.insert(source.find(store),
                "    tt.print \" y: \" {hex = false, isSigned = array<i32: 1, 1>} : %10, %4 : tensor<4xf32>, tensor<4xi32>\n");
  std::ofstream(dir_ / "print.ttir") << source;
  auto sortedLines = [](const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    std::sort(lines.begin(), lines.end());
    return lines;
  };
  auto [code, printed] = run("--grid 2 --arg 0=x.npy --arg 1=zeros.npy --arg 2=8", "print.ttir");
  ASSERT_EQ(code, 0) << printed;
  std::vector<std::string> lines = sortedLines(printed);
  ASSERT_EQ(lines.size(), 16u) << printed;
  EXPECT_EQ(lines[0], "pid (0, 0, 0) idx (0) y: (operand 0) 0.000000");
  EXPECT_EQ(lines[15], "pid (1, 0, 0) idx (3) y: (operand 1) 7");
  auto [emulatorCode, emulatorPrinted] =
      run("--grid 2 --arg 0=x.npy --arg 1=zeros.npy --arg 2=8 --device emulator", "print.ttir");
  EXPECT_EQ(emulatorCode, 0);
  EXPECT_EQ(sortedLines(emulatorPrinted), lines);
}

TEST_F(RunCommand, MapElementwiseWithReturnsInsideIfsOnEveryDevice) {
  for (const char* device : {"interpreter", "emulator"}) {
    auto [code, output] =
        run(std::string("--grid 2 --arg 0=x.npy --arg 1=zeros.npy --out 1=out.npy --device ") + device, "map.ttir");
    ASSERT_EQ(code, 0) << output;
    NpyArray out = readNpy((dir_ / "out.npy").string());
    std::vector<float> values(10);
    std::memcpy(values.data(), out.data.data(), 40);
    for (int i = 0; i < 8; ++i)  // x[i] = 1.5 i: below 7.5 up to i = 4, equal at 5
      EXPECT_EQ(values[i], i < 5 ? -1.0f : i == 5 ? 0.0f : 1.0f) << device << " element " << i;
  }
}

TEST_F(RunCommand, UnknownDeviceAndBadGrid) {
  EXPECT_EQ(run("--grid 3 --arg 0=x.npy --arg 1=zeros.npy --arg 2=10 --device metal"),
            std::make_pair(1, std::string("error: --device 'metal' is not available (devices: cuda, emulator, interpreter)\n")));
  EXPECT_EQ(run("--grid 3,0,1,1 --arg 0=x.npy --arg 1=zeros.npy --arg 2=10"),
            std::make_pair(1, std::string("error: --grid '3,0,1,1': expected 1 to 3 non-negative integers separated by commas\n")));
  // Program ids are 32-bit: every device refuses more than 2^31 - 1 programs
  // along a dimension (the interpreter used to count them out, wrapping the ids).
  const std::string tooMany = "grid (2147483648, 1, 1): 2147483648 programs along x, more than the 2147483647 that "
                              "tt.get_program_id (a 32-bit integer) can number\n";
  EXPECT_EQ(run("--grid 2147483648 --arg 0=x.npy --arg 1=zeros.npy --arg 2=10"),
            std::make_pair(1, "double.ttir:2:3: error: " + tooMany));
  EXPECT_EQ(run("--grid 2147483648 --arg 0=x.npy --arg 1=zeros.npy --arg 2=10 --device emulator"),
            std::make_pair(1, "error: --grid: " + tooMany));
}

// `tmetal compile --num-stages 1` compiles every loop plain, as Triton's
// num_stages=1; the default loads a dot loop's next two trips ahead.
TEST_F(RunCommand, NumStagesOneKeepsDotLoopsPlain) {
  const std::string matmul = std::string(TMETAL_SOURCE_DIR) + "/tests/ttir/matmul_f16_f32acc.ttir";
  for (const std::string& stages : {"", " --num-stages 1"}) {
    auto [code, output] = tmetal("compile '" + matmul + "'" + stages + " -o k.metal --metadata k.json");
    ASSERT_EQ(code, 0) << output;
    std::ifstream in(dir_ / "k.json");
    const std::string metadata((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(metadata.find("prefetching_loops") != std::string::npos, stages.empty()) << stages;
  }
  auto [code, output] = tmetal("compile '" + matmul + "' --num-stages 0");
  EXPECT_NE(code, 0);
  EXPECT_NE(output.find("--num-stages: Value 0 not in range 1 to 64"), std::string::npos) << output;
}
