// A blocked ("distributed") layout: how a block-level tensor is spread over
// the threads of a threadgroup, as Triton's #blocked encoding does. Per
// dimension d:
//   sizePerThread[d]    consecutive elements one thread holds (a vector along
//                       the fastest dimension),
//   lanesPerSimd[d]     lanes of a SIMD group along d (product = SIMD width),
//   simdsPerGroup[d]    SIMD groups of the threadgroup along d (product =
//                       number of SIMD groups, num_warps),
//   order               dimensions from fastest- to slowest-varying: lane and
//                       SIMD-group ids are split over the dimensions in this
//                       order, and a thread's registers walk them in it.
// The tile sizePerThread*lanesPerSimd*simdsPerGroup repeats over larger
// tensors (each thread holds one block per repetition) and wraps around
// smaller ones (threads hold replicas). Every parameter is a power of two.
#pragma once

#include <string>
#include <vector>

namespace tmetal::layout {

struct BlockedLayout {
  std::vector<int> sizePerThread;
  std::vector<int> lanesPerSimd;
  std::vector<int> simdsPerGroup;
  std::vector<int> order;

  int rank() const { return static_cast<int>(order.size()); }
  int simdWidth() const;      // product of lanesPerSimd
  int numSimdGroups() const;  // product of simdsPerGroup
  int tile(int d) const { return sizePerThread[d] * lanesPerSimd[d] * simdsPerGroup[d]; }

  // Throws CompileError when the parameters are inconsistent (ranks differ,
  // not powers of two, order not a permutation).
  void validate() const;

  // "blocked{spt=[1,4], lanes=[4,8], simds=[4,1], order=[1,0]}"
  std::string str() const;
  bool operator==(const BlockedLayout& o) const = default;
};

}  // namespace tmetal::layout
