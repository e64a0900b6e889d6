#include "tmetal/runtime/emulator/grid_runner.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <mutex>
#include <thread>
#include <vector>

#include "tmetal/runtime/emulator/emulator.h"

namespace tmetal::runtime::emulator {

unsigned gridWorkerCount(const GridLaunch& launch) {
  const uint64_t threadgroups = uint64_t(launch.grid[0]) * launch.grid[1] * launch.grid[2];
  uint64_t workers = launch.workerThreads != 0 ? launch.workerThreads : std::max(1u, std::thread::hardware_concurrency());
  workers = std::min<uint64_t>(workers, threadgroups);
  workers = std::min<uint64_t>(workers, std::max<uint64_t>(1, 16384 / std::max(1u, launch.threadsPerThreadgroup)));
  return static_cast<unsigned>(std::max<uint64_t>(1, workers));
}

void runGrid(const GridLaunch& launch, const std::function<void()>& onWorkerStart) {
  const uint64_t threadgroups = uint64_t(launch.grid[0]) * launch.grid[1] * launch.grid[2];
  if (threadgroups == 0) return;
  std::atomic<uint64_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex errorMutex;
  uint64_t errorThreadgroup = std::numeric_limits<uint64_t>::max();
  std::string error;
  auto record = [&](uint64_t linear, const std::string& message) {
    std::lock_guard<std::mutex> lock(errorMutex);
    if (linear < errorThreadgroup) {
      errorThreadgroup = linear;
      error = message;
    }
    stop = true;
  };

  auto work = [&]() {
    uint64_t linear = 0;
    try {
      if (onWorkerStart) onWorkerStart();
      ThreadgroupScheduler scheduler(launch);
      while (!stop && (linear = next.fetch_add(1)) < threadgroups) {
        const uint32_t x = static_cast<uint32_t>(linear % launch.grid[0]);
        const uint32_t y = static_cast<uint32_t>((linear / launch.grid[0]) % launch.grid[1]);
        const uint32_t z = static_cast<uint32_t>(linear / (uint64_t(launch.grid[0]) * launch.grid[1]));
        scheduler.run({x, y, z});
      }
    } catch (const std::exception& e) {
      record(linear, e.what());
    }
  };

  const unsigned workers = gridWorkerCount(launch);
  std::vector<std::thread> pool;
  try {
    for (unsigned w = 0; w < workers; ++w) pool.emplace_back(work);
  } catch (const std::system_error& e) {
    record(0, std::string("emulator: cannot start a worker thread: ") + e.what());
  }
  for (auto& t : pool) t.join();
  if (stop) throw EmulatorError(error);
}

}  // namespace tmetal::runtime::emulator
