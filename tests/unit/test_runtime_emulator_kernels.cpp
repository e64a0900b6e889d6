// Hand-written MSL in the style the emitter produces, run on the emulator and
// checked against values computed here.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "emulator_test_support.h"
#include "tmetal/ir/float_bits.h"

using namespace tmetal::runtime::emulator;
using namespace tmetal::runtime::emulator::testing;

namespace {

const char* kVectorAdd = R"msl(#include <metal_stdlib>
using namespace metal;

// Each thread adds 4 consecutive floats with one vector load per operand.
kernel void add_kernel(device const float* x_ptr [[buffer(0)]],
                       device const float* y_ptr [[buffer(1)]],
                       device float* out_ptr [[buffer(2)]],
                       constant int& n [[buffer(3)]],
                       uint3 pid [[threadgroup_position_in_grid]],
                       uint tid [[thread_index_in_threadgroup]],
                       uint lane [[thread_index_in_simdgroup]],
                       uint sg [[simdgroup_index_in_threadgroup]]) {
  int base = int(pid.x) * 512 + int(tid) * 4;
  if (base + 3 < n) {
    float4 a = *(device const float4*)(x_ptr + base);
    float4 b = *(device const float4*)(y_ptr + base);
    *(device float4*)(out_ptr + base) = a + b;
  } else {
    for (int i = base; i < n; ++i) out_ptr[i] = x_ptr[i] + y_ptr[i];
  }
}
)msl";

TEST(EmulatorKernels, VectorAddWithFloat4Loads) {
  auto md = metalKernel("add_kernel", 128,
                        {pointerParam("x_ptr", "f32", 0), pointerParam("y_ptr", "f32", 1),
                         pointerParam("out_ptr", "f32", 2), scalarParam("n", "i32", 3)});
  EmulatorKernel kernel = compile(kVectorAdd, md, testOptions());
  const int n = 3000;  // not a multiple of 4: the tail takes the scalar path
  std::vector<float> x(n), y(n), out(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.5f * i;
    y[i] = 1000.0f - i;
  }
  launch(kernel,
         {ArgSlot::buffer(x.data(), n * 4), ArgSlot::buffer(y.data(), n * 4), ArgSlot::buffer(out.data(), n * 4),
          ArgSlot::scalar<int32_t>(n)},
         {(n + 511) / 512, 1, 1});
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[i], x[i] + y[i]) << "at " << i;
}


const char* kRowSum = R"msl(#include <metal_stdlib>
using namespace metal;

// One threadgroup per row: 4 floats per thread per step, simd_sum within each
// SIMD group, partial sums through threadgroup memory, one barrier, and SIMD
// group 0 combines the partials.
kernel void row_sum(device const float* x [[buffer(0)]],
                    device float* out [[buffer(1)]],
                    constant int& n_cols [[buffer(2)]],
                    uint3 pid [[threadgroup_position_in_grid]],
                    uint tid [[thread_index_in_threadgroup]],
                    uint lane [[thread_index_in_simdgroup]],
                    uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup float partials[8];
  device const float* row = x + pid.x * n_cols;
  float acc = 0.0f;
  for (int c = int(tid) * 4; c < n_cols; c += 256 * 4) {
    float4 v = *(device const float4*)(row + c);
    acc += v.x + v.y + v.z + v.w;
  }
  acc = simd_sum(acc);
  if (lane == 0) partials[sg] = acc;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (sg == 0) {
    float p = lane < 8 ? partials[lane] : 0.0f;
    p = simd_sum(p);
    if (lane == 0) out[pid.x] = p;
  }
}
)msl";

TEST(EmulatorKernels, RowSumWithSimdSumThreadgroupMemoryAndBarrier) {
  auto md = metalKernel("row_sum", 256,
                        {pointerParam("x", "f32", 0), pointerParam("out", "f32", 1), scalarParam("n_cols", "i32", 2)});
  EmulatorKernel kernel = compile(kRowSum, md, testOptions());
  const int rows = 37, cols = 2048;
  std::vector<float> x(rows * cols), out(rows, -1.0f);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) x[r * cols + c] = float((r * 7 + c) % 13);  // small integers: exact in any order
  launch(kernel, {ArgSlot::buffer(x.data(), x.size() * 4), ArgSlot::buffer(out.data(), out.size() * 4),
                  ArgSlot::scalar<int32_t>(cols)},
         {rows, 1, 1});
  for (int r = 0; r < rows; ++r) {
    float expected = 0;
    for (int c = 0; c < cols; ++c) expected += x[r * cols + c];
    EXPECT_EQ(out[r], expected) << "row " << r;
  }
}

