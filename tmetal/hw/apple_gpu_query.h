// Asks macOS which Apple-silicon chip this is and how many GPU cores it has.
#pragma once

#include <optional>
#include <string>

namespace tmetal::hw {

struct AppleGpuInfo {
  std::string brandString;  // machdep.cpu.brand_string, e.g. "Apple M3 Max"
  int gpuCores = 0;         // from the IO registry; 0 when it gave none
};

// On macOS: the brand string (sysctl) and the GPU core count (IO registry).
// nullopt on other systems or when the brand string cannot be read.
//
// Unverified: no machine this project builds on runs macOS; the macOS branch
// is written to Apple's documented sysctlbyname and IOKit registry API and is
// compiled only on __APPLE__.
std::optional<AppleGpuInfo> queryAppleGpu();

}  // namespace tmetal::hw
