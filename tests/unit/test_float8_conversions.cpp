// 8-bit floats: the reference encodings (ir/float_bits.h) against values
// from the formats' definitions, and the code generators' software
// conversions (codegen/float_conversions.h) against that reference, through
// `tmetal run` on the interpreter and on the emulator, for all five formats,
// both rounding modes and a sweep of float32 inputs; and NVRTC compiles the
// CUDA dialect's spelling of the same helpers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "tests/unit/cli_test_support.h"
#include "tests/unit/cuda_test_support.h"
#include "tmetal/ir/float_bits.h"
#include "tmetal/support/diagnostic.h"
#include "tmetal/support/npy.h"

using namespace tmetal;
using ir::FloatRounding;
using ir::ScalarKind;

namespace {

uint64_t bitsOf(double v, ScalarKind k, FloatRounding r = FloatRounding::NearestEven, bool saturate = true) {
  return ir::floatToBits(v, k, r, saturate);
}

}  // namespace

TEST(Float8Reference, E4M3FN) {
  const auto k = ScalarKind::F8E4M3FN;
  EXPECT_EQ(bitsOf(1.0, k), 0x38u);
  EXPECT_EQ(bitsOf(-2.0, k), 0xC0u);
  EXPECT_EQ(bitsOf(448.0, k), 0x7Eu);                       // largest finite
  EXPECT_EQ(bitsOf(464.0, k), 0x7Eu);                       // a tie with 480 (the NaN code): to even
  EXPECT_EQ(bitsOf(1e9, k), 0x7Eu);                         // saturated
  EXPECT_EQ(bitsOf(-INFINITY, k), 0xFEu);                   // saturated
  EXPECT_EQ(bitsOf(1e9, k, FloatRounding::NearestEven, false), 0x7Fu);  // APFloat: no infinity, so NaN
  EXPECT_EQ(bitsOf(NAN, k), 0x7Fu);
  EXPECT_EQ(bitsOf(std::ldexp(1.0, -9), k), 0x01u);         // smallest subnormal
  EXPECT_EQ(bitsOf(std::ldexp(1.0, -10), k), 0x00u);        // half of it: tie to even zero
  EXPECT_EQ(bitsOf(std::ldexp(3.0, -11), k), 0x01u);        // 0.75 of it
  EXPECT_EQ(bitsOf(std::ldexp(15.0, -10), k), 0x08u);       // 7.5 subnormal steps: carries into the smallest normal
  EXPECT_EQ(bitsOf(1.0 + 0.0625, k), 0x38u);                // tie between 1 and 1.125: even
  EXPECT_EQ(bitsOf(1.0 + 0.0625, k, FloatRounding::TowardZero), 0x38u);
  EXPECT_EQ(bitsOf(1.124, k, FloatRounding::TowardZero), 0x38u);
  EXPECT_EQ(bitsOf(-1.124, k, FloatRounding::TowardZero), 0xB8u);
  EXPECT_TRUE(std::isnan(ir::floatFromBits(0xFF, k)));
  EXPECT_EQ(ir::floatFromBits(0x7E, k), 448.0);
  EXPECT_EQ(ir::floatFromBits(0x80, k), 0.0);
  EXPECT_TRUE(std::signbit(ir::floatFromBits(0x80, k)));
}

TEST(Float8Reference, E5M2) {
  const auto k = ScalarKind::F8E5M2;
  EXPECT_EQ(bitsOf(1.0, k), 0x3Cu);
  EXPECT_EQ(bitsOf(57344.0, k), 0x7Bu);
  EXPECT_EQ(bitsOf(61440.0, k), 0x7Bu);                                 // saturated
  EXPECT_EQ(bitsOf(61440.0, k, FloatRounding::NearestEven, false), 0x7Cu);  // IEEE: a tie to even, infinity
  EXPECT_EQ(bitsOf(INFINITY, k), 0x7Bu);
  EXPECT_EQ(bitsOf(INFINITY, k, FloatRounding::NearestEven, false), 0x7Cu);
  EXPECT_EQ(bitsOf(1e6, k, FloatRounding::TowardZero, false), 0x7Bu);  // finite stays finite toward zero
  EXPECT_EQ(bitsOf(std::ldexp(1.0, -16), k), 0x01u);
  EXPECT_EQ(ir::floatFromBits(0x7C, k), INFINITY);
  EXPECT_TRUE(std::isnan(ir::floatFromBits(0x7D, k)));
  EXPECT_EQ(ir::floatFromBits(0x02, k), std::ldexp(1.0, -15));
}

