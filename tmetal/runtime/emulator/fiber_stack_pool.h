// Stacks for the fibers of one worker thread: one mapping, one stack per
// thread of a threadgroup, each above a guard page, so that a kernel that
// overflows its stack faults (and sanitize mode reports it) instead of
// writing over its neighbour. Reused for every threadgroup the worker runs.
#pragma once

#include <cstddef>

namespace tmetal::runtime::emulator {

class FiberStackPool {
 public:
  // Throws EmulatorError when the memory cannot be mapped.
  FiberStackPool(size_t stacks, size_t stackBytes);
  ~FiberStackPool();
  FiberStackPool(const FiberStackPool&) = delete;
  FiberStackPool& operator=(const FiberStackPool&) = delete;

  // The highest address of stack i (stacks grow down), and the usable size.
  void* top(size_t i) const;
  size_t stackBytes() const { return stackBytes_; }
  // Whether `address` lies in one of the guard pages. Async-signal-safe.
  bool isGuardPage(const void* address) const;

 private:
  char* base_ = nullptr;
  size_t mappedBytes_ = 0;
  size_t guardBytes_ = 0;
  size_t stackBytes_ = 0;
  size_t stacks_ = 0;
};

}  // namespace tmetal::runtime::emulator
