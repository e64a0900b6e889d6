// Hand-written MSL in the style the emitter produces, run on the emulator and
// checked against values computed here.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "emulator_test_support.h"

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

}  // namespace