TEST(Float8Reference, FnuzFormatsHaveOneNanAndNoNegativeZero) {
  for (ScalarKind k : {ScalarKind::F8E4M3FNUZ, ScalarKind::F8E5M2FNUZ, ScalarKind::F8E4M3B11FNUZ}) {
    EXPECT_EQ(bitsOf(-0.0, k), 0x00u) << ir::scalarName(k);
    EXPECT_EQ(bitsOf(-1e-30, k), 0x00u) << ir::scalarName(k);  // rounds to zero: +0
    EXPECT_EQ(bitsOf(NAN, k), 0x80u) << ir::scalarName(k);
    EXPECT_TRUE(std::isnan(ir::floatFromBits(0x80, k))) << ir::scalarName(k);
    EXPECT_EQ(bitsOf(INFINITY, k), 0x7Fu) << ir::scalarName(k);  // saturated: 0x7F is finite here
    EXPECT_EQ(bitsOf(-INFINITY, k), 0xFFu) << ir::scalarName(k);
  }
  EXPECT_EQ(ir::floatFromBits(0x7F, ScalarKind::F8E4M3FNUZ), 240.0);
  EXPECT_EQ(ir::floatFromBits(0x7F, ScalarKind::F8E5M2FNUZ), 57344.0);
  EXPECT_EQ(ir::floatFromBits(0x7F, ScalarKind::F8E4M3B11FNUZ), 30.0);
  EXPECT_EQ(ir::floatFromBits(0x01, ScalarKind::F8E4M3FNUZ), std::ldexp(1.0, -10));
  EXPECT_EQ(bitsOf(1.0, ScalarKind::F8E4M3FNUZ), 0x40u);
  EXPECT_EQ(bitsOf(1.0, ScalarKind::F8E5M2FNUZ), 0x40u);
  EXPECT_EQ(bitsOf(1.0, ScalarKind::F8E4M3B11FNUZ), 0x58u);
}

TEST(Float8Reference, EveryCodeRoundTrips) {
  for (ScalarKind k : {ScalarKind::F8E4M3FN, ScalarKind::F8E5M2, ScalarKind::F8E4M3FNUZ, ScalarKind::F8E5M2FNUZ,
                       ScalarKind::F8E4M3B11FNUZ})
    for (uint64_t code = 0; code < 256; ++code) {
      const double v = ir::floatFromBits(code, k);
      if (std::isnan(v)) continue;
      EXPECT_EQ(bitsOf(v, k, FloatRounding::NearestEven, false), code) << ir::scalarName(k) << " " << code;
      EXPECT_EQ(bitsOf(v, k, FloatRounding::TowardZero, false), code) << ir::scalarName(k) << " " << code;
    }
}

namespace {

// y = fp_to_fp(x) with the given rounding, z = fp_to_fp(y) back to f32.
std::string conversionKernel(const std::string& f8, const std::string& rounding) {
  return R"(module {
  tt.func public @convert(%x_ptr: !tt.ptr<f32>, %y_ptr: !tt.ptr<)" + f8 + R"(>, %z_ptr: !tt.ptr<f32>) attributes {noinline = false} {
    %c256_i32 = arith.constant 256 : i32
    %0 = tt.get_program_id x : i32
    %1 = arith.muli %0, %c256_i32 : i32
    %2 = tt.make_range {end = 256 : i32, start = 0 : i32} : tensor<256xi32>
    %3 = tt.splat %1 : i32 -> tensor<256xi32>
    %4 = arith.addi %3, %2 : tensor<256xi32>
    %5 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %6 = tt.addptr %5, %4 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    %x = tt.load %6 : tensor<256x!tt.ptr<f32>>
    %y = tt.fp_to_fp %x, rounding = )" + rounding + R"( : tensor<256xf32> -> tensor<256x)" + f8 + R"(>
    %7 = tt.splat %y_ptr : !tt.ptr<)" + f8 + R"(> -> tensor<256x!tt.ptr<)" + f8 + R"(>>
    %8 = tt.addptr %7, %4 : tensor<256x!tt.ptr<)" + f8 + R"(>>, tensor<256xi32>
    tt.store %8, %y : tensor<256x!tt.ptr<)" + f8 + R"(>>
    %z = tt.fp_to_fp %y : tensor<256x)" + f8 + R"(> -> tensor<256xf32>
    %9 = tt.splat %z_ptr : !tt.ptr<f32> -> tensor<256x!tt.ptr<f32>>
    %10 = tt.addptr %9, %4 : tensor<256x!tt.ptr<f32>>, tensor<256xi32>
    tt.store %10, %z : tensor<256x!tt.ptr<f32>>
    tt.return
  }
}
)";
}

// Float32 inputs: a sweep of bit patterns over every exponent (the top 13
// bits of each pattern in steps, with low bits set to hit ties and
// sticky bits), plus zeros, infinities and NaNs.
std::vector<float> sweep() {
  std::vector<float> out;
  for (uint32_t hi = 0; hi < (1u << 13); hi += 3)
    for (uint32_t lo : {0u, 0x40000u, 0x80000u, 0x7ffffu, 0x80001u, 0xfffffu}) {
      uint32_t bits = (hi << 19) | lo;
      float f;
      std::memcpy(&f, &bits, 4);
      out.push_back(f);
    }
  for (float f : {0.0f, -0.0f, INFINITY, -INFINITY, std::numeric_limits<float>::quiet_NaN()}) out.push_back(f);
  out.resize((out.size() + 255) / 256 * 256, 1.0f);
  return out;
}

