// The debug buffer as the host reads it (codegen/debug_buffer.h): print
// records become Triton's lines, in the order the threads wrote them, and a
// recorded assertion failure becomes DeviceAssertionError. The buffers here
// are written by hand as a kernel would leave them.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <vector>

#include "tmetal/codegen/debug_buffer.h"

using namespace tmetal::codegen;

namespace {

KernelMetadata printingKernel() {
  KernelMetadata m;
  m.kernelName = "k";
  KernelPrint values{" x: ", false, {{"f16", true, false, true, 16, {4}}}};
  KernelPrint pair{": ", true, {{"i16", false, false, true, 16, {2, 8}}, {"i32", false, false, false, 32, {}}}};
  KernelPrint none{" no arg", false, {}};
  KernelPrint pointer{" p: ", false, {{"!tt.ptr<f32>", false, true, true, 64, {}}}};
  KernelPrint unsignedValue{" u: ", false, {{"i32", false, false, false, 32, {}}}};
  m.prints = {values, pair, none, pointer, unsignedValue};
  m.assertions = {{"x must stay small", "kernel.py", 12, 5, {2, 8}}};
  return m;
}

void put(std::vector<int32_t>& words, int slot, PrintRecord r) {
  std::memcpy(words.data() + kDebugHeaderWords + slot * kPrintRecordWords, &r, sizeof r);
  words[kPrintCountWord] = std::max(words[kPrintCountWord], slot + 1);
}

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

}  // namespace

TEST(DebugBuffer, PrintRecordsReadAsTritonsLines) {
  KernelMetadata m = printingKernel();
  std::vector<int32_t> words(debugBufferWords(m));
  prepareDebugBuffer(m, words.data());
  EXPECT_EQ(words[kPrintCapacityWord], kPrintCapacity);
  put(words, 0, {0, 0, {1, 0, 0}, 3, bitsOf(-2.5f), 0});
  put(words, 1, {1, 0, {0, 0, 0}, 13, 0xfffffffeu, 0xffffffffu});  // -2 as i16 (the print is hex)
  put(words, 2, {1, 1, {0, 0, 0}, -1, 0xfffffffeu, 0xffffffffu});  // the same print's unsigned scalar
  put(words, 3, {2, -1, {0, 2, 0}, -1, 0, 0});
  put(words, 4, {3, 0, {0, 0, 0}, -1, 0x1000u, 0x7fu});
  put(words, 5, {4, 0, {0, 0, 0}, -1, 0xfffffffeu, 0xffffffffu});
  std::ostringstream out;
  reportDebugBuffer(m, words.data(), words.size(), out);
  EXPECT_EQ(out.str(),
            "pid (1, 0, 0) idx (3) x: -2.500000\n"
            "pid (0, 0, 0) idx (1, 5): (operand 0) 0xfffe\n"
            "pid (0, 0, 0) idx (): (operand 1) 0xfffffffe\n"
            "pid (0, 2, 0) no arg\n"
            "pid (0, 0, 0) idx () p: 0x7f00001000\n"
            "pid (0, 0, 0) idx () u: 4294967294\n");
}

TEST(DebugBuffer, LinesPastTheCapacityAreCountedAndDropped) {
  KernelMetadata m = printingKernel();
  std::vector<int32_t> words(debugBufferWords(m));
  prepareDebugBuffer(m, words.data());
  words[kPrintCapacityWord] = 1;  // as a kernel sees a buffer of one record
  put(words, 0, {2, -1, {0, 0, 0}, -1, 0, 0});
  words[kPrintCountWord] = 3;
  std::ostringstream out;
  reportDebugBuffer(m, words.data(), words.size(), out);
  EXPECT_EQ(out.str(),
            "pid (0, 0, 0) no arg\n"
            "tmetal: kernel 'k' printed 3 lines; the last 2 were dropped (the debug buffer holds 1)\n");
}

TEST(DebugBuffer, AFailedAssertionIsAnErrorAtTheUsersLine) {
  KernelMetadata m = printingKernel();
  std::vector<int32_t> words(debugBufferWords(m));
  prepareDebugBuffer(m, words.data());
  AssertionState state{1, {3, 1, 0}, 17, 9, {0, 0}};
  std::memcpy(words.data(), &state, sizeof state);
  std::ostringstream out;
  try {
    reportDebugBuffer(m, words.data(), words.size(), out);
    FAIL() << "no DeviceAssertionError";
  } catch (const DeviceAssertionError& e) {
    EXPECT_EQ(std::string(e.what()),
              "kernel.py:12:5: error: device-side assertion failed: x must stay small (program (3, 1, 0), thread 17, "
              "element [1, 1])");
    EXPECT_EQ(e.assertion().message, "x must stay small");
  }
  // A buffer naming an assertion the kernel does not have is not trusted.
  words[0] = 5;
  EXPECT_THROW(reportDebugBuffer(m, words.data(), words.size(), out), std::runtime_error);
  EXPECT_THROW(reportDebugBuffer(m, words.data(), 4, out), std::runtime_error);  // too small
}
