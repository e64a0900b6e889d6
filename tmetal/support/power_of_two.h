// Powers of two, for the tile, lane and vector sizes the layouts, the
// reduction planner and its stage kernels choose.
#pragma once

#include <bit>
#include <cstdint>

namespace tmetal {

constexpr bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// The smallest power of two >= v (1 for v <= 1).
constexpr int64_t nextPowerOfTwo(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

// The largest power of two <= v (1 for v <= 1).
constexpr int64_t floorPowerOfTwo(int64_t v) {
  int64_t p = 1;
  while (p <= v / 2) p *= 2;
  return p;
}

// log2 of a power of two (its count of trailing zero bits).
constexpr int log2OfPowerOfTwo(int64_t v) { return std::countr_zero(static_cast<uint64_t>(v)); }

}  // namespace tmetal
