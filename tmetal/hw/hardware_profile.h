// Hardware profiles: the figures of a GPU that the planner derives its
// decisions from (cores, DRAM bandwidth, caches, threadgroup limits). They are
// data, not code paths; docs/hardware.md cites where every figure comes from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tmetal::hw {

enum class GpuVendor { Apple, Nvidia };

const char* gpuVendorName(GpuVendor v);  // "Apple", "NVIDIA"

struct HardwareProfile {
  std::string id;         // the --hardware name: "m3-max", "h100"
  std::string name;       // "Apple M3 Max (40-core GPU)"
  GpuVendor vendor = GpuVendor::Apple;
  std::string gpuFamily;  // "Apple9" (Metal GPU family), "Hopper sm_90"
  // What macOS reports as machdep.cpu.brand_string for this chip ("Apple M3
  // Max"); empty for non-Apple parts. Detection matches on it.
  std::string brandString;

  int gpuCores = 0;                    // Apple GPU cores; NVIDIA streaming multiprocessors
  double dramBandwidthGBs = 0;         // peak DRAM bandwidth, GB/s (10^9 bytes)
  int64_t lastLevelCacheBytes = 0;     // Apple system level cache; NVIDIA L2
  int simdWidth = 32;                  // threads per SIMD group / warp
  int maxThreadsPerThreadgroup = 1024;
  int threadgroupMemoryBytes = 32768;  // usable without opt-in
  // Threads one core keeps resident at best occupancy; the planner sizes a
  // full wave of threadgroups from it.
  int maxResidentThreadsPerCore = 0;
  std::string mslVersion;  // highest Metal Shading Language version; empty for NVIDIA
  bool bfloat = false;     // a bfloat16 type the kernels can use
  bool fp64 = false;       // double precision in kernels

  // Figures that no source confirmed (e.g. "slc"); printed with a marker.
  std::vector<std::string> unverified;
  bool generic = false;  // the named generic fallback, not a real part

  bool isUnverified(const std::string& figure) const;
};

// Every profile, in table order (Apple families oldest first, then NVIDIA).
const std::vector<HardwareProfile>& hardwareTable();

// Looks a profile up by id. Accepts any case and spaces or underscores for the
// dashes ("M3 Max", "m3_max"). nullopt when unknown.
std::optional<HardwareProfile> findHardwareProfile(const std::string& name);

// The ids, comma-separated, for error messages.
std::string knownHardwareIds();

// The id of the profile used on machines that are not Apple-silicon Macs.
inline constexpr const char* kGenericAppleProfileId = "apple-generic";

}  // namespace tmetal::hw