const char* kButterflyArgmax = R"msl(#include <metal_stdlib>
using namespace metal;

// Argmax over each SIMD group by a shuffle-xor butterfly on (value, index)
// pairs, the way multi-operand reductions are lowered. Every lane ends with
// the group's answer; each lane writes it so that the test can check them all.
kernel void butterfly_argmax(device const int* x [[buffer(0)]],
                             device int* best_value [[buffer(1)]],
                             device int* best_index [[buffer(2)]],
                             uint3 pid [[threadgroup_position_in_grid]],
                             uint tid [[thread_index_in_threadgroup]],
                             uint lane [[thread_index_in_simdgroup]],
                             uint sg [[simdgroup_index_in_threadgroup]]) {
  uint gid = pid.x * 64u + tid;
  int v = x[gid];
  int idx = int(gid);
  for (ushort offset = 16; offset > 0; offset >>= 1) {
    int other_v = simd_shuffle_xor(v, offset);
    int other_idx = simd_shuffle_xor(idx, offset);
    bool take = other_v > v || (other_v == v && other_idx < idx);
    v = take ? other_v : v;
    idx = take ? other_idx : idx;
  }
  best_value[gid] = v;
  best_index[gid] = idx;
}
)msl";

TEST(EmulatorKernels, ShuffleXorButterflyArgmax) {
  auto md = metalKernel("butterfly_argmax", 64,
                        {pointerParam("x", "i32", 0), pointerParam("best_value", "i32", 1),
                         pointerParam("best_index", "i32", 2)});
  EmulatorKernel kernel = compile(kButterflyArgmax, md, testOptions());
  const int threadgroups = 5, n = threadgroups * 64;
  std::vector<int32_t> x(n), value(n, -1), index(n, -1);
  for (int i = 0; i < n; ++i) x[i] = (i * 37 + 11) % 101;  // ties: the lowest index must win
  launch(kernel, {ArgSlot::buffer(x.data(), n * 4), ArgSlot::buffer(value.data(), n * 4),
                  ArgSlot::buffer(index.data(), n * 4)},
         {threadgroups, 1, 1});
  for (int group = 0; group < n / 32; ++group) {
    int bestValue = -1, bestIndex = -1;
    for (int i = group * 32; i < group * 32 + 32; ++i)
      if (x[i] > bestValue) bestValue = x[i], bestIndex = i;
    for (int i = group * 32; i < group * 32 + 32; ++i) {
      ASSERT_EQ(value[i], bestValue) << "thread " << i;
      ASSERT_EQ(index[i], bestIndex) << "thread " << i;
    }
  }
}

const char* kBlockScan = R"msl(#include <metal_stdlib>
using namespace metal;

// Inclusive and exclusive prefix sums over a threadgroup of 256: scan within
// each SIMD group, SIMD-group totals through threadgroup memory. The same
// scan by a simd_shuffle_up ladder goes to a third output.
kernel void block_scan(device const uint* x [[buffer(0)]],
                       device uint* inclusive [[buffer(1)]],
                       device uint* exclusive [[buffer(2)]],
                       device uint* ladder [[buffer(3)]],
                       uint3 pid [[threadgroup_position_in_grid]],
                       uint tid [[thread_index_in_threadgroup]],
                       uint lane [[thread_index_in_simdgroup]],
                       uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup uint totals[8];
  uint gid = pid.x * 256u + tid;
  uint v = x[gid];
  uint incl = simd_prefix_inclusive_sum(v);
  uint excl = simd_prefix_exclusive_sum(v);
  uint s = v;
  for (ushort d = 1; d < 32; d <<= 1) {
    uint below = simd_shuffle_up(s, d);
    if (lane >= d) s += below;
  }
  if (lane == 31) totals[sg] = incl;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  uint offset = 0;
  for (uint g = 0; g < sg; ++g) offset += totals[g];
  inclusive[gid] = offset + incl;
  exclusive[gid] = offset + excl;
  ladder[gid] = offset + s;
}
)msl";

