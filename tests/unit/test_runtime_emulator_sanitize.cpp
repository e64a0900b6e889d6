// Sanitize mode: the kernel runs in a child process with guarded buffers, so
// out-of-bounds accesses, crashes and endless loops come back as errors that
// name the buffer and the thread, and the test process survives them.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "emulator_test_support.h"

using namespace tmetal::runtime::emulator;
using namespace tmetal::runtime::emulator::testing;

namespace {

EmulatorOptions sanitizeOptions() {
  EmulatorOptions options = testOptions();
  options.sanitize = true;
  return options;
}

template <class F>
std::string emulatorErrorOf(F body) {
  try {
    body();
  } catch (const EmulatorError& e) {
    return e.what();
  }
  return "";
}

const char* kUnmaskedCopy = R"msl(#include <metal_stdlib>
using namespace metal;
// One mistake (or none) per mode, chosen by the launch.
kernel void unmasked_copy(device const float* x_ptr [[buffer(0)]], device float* out_ptr [[buffer(1)]],
                          constant int& n [[buffer(2)]], constant int& mode [[buffer(3)]],
                          uint3 pid [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                          uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  int gid = int(pid.x * 128u + tid);
  if (mode == 0) out_ptr[gid] = float(gid);           // stores past the end
  if (mode == 1 && gid < n) out_ptr[gid] = x_ptr[gid + 1];  // the last thread reads one past the end
  if (mode == 2 && gid < n) out_ptr[gid - 1] = 1.0f;  // thread 0 stores before the start
  if (mode == 3 && gid < n) out_ptr[gid] = float(100 / (gid - 77));  // thread 77 divides by zero
  if (mode == 4 && gid < n) out_ptr[gid] = x_ptr[gid] * 2.0f;  // correct
  if (mode == 6 && tid < 64) threadgroup_barrier(mem_flags::mem_device);  // divergent
  if (mode == 5 && gid < n) {  // sees whether x_ptr and out_ptr are the same memory
    out_ptr[gid] = 7.0f;
    out_ptr[gid] = x_ptr[gid] + 1.0f;
  }
}
)msl";

struct Copy {
  EmulatorKernel kernel;
  std::vector<float> x, out;
  Copy()
      : kernel(compile(kUnmaskedCopy,
                       metalKernel("unmasked_copy", 128,
                                   {pointerParam("x_ptr", "f32", 0), pointerParam("out_ptr", "f32", 1),
                                    scalarParam("n", "i32", 2), scalarParam("mode", "i32", 3)}),
                       sanitizeOptions())),
        x(1000, 1.5f),
        out(1000, 0.0f) {}
  void run(int mode) {
    launch(kernel,
           {ArgSlot::buffer(x.data(), 4000), ArgSlot::buffer(out.data(), 4000), ArgSlot::scalar<int32_t>(1000),
            ArgSlot::scalar<int32_t>(mode)},
           {8, 1, 1});
  }
};

TEST(EmulatorSanitize, OutOfBoundsStoreNamesBufferOffsetAndThread) {
  Copy copy;
  EXPECT_EQ(emulatorErrorOf([&] { copy.run(0); }),
            "sanitizer: out-of-bounds write to buffer 'out_ptr' (4000 bytes) at byte offset 4000 by thread 104 of "
            "threadgroup (7,0,0)");
}

TEST(EmulatorSanitize, OutOfBoundsLoad) {
  Copy copy;
  EXPECT_EQ(emulatorErrorOf([&] { copy.run(1); }),
            "sanitizer: out-of-bounds read of buffer 'x_ptr' (4000 bytes) at byte offset 4000 by thread 103 of "
            "threadgroup (7,0,0)");
}

TEST(EmulatorSanitize, StoreBeforeTheBufferIsFoundInItsPadding) {
  Copy copy;
  EXPECT_EQ(emulatorErrorOf([&] { copy.run(2); }),
            "sanitizer: out-of-bounds write to buffer 'out_ptr' (4000 bytes) at byte offsets -4 to -1, found after the launch "
            "in the buffer's padding (the writing thread is unknown)");
}

TEST(EmulatorSanitize, IntegerDivisionByZeroIsACrashReportNotACrash) {
  Copy copy;
  EXPECT_EQ(emulatorErrorOf([&] { copy.run(3); }),
            "sanitizer: kernel crashed with SIGFPE (integer division by zero or overflow) by thread 77 of threadgroup "
            "(0,0,0)");
}

TEST(EmulatorSanitize, CorrectKernelWritesItsResultsBack) {
  Copy copy;
  copy.run(4);
  for (float v : copy.out) ASSERT_EQ(v, 3.0f);
}

TEST(EmulatorSanitize, BufferNameFromTheArgumentSlot) {
  Copy copy;
  EXPECT_EQ(emulatorErrorOf([&] {
              launch(copy.kernel,
                     {ArgSlot::buffer(copy.x.data(), 4000), ArgSlot::buffer(copy.out.data(), 4000, "result"),
                      ArgSlot::scalar<int32_t>(1000), ArgSlot::scalar<int32_t>(0)},
                     {8, 1, 1});
            }),
            "sanitizer: out-of-bounds write to buffer 'result' (4000 bytes) at byte offset 4000 by thread 104 of "
            "threadgroup (7,0,0)");
}

TEST(EmulatorSanitize, AliasedBuffersStayAliased) {
  Copy copy;
  auto inPlace = [&](int mode) {
    launch(copy.kernel,
           {ArgSlot::buffer(copy.out.data(), 4000), ArgSlot::buffer(copy.out.data(), 4000),
            ArgSlot::scalar<int32_t>(1000), ArgSlot::scalar<int32_t>(mode)},
           {8, 1, 1});
  };
  inPlace(5);
  for (float v : copy.out) ASSERT_EQ(v, 8.0f);
  EXPECT_EQ(emulatorErrorOf([&] { inPlace(0); }),
            "sanitizer: out-of-bounds write to buffer 'x_ptr/out_ptr' (4000 bytes) at byte offset 4000 by thread 104 "
            "of threadgroup (7,0,0)");
}

TEST(EmulatorSanitize, DivergenceIsReportedAsWithoutSanitizing) {
  Copy copy;
  EXPECT_EQ(emulatorErrorOf([&] { copy.run(6); }),
            "threadgroup_barrier divergence in threadgroup (0,0,0): threads [0-63] reached the barrier at "
            "unmasked_copy.metal:14, threads [64-127] exited");
}

const char* kSpinForever = R"msl(#include <metal_stdlib>
using namespace metal;
// Waits for a flag nobody sets.
kernel void spin(device atomic_int* flag [[buffer(0)]],
                 uint3 pid [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                 uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  while (atomic_load_explicit(flag, memory_order_relaxed) == 0) {
  }
}
)msl";

TEST(EmulatorSanitize, EndlessLoopIsStoppedAfterTheTimeout) {
  EmulatorOptions options = sanitizeOptions();
  options.timeoutSeconds = 1;
  EmulatorKernel kernel = compile(kSpinForever, metalKernel("spin", 32, {pointerParam("flag", "i32", 0)}), options);
  int32_t flag = 0;
  EXPECT_EQ(emulatorErrorOf([&] { launch(kernel, {ArgSlot::buffer(&flag, 4)}, {1, 1, 1}); }),
            "sanitizer: kernel did not finish within 1 s and was stopped (an endless loop, or a spin-wait on another "
            "threadgroup?)");
}

const char* kDeepRecursion = R"msl(#include <metal_stdlib>
using namespace metal;
int depth(int n, thread int* sink) {
  int local[256];
  local[n % 256] = n;
  *sink += local[(n * 7) % 256];
  return n == 0 ? 0 : 1 + depth(n - 1, sink);
}
kernel void recurse(device int* out [[buffer(0)]],
                    uint3 pid [[threadgroup_position_in_grid]], uint tid [[thread_index_in_threadgroup]],
                    uint lane [[thread_index_in_simdgroup]], uint sg [[simdgroup_index_in_threadgroup]]) {
  int sink = 0;
  out[tid] = depth(out[tid], &sink) + sink;
}
)msl";

TEST(EmulatorSanitize, StackOverflowIsReported) {
  EmulatorOptions options = sanitizeOptions();
  options.fiberStackBytes = 64 * 1024;
  EmulatorKernel kernel = compile(kDeepRecursion, metalKernel("recurse", 32, {pointerParam("out", "i32", 0)}), options);
  std::vector<int32_t> depths(32, 100000);
  EXPECT_EQ(emulatorErrorOf([&] { launch(kernel, {ArgSlot::buffer(depths.data(), 128)}, {1, 1, 1}); }),
            "sanitizer: stack overflow (each emulated thread has 65536 bytes of stack; raise "
            "EmulatorOptions::fiberStackBytes) by thread 0 of threadgroup (0,0,0)");
}

}  // namespace
