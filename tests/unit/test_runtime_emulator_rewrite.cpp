// The MSL-to-C++ rewrite (msl_source_rewrite.h): which `threadgroup` tokens
// declare threadgroup memory and which only qualify a pointer type, and half
// literals. Lines must stay where they were.
#include <gtest/gtest.h>

#include <algorithm>

#include "tmetal/runtime/emulator/msl_source_rewrite.h"

using tmetal::runtime::emulator::rewriteMslForShim;

namespace {

TEST(EmulatorRewrite, ThreadgroupVariablesBecomeStorage) {
  EXPECT_EQ(rewriteMslForShim("threadgroup float buf[256];"), "TMETAL_THREADGROUP_STORAGE float buf[256];");
  EXPECT_EQ(rewriteMslForShim("  threadgroup uint total;"), "  TMETAL_THREADGROUP_STORAGE uint total;");
  EXPECT_EQ(rewriteMslForShim("threadgroup atomic<uint> n;"), "TMETAL_THREADGROUP_STORAGE atomic<uint> n;");
  EXPECT_EQ(rewriteMslForShim("threadgroup metal::atomic_int counter;"),
            "TMETAL_THREADGROUP_STORAGE metal::atomic_int counter;");
  EXPECT_EQ(rewriteMslForShim("threadgroup float4 a[8], b[8];"), "TMETAL_THREADGROUP_STORAGE float4 a[8], b[8];");
  EXPECT_EQ(rewriteMslForShim("threadgroup float tile[32][33];"), "TMETAL_THREADGROUP_STORAGE float tile[32][33];");
}

TEST(EmulatorRewrite, ThreadgroupInPointerTypesIsOnlyAnAddressSpace) {
  EXPECT_EQ(rewriteMslForShim("threadgroup float* p = buf + 4;"), "TMETAL_THREADGROUP_ADDRESS_SPACE float* p = buf + 4;");
  EXPECT_EQ(rewriteMslForShim("threadgroup const float4 &r = v[0];"),
            "TMETAL_THREADGROUP_ADDRESS_SPACE const float4 &r = v[0];");
  EXPECT_EQ(rewriteMslForShim("((threadgroup float*)smem)[i] = 0;"),
            "((TMETAL_THREADGROUP_ADDRESS_SPACE float*)smem)[i] = 0;");
  EXPECT_EQ(rewriteMslForShim("void f(threadgroup float* a, threadgroup float b[4]) {}"),
            "void f(TMETAL_THREADGROUP_ADDRESS_SPACE float* a, TMETAL_THREADGROUP_ADDRESS_SPACE float b[4]) {}");
  EXPECT_EQ(rewriteMslForShim("threadgroup atomic<int>* c;"), "TMETAL_THREADGROUP_ADDRESS_SPACE atomic<int>* c;");
}

TEST(EmulatorRewrite, LeavesCommentsStringsAndOtherIdentifiersAlone) {
  const std::string untouched =
      "threadgroup_barrier(mem_flags::mem_threadgroup);\n"
      "// threadgroup float x[2];\n"
      "/* threadgroup float y[2]; */\n"
      "const char* s = \"threadgroup float z[2];\";\n"
      "int my_threadgroup = 1; float f = 1.0f; uint u = 0x10u; float e = 1e-3f;\n";
  EXPECT_EQ(rewriteMslForShim(untouched), untouched);
}

TEST(EmulatorRewrite, HalfLiterals) {
  EXPECT_EQ(rewriteMslForShim("half a = 1.5h + 2h - .5H * 1e3h;"),
            "half a = half(1.5f) + half(2) - half(.5f) * half(1e3f);");
}

TEST(EmulatorRewrite, KeepsEveryLineInPlace) {
  const std::string msl =
      "kernel void k(device float* x [[buffer(0)]]) {\n"
      "  threadgroup float a[4];\n"
      "  threadgroup float* p = a;\n"
      "  /* multi\n   line */ half h = 0.5h;\n"
      "}\n";
  const std::string out = rewriteMslForShim(msl);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), std::count(msl.begin(), msl.end(), '\n'));
  EXPECT_EQ(out,
            "kernel void k(device float* x [[buffer(0)]]) {\n"
            "  TMETAL_THREADGROUP_STORAGE float a[4];\n"
            "  TMETAL_THREADGROUP_ADDRESS_SPACE float* p = a;\n"
            "  /* multi\n   line */ half h = half(0.5f);\n"
            "}\n");
}

}  // namespace
