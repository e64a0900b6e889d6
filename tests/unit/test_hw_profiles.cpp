// Hardware profiles: the table's invariants, lookup, the override order and
// the matching of what macOS reports (pure functions, so they run here).
#include <gtest/gtest.h>

#include "tmetal/hw/hardware_selection.h"
#include "tmetal/support/diagnostic.h"

using namespace tmetal;
using namespace tmetal::hw;

TEST(HwProfiles, TableHasEveryAppleFamilyAndTheNvidiaParts) {
  for (const char* id : {"m1", "m1-pro", "m1-max", "m1-ultra", "m2", "m2-pro", "m2-max", "m2-ultra", "m3", "m3-pro",
                         "m3-max", "m3-max-30c", "m3-ultra", "m4", "m4-pro", "m4-max", "m4-max-32c", "h100", "h200",
                         "apple-generic"})
    EXPECT_TRUE(findHardwareProfile(id).has_value()) << id;
}

TEST(HwProfiles, AppleLimitsAreTheMetalFeatureSetFigures) {
  for (const HardwareProfile& p : hardwareTable()) {
    EXPECT_EQ(p.simdWidth, 32) << p.id;
    EXPECT_EQ(p.maxThreadsPerThreadgroup, 1024) << p.id;
    EXPECT_GT(p.gpuCores, 0) << p.id;
    EXPECT_GT(p.dramBandwidthGBs, 0) << p.id;
    EXPECT_GT(p.lastLevelCacheBytes, 0) << p.id;
    EXPECT_GT(p.maxResidentThreadsPerCore, 0) << p.id;
    if (p.vendor == GpuVendor::Apple) {
      EXPECT_EQ(p.threadgroupMemoryBytes, 32 * 1024) << p.id;
      EXPECT_FALSE(p.fp64) << p.id;
      EXPECT_TRUE(p.bfloat) << p.id;
      EXPECT_FALSE(p.mslVersion.empty()) << p.id;
    }
  }
}

TEST(HwProfiles, BandwidthsMatchTheDesignFigures) {
  EXPECT_DOUBLE_EQ(findHardwareProfile("m1")->dramBandwidthGBs, 68.25);
  EXPECT_DOUBLE_EQ(findHardwareProfile("m1-max")->dramBandwidthGBs, 400);
  EXPECT_DOUBLE_EQ(findHardwareProfile("m3-pro")->dramBandwidthGBs, 150);
  EXPECT_DOUBLE_EQ(findHardwareProfile("m3-max-30c")->dramBandwidthGBs, 300);
  EXPECT_DOUBLE_EQ(findHardwareProfile("m3-max")->dramBandwidthGBs, 400);
  EXPECT_DOUBLE_EQ(findHardwareProfile("m4-max")->dramBandwidthGBs, 546);
  EXPECT_EQ(findHardwareProfile("h100")->gpuCores, 132);
  EXPECT_DOUBLE_EQ(findHardwareProfile("h200")->dramBandwidthGBs, 4800);
}

TEST(HwProfiles, LookupAcceptsOtherSpellings) {
  EXPECT_EQ(findHardwareProfile("M3 Max")->id, "m3-max");
  EXPECT_EQ(findHardwareProfile("m3_max")->id, "m3-max");
  EXPECT_EQ(findHardwareProfile("H100")->id, "h100");
  EXPECT_FALSE(findHardwareProfile("m9").has_value());
}

TEST(HwSelection, CommandLineBeatsEnvironmentBeatsDetection) {
  HardwareRequest r;
  r.cliOverride = "m2-pro";
  r.envOverride = "m1";
  r.onMac = true;
  r.detected = AppleGpuInfo{"Apple M3 Max", 40};
  HardwareSelection s = resolveHardware(r);
  EXPECT_EQ(s.profile.id, "m2-pro");
  EXPECT_EQ(s.origin, "selected with --hardware m2-pro");

  r.cliOverride.clear();
  s = resolveHardware(r);
  EXPECT_EQ(s.profile.id, "m1");
  EXPECT_EQ(s.origin, "selected with TMETAL_HARDWARE=m1");

  r.envOverride.clear();
  s = resolveHardware(r);
  EXPECT_EQ(s.profile.id, "m3-max");
  EXPECT_EQ(s.origin, "detected Apple M3 Max (40 GPU cores)");
}