class Float8Codegen : public clitest::CliTest {
 protected:
  void SetUp() override {
    startIn("tmetal_f8_");
    if (IsSkipped()) return;
    inputs_ = sweep();
    NpyArray x{"f4", {static_cast<int64_t>(inputs_.size())}, std::vector<uint8_t>(inputs_.size() * 4)};
    std::memcpy(x.data.data(), inputs_.data(), x.data.size());
    writeNpy((dir_ / "x.npy").string(), x);
    writeNpy((dir_ / "y.npy").string(), NpyArray{"u1", {x.shape[0]}, std::vector<uint8_t>(inputs_.size(), 0)});
    writeNpy((dir_ / "z.npy").string(), NpyArray{"f4", {x.shape[0]}, std::vector<uint8_t>(inputs_.size() * 4, 0)});
  }

  // Runs the conversion kernel on `device`; returns y's and z's bytes.
  std::pair<std::vector<uint8_t>, std::vector<uint8_t>> run(const std::string& f8, const std::string& rounding,
                                                            const std::string& device) {
    std::ofstream(dir_ / "convert.ttir") << conversionKernel(f8, rounding);
    const std::string grid = std::to_string(inputs_.size() / 256);
    auto [code, output] = tmetal("run convert.ttir --grid " + grid +
                                 " --arg 0=x.npy --arg 1=y.npy --arg 2=z.npy --out 1=y_out.npy --out 2=z_out.npy "
                                 "--device " + device);
    EXPECT_EQ(code, 0) << output;
    return {readNpy((dir_ / "y_out.npy").string()).data, readNpy((dir_ / "z_out.npy").string()).data};
  }

  std::vector<float> inputs_;
};

}  // namespace

TEST_F(Float8Codegen, EmulatorAndInterpreterMatchTheReferenceBitForBit) {
  const std::vector<std::pair<std::string, ScalarKind>> formats = {
      {"f8E4M3FN", ScalarKind::F8E4M3FN},     {"f8E5M2", ScalarKind::F8E5M2},
      {"f8E4M3FNUZ", ScalarKind::F8E4M3FNUZ}, {"f8E5M2FNUZ", ScalarKind::F8E5M2FNUZ},
      {"f8E4M3B11FNUZ", ScalarKind::F8E4M3B11FNUZ}};
  for (const auto& [name, kind] : formats)
    for (const std::string rounding : {"rtne", "rtz"}) {
      const auto rounding_ = rounding == "rtz" ? FloatRounding::TowardZero : FloatRounding::NearestEven;
      auto [yInterp, zInterp] = run(name, rounding, "interpreter");
      auto [yEmu, zEmu] = run(name, rounding, "emulator");
      ASSERT_EQ(yInterp.size(), inputs_.size());
      ASSERT_EQ(yEmu.size(), inputs_.size());
      int mismatches = 0;
      for (size_t i = 0; i < inputs_.size() && mismatches < 5; ++i) {
        const uint64_t expected = bitsOf(inputs_[i], kind, rounding_);
        if (yInterp[i] != expected || yEmu[i] != expected) {
          ++mismatches;
          ADD_FAILURE() << name << " " << rounding << " of " << inputs_[i] << ": reference 0x" << std::hex << expected
                        << ", interpreter 0x" << int(yInterp[i]) << ", emulator 0x" << int(yEmu[i]);
        }
      }
      // And back to float32: the same bytes on both devices (NaNs included).
      EXPECT_EQ(zInterp.size(), zEmu.size());
      for (size_t i = 0; i < inputs_.size(); ++i) {
        float a, b;
        std::memcpy(&a, &zInterp[4 * i], 4);
        std::memcpy(&b, &zEmu[4 * i], 4);
        const double expected = ir::floatFromBits(yEmu[i], kind);
        if (std::isnan(expected)) {
          EXPECT_TRUE(std::isnan(a) && std::isnan(b)) << name << " element " << i;
        } else {
          ASSERT_EQ(a, expected) << name << " element " << i;
          ASSERT_EQ(b, expected) << name << " element " << i;
        }
      }
    }
}

// The CUDA dialect spells the same helpers; CI has no GPU, so NVRTC proves
// they compile (tests/python/test_plugin_cuda.py runs them on a GPU).
TEST(Float8Cuda, ConversionsCompileWithNvrtc) {
  TMETAL_REQUIRE_NVRTC();
  for (const std::string f8 : {"f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ"})
    for (const std::string rounding : {"rtne", "rtz"}) cudatest::expectCompilesWithNvrtc(conversionKernel(f8, rounding), "convert");
}
