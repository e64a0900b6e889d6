// The hardware table. Every figure is cited in docs/hardware.md; figures no
// source confirmed are listed in `unverified` and marked when printed.
#include <algorithm>
#include <cctype>

#include "tmetal/hw/hardware_profile.h"

namespace tmetal::hw {

namespace {

constexpr int64_t MiB = 1024 * 1024;

// Figures shared by every Apple GPU of the M1-M4 families: SIMD width 32,
// 1024 threads and 32 KB of threadgroup memory per threadgroup (Metal feature
// set tables), up to 3072 resident threads per core (measured on Apple7/8 by
// metal-benchmarks; assumed for Apple9), MSL 3.2, bfloat from MSL 3.1, no fp64.
HardwareProfile apple(std::string id, std::string name, std::string family, std::string brand, int cores,
                      double bandwidth, int64_t slcBytes, std::vector<std::string> unverified) {
  HardwareProfile p;
  p.id = std::move(id);
  p.name = std::move(name);
  p.vendor = GpuVendor::Apple;
  p.gpuFamily = std::move(family);
  p.brandString = std::move(brand);
  p.gpuCores = cores;
  p.dramBandwidthGBs = bandwidth;
  p.lastLevelCacheBytes = slcBytes;
  p.simdWidth = 32;
  p.maxThreadsPerThreadgroup = 1024;
  p.threadgroupMemoryBytes = 32 * 1024;
  p.maxResidentThreadsPerCore = 3072;
  p.mslVersion = "3.2";
  p.bfloat = true;
  p.fp64 = false;
  p.unverified = std::move(unverified);
  // Apple lists language versions per OS release, not per chip.
  p.unverified.push_back("msl");
  if (p.gpuFamily == "Apple9") p.unverified.push_back("resident-threads");
  return p;
}

HardwareProfile nvidia(std::string id, std::string name, int sms, double bandwidth) {
  HardwareProfile p;
  p.id = std::move(id);
  p.name = std::move(name);
  p.vendor = GpuVendor::Nvidia;
  p.gpuFamily = "Hopper sm_90";
  p.gpuCores = sms;
  p.dramBandwidthGBs = bandwidth;
  p.lastLevelCacheBytes = 50 * MiB;
  p.simdWidth = 32;
  p.maxThreadsPerThreadgroup = 1024;
  // 48 KB of static shared memory per block without the dynamic opt-in
  // (up to 227 KB with it); the planner stays inside the portable limit.
  p.threadgroupMemoryBytes = 48 * 1024;
  p.maxResidentThreadsPerCore = 2048;
  p.bfloat = true;
  p.fp64 = true;
  return p;
}

std::vector<HardwareProfile> buildTable() {
  std::vector<HardwareProfile> t;
  // The generic profile is the smallest Apple-silicon part (M1 figures), so a
  // plan made for it never assumes more cores or bandwidth than a Mac has.
  HardwareProfile generic = apple("apple-generic", "Generic Apple GPU (M1-class baseline)", "Apple7", "", 8, 68.25,
                                  8 * MiB, {});
  generic.generic = true;
  t.push_back(generic);

  t.push_back(apple("m1", "Apple M1 (8-core GPU)", "Apple7", "Apple M1", 8, 68.25, 8 * MiB, {}));
  t.push_back(apple("m1-pro", "Apple M1 Pro (16-core GPU)", "Apple7", "Apple M1 Pro", 16, 200, 24 * MiB, {"slc"}));
  t.push_back(apple("m1-max", "Apple M1 Max (32-core GPU)", "Apple7", "Apple M1 Max", 32, 400, 48 * MiB, {}));
  t.push_back(apple("m1-ultra", "Apple M1 Ultra (64-core GPU)", "Apple7", "Apple M1 Ultra", 64, 800, 96 * MiB, {}));

  t.push_back(apple("m2", "Apple M2 (10-core GPU)", "Apple8", "Apple M2", 10, 100, 8 * MiB, {"slc"}));
  t.push_back(apple("m2-pro", "Apple M2 Pro (19-core GPU)", "Apple8", "Apple M2 Pro", 19, 200, 24 * MiB, {"slc"}));
  t.push_back(apple("m2-max", "Apple M2 Max (38-core GPU)", "Apple8", "Apple M2 Max", 38, 400, 48 * MiB, {"slc"}));
  t.push_back(apple("m2-ultra", "Apple M2 Ultra (76-core GPU)", "Apple8", "Apple M2 Ultra", 76, 800, 96 * MiB, {"slc"}));

  t.push_back(apple("m3", "Apple M3 (10-core GPU)", "Apple9", "Apple M3", 10, 100, 8 * MiB, {"slc"}));
  t.push_back(apple("m3-pro", "Apple M3 Pro (18-core GPU)", "Apple9", "Apple M3 Pro", 18, 150, 12 * MiB, {"slc"}));
  // The binned M3 Max has a narrower memory bus, hence its own row.
  t.push_back(apple("m3-max-30c", "Apple M3 Max (30-core GPU)", "Apple9", "Apple M3 Max", 30, 300, 48 * MiB, {"slc"}));
  t.push_back(apple("m3-max", "Apple M3 Max (40-core GPU)", "Apple9", "Apple M3 Max", 40, 400, 48 * MiB, {"slc"}));
  t.push_back(apple("m3-ultra", "Apple M3 Ultra (80-core GPU)", "Apple9", "Apple M3 Ultra", 80, 819, 96 * MiB, {"slc"}));

  t.push_back(apple("m4", "Apple M4 (10-core GPU)", "Apple9", "Apple M4", 10, 120, 8 * MiB, {"slc"}));
  t.push_back(apple("m4-pro", "Apple M4 Pro (20-core GPU)", "Apple9", "Apple M4 Pro", 20, 273, 24 * MiB, {"slc"}));
  t.push_back(apple("m4-max-32c", "Apple M4 Max (32-core GPU)", "Apple9", "Apple M4 Max", 32, 410, 48 * MiB, {"slc"}));
  t.push_back(apple("m4-max", "Apple M4 Max (40-core GPU)", "Apple9", "Apple M4 Max", 40, 546, 48 * MiB, {"slc"}));

  t.push_back(nvidia("h100", "NVIDIA H100 SXM5 80GB", 132, 3350));
  t.push_back(nvidia("h200", "NVIDIA H200 SXM 141GB", 132, 4800));
  return t;
}

std::string normalizeId(const std::string& name) {
  std::string out;
  for (unsigned char c : name) {
    if (c == ' ' || c == '_')
      out += '-';
    else
      out += static_cast<char>(std::tolower(c));
  }
  return out;
}

}  // namespace

const char* gpuVendorName(GpuVendor v) { return v == GpuVendor::Apple ? "Apple" : "NVIDIA"; }

bool HardwareProfile::isUnverified(const std::string& figure) const {
  return std::find(unverified.begin(), unverified.end(), figure) != unverified.end();
}

const std::vector<HardwareProfile>& hardwareTable() {
  static const std::vector<HardwareProfile> table = buildTable();
  return table;
}

std::optional<HardwareProfile> findHardwareProfile(const std::string& name) {
  const std::string id = normalizeId(name);
  for (const HardwareProfile& p : hardwareTable())
    if (p.id == id) return p;
  return std::nullopt;
}

std::string knownHardwareIds() {
  std::string out;
  for (const HardwareProfile& p : hardwareTable()) {
    if (!out.empty()) out += ", ";
    out += p.id;
  }
  return out;
}

}  // namespace tmetal::hw