TEST(HwSelection, UnknownOverrideIsAnErrorListingTheProfiles) {
  HardwareRequest r;
  r.cliOverride = "m9-max";
  try {
    resolveHardware(r);
    FAIL() << "no error";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.message(), "unknown hardware 'm9-max' (from --hardware); known: " + knownHardwareIds());
  }
  r.cliOverride.clear();
  r.envOverride = "tpu";
  try {
    resolveHardware(r);
    FAIL() << "no error";
  } catch (const CompileError& e) {
    EXPECT_EQ(e.message(), "unknown hardware 'tpu' (from TMETAL_HARDWARE); known: " + knownHardwareIds());
  }
}

TEST(HwSelection, OffMacTheGenericProfileSaysSo) {
  HardwareSelection s = resolveHardware(HardwareRequest{});
  EXPECT_EQ(s.profile.id, "apple-generic");
  EXPECT_TRUE(s.profile.generic);
  EXPECT_EQ(s.origin,
            "not running on an Apple-silicon Mac; using the generic Apple profile apple-generic (choose another with "
            "--hardware or TMETAL_HARDWARE)");
}

TEST(HwSelection, UnknownAppleGpuFallsBackToGenericWithItsCores) {
  HardwareRequest r;
  r.onMac = true;
  r.detected = AppleGpuInfo{"Apple M9 Pro", 24};
  HardwareSelection s = resolveHardware(r);
  EXPECT_EQ(s.profile.id, "apple-generic");
  EXPECT_EQ(s.profile.gpuCores, 24);
  EXPECT_EQ(s.origin, "unknown Apple GPU 'Apple M9 Pro' (24 GPU cores), using apple-generic with 24 GPU cores");

  r.detected = AppleGpuInfo{"Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz", 0};
  s = resolveHardware(r);
  EXPECT_EQ(s.profile.id, "apple-generic");
  EXPECT_EQ(s.profile.gpuCores, 8);
  EXPECT_EQ(s.origin,
            "unknown Apple GPU 'Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz' (GPU core count unknown), using "
            "apple-generic");

  r.detected.reset();
  s = resolveHardware(r);
  EXPECT_EQ(s.origin, "could not read the GPU from sysctl; using the generic Apple profile apple-generic");
}

TEST(HwSelection, DetectedCoreCountPicksTheBinnedRow) {
  EXPECT_EQ(matchAppleGpu({"Apple M3 Max", 30})->id, "m3-max-30c");
  EXPECT_EQ(matchAppleGpu({"Apple M3 Max", 40})->id, "m3-max");
  EXPECT_EQ(matchAppleGpu({"Apple M3 Max", 0})->id, "m3-max");  // no count: the full part
  EXPECT_EQ(matchAppleGpu({"Apple M4 Max", 32})->dramBandwidthGBs, 410);
  // A binned part with no row of its own keeps its bandwidth row, with its cores.
  std::optional<HardwareProfile> pro = matchAppleGpu({"Apple M3 Pro", 14});
  EXPECT_EQ(pro->id, "m3-pro");
  EXPECT_EQ(pro->gpuCores, 14);
  EXPECT_EQ(pro->name, "Apple M3 Pro (14-core GPU)");
  std::optional<HardwareProfile> m1 = matchAppleGpu({"Apple M1", 7});
  EXPECT_EQ(m1->gpuCores, 7);
  EXPECT_DOUBLE_EQ(m1->dramBandwidthGBs, 68.25);
  EXPECT_FALSE(matchAppleGpu({"Apple M9", 10}).has_value());
}

TEST(HwSelection, DetectionOnThisMachine) {
  // Off macOS the query reports nothing; on macOS it must name an Apple chip.
  std::optional<AppleGpuInfo> gpu = queryAppleGpu();
#ifdef __APPLE__
  ASSERT_TRUE(gpu.has_value());
  EXPECT_FALSE(gpu->brandString.empty());
#else
  EXPECT_FALSE(gpu.has_value());
#endif
}
