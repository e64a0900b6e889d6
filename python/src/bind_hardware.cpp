// Hardware profiles: which Apple GPU the plugin plans for (the Triton target's
// arch), and the table behind `python -m triton_metal.check`.
#include <nanobind/stl/string.h>

#include "python/src/binding.h"

#ifdef TMETAL_BINDING_HAS_HW
#include "tmetal/hw/hardware_selection.h"
#endif

namespace tmetal::python {

namespace {

#ifdef TMETAL_BINDING_HAS_HW
nb::dict profileDict(const hw::HardwareProfile& p) {
  nb::dict d;
  d["id"] = p.id;
  d["name"] = p.name;
  d["vendor"] = std::string(hw::gpuVendorName(p.vendor));
  d["gpu_family"] = p.gpuFamily;
  d["gpu_cores"] = p.gpuCores;
  d["dram_bandwidth_gbs"] = p.dramBandwidthGBs;
  d["last_level_cache_bytes"] = p.lastLevelCacheBytes;
  d["simd_width"] = p.simdWidth;
  d["max_threads_per_threadgroup"] = p.maxThreadsPerThreadgroup;
  d["threadgroup_memory_bytes"] = p.threadgroupMemoryBytes;
  d["max_resident_threads_per_core"] = p.maxResidentThreadsPerCore;
  d["msl_version"] = p.mslVersion;
  d["bfloat"] = p.bfloat;
  d["fp64"] = p.fp64;
  d["generic"] = p.generic;
  nb::list unverified;
  for (const auto& figure : p.unverified) unverified.append(figure);
  d["unverified"] = unverified;
  return d;
}
#endif

}  // namespace

void bindHardware(nb::module_& m) {
  m.def(
      "select_hardware",
      [](const std::string& name) -> nb::dict {
#ifdef TMETAL_BINDING_HAS_HW
        hw::HardwareSelection selection = hw::selectHardware(name);
        nb::dict d = profileDict(selection.profile);
        d["origin"] = selection.origin;
        return d;
#else
        raiseUnavailable("hardware profiles (tmetal/hw)");
#endif
      },
      nb::arg("name") = "",
      "The hardware profile to plan for: `name` when given, else $TMETAL_HARDWARE, else the detected Apple GPU, "
      "else the generic Apple profile. A dict of its figures plus 'origin' (how it was chosen). Raises "
      "triton_metal.CompileError for an unknown name.");
  m.def(
      "hardware_profiles",
      []() -> nb::list {
#ifdef TMETAL_BINDING_HAS_HW
        nb::list out;
        for (const auto& p : hw::hardwareTable()) out.append(profileDict(p));
        return out;
#else
        raiseUnavailable("hardware profiles (tmetal/hw)");
#endif
      },
      "Every hardware profile tmetal knows, in table order.");
}

}  // namespace tmetal::python
