// Sanitize mode: the launch runs in a forked child process. Each buffer is
// copied into a GuardedBuffer (shared with the child), so an out-of-bounds
// access faults on a guard page; the child's signal handler names the buffer,
// the byte offset, and the emulated thread, then exits. The parent waits
// (optionally with a timeout), copies the buffers back on success, and turns
// any failure into an EmulatorError - the calling process never crashes.
//
// Reports:
//   sanitizer: out-of-bounds write to buffer 'out' (4096 bytes) at byte offset 4096
//     by thread 0 of threadgroup (8,0,0)
//   sanitizer: stack overflow by thread 3 of threadgroup (0,0,0) ...
//   sanitizer: kernel crashed with SIGFPE (integer division by zero or overflow) by thread ...
//   sanitizer: kernel did not finish within 5 s ...
#pragma once

#include <string>
#include <vector>

#include "tmetal/runtime/emulator/emulator.h"
#include "tmetal/runtime/emulator/threadgroup_scheduler.h"

namespace tmetal::runtime::emulator {

// `launch.args` is ignored; `argPointers` holds the kernel's argument slots,
// in which entry i is replaced by the guarded copy of args[i] for buffers.
// `bufferNames[i]` labels buffer i in reports. Buffers whose host memory
// overlaps share one guarded copy, reported as buffer 'x_ptr/out_ptr'.
void runGridSanitized(const GridLaunch& launch, std::vector<void*> argPointers, const std::vector<ArgSlot>& args,
                      const std::vector<std::string>& bufferNames, unsigned timeoutSeconds);

}  // namespace tmetal::runtime::emulator