TEST(EmulatorKernels, PrefixSumsOverAThreadgroup) {
  auto md = metalKernel("block_scan", 256,
                        {pointerParam("x", "i32", 0), pointerParam("inclusive", "i32", 1),
                         pointerParam("exclusive", "i32", 2), pointerParam("ladder", "i32", 3)});
  EmulatorKernel kernel = compile(kBlockScan, md, testOptions());
  const int threadgroups = 3, n = threadgroups * 256;
  std::vector<uint32_t> x(n), inclusive(n), exclusive(n), ladder(n);
  for (int i = 0; i < n; ++i) x[i] = uint32_t(i % 17 + 1);
  launch(kernel, {ArgSlot::buffer(x.data(), n * 4), ArgSlot::buffer(inclusive.data(), n * 4),
                  ArgSlot::buffer(exclusive.data(), n * 4), ArgSlot::buffer(ladder.data(), n * 4)},
         {threadgroups, 1, 1});
  for (int g = 0; g < threadgroups; ++g) {
    uint32_t running = 0;
    for (int i = g * 256; i < g * 256 + 256; ++i) {
      ASSERT_EQ(exclusive[i], running) << "at " << i;
      running += x[i];
      ASSERT_EQ(inclusive[i], running) << "at " << i;
      ASSERT_EQ(ladder[i], running) << "at " << i;
    }
  }
}

const char* kAtomics = R"msl(#include <metal_stdlib>
using namespace metal;

// Every thread of every threadgroup bumps device-wide counters; each
// threadgroup also counts its own threads with a threadgroup atomic.
kernel void count_threads(device atomic_uint* counter [[buffer(0)]],
                          device atomic_float* float_sum [[buffer(1)]],
                          device atomic_int* maximum [[buffer(2)]],
                          device atomic_uint* cas_counter [[buffer(3)]],
                          device const int* x [[buffer(4)]],
                          device uint* per_group [[buffer(5)]],
                          uint3 pid [[threadgroup_position_in_grid]],
                          uint tid [[thread_index_in_threadgroup]],
                          uint lane [[thread_index_in_simdgroup]],
                          uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup atomic_uint local_count;
  if (tid == 0) atomic_store_explicit(&local_count, 0u, memory_order_relaxed);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  uint gid = pid.x * 128u + tid;
  atomic_fetch_add_explicit(counter, 1u, memory_order_relaxed);
  atomic_fetch_add_explicit(float_sum, 1.0f, memory_order_relaxed);
  atomic_fetch_max_explicit(maximum, x[gid], memory_order_relaxed);
  uint expected = atomic_load_explicit(cas_counter, memory_order_relaxed);
  while (!atomic_compare_exchange_weak_explicit(cas_counter, &expected, expected + 2u, memory_order_relaxed,
                                                memory_order_relaxed)) {
  }
  atomic_fetch_add_explicit(&local_count, 1u, memory_order_relaxed);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  if (tid == 0) per_group[pid.x] = atomic_load_explicit(&local_count, memory_order_relaxed);
}
)msl";

TEST(EmulatorKernels, AtomicsFromManyThreadgroupsGiveExactCounts) {
  auto md = metalKernel("count_threads", 128,
                        {pointerParam("counter", "i32", 0), pointerParam("float_sum", "f32", 1),
                         pointerParam("maximum", "i32", 2), pointerParam("cas_counter", "i32", 3),
                         pointerParam("x", "i32", 4), pointerParam("per_group", "i32", 5)});
  EmulatorOptions options = testOptions();
  options.workerThreads = 4;  // more workers than cores: threadgroups really interleave
  EmulatorKernel kernel = compile(kAtomics, md, options);
  const int threadgroups = 300, n = threadgroups * 128;
  uint32_t counter = 0, casCounter = 0;
  float floatSum = 0.0f;
  int32_t maximum = -1;
  std::vector<int32_t> x(n);
  for (int i = 0; i < n; ++i) x[i] = (i * 7919) % 100003;
  std::vector<uint32_t> perGroup(threadgroups, 0);
  launch(kernel,
         {ArgSlot::buffer(&counter, 4), ArgSlot::buffer(&floatSum, 4), ArgSlot::buffer(&maximum, 4),
          ArgSlot::buffer(&casCounter, 4), ArgSlot::buffer(x.data(), n * 4),
          ArgSlot::buffer(perGroup.data(), threadgroups * 4)},
         {threadgroups, 1, 1});
  EXPECT_EQ(counter, uint32_t(n));
  EXPECT_EQ(floatSum, float(n));  // below 2^24: every partial sum is exact
  EXPECT_EQ(casCounter, uint32_t(2 * n));
  int32_t expectedMaximum = -1;
  for (int v : x) expectedMaximum = std::max(expectedMaximum, v);
  EXPECT_EQ(maximum, expectedMaximum);
  for (int g = 0; g < threadgroups; ++g) ASSERT_EQ(perGroup[g], 128u) << "threadgroup " << g;
}

