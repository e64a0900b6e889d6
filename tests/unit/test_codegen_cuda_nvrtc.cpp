// Every kernel of the suite (tests/ttir/<case>.ttir), emitted as CUDA C++
// under every MemoryLayout policy at the case's num_warps, must compile with
// NVRTC for sm_90 (PTX and, through ptxas, a cubin), so that a change that
// breaks the CUDA emitter cannot land although CI has no GPU. The GPU run
// of the same kernels against the NumPy references is scripts/gpu_check.sh.
#include <gtest/gtest.h>

#include "tests/unit/cuda_test_support.h"
#include "tmetal/layout/memory_layout.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal {
namespace {

using cudatest::manifest;
using cudatest::parseCase;

const char* const kPolicies[] = {"coalesced", "row_major", "column_major", "tiled", "default"};

class SuiteKernelCompilesWithNvrtc : public ::testing::TestWithParam<std::string> {};

TEST_P(SuiteKernelCompilesWithNvrtc, ForSm90UnderEveryLayoutPolicy) {
  TMETAL_REQUIRE_NVRTC();
  const std::string& name = GetParam();
  auto module = parseCase(name);
  for (const char* policyName : kPolicies) {
    SCOPED_TRACE(std::string("layout ") + policyName);
    codegen::CompileOptions options;
    options.target = "cuda";
    options.policy = *layout::parseMemoryLayout(policyName);
    options.numWarps = manifest()[name].value("num_warps", 4);
    codegen::CompiledKernel kernel = codegen::compileKernel(*module, options);
    EXPECT_EQ(kernel.metadata.target, "cuda");
    EXPECT_EQ(kernel.metadata.threadsPerThreadgroup, options.numWarps * 32);
    try {
      runtime::cuda::NvrtcOutput out =
          runtime::cuda::compileWithNvrtc(kernel.source, name + "." + policyName + ".cu", {"sm_90", {}});
      EXPECT_NE(out.ptx.find(".entry " + kernel.metadata.kernelName), std::string::npos)
          << "the PTX has no entry point named as the metadata's kernel";
      EXPECT_FALSE(out.cubin.empty()) << "NVRTC gave no cubin for sm_90";
    } catch (const CompileError& e) {
      ADD_FAILURE() << e.what() << "\n---- the CUDA source ----\n" << kernel.source;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Suite, SuiteKernelCompilesWithNvrtc, ::testing::ValuesIn(cudatest::suiteCaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(Nvrtc, SimdGroupMatrixDotsCompileForTheOldestArchitectureTheyNeed) {
  // mma.sync.m16n8k8 and ldmatrix exist from sm_75 (Turing) on; the helpers'
  // #error names that architecture, so it must compile there.
  TMETAL_REQUIRE_NVRTC();
  codegen::CompileOptions options;
  options.target = "cuda";
  codegen::CompiledKernel kernel = codegen::compileKernel(*parseCase("matmul_f16_f32acc"), options);
  runtime::cuda::NvrtcOutput out = runtime::cuda::compileWithNvrtc(kernel.source, "matmul.cu", {"sm_75", {}});
  EXPECT_NE(out.ptx.find("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32"), std::string::npos) << out.ptx;
  EXPECT_NE(out.ptx.find("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16"), std::string::npos) << out.ptx;
  EXPECT_FALSE(out.cubin.empty()) << "NVRTC gave no cubin for sm_75";
}

TEST(Nvrtc, Bfloat16MatrixDotsNeedSm80) {
  // bfloat16's mma.sync exists from sm_80 (Ampere) on; below it the compile
  // stops at a static_assert that says so.
  TMETAL_REQUIRE_NVRTC();
  std::string ttir = cudatest::readFile(cudatest::ttirDir() + "/matmul_f16_f32acc.ttir");
  for (size_t at = ttir.find("f16>"); at != std::string::npos; at = ttir.find("f16>", at + 5))
    ttir.replace(at, 4, "bf16>");
  auto module = frontend::parseTtir(ttir, "matmul_bf16.ttir");
  ir::verify(*module);
  codegen::CompileOptions options;
  options.target = "cuda";
  codegen::CompiledKernel kernel = codegen::compileKernel(*module, options);
  EXPECT_EQ(kernel.metadata.layouts["dots"].at(0)["strategy"], "simdgroup_matrix");
  runtime::cuda::NvrtcOutput out = runtime::cuda::compileWithNvrtc(kernel.source, "matmul_bf16.cu", {"sm_80", {}});
  EXPECT_NE(out.ptx.find("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"), std::string::npos) << out.ptx;
  try {
    runtime::cuda::compileWithNvrtc(kernel.source, "matmul_bf16.cu", {"sm_75", {}});
    ADD_FAILURE() << "compiled for sm_75";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("bfloat16 SIMD-group matrices need sm_80 or newer"), std::string::npos)
        << e.what();
  }
}

TEST(Nvrtc, ArraysOfFiveHundredRegistersAThreadStayOutOfLocalMemory) {
  // 16384 halves for one SIMD group: 512 registers a thread, and their sum.
  // Left to itself NVIDIA's compiler kept the loops over them rolled and
  // every array they index in local memory; each is asked to unroll whole,
  // in both dialects.
  TMETAL_REQUIRE_NVRTC();
  const char* ttir = R"(module {
  tt.func public @double_kernel(%x: !tt.ptr<f16>, %out: !tt.ptr<f16>, %total: !tt.ptr<f16>, %n: i32) {
    %r = tt.make_range {end = 16384 : i32, start = 0 : i32} : tensor<16384xi32>
    %ns = tt.splat %n : i32 -> tensor<16384xi32>
    %m = arith.cmpi slt, %r, %ns : tensor<16384xi32>
    %xs = tt.splat %x : !tt.ptr<f16> -> tensor<16384x!tt.ptr<f16>>
    %xp = tt.addptr %xs, %r : tensor<16384x!tt.ptr<f16>>, tensor<16384xi32>
    %v = tt.load %xp, %m : tensor<16384x!tt.ptr<f16>>
    %w = arith.addf %v, %v : tensor<16384xf16>
    %os = tt.splat %out : !tt.ptr<f16> -> tensor<16384x!tt.ptr<f16>>
    %op = tt.addptr %os, %r : tensor<16384x!tt.ptr<f16>>, tensor<16384xi32>
    tt.store %op, %w, %m : tensor<16384x!tt.ptr<f16>>
    %s = "tt.reduce"(%w) <{axis = 0 : i32}> ({
    ^bb0(%a: f16, %b: f16):
      %t = arith.addf %a, %b : f16
      tt.reduce.return %t : f16
    }) : (tensor<16384xf16>) -> f16
    tt.store %total, %s : !tt.ptr<f16>
    tt.return
  }
})";
  auto module = frontend::parseTtir(ttir, "double.ttir");
  ir::verify(*module);
  for (const char* target : {"cuda", "metal"}) {
    SCOPED_TRACE(target);
    codegen::CompileOptions options;
    options.target = target;
    options.numWarps = 1;
    codegen::CompiledKernel kernel = codegen::compileKernel(*module, options);
    const std::string hint = options.target == "cuda" ? "#pragma unroll\n" : "#pragma clang loop unroll(full)\n";
    size_t loops = 0;
    for (const char* head : {"for (int r = 0; ", "for (int g = 0; ", "for (int k = 1; "})
      for (size_t at = kernel.source.find(head); at != std::string::npos; at = kernel.source.find(head, at + 1)) {
        const size_t lineStart = kernel.source.rfind('\n', at) + 1;
        const size_t hintStart = kernel.source.rfind('\n', lineStart - 2) + 1;
        EXPECT_NE(kernel.source.substr(hintStart, lineStart - hintStart).find(hint), std::string::npos)
            << kernel.source.substr(hintStart, 200);
        ++loops;
      }
    EXPECT_GE(loops, 5u) << kernel.source;
    if (options.target != "cuda") continue;
    runtime::cuda::NvrtcOutput out = runtime::cuda::compileWithNvrtc(kernel.source, "double.cu", {"sm_90", {}});
    EXPECT_EQ(out.ptx.find(".local"), std::string::npos) << out.ptx.substr(0, 2000);
  }
}

TEST(Nvrtc, KernelWithAssertionsTakesTheDebugBuffer) {
  TMETAL_REQUIRE_NVRTC();
  codegen::CompileOptions options;
  options.target = "cuda";
  codegen::CompiledKernel kernel = codegen::compileKernel(*cudatest::parseAssertKernel(), options);
  ASSERT_EQ(kernel.metadata.assertions.size(), 1u);
  EXPECT_EQ(kernel.metadata.assertions[0].message, "x must stay below 100");
  EXPECT_EQ(kernel.metadata.params.size(), 2u);  // the buffer is not a Triton argument
  EXPECT_NE(kernel.source.find("int* tmetal_debug"), std::string::npos) << kernel.source;
  codegen::KernelMetadata read = codegen::KernelMetadata::fromJson(kernel.metadata.toJson());
  ASSERT_EQ(read.assertions.size(), 1u);
  EXPECT_EQ(read.assertions[0].file, "assert.py");
  EXPECT_EQ(read.assertions[0].line, 5);
  EXPECT_EQ(read.assertions[0].col, 5);
  EXPECT_EQ(read.assertions[0].shape, std::vector<int64_t>{64});
  runtime::cuda::NvrtcOutput out = runtime::cuda::compileWithNvrtc(kernel.source, "assert.cu", {"sm_90", {}});
  EXPECT_NE(out.ptx.find("atom.global.cas"), std::string::npos) << "no compare-and-swap claims the buffer";
}

TEST(Nvrtc, RejectedSourceIsACompileErrorWithTheLog) {
  TMETAL_REQUIRE_NVRTC();
  try {
    runtime::cuda::compileWithNvrtc("extern \"C\" __global__ void k(float* p) { *p = undeclared_name; }\n", "bad.cu");
    FAIL() << "NVRTC accepted an undeclared identifier";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("undeclared_name"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.cu"), std::string::npos) << e.what();
  }
}

TEST(Nvrtc, UnknownArchitectureIsNamed) {
  TMETAL_REQUIRE_NVRTC();
  try {
    runtime::cuda::compileWithNvrtc("__global__ void k() {}\n", "k.cu", {"sm_1", {}});
    FAIL() << "sm_1 was accepted";
  } catch (const runtime::cuda::CudaError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot compile for sm_1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(runtime::cuda::compileWithNvrtc("__global__ void k() {}\n", "k.cu", {"gfx90a", {}}),
               runtime::cuda::CudaError);
}

TEST(Nvrtc, ComputeArchitectureGivesPtxOnly) {
  TMETAL_REQUIRE_NVRTC();
  runtime::cuda::NvrtcOutput out =
      runtime::cuda::compileWithNvrtc("extern \"C\" __global__ void k(float* p) { *p = 1.0f; }\n", "k.cu",
                                      {"compute_90", {}});
  EXPECT_NE(out.ptx.find(".target sm_90"), std::string::npos) << out.ptx;
  EXPECT_TRUE(out.cubin.empty());
}

}  // namespace
}  // namespace tmetal
