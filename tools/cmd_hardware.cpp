// `tmetal hardware`: the profile the planner would use here, and the table.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "tmetal/graph/byte_size_text.h"
#include "tmetal/hw/hardware_selection.h"
#include "tools/command.h"

namespace {

using tmetal::hw::HardwareProfile;

// A figure, with '*' when no source confirmed it (docs/hardware.md).
std::string marked(const HardwareProfile& p, const std::string& figure, const std::string& text) {
  return text + (p.isUnverified(figure) ? "*" : "");
}

std::string describe(const HardwareProfile& p) {
  return fmt::format(
      "{} {}, DRAM {} GB/s, last-level cache {}, SIMD width {}, {} threads and {} of threadgroup memory per "
      "threadgroup, {} resident threads per core, {}bfloat {}, fp64 {}",
      p.gpuCores, p.vendor == tmetal::hw::GpuVendor::Apple ? "GPU cores" : "SMs", p.dramBandwidthGBs,
      marked(p, "slc", tmetal::graph::formatBytes(p.lastLevelCacheBytes)), p.simdWidth, p.maxThreadsPerThreadgroup,
      tmetal::graph::formatBytes(p.threadgroupMemoryBytes),
      marked(p, "resident-threads", std::to_string(p.maxResidentThreadsPerCore)),
      p.mslVersion.empty() ? "" : "MSL " + marked(p, "msl", p.mslVersion) + ", ", p.bfloat ? "yes" : "no",
      p.fp64 ? "yes" : "no");
}

int runHardware(const std::string& override) {
  tmetal::hw::HardwareSelection selected = tmetal::hw::selectHardware(override);
  const HardwareProfile& s = selected.profile;
  std::cout << fmt::format("selected: {} - {}\n          {}\n          {}\n\n", s.id, s.name, selected.origin,
                           describe(s));
  std::cout << fmt::format("{:<14} {:<38} {:<13} {:>5} {:>7} {:>10} {:>8} {:>9} {:>4} {:>5} {:>4}\n", "id", "name",
                           "family", "cores", "GB/s", "LLC", "TG mem", "resident", "MSL", "bf16", "fp64");
  for (const HardwareProfile& p : tmetal::hw::hardwareTable())
    std::cout << fmt::format("{:<14} {:<38} {:<13} {:>5} {:>7} {:>10} {:>8} {:>9} {:>4} {:>5} {:>4}\n", p.id, p.name,
                             p.gpuFamily, p.gpuCores, p.dramBandwidthGBs,
                             marked(p, "slc", tmetal::graph::formatBytes(p.lastLevelCacheBytes)),
                             tmetal::graph::formatBytes(p.threadgroupMemoryBytes),
                             marked(p, "resident-threads", std::to_string(p.maxResidentThreadsPerCore)),
                             p.mslVersion.empty() ? "-" : marked(p, "msl", p.mslVersion), p.bfloat ? "yes" : "no",
                             p.fp64 ? "yes" : "no");
  std::cout << "\n* a figure no source confirmed; docs/hardware.md cites every other one\n";
  return 0;
}

}  // namespace

TMETAL_COMMAND(hardware, "hardware", [](CLI::App& app) -> std::function<int()> {
  auto override = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("hardware", "Print the detected hardware profile and the table of profiles");
  cmd->add_option("--hardware", *override, "show this profile as the selected one");
  return [override] { return tmetal::tools::guarded([&] { return runHardware(*override); }); };
});
