#include "tmetal/support/grid_limits.h"

namespace tmetal {

std::string gridProblem(const std::array<int64_t, 3>& grid) {
  const std::string shown =
      "grid (" + std::to_string(grid[0]) + ", " + std::to_string(grid[1]) + ", " + std::to_string(grid[2]) + ")";
  for (int d = 0; d < 3; ++d) {
    if (grid[d] < 0) return shown + " has a negative size";
    if (grid[d] > kMaxProgramsPerGridDimension)
      return shown + ": " + std::to_string(grid[d]) + " programs along " + "xyz"[d] + ", more than the " +
             std::to_string(kMaxProgramsPerGridDimension) + " that tt.get_program_id (a 32-bit integer) can number";
  }
  return {};
}

}  // namespace tmetal