const char* kSixteenBitFloats = R"msl(#include <metal_stdlib>
using namespace metal;

kernel void to_sixteen_bits(device const float* x [[buffer(0)]],
                            device ushort* half_bits [[buffer(1)]],
                            device ushort* bfloat_bits [[buffer(2)]],
                            device half* half_sum [[buffer(3)]],
                            device bfloat* bfloat_sum [[buffer(4)]],
                            uint3 pid [[threadgroup_position_in_grid]],
                            uint tid [[thread_index_in_threadgroup]],
                            uint lane [[thread_index_in_simdgroup]],
                            uint sg [[simdgroup_index_in_threadgroup]]) {
  half h = half(x[tid]);
  bfloat b = bfloat(x[tid]);
  half_bits[tid] = as_type<ushort>(h);
  bfloat_bits[tid] = as_type<ushort>(b);
  // 16-bit arithmetic rounds each result: 2048 + 1 is 2048 in half, 256 + 1 is 256 in bfloat.
  half_sum[tid] = h + 1.0h;
  bfloat_sum[tid] = b + bfloat(1.0f);
}
)msl";

TEST(EmulatorKernels, HalfAndBfloatRoundToNearestEven) {
  auto md = metalKernel("to_sixteen_bits", 32,
                        {pointerParam("x", "f32", 0), pointerParam("half_bits", "i16", 1),
                         pointerParam("bfloat_bits", "i16", 2), pointerParam("half_sum", "f16", 3),
                         pointerParam("bfloat_sum", "bf16", 4)});
  EmulatorKernel kernel = compile(kSixteenBitFloats, md, testOptions());
  struct Case {
    float input;
    uint16_t half;
    uint16_t bfloat;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<Case> cases = {
      {1.0f, 0x3c00, 0x3f80},
      {2049.0f, 0x6800, 0x4500},          // half: tie between 2048 and 2050 goes to even 2048
      {2051.0f, 0x6802, 0x4500},          // half: tie between 2050 and 2052 goes to even 2052
      {65519.0f, 0x7bff, 0x4780},         // just below half's rounding threshold
      {65520.0f, 0x7c00, 0x4780},         // half's max + half an ulp: ties to even = infinity
      {1.00390625f, 0x3c04, 0x3f80},      // 1 + 2^-8: exact in half, a tie in bfloat -> 1.0
      {1.01171875f, 0x3c0c, 0x3f82},      // 1 + 3*2^-8: bfloat tie goes up to the even 1 + 2^-6
      {0x1p-24f, 0x0001, 0x3380},         // half's smallest subnormal
      {0x1p-25f, 0x0000, 0x3300},         // a tie between 0 and 2^-24: to even, 0
      {0x1.8p-25f, 0x0001, 0x3340},       // 0.75 * 2^-24 rounds up
      {-0.0f, 0x8000, 0x8000},
      {1e-10f, 0x0000, 0x2edc},
      {3.14159265f, 0x4248, 0x4049},
      {nan, 0x7e00, 0x7fc0},
  };
  std::vector<float> x(32, 0.0f);
  for (size_t i = 0; i < cases.size(); ++i) x[i] = cases[i].input;
  x[30] = 2048.0f;
  x[31] = 256.0f;
  std::vector<uint16_t> halfBits(32), bfloatBits(32), halfSum(32), bfloatSum(32);
  launch(kernel, {ArgSlot::buffer(x.data(), 128), ArgSlot::buffer(halfBits.data(), 64),
                  ArgSlot::buffer(bfloatBits.data(), 64), ArgSlot::buffer(halfSum.data(), 64),
                  ArgSlot::buffer(bfloatSum.data(), 64)},
         {1, 1, 1});
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(halfBits[i], cases[i].half) << "half(" << cases[i].input << ")";
    EXPECT_EQ(bfloatBits[i], cases[i].bfloat) << "bfloat(" << cases[i].input << ")";
  }
  EXPECT_EQ(halfSum[30], 0x6800);    // 2048 + 1 in half = 2048
  EXPECT_EQ(bfloatSum[31], 0x4380);  // 256 + 1 in bfloat = 256
  EXPECT_EQ(halfSum[0], 0x4000);     // 1 + 1 = 2
}

