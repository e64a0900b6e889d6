#include "tmetal/runtime/emulator/guarded_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tmetal/runtime/emulator/emulator.h"

namespace tmetal::runtime::emulator {
namespace {
constexpr unsigned char kCanary = 0xA5;
}

GuardedBuffer::GuardedBuffer(const void* source, size_t bytes, std::string name) : bytes_(bytes), name_(std::move(name)) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t padded = (bytes + 15) / 16 * 16;
  const size_t dataPages = (padded + page - 1) / page * page;
  regionBytes_ = page + dataPages + page;
  void* memory = mmap(nullptr, regionBytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED)
    throw EmulatorError("emulator: cannot map " + std::to_string(regionBytes_) + " bytes for buffer '" + name_ +
                        "': " + std::strerror(errno));
  region_ = static_cast<char*>(memory);
  padStart_ = region_ + page;
  padEnd_ = padStart_ + dataPages;
  data_ = padEnd_ - padded;
  std::memset(padStart_, kCanary, dataPages);
  if (bytes > 0) std::memcpy(data_, source, bytes);
  if (mprotect(region_, page, PROT_NONE) != 0 || mprotect(padEnd_, page, PROT_NONE) != 0) {
    const int error = errno;
    munmap(region_, regionBytes_);
    throw EmulatorError("emulator: cannot protect the guard pages of buffer '" + name_ + "': " + std::strerror(error));
  }
}

GuardedBuffer::~GuardedBuffer() {
  if (region_ != nullptr) munmap(region_, regionBytes_);
}

void GuardedBuffer::copyTo(void* destination) const {
  if (bytes_ > 0) std::memcpy(destination, data_, bytes_);
}

bool GuardedBuffer::contains(const void* address) const {
  const char* a = static_cast<const char*>(address);
  return a >= region_ && a < region_ + regionBytes_;
}

long long GuardedBuffer::offsetOf(const void* address) const {
  return static_cast<long long>(static_cast<const char*>(address) - data_);
}

std::string GuardedBuffer::paddingViolation() const {
  const unsigned char* before = reinterpret_cast<const unsigned char*>(padStart_);
  const unsigned char* start = reinterpret_cast<const unsigned char*>(data_);
  const unsigned char* after = start + bytes_;
  const unsigned char* end = reinterpret_cast<const unsigned char*>(padEnd_);
  // The run of overwritten bytes nearest to the buffer, as offsets [first, last].
  long long first = 0, last = 0;
  bool found = false;
  for (const unsigned char* p = after; p < end && !found; ++p) {
    if (*p == kCanary) continue;
    found = true;
    const unsigned char* q = p;
    while (q + 1 < end && q[1] != kCanary) ++q;
    first = p - start;
    last = q - start;
  }
  for (const unsigned char* p = start - 1; p >= before && !found; --p) {
    if (*p == kCanary) continue;
    found = true;
    const unsigned char* q = p;
    while (q - 1 >= before && q[-1] != kCanary) --q;
    first = q - start;
    last = p - start;
  }
  if (!found) return "";
  const std::string where = first == last ? "at byte offset " + std::to_string(first)
                                          : "at byte offsets " + std::to_string(first) + " to " + std::to_string(last);
  return "out-of-bounds write to buffer '" + name_ + "' (" + std::to_string(bytes_) + " bytes) " + where +
         ", found after the launch in the buffer's padding (the writing thread is unknown)";
}

}  // namespace tmetal::runtime::emulator
