// The debug buffer: how a kernel's tt.assert and tt.print ops report to the
// host. Metal has neither a device-side assert nor printf, so a kernel with
// either takes one more buffer after its arguments (kernel_abi.h) of int32
// words:
//
//   words 0-7    AssertionState: the first failed assertion
//   word  8      print records written (it may count past the capacity)
//   word  9      print records the buffer holds, set by the launcher
//   words 10-15  zero
//   then         `capacity` PrintRecords of 8 words
//
// Launchers (the emulator, the CUDA runtime, the plugin's Metal driver)
// allocate and prepare it with prepareDebugBuffer, launch, then hand it to
// reportDebugBuffer, which writes the printed lines and throws
// DeviceAssertionError for a failed assertion.
#pragma once

#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tmetal/codegen/kernel_abi.h"

namespace tmetal::codegen {

// The first thread whose assertion fails swaps `failed` from 0 to its
// assertion's number + 1 and then records where; other failures leave it be.
struct AssertionState {
  int32_t failed = 0;  // 0: none failed; else 1 + the index into `assertions`
  int32_t programId[3] = {0, 0, 0};
  int32_t thread = 0;    // thread index in the threadgroup
  int32_t element = -1;  // row-major index into the condition's tensor; -1 for a scalar condition
  int32_t reserved[2] = {0, 0};
};

// One printed element (or, for a print without operands, the line itself).
struct PrintRecord {
  int32_t print;    // index into `prints`
  int32_t operand;  // -1: the print has no operand
  int32_t programId[3];
  int32_t element;  // row-major index into the operand; -1 for a scalar
  uint32_t valueLow, valueHigh;  // 64 bits: an integer, extended; a float's f32 bits; an address
};

constexpr int kDebugHeaderWords = 16;
constexpr int kPrintRecordWords = 8;
constexpr int kPrintCountWord = 8;
constexpr int kPrintCapacityWord = 9;
// Lines a launch can print (8 MiB of records); more are counted and dropped.
constexpr int32_t kPrintCapacity = 1 << 18;
static_assert(sizeof(AssertionState) == 8 * sizeof(int32_t));
static_assert(sizeof(PrintRecord) == kPrintRecordWords * sizeof(int32_t));

// The buffer's size in words, and its contents before a launch (only the
// header matters: records are written before they are read).
size_t debugBufferWords(const KernelMetadata& m);
void prepareDebugBuffer(const KernelMetadata& m, int32_t* words);

// A kernel ran to its end but one of its device-side assertions failed
// (Metal cannot stop a kernel, so the threads ran on past the failure); the
// plugin raises it as triton_metal.DeviceAssertionError, a RuntimeError as
// Triton's is.
class DeviceAssertionError : public std::runtime_error {
 public:
  DeviceAssertionError(const std::string& message, KernelAssertion assertion)
      : std::runtime_error(message), assertion_(std::move(assertion)) {}
  const KernelAssertion& assertion() const { return assertion_; }

 private:
  KernelAssertion assertion_;
};

// After the launch: writes each print record as a line (print_format.h) to
// `printed`, in the order the threads wrote them, then a line saying how many
// were dropped if the buffer overflowed; then throws DeviceAssertionError
// when an assertion failed: "file:line:col: error: device-side assertion
// failed: <message> (program (x, y, z), thread t, element [i, j])".
void reportDebugBuffer(const KernelMetadata& m, const int32_t* words, size_t count, std::ostream& printed);

}  // namespace tmetal::codegen
