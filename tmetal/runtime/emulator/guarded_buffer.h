// A copy of a kernel buffer for sanitize mode, in memory shared with the
// child process that runs the kernel, fenced by inaccessible guard pages:
//
//   [guard page][canary ... | buffer bytes | canary to a 16-byte boundary][guard page]
//
// The buffer starts 16-byte aligned (MSL vector loads may assume it) and ends
// as close to the trailing guard page as that allows, so any access past its
// end faults at once unless the size is not a multiple of 16 - then the last
// few bytes of padding are checked by the canary after the launch, as is the
// padding before the buffer (stores only; loads there go unnoticed).
#pragma once

#include <cstddef>
#include <string>

namespace tmetal::runtime::emulator {

class GuardedBuffer {
 public:
  // Throws EmulatorError when the memory cannot be mapped.
  GuardedBuffer(const void* source, size_t bytes, std::string name);
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  const std::string& name() const { return name_; }
  void copyTo(void* destination) const;

  // Whether `address` lies in this buffer's mapping (guards included), and
  // its offset from the buffer's first byte. Async-signal-safe.
  bool contains(const void* address) const;
  long long offsetOf(const void* address) const;

  // After the launch: "" if the padding is intact, else a report of the
  // out-of-bounds store nearest to the buffer.
  std::string paddingViolation() const;

 private:
  char* region_ = nullptr;
  size_t regionBytes_ = 0;
  char* padStart_ = nullptr;  // first byte after the leading guard page
  char* padEnd_ = nullptr;    // the trailing guard page
  char* data_ = nullptr;
  size_t bytes_ = 0;
  std::string name_;
};

}  // namespace tmetal::runtime::emulator