const char* kSwizzles = R"msl(#include <metal_stdlib>
using namespace metal;

kernel void swizzles(device const float* x [[buffer(0)]],
                     device float* out [[buffer(1)]],
                     device int* ints [[buffer(2)]],
                     uint3 pid [[threadgroup_position_in_grid]],
                     uint tid [[thread_index_in_threadgroup]],
                     uint lane [[thread_index_in_simdgroup]],
                     uint sg [[simdgroup_index_in_threadgroup]]) {
  float4 v = *(device const float4*)(x + 4 * tid);
  float4 reversed = v.wzyx;
  float2 pairs = v.xy + v.zw;
  float4 colours = float4(v.rg, v.ba) * 2.0f;
  float3 first3 = v.xyz;
  reversed.x += 100.0f;  // single-component writes
  reversed.w = pairs.y;
  colours.yz = float2(-1.0f, -2.0f);  // a two-component write
  *(device float4*)(out + 12 * tid) = reversed;
  *(device float4*)(out + 12 * tid + 4) = float4(pairs, first3.z, colours.a);
  *(device float4*)(out + 12 * tid + 8) = colours;
  int4 iv = int4(v);
  int2 swapped = iv.yx;
  bool4 big = v > 2.0f;
  ints[4 * tid] = swapped.x - swapped.y;
  ints[4 * tid + 1] = int(all(big)) * 10 + int(any(big));
  ints[4 * tid + 2] = int(select(float4(0.0f), v, big).w);
  ints[4 * tid + 3] = int(dot(v.xy, v.zw));
}
)msl";

TEST(EmulatorKernels, SwizzleReadsAndComponentWrites) {
  auto md = metalKernel("swizzles", 2,
                        {pointerParam("x", "f32", 0), pointerParam("out", "f32", 1), pointerParam("ints", "i32", 2)});
  EmulatorKernel kernel = compile(kSwizzles, md, testOptions());
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8}, out(24, 0.0f);
  std::vector<int32_t> ints(8, 0);
  launch(kernel, {ArgSlot::buffer(x.data(), 32), ArgSlot::buffer(out.data(), 96), ArgSlot::buffer(ints.data(), 32)},
         {1, 1, 1});
  const std::vector<float> expected = {
      104, 3, 2, 6,  4, 6, 3, 8,  2, -1, -2, 8,       // thread 0: v = (1, 2, 3, 4)
      108, 7, 6, 14, 12, 14, 7, 16, 10, -1, -2, 16};  // thread 1: v = (5, 6, 7, 8)
  EXPECT_EQ(out, expected);
  EXPECT_EQ(ints, (std::vector<int32_t>{1, 1, 4, 11, 1, 11, 8, 83}));
}

const char* kEverySimdFunction = R"msl(#include <metal_stdlib>
using namespace metal;

