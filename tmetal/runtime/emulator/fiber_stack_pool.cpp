#include "tmetal/runtime/emulator/fiber_stack_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "tmetal/runtime/emulator/emulator.h"

namespace tmetal::runtime::emulator {

FiberStackPool::FiberStackPool(size_t stacks, size_t stackBytes) : stacks_(stacks) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  guardBytes_ = page;
  stackBytes_ = (stackBytes + page - 1) / page * page;
  mappedBytes_ = stacks_ * (guardBytes_ + stackBytes_);
  // MAP_NORESERVE: only the pages a kernel touches are ever backed.
  void* memory = mmap(nullptr, mappedBytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED)
    throw EmulatorError("emulator: cannot map " + std::to_string(mappedBytes_) + " bytes of fiber stacks: " +
                        std::strerror(errno));
  base_ = static_cast<char*>(memory);
  for (size_t i = 0; i < stacks_; ++i) {
    if (mprotect(base_ + i * (guardBytes_ + stackBytes_), guardBytes_, PROT_NONE) != 0) {
      const int error = errno;
      munmap(base_, mappedBytes_);
      throw EmulatorError(std::string("emulator: cannot protect a fiber stack guard page: ") + std::strerror(error));
    }
  }
}

FiberStackPool::~FiberStackPool() {
  if (base_ != nullptr) munmap(base_, mappedBytes_);
}

void* FiberStackPool::top(size_t i) const { return base_ + (i + 1) * (guardBytes_ + stackBytes_); }

bool FiberStackPool::isGuardPage(const void* address) const {
  const char* a = static_cast<const char*>(address);
  if (a < base_ || a >= base_ + mappedBytes_) return false;
  return static_cast<size_t>(a - base_) % (guardBytes_ + stackBytes_) < guardBytes_;
}

}  // namespace tmetal::runtime::emulator
