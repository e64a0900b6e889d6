// Which hardware profile a command plans for, and why: an explicit choice
// (--hardware, then TMETAL_HARDWARE), else the detected Apple GPU on macOS,
// else the named generic Apple profile.
#pragma once

#include <optional>
#include <string>

#include "tmetal/hw/apple_gpu_query.h"
#include "tmetal/hw/hardware_profile.h"

namespace tmetal::hw {

struct HardwareSelection {
  HardwareProfile profile;
  std::string origin;  // one sentence saying how the profile was chosen
};

struct HardwareRequest {
  std::string cliOverride;  // --hardware; empty when not given
  std::string envOverride;  // TMETAL_HARDWARE; empty when unset
  bool onMac = false;       // built for macOS
  std::optional<AppleGpuInfo> detected;  // what queryAppleGpu() found
};

// The profile for a chip macOS reported, or nullopt when the table has no row
// for its brand string. Binned parts (fewer cores) take the row with the
// fewest cores at or above theirs, with the core count replaced.
std::optional<HardwareProfile> matchAppleGpu(const AppleGpuInfo& gpu);

// Pure decision; throws CompileError for an unknown override name.
HardwareSelection resolveHardware(const HardwareRequest& request);

// Reads TMETAL_HARDWARE and queries the machine, then resolveHardware().
HardwareSelection selectHardware(const std::string& cliOverride);

}  // namespace tmetal::hw
