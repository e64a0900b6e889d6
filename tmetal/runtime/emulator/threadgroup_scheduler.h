// Runs the threads of one threadgroup as fibers on the calling OS thread.
//
// Fibers run round-robin in thread-index order, each until it blocks: at a
// threadgroup_barrier, or at a SIMD-group function (simd_sum, simd_shuffle,
// simdgroup_barrier, ...). A SIMD-group function completes as soon as every
// lane of the SIMD group arrived at the same call site: the last lane to
// arrive computes every lane's result and all continue. A barrier is released
// when nothing can run any more and every thread waits at the same barrier.
// When nothing can run and that is not the case, the kernel diverged (a
// deadlock on hardware, or silent corruption) and run() throws EmulatorError
// naming who waits where:
//
//   threadgroup_barrier divergence in threadgroup (x,y,z): threads [0-31] reached
//     the barrier at k.metal:14, threads [32-63] exited
//   simd_sum called by lanes [0-15] of SIMD group 1 in threadgroup (x,y,z) but not
//     by lanes [16-31] (k.metal:9; lanes [16-31] exited)
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tmetal/runtime/emulator/emulator_abi.h"
#include "tmetal/runtime/emulator/fiber_stack_pool.h"

namespace tmetal::runtime::emulator {

using ThreadEntry = void (*)(void* const* args, const tmetal_emu_abi::ThreadBuiltins* builtins);

// What every threadgroup of one launch shares.
struct GridLaunch {
  ThreadEntry entry = nullptr;
  void* const* args = nullptr;
  std::array<uint32_t, 3> grid{1, 1, 1};  // threadgroups per grid
  uint32_t threadsPerThreadgroup = 1;
  uint32_t simdWidth = 32;
  std::string sourceName;  // the MSL file name in reports, e.g. "add_kernel.metal"
  size_t fiberStackBytes = 256 * 1024;
  unsigned workerThreads = 0;
};

// The hooks a kernel object is bound to (tmetal_emulator_bind).
const tmetal_emu_abi::Hooks& emulatorHooks();

class ThreadgroupScheduler {
 public:
  explicit ThreadgroupScheduler(const GridLaunch& launch);
  ~ThreadgroupScheduler();
  ThreadgroupScheduler(const ThreadgroupScheduler&) = delete;
  ThreadgroupScheduler& operator=(const ThreadgroupScheduler&) = delete;

  // Runs every thread of the threadgroup at `position` to completion.
  void run(const std::array<uint32_t, 3>& position);

  // For crash reports (sanitize mode), async-signal-safe: the emulated thread
  // that runs on the calling OS thread, if any, and whether an address is in
  // one of its worker's stack guard pages.
  static bool currentThread(uint32_t position[3], uint32_t* threadIndex);
  static bool isStackGuardPage(const void* address);

  struct Thread;
  struct SimdGroupExchange;

  // Called by the hooks, on the fiber of the current thread.
  void arriveAtBarrier(int line, int site);
  void arriveAtCollective(const tmetal_emu_abi::CollectiveCall& call);

 private:
  void startThreads();
  void resolveQuiescence();
  std::string barrierDivergence() const;
  std::string collectiveDivergence(uint32_t thread) const;
  std::string where(int line) const;
  std::string positionText() const;
  void yieldToScheduler(Thread& thread);
  void fail(std::string message);
  void destroyFibers();

  GridLaunch launch_;
  uint32_t simdGroups_ = 0;
  FiberStackPool stacks_;
  std::vector<Thread> threads_;
  std::vector<SimdGroupExchange> exchanges_;
  std::array<uint32_t, 3> position_{};
  uint32_t current_ = 0;
  bool running_ = false;  // a fiber is running (current_ is meaningful)
  uint32_t readyCount_ = 0;
  uint32_t exitedCount_ = 0;
  bool failed_ = false;
  std::string failure_;
};

}  // namespace tmetal::runtime::emulator
