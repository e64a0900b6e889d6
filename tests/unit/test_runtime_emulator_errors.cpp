// What the emulator reports instead of running a broken kernel: divergent
// barriers and SIMD-group functions, shuffles from lanes that do not exist,
// MSL that the shim (like Metal) rejects, metadata that does not match the
// kernel, and bad launch arguments. Each test asserts the exact message.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "emulator_test_support.h"
#include "tmetal/support/diagnostic.h"

using namespace tmetal::runtime::emulator;
using namespace tmetal::runtime::emulator::testing;

namespace {

// The message of the EmulatorError that `body` throws, or "" if it throws none.
template <class F>
std::string emulatorErrorOf(F body) {
  try {
    body();
  } catch (const EmulatorError& e) {
    return e.what();
  }
  return "";
}

template <class F>
std::string compileErrorOf(F body) {
  try {
    body();
  } catch (const tmetal::CompileError& e) {
    return e.message();
  }
  return "";
}

std::vector<float> zeros(size_t n) { return std::vector<float>(n, 0.0f); }

const char* kEarlyExitBeforeBarrier = R"msl(#include <metal_stdlib>
using namespace metal;
kernel void early_exit(device float* out [[buffer(0)]],
                       uint3 pid [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                       uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup float buf[64];
  if (tid >= 32) return;
  buf[tid] = 1.0f;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[tid] = buf[63 - tid];
}
)msl";

TEST(EmulatorErrors, BarrierNotReachedByThreadsThatExited) {
  auto md = metalKernel("early_exit", 64, {pointerParam("out", "f32", 0)});
  EmulatorKernel kernel = compile(kEarlyExitBeforeBarrier, md, testOptions());
  std::vector<float> out = zeros(64);
  EXPECT_EQ(emulatorErrorOf([&] { launch(kernel, {ArgSlot::buffer(out.data(), 256)}, {4, 1, 1}); }),
            "threadgroup_barrier divergence in threadgroup (0,0,0): threads [0-31] reached the barrier at "
            "early_exit.metal:9, threads [32-63] exited");
}

const char* kTwoBarriers = R"msl(#include <metal_stdlib>
using namespace metal;
kernel void two_barriers(device float* out [[buffer(0)]],
                         uint3 pid [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                         uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  if (pid.x == 2 && (tid % 2) == 1) {
    threadgroup_barrier(mem_flags::mem_threadgroup);
  } else {
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  out[pid.x * 8 + tid] = 1.0f;
}
)msl";

TEST(EmulatorErrors, ThreadsWaitingAtDifferentBarriers) {
  auto md = metalKernel("two_barriers", 8, {pointerParam("out", "f32", 0)});
  EmulatorKernel kernel = compile(kTwoBarriers, md, testOptions());
  std::vector<float> out = zeros(32);
  EXPECT_EQ(emulatorErrorOf([&] { launch(kernel, {ArgSlot::buffer(out.data(), 128)}, {4, 1, 1}); }),
            "threadgroup_barrier divergence in threadgroup (2,0,0): threads [0, 2, 4, 6] reached the barrier at "
            "two_barriers.metal:9, threads [1, 3, 5, 7] reached the barrier at two_barriers.metal:7");
}

const char* kDivergentSimdSum = R"msl(#include <metal_stdlib>
using namespace metal;
kernel void half_sum(device float* out [[buffer(0)]],
                     uint3 pid [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                     uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  float v = float(tid);
  if (pid.x != 1 || sg != 1 || lane < 16) {
    v = simd_sum(v);
  }
  out[pid.x * 64 + tid] = v;
}
)msl";

TEST(EmulatorErrors, SimdSumNotCalledByEveryLane) {
  auto md = metalKernel("half_sum", 64, {pointerParam("out", "f32", 0)});
  EmulatorKernel kernel = compile(kDivergentSimdSum, md, testOptions());
  std::vector<float> out = zeros(3 * 64);
  EXPECT_EQ(emulatorErrorOf([&] { launch(kernel, {ArgSlot::buffer(out.data(), out.size() * 4)}, {3, 1, 1}); }),
            "simd_sum called by lanes [0-15] of SIMD group 1 in threadgroup (1,0,0) but not by lanes [16-31] "
            "(half_sum.metal:8; lanes [16-31] exited)");
}

const char* kDivergentMatrixLoad = R"msl(#include <metal_stdlib>
using namespace metal;
kernel void tile_load(device float* out [[buffer(0)]],
                      uint3 pid [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                      uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup float tg[64];
  simdgroup_float8x8 m;
  if (lane < 8) simdgroup_load(m, tg, 8);
  out[tid] = 0.0f;
}
)msl";

TEST(EmulatorErrors, SimdgroupMatrixLoadNotMadeByEveryLane) {
  auto md = metalKernel("tile_load", 32, {pointerParam("out", "f32", 0)});
  EmulatorKernel kernel = compile(kDivergentMatrixLoad, md, testOptions());
  std::vector<float> out = zeros(32);
  EXPECT_EQ(emulatorErrorOf([&] { launch(kernel, {ArgSlot::buffer(out.data(), out.size() * 4)}, {1, 1, 1}); }),
            "simdgroup_load called by lanes [0-7] of SIMD group 0 in threadgroup (0,0,0) but not by lanes [8-31] "
            "(tile_load.metal:8; lanes [8-31] exited)");
}

const char* kSimdMaxAgainstBarrier = R"msl(#include <metal_stdlib>
using namespace metal;
kernel void mixed_wait(device float* out [[buffer(0)]],
                       uint3 pid [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                       uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  float v = float(tid);
  if (lane == 5) threadgroup_barrier(mem_flags::mem_threadgroup);
  v = simd_max(v);
  out[tid] = v;
}
)msl";

TEST(EmulatorErrors, SimdFunctionAgainstABarrierIsADeadlockReport) {
  auto md = metalKernel("mixed_wait", 32, {pointerParam("out", "f32", 0)});
  EmulatorKernel kernel = compile(kSimdMaxAgainstBarrier, md, testOptions());
  std::vector<float> out = zeros(32);
  EXPECT_EQ(emulatorErrorOf([&] { launch(kernel, {ArgSlot::buffer(out.data(), 128)}, {1, 1, 1}); }),
            "simd_max called by lanes [0-4, 6-31] of SIMD group 0 in threadgroup (0,0,0) but not by lanes [5] "
            "(mixed_wait.metal:8; lanes [5] wait at threadgroup_barrier (mixed_wait.metal:7))");
}

const char* kShuffleXor = R"msl(#include <metal_stdlib>
using namespace metal;
kernel void shuffle_xor(device float* out [[buffer(0)]], constant uint& mask [[buffer(1)]],
                        uint3 pid [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                        uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  float v = float(tid);
  v += simd_shuffle_xor(v, ushort(mask));
  out[tid] = v;
}
)msl";

TEST(EmulatorErrors, ShuffleFromALaneThatDoesNotExist) {
  // 48 threads: SIMD group 1 has only 16 lanes, and lane 0 asks lane 16.
  auto md = metalKernel("shuffle_xor", 48, {pointerParam("out", "f32", 0), scalarParam("mask", "i32", 1)});
  EmulatorKernel kernel = compile(kShuffleXor, md, testOptions());
  std::vector<float> out = zeros(48);
  EXPECT_EQ(emulatorErrorOf([&] {
              launch(kernel, {ArgSlot::buffer(out.data(), 192), ArgSlot::scalar<uint32_t>(16)}, {1, 1, 1});
            }),
            "simd_shuffle_xor at shuffle_xor.metal:7 in SIMD group 1 of threadgroup (0,0,0): lane 0 reads lane 16, "
            "which does not exist (the SIMD group has 16 lanes)");
}

TEST(EmulatorErrors, ShuffleMaskBeyondTheSimdWidth) {
  // Fails in SIMD group 0, before the threads of group 1 ever started: those are unwound unstarted.
  auto md = metalKernel("shuffle_xor", 64, {pointerParam("out", "f32", 0), scalarParam("mask", "i32", 1)});
  EmulatorKernel kernel = compile(kShuffleXor, md, testOptions());
  std::vector<float> out = zeros(64);
  EXPECT_EQ(emulatorErrorOf([&] {
              launch(kernel, {ArgSlot::buffer(out.data(), 256), ArgSlot::scalar<uint32_t>(32)}, {2, 1, 1});
            }),
            "simd_shuffle_xor at shuffle_xor.metal:7 in SIMD group 0 of threadgroup (0,0,0): lane 0 reads lane 32, "
            "which does not exist (the SIMD group has 32 lanes)");
  // The same kernel object still runs correctly afterwards.
  launch(kernel, {ArgSlot::buffer(out.data(), 256), ArgSlot::scalar<uint32_t>(1)}, {1, 1, 1});
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(out[63], 63.0f + 62.0f);
}

const char* kErf = R"msl(#include <metal_stdlib>
using namespace metal;
kernel void gelu(device float* x [[buffer(0)]],
                 uint3 pid [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                 uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  x[tid] = 0.5f * x[tid] * (1.0f + erf(x[tid] * M_SQRT1_2_F));
}
)msl";

TEST(EmulatorErrors, MslThatMetalRejectsIsReportedWithClangsMessage) {
  // MSL has no erf; neither has the shim, so the emulator does not accept what a Mac would reject.
  auto md = metalKernel("gelu", 32, {pointerParam("x", "f32", 0)});
  const std::string message = compileErrorOf([&] { compile(kErf, md, testOptions()); });
  EXPECT_NE(message.find("emulator: clang++ could not compile kernel 'gelu' against the MSL shim:\n"), std::string::npos)
      << message;
  EXPECT_NE(message.find("gelu.metal:6:36: error: use of undeclared identifier 'erf'"), std::string::npos) << message;
}

TEST(EmulatorErrors, MetadataElementTypeDisagreesWithTheKernel) {
  auto md = metalKernel("early_exit", 64, {pointerParam("out", "f16", 0)});
  const std::string message = compileErrorOf([&] { compile(kEarlyExitBeforeBarrier, md, testOptions()); });
  EXPECT_NE(message.find("tmetal-emulator-trampoline.cpp:6:1: error: static_assert failed"), std::string::npos) << message;
  EXPECT_NE(message.find("parameter 0 of 'early_exit' ('out'): the metadata says a pointer to f16 (2-byte elements), "
                         "the kernel's element type has another size"),
            std::string::npos)
      << message;
}

TEST(EmulatorErrors, MetadataWithTooFewParameters) {
  auto md = metalKernel("early_exit", 64, {}, {{"thread_index_in_threadgroup", "uint"}});
  const std::string message = compileErrorOf([&] { compile(kEarlyExitBeforeBarrier, md, testOptions()); });
  EXPECT_NE(message.find("kernel 'early_exit' must take 1 parameters, as its metadata says: 0 arguments, then 1 builtins"),
            std::string::npos)
      << message;
}

TEST(EmulatorErrors, MetadataTheEmulatorCannotLaunch) {
  auto unknownBuiltin = metalKernel("early_exit", 64, {pointerParam("out", "f32", 0)}, {{"quad_lane_id", "uint"}});
  EXPECT_EQ(compileErrorOf([&] { compile(kEarlyExitBeforeBarrier, unknownBuiltin, testOptions()); }),
            "emulator: unknown builtin 'quad_lane_id' in kernel metadata");
  auto cuda = metalKernel("early_exit", 64, {pointerParam("out", "f32", 0)});
  cuda.target = "cuda";
  EXPECT_EQ(compileErrorOf([&] { compile(kEarlyExitBeforeBarrier, cuda, testOptions()); }),
            "emulator: kernel 'early_exit' targets 'cuda'; the emulator runs Metal kernels");
  auto huge = metalKernel("early_exit", 2048, {pointerParam("out", "f32", 0)});
  EXPECT_EQ(compileErrorOf([&] { compile(kEarlyExitBeforeBarrier, huge, testOptions()); }),
            "emulator: kernel 'early_exit' asks for 2048 threads per threadgroup; Metal allows 1 to 1024");
  auto badDtype = metalKernel("early_exit", 64, {pointerParam("out", "f128", 0)});
  EXPECT_EQ(compileErrorOf([&] { compile(kEarlyExitBeforeBarrier, badDtype, testOptions()); }),
            "emulator: parameter 'out' of kernel 'early_exit' has unknown dtype 'f128'");
  auto badName = metalKernel("early exit", 64, {pointerParam("out", "f32", 0)});
  EXPECT_EQ(compileErrorOf([&] { compile(kEarlyExitBeforeBarrier, badName, testOptions()); }),
            "emulator: kernel name 'early exit' is not an identifier");
}

TEST(EmulatorErrors, DispatchLargerThanTheKernelDeclares) {
  // Metal's pipeline takes at most the declared threads per threadgroup.
  const std::string declares32 = std::string("[[max_total_threads_per_threadgroup(32)]]\n") + kEarlyExitBeforeBarrier;
  auto md = metalKernel("early_exit", 64, {pointerParam("out", "f32", 0)});
  EXPECT_EQ(compileErrorOf([&] { compile(declares32, md, testOptions()); }),
            "emulator: kernel 'early_exit' declares [[max_total_threads_per_threadgroup(32)]] but its metadata asks "
            "for 64 threads per threadgroup; Metal refuses such a dispatch");
  const std::string malformed = std::string("[[max_total_threads_per_threadgroup(N)]]\n") + kEarlyExitBeforeBarrier;
  EXPECT_EQ(compileErrorOf([&] { compile(malformed, md, testOptions()); }),
            "emulator: kernel 'early_exit': [[max_total_threads_per_threadgroup(...)]] takes one integer literal");
}

const char* kScale = R"msl(#include <metal_stdlib>
using namespace metal;
kernel void scale(device float* x [[buffer(0)]], constant float& factor [[buffer(1)]],
                  uint3 pid [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                  uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  x[pid.x * 32 + tid] *= factor;
}
)msl";

TEST(EmulatorErrors, LaunchArgumentsThatDoNotFitTheKernel) {
  auto md = metalKernel("scale", 32, {pointerParam("x", "f32", 0), scalarParam("factor", "f32", 1)});
  EmulatorKernel kernel = compile(kScale, md, testOptions());
  std::vector<float> x = zeros(32);
  EXPECT_EQ(emulatorErrorOf([&] { launch(kernel, {ArgSlot::buffer(x.data(), 128)}, {1, 1, 1}); }),
            "emulator: kernel 'scale' takes 2 arguments (x, factor), got 1");
  EXPECT_EQ(emulatorErrorOf([&] {
              launch(kernel, {ArgSlot::scalar(1.0f), ArgSlot::scalar(2.0f)}, {1, 1, 1});
            }),
            "emulator: argument 0 ('x') of kernel 'scale' is a pointer to f32 and needs a buffer, got a scalar");
  EXPECT_EQ(emulatorErrorOf([&] {
              launch(kernel, {ArgSlot::buffer(x.data(), 128), ArgSlot::scalar(2.0)}, {1, 1, 1});
            }),
            "emulator: argument 1 ('factor') of kernel 'scale' is a 4-byte f32 scalar, got 8 bytes");
  EXPECT_EQ(emulatorErrorOf([&] {
              launch(kernel, {ArgSlot::buffer(x.data(), 126), ArgSlot::scalar(2.0f)}, {1, 1, 1});
            }),
            "emulator: argument 0 ('x') of kernel 'scale' has 126 bytes, not a whole number of 4-byte f32 elements");
  // An empty grid runs nothing, as on Metal.
  EXPECT_EQ(emulatorErrorOf([&] { launch(kernel, {ArgSlot::buffer(x.data(), 128), ArgSlot::scalar(2.0f)}, {0, 1, 1}); }),
            "");
  // Program ids are 32-bit signed integers: a grid past 2^31 - 1 along a
  // dimension would wrap them.
  EXPECT_EQ(emulatorErrorOf([&] {
              launch(kernel, {ArgSlot::buffer(x.data(), 128), ArgSlot::scalar(2.0f)}, {1, 2147483648u, 1});
            }),
            "emulator: kernel 'scale': grid (1, 2147483648, 1): 2147483648 programs along y, more than the 2147483647 "
            "that tt.get_program_id (a 32-bit integer) can number");
}

}  // namespace
