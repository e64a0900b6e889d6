// The binary interface between the emulator's host runtime and a compiled
// kernel shared object (MSL source + msl_shim.h + generated trampoline).
//
// The kernel object never links against the host: the host passes it a table
// of hooks once after dlopen (tmetal_emulator_bind), and each emulated thread
// enters through tmetal_emulator_thread_entry with its builtin values. The
// hooks block the calling fiber, so barriers and SIMD-group collectives are
// decided by the host scheduler, which sees every thread of the threadgroup.
//
// This header is embedded into the runtime library and written beside the shim
// at compile time, so it must stay self-contained, C++20, and free of standard
// headers that declare C library functions in the global namespace.
#pragma once

#include <cstdint>

// Bumped whenever a struct or signature below changes; part of the cache key.
#define TMETAL_EMULATOR_ABI_VERSION 1

namespace tmetal_emu_abi {

// Values of the MSL builtin attributes for one thread. Threadgroups are 1-D
// (kernel_abi.h: threads_per_threadgroup), so the y and z thread positions are 0.
struct ThreadBuiltins {
  uint32_t threadgroup_position_in_grid[3];
  uint32_t threadgroups_per_grid[3];
  uint32_t thread_position_in_threadgroup[3];
  uint32_t thread_position_in_grid[3];
  uint32_t threads_per_threadgroup[3];
  uint32_t threads_per_grid[3];
  uint32_t thread_index_in_threadgroup;
  uint32_t thread_index_in_simdgroup;
  uint32_t simdgroup_index_in_threadgroup;
  uint32_t simdgroups_per_threadgroup;
  uint32_t threads_per_simdgroup;
};

// Largest value a SIMD-group collective exchanges per lane (a long4 is 32 bytes;
// the deposit adds the lane's integer operand, e.g. the shuffle source lane).
constexpr uint32_t kMaxCollectiveDepositBytes = 64;
constexpr uint32_t kMaxCollectiveResultBytes = 32;
constexpr uint32_t kCollectiveErrorBytes = 256;

// Computes every lane's result once all lanes of a SIMD group have deposited.
// `deposits` holds `lanes` records of the call's depositBytes, `results` takes
// `lanes` records of resultBytes; `width` is the SIMD width (lanes < width only
// in a partial last group). Returns 0, or non-zero after writing a message to
// `error` (e.g. a shuffle reading a lane that does not exist).
using CollectiveCombine = int (*)(const void* deposits, void* results, uint32_t lanes, uint32_t width,
                                  char* error);

struct CollectiveCall {
  const char* op;  // the MSL function name, e.g. "simd_sum"
  int line;        // line of the call in the MSL source
  int site;        // unique id of the call site (__COUNTER__), to tell apart two calls on one line
  const void* deposit;
  uint32_t depositBytes;
  void* result;
  uint32_t resultBytes;
  CollectiveCombine combine;
};

struct Hooks {
  uint32_t abiVersion;
  // threadgroup_barrier: returns once every thread of the threadgroup reached this barrier.
  void (*threadgroupBarrier)(int line, int site);
  // SIMD-group collectives (simd_sum, simd_shuffle, simdgroup_barrier, ...): deposits the
  // lane's value, waits for the other lanes, and stores this lane's result.
  void (*collective)(const CollectiveCall* call);
};

}  // namespace tmetal_emu_abi

// Entry points of a kernel shared object (C linkage, default visibility):
//   int  tmetal_emulator_bind(const tmetal_emu_abi::Hooks*);   returns TMETAL_EMULATOR_ABI_VERSION
//   void tmetal_emulator_thread_entry(void* const* args, const tmetal_emu_abi::ThreadBuiltins*);
// args[i] points at kernel argument i: the first byte of a buffer, or a scalar's bytes.
#define TMETAL_EMULATOR_BIND_SYMBOL "tmetal_emulator_bind"
#define TMETAL_EMULATOR_ENTRY_SYMBOL "tmetal_emulator_thread_entry"
