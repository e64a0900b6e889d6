// How many programs a launch grid may hold along each dimension, on every
// device: tt.get_program_id is a 32-bit signed integer in Triton's IR, so a
// program past 2^31 - 1 along a dimension would see its id wrap (CUDA's own
// limit along x is the same; Metal's grid position is a 32-bit unsigned that
// the kernel reads as a signed id).
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace tmetal {

inline constexpr int64_t kMaxProgramsPerGridDimension = 2147483647;

// Empty when every dimension of `grid` (x, y, z) holds 0 to
// kMaxProgramsPerGridDimension programs; else what is wrong, e.g. "grid
// (4294967296, 1, 1): 4294967296 programs along x, more than the 2147483647
// that tt.get_program_id (a 32-bit integer) can number".
std::string gridProblem(const std::array<int64_t, 3>& grid);

}  // namespace tmetal