// One output row of 24 words per thread, one word per SIMD-group function.
kernel void simd_functions(device uint* out [[buffer(0)]],
                           uint3 pid [[threadgroup_position_in_grid]],
                           uint tid [[thread_index_in_threadgroup]],
                           uint lane [[thread_index_in_simdgroup]],
                           uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup uint neighbours[64];
  device uint* row = out + tid * 24;
  uint v = lane + 1;
  uint p = lane % 3 == 0 ? 2u : 1u;
  row[0] = simd_sum(v);
  row[1] = simd_product(p);
  row[2] = simd_min(v * (sg + 1));
  row[3] = simd_max(v);
  row[4] = simd_and(v | 0x100u);
  row[5] = simd_or(v);
  row[6] = simd_xor(v);
  row[7] = simd_prefix_inclusive_product(p);
  row[8] = simd_prefix_exclusive_product(p);
  row[9] = simd_shuffle(v, ushort(31 - lane));
  row[10] = simd_shuffle_down(v, 4);
  row[11] = simd_shuffle_rotate_down(v, 4);
  row[12] = simd_shuffle_rotate_up(v, 1);
  row[13] = simd_broadcast(v, 7);
  row[14] = simd_broadcast_first(v + sg);
  row[15] = uint(ulong(simd_ballot(lane % 2 == 0)));
  row[16] = simd_all(v > 0) ? 1u : 0u;
  row[17] = simd_any(v > 31) ? 1u : 0u;
  row[18] = simd_all(v > 1) ? 1u : 0u;
  row[19] = simd_is_first() ? 1u : 0u;
  neighbours[tid] = tid;
  simdgroup_barrier(mem_flags::mem_threadgroup);
  row[20] = neighbours[sg * 32 + (lane + 1) % 32];
  row[21] = uint(simd_sum(float2(float(v), 2.0f * float(v))).y);
  row[22] = uint(float(simd_max(half(float(v)))));
  row[23] = simd_shuffle_up(v, 3);
}
)msl";

TEST(EmulatorKernels, EverySimdGroupFunction) {
  auto md = metalKernel("simd_functions", 64, {pointerParam("out", "i32", 0)});
  EmulatorKernel kernel = compile(kEverySimdFunction, md, testOptions());
  std::vector<uint32_t> out(64 * 24, 0xdeadbeef);
  launch(kernel, {ArgSlot::buffer(out.data(), out.size() * 4)}, {1, 1, 1});
  uint32_t xorAll = 0;
  for (uint32_t v = 1; v <= 32; ++v) xorAll ^= v;
  for (uint32_t tid = 0; tid < 64; ++tid) {
    const uint32_t lane = tid % 32, sg = tid / 32, v = lane + 1;
    uint32_t inclusive = 1;
    for (uint32_t l = 0; l <= lane; ++l) inclusive *= (l % 3 == 0) ? 2 : 1;
    const uint32_t exclusive = inclusive / ((lane % 3 == 0) ? 2 : 1);
    const std::vector<uint32_t> expected = {
        528,                       // sum of 1..32
        2048,                      // 2^11: lanes 0, 3, ..., 30 contribute 2
        sg + 1,                    // min of v * (sg + 1)
        32,                        // max
        0x100,                     // and
        63,                        // or of 1..32
        xorAll,                    // xor
        inclusive,                 // prefix products
        exclusive,
        32 - lane,                 // shuffle from lane 31 - lane
        lane + 4 < 32 ? v + 4 : v,  // shuffle_down: the top 4 lanes keep their value
        (lane + 4) % 32 + 1,       // rotate_down wraps
        (lane + 31) % 32 + 1,      // rotate_up wraps
        8,                         // broadcast lane 7
        1 + sg,                    // broadcast_first
        0x55555555,                // ballot of even lanes
        1, 1, 0,                   // all, any, all
        lane == 0 ? 1u : 0u,       // is_first
        sg * 32 + (lane + 1) % 32,  // written by the neighbour before simdgroup_barrier
        1056,                      // .y of a float2 sum
        32,                        // half max
        lane >= 3 ? v - 3 : v,     // shuffle_up: the bottom 3 lanes keep their value
    };
    for (uint32_t j = 0; j < expected.size(); ++j)
      ASSERT_EQ(out[tid * 24 + j], expected[j]) << "thread " << tid << ", function " << j;
  }
}

const char* kBuiltins = R"msl(#include <metal_stdlib>
using namespace metal;

kernel void builtins(device uint* out [[buffer(0)]],
                     uint3 pid [[threadgroup_position_in_grid]],
                     uint3 groups [[threadgroups_per_grid]],
                     uint3 gpos [[thread_position_in_grid]],
                     uint3 gsize [[threads_per_grid]],
                     uint3 tgsize [[threads_per_threadgroup]],
                     uint2 tpos [[thread_position_in_threadgroup]],
                     uint pid_x [[threadgroup_position_in_grid]],
                     ushort simdgroups [[simdgroups_per_threadgroup]],
                     uint width [[thread_execution_width]]) {
  uint linear = (pid.z * groups.y + pid.y) * groups.x + pid.x;
  device uint* row = out + (linear * tgsize.x + tpos.x) * 8;
  row[0] = linear;
  row[1] = gpos.x + gsize.x * (gpos.y + gsize.y * gpos.z);
  row[2] = gsize.x * gsize.y * gsize.z;
  row[3] = tgsize.x * 100 + tgsize.y * 10 + tgsize.z;
  row[4] = tpos.y;
  row[5] = pid_x;
  row[6] = simdgroups;
  row[7] = width;
}
)msl";

