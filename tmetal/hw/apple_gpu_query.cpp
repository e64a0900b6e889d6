#include "tmetal/hw/apple_gpu_query.h"

#ifdef __APPLE__
#include <CoreFoundation/CoreFoundation.h>
#include <IOKit/IOKitLib.h>
#include <sys/sysctl.h>

#include <vector>
#endif

namespace tmetal::hw {

#ifdef __APPLE__

namespace {

std::optional<std::string> sysctlString(const char* name) {
  size_t size = 0;
  if (sysctlbyname(name, nullptr, &size, nullptr, 0) != 0 || size == 0) return std::nullopt;
  std::vector<char> buffer(size);
  if (sysctlbyname(name, buffer.data(), &size, nullptr, 0) != 0) return std::nullopt;
  return std::string(buffer.data());
}

// The GPU driver's registry entry (class AGXAccelerator on Apple silicon)
// carries the "gpu-core-count" property. 0 when absent.
int registryGpuCoreCount() {
  CFMutableDictionaryRef matching = IOServiceMatching("AGXAccelerator");
  if (!matching) return 0;
  io_iterator_t iterator = 0;
  // MACH_PORT_NULL selects the default main port (kIOMainPortDefault, which
  // older SDKs call kIOMasterPortDefault). The call consumes `matching`.
  if (IOServiceGetMatchingServices(MACH_PORT_NULL, matching, &iterator) != KERN_SUCCESS) return 0;
  int cores = 0;
  while (cores == 0) {
    io_object_t entry = IOIteratorNext(iterator);
    if (entry == 0) break;
    CFTypeRef property = IORegistryEntryCreateCFProperty(entry, CFSTR("gpu-core-count"), kCFAllocatorDefault, 0);
    if (property) {
      if (CFGetTypeID(property) == CFNumberGetTypeID())
        CFNumberGetValue(static_cast<CFNumberRef>(property), kCFNumberIntType, &cores);
      CFRelease(property);
    }
    IOObjectRelease(entry);
  }
  IOObjectRelease(iterator);
  return cores;
}

}  // namespace

std::optional<AppleGpuInfo> queryAppleGpu() {
  std::optional<std::string> brand = sysctlString("machdep.cpu.brand_string");
  if (!brand) return std::nullopt;
  return AppleGpuInfo{*brand, registryGpuCoreCount()};
}

#else

std::optional<AppleGpuInfo> queryAppleGpu() { return std::nullopt; }

#endif

}  // namespace tmetal::hw
