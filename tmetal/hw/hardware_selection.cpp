#include "tmetal/hw/hardware_selection.h"

#include <cstdlib>

#include "tmetal/support/diagnostic.h"

namespace tmetal::hw {

namespace {

HardwareProfile profileOrThrow(const std::string& name, const std::string& from) {
  std::optional<HardwareProfile> p = findHardwareProfile(name);
  if (!p) throw CompileError("unknown hardware '" + name + "' (from " + from + "); known: " + knownHardwareIds());
  return *p;
}

HardwareProfile genericProfile() { return *findHardwareProfile(kGenericAppleProfileId); }

}  // namespace

std::optional<HardwareProfile> matchAppleGpu(const AppleGpuInfo& gpu) {
  const HardwareProfile* best = nullptr;
  const HardwareProfile* largest = nullptr;
  for (const HardwareProfile& p : hardwareTable()) {
    if (p.brandString.empty() || p.brandString != gpu.brandString) continue;
    if (!largest || p.gpuCores > largest->gpuCores) largest = &p;
    if (gpu.gpuCores > 0 && p.gpuCores >= gpu.gpuCores && (!best || p.gpuCores < best->gpuCores)) best = &p;
  }
  if (!largest) return std::nullopt;
  // Without a core count, the full configuration; above every row (a part
  // newer than the table), the largest row.
  HardwareProfile chosen = best ? *best : *largest;
  if (gpu.gpuCores > 0 && gpu.gpuCores != chosen.gpuCores) {
    chosen.gpuCores = gpu.gpuCores;
    chosen.name = gpu.brandString + " (" + std::to_string(gpu.gpuCores) + "-core GPU)";
  }
  return chosen;
}

HardwareSelection resolveHardware(const HardwareRequest& request) {
  if (!request.cliOverride.empty())
    return {profileOrThrow(request.cliOverride, "--hardware"), "selected with --hardware " + request.cliOverride};
  if (!request.envOverride.empty())
    return {profileOrThrow(request.envOverride, "TMETAL_HARDWARE"),
            "selected with TMETAL_HARDWARE=" + request.envOverride};

  HardwareProfile generic = genericProfile();
  if (!request.onMac)
    return {generic, std::string("not running on an Apple-silicon Mac; using the generic Apple profile ") +
                         kGenericAppleProfileId + " (choose another with --hardware or TMETAL_HARDWARE)"};
  if (!request.detected)
    return {generic, std::string("could not read the GPU from sysctl; using the generic Apple profile ") +
                         kGenericAppleProfileId};

  const AppleGpuInfo& gpu = *request.detected;
  const std::string cores = gpu.gpuCores > 0 ? std::to_string(gpu.gpuCores) + " GPU cores" : "GPU core count unknown";
  if (std::optional<HardwareProfile> p = matchAppleGpu(gpu))
    return {*p, "detected " + gpu.brandString + " (" + cores + ")"};

  // A chip newer than the table: plan with the generic figures, but with the
  // real core count, which sizes the grid.
  std::string origin = "unknown Apple GPU '" + gpu.brandString + "' (" + cores + "), using " + kGenericAppleProfileId;
  if (gpu.gpuCores > 0) {
    generic.gpuCores = gpu.gpuCores;
    origin += " with " + std::to_string(gpu.gpuCores) + " GPU cores";
  }
  return {generic, origin};
}

HardwareSelection selectHardware(const std::string& cliOverride) {
  HardwareRequest request;
  request.cliOverride = cliOverride;
  if (const char* env = std::getenv("TMETAL_HARDWARE")) request.envOverride = env;
#ifdef __APPLE__
  request.onMac = true;
  // Only query the machine when nothing was chosen explicitly.
  if (request.cliOverride.empty() && request.envOverride.empty()) request.detected = queryAppleGpu();
#endif
  return resolveHardware(request);
}

}  // namespace tmetal::hw