const char* kSimdgroupMatrices = R"msl(#include <metal_stdlib>
using namespace metal;

// Two SIMD groups, each one 8x8 tile of C = A * B + C0 with K = 16: A (8x16
// half, row-major) loaded as two tiles, B (16x8) staged transposed and loaded
// with transpose_matrix, C0 through matrix_origin; group 1 starts from zeros.
kernel void tiles(device const half* a [[buffer(0)]],
                  device const half* b_transposed [[buffer(1)]],
                  device const float* c0 [[buffer(2)]],
                  device float* out [[buffer(3)]],
                  uint3 pid [[threadgroup_position_in_grid]],
                  uint tid [[thread_index_in_threadgroup]],
                  uint lane [[thread_index_in_simdgroup]],
                  uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup half tg_a[128];
  threadgroup half tg_bt[128];
  threadgroup float tg_c[128];  // [8][16]: group g's tile at columns 8g..
  for (uint i = tid; i < 128; i += 64) {
    tg_a[i] = a[i];
    tg_bt[i] = b_transposed[i];
    tg_c[i] = c0[i];
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  simdgroup_float8x8 acc = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
  if (sg == 0) simdgroup_load(acc, tg_c, 16, ulong2(0, 0));
  for (int k = 0; k < 16; k += 8) {
    simdgroup_half8x8 ta, tb;
    simdgroup_load(ta, tg_a, 16, ulong2(k, 0));
    simdgroup_load(tb, tg_bt + k, 16, ulong2(0, 0), true);
    simdgroup_multiply_accumulate(acc, ta, tb, acc);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  simdgroup_store(acc, tg_c, 16, ulong2(sg * 8, 0));
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint i = tid; i < 128; i += 64) out[i] = tg_c[i];
}
)msl";

TEST(EmulatorKernels, SimdgroupMatrixLoadsMultipliesAndStores) {
  auto md = metalKernel("tiles", 64,
                        {pointerParam("a", "f16", 0), pointerParam("b_transposed", "f16", 1),
                         pointerParam("c0", "f32", 2), pointerParam("out", "f32", 3)});
  EmulatorKernel kernel = compile(kSimdgroupMatrices, md, testOptions());
  std::vector<uint16_t> a(128), bt(128);  // half bits of small integers (exact)
  std::vector<float> av(128), btv(128), c0(128), out(128, -1.0f);
  for (int i = 0; i < 128; ++i) {
    av[i] = float(i % 7 - 3);
    btv[i] = float(i % 5 - 2);
    c0[i] = float(i % 11);
    a[i] = uint16_t(tmetal::ir::floatToBits(av[i], tmetal::ir::ScalarKind::F16));
    bt[i] = uint16_t(tmetal::ir::floatToBits(btv[i], tmetal::ir::ScalarKind::F16));
  }
  launch(kernel, {ArgSlot::buffer(a.data(), 256), ArgSlot::buffer(bt.data(), 256), ArgSlot::buffer(c0.data(), 512),
                  ArgSlot::buffer(out.data(), 512)},
         {1, 1, 1});
  for (int r = 0; r < 8; ++r)
    for (int g = 0; g < 2; ++g)
      for (int c = 0; c < 8; ++c) {
        float expected = g == 0 ? c0[r * 16 + c] : 0.0f;  // B[k][c] is b_transposed[c * 16 + k]
        for (int k = 0; k < 16; ++k) expected += av[r * 16 + k] * btv[c * 16 + k];
        EXPECT_EQ(out[r * 16 + g * 8 + c], expected) << "row " << r << ", group " << g << ", column " << c;
      }
}

// Each lane's thread_elements() of a loaded tile, and a tile written
// through thread_elements() then stored: lane l holds row
// (l & 16) / 4 + (l & 7) / 2, columns (l & 8) / 2 + (l & 1) * 2 and the next.
const char* kThreadElements = R"msl(#include <metal_stdlib>
using namespace metal;

