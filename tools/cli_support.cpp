#include "tools/cli_support.h"

#include <fstream>
#include <sstream>

#include "tmetal/hw/hardware_selection.h"
#include "tmetal/layout/memory_layout.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::tools {

std::string readTextFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CompileError(SourcePos{path, 0, 0}, "cannot open file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void writeTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (out) out << text;
  if (!out) throw CompileError("cannot write '" + path + "'");
}

void CodegenFlags::addTo(CLI::App* command) {
  command->add_option("--layout", layout, "MemoryLayout policy: coalesced, row_major, column_major, tiled, default")
      ->capture_default_str();
  command->add_option("--num-warps", numWarps, "SIMD groups per threadgroup (threads = num_warps * 32)")
      ->capture_default_str()
      ->check(CLI::Range(1, 32));
  command->add_option("--num-stages", numStages,
                      "Triton's software-pipelining depth: 1 keeps every loop plain; S > 1, a loop with a tt.dot "
                      "loads S - 1 trips ahead (at most 2)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  command->add_option("--hardware", hardware,
                      "hardware profile whose limits apply (see `tmetal hardware`); default: TMETAL_HARDWARE, else "
                      "the detected GPU, else the generic Apple profile");
  command->add_flag("--fast-math", fastMath, "use metal::fast math instead of Triton's precise math");
  command->add_option("--min-threadgroups-per-core", minThreadgroupsPerCore,
                      "threadgroups each GPU core should hold at once (cuda: __launch_bounds__'s minimum blocks per "
                      "multiprocessor; metal: checked, no MSL equivalent); 0: no minimum; default: tmetal's choice "
                      "(cuda: the registers of a loop's four trips of loads in flight)")
      ->check(CLI::NonNegativeNumber);
}

codegen::CompileOptions CodegenFlags::toCompileOptions() const {
  codegen::CompileOptions options;
  options.target = target;
  auto policy = layout::parseMemoryLayout(layout);
  if (!policy)
    throw CompileError("unknown layout '" + layout + "' (known: coalesced, row_major, column_major, tiled, default)");
  options.policy = *policy;
  options.numWarps = numWarps;
  options.hardware = hw::selectHardware(hardware).profile;
  options.fastMath = fastMath;
  options.numStages = numStages;
  options.minThreadgroupsPerCore = minThreadgroupsPerCore;
  return options;
}

}  // namespace tmetal::tools
