// Runs every threadgroup of a grid: worker OS threads take threadgroups from
// a shared counter (x fastest, then y, then z), each running one threadgroup
// at a time on its own ThreadgroupScheduler. After a failure no new
// threadgroups start; the error of the lowest-numbered failing threadgroup
// is thrown once every worker has stopped.
#pragma once

#include <functional>

#include "tmetal/runtime/emulator/threadgroup_scheduler.h"

namespace tmetal::runtime::emulator {

// Workers for a launch: launch.workerThreads (0: the hardware threads),
// at most one per threadgroup, and at most 16384 / threadsPerThreadgroup,
// which keeps the fiber stacks' guard pages within the kernel's default
// limit on memory mappings (vm.max_map_count, 65530).
unsigned gridWorkerCount(const GridLaunch& launch);

// `onWorkerStart` runs first on every worker thread (sanitize mode installs
// its signal stack there). Throws EmulatorError.
void runGrid(const GridLaunch& launch, const std::function<void()>& onWorkerStart = {});

}  // namespace tmetal::runtime::emulator