kernel void elements(device const float* in [[buffer(0)]],
                     device float* held [[buffer(1)]],
                     device float* written [[buffer(2)]],
                     uint3 pid [[threadgroup_position_in_grid]],
                     uint tid [[thread_index_in_threadgroup]],
                     uint lane [[thread_index_in_simdgroup]],
                     uint sg [[simdgroup_index_in_threadgroup]]) {
  threadgroup float tg[64];
  for (uint i = lane; i < 64; i += 32) tg[i] = in[i];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  simdgroup_float8x8 m;
  simdgroup_load(m, tg, 8);
  held[2 * lane] = m.thread_elements()[0];
  held[2 * lane + 1] = m.thread_elements()[1];
  m.thread_elements() = float2(float(lane), float(lane) + 0.5f);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  simdgroup_store(m, tg, 8);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (uint i = lane; i < 64; i += 32) written[i] = tg[i];
}
)msl";

TEST(EmulatorKernels, ThreadElementsHoldTwoElementsOfARowPerLane) {
  auto md = metalKernel("elements", 32,
                        {pointerParam("in", "f32", 0), pointerParam("held", "f32", 1),
                         pointerParam("written", "f32", 2)});
  EmulatorKernel kernel = compile(kThreadElements, md, testOptions());
  std::vector<float> in(64), held(64, -1.0f), written(64, -1.0f);
  for (int i = 0; i < 64; ++i) in[i] = float(i);
  launch(kernel, {ArgSlot::buffer(in.data(), 256), ArgSlot::buffer(held.data(), 256),
                  ArgSlot::buffer(written.data(), 256)},
         {1, 1, 1});
  for (int lane = 0; lane < 32; ++lane) {
    const int row = (lane & 16) / 4 + (lane & 7) / 2, column = (lane & 8) / 2 + (lane & 1) * 2;
    for (int e = 0; e < 2; ++e) {
      EXPECT_EQ(held[2 * lane + e], float(row * 8 + column + e)) << "lane " << lane << ", element " << e;
      EXPECT_EQ(written[row * 8 + column + e], float(lane) + 0.5f * e) << "lane " << lane << ", element " << e;
    }
  }
}

TEST(EmulatorKernels, ThreeDimensionalGridAndEveryBuiltin) {
  auto md = metalKernel("builtins", 40, {pointerParam("out", "i32", 0)},
                        {{"threadgroup_position_in_grid", "uint3"},
                         {"threadgroups_per_grid", "uint3"},
                         {"thread_position_in_grid", "uint3"},
                         {"threads_per_grid", "uint3"},
                         {"threads_per_threadgroup", "uint3"},
                         {"thread_position_in_threadgroup", "uint2"},
                         {"threadgroup_position_in_grid", "uint"},
                         {"simdgroups_per_threadgroup", "ushort"},
                         {"thread_execution_width", "uint"}});
  EmulatorKernel kernel = compile(kBuiltins, md, testOptions());
  const uint32_t gx = 3, gy = 2, gz = 4, threads = 40, total = gx * gy * gz * threads;
  std::vector<uint32_t> out(total * 8, 0xffffffff);
  launch(kernel, {ArgSlot::buffer(out.data(), out.size() * 4)}, {gx, gy, gz});
  for (uint32_t z = 0; z < gz; ++z)
    for (uint32_t y = 0; y < gy; ++y)
      for (uint32_t x = 0; x < gx; ++x)
        for (uint32_t t = 0; t < threads; ++t) {
          const uint32_t linear = (z * gy + y) * gx + x;
          const uint32_t* row = &out[(linear * threads + t) * 8];
          const uint32_t gridX = x * threads + t;
          ASSERT_EQ(row[0], linear);
          ASSERT_EQ(row[1], gridX + gx * threads * (y + gy * z)) << "thread_position_in_grid";
          ASSERT_EQ(row[2], total);
          ASSERT_EQ(row[3], 4011u);  // 40 x 1 x 1
          ASSERT_EQ(row[4], 0u);
          ASSERT_EQ(row[5], x);
          ASSERT_EQ(row[6], 2u);  // 40 threads: a full SIMD group and a partial one
          ASSERT_EQ(row[7], 32u);
        }
}

}  // namespace
