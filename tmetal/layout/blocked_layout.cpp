#include "tmetal/layout/blocked_layout.h"

#include <algorithm>

#include "tmetal/support/diagnostic.h"
#include "tmetal/support/power_of_two.h"

namespace tmetal::layout {

namespace {

std::string list(const std::vector<int>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}
}  // namespace

int BlockedLayout::simdWidth() const {
  int p = 1;
  for (int v : lanesPerSimd) p *= v;
  return p;
}

int BlockedLayout::numSimdGroups() const {
  int p = 1;
  for (int v : simdsPerGroup) p *= v;
  return p;
}

void BlockedLayout::validate() const {
  size_t r = order.size();
  if (sizePerThread.size() != r || lanesPerSimd.size() != r || simdsPerGroup.size() != r)
    throw CompileError("blocked layout " + str() + ": parameters of different ranks");
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < r; ++i)
    if (sorted[i] != static_cast<int>(i)) throw CompileError("blocked layout " + str() + ": order is not a permutation");
  for (size_t d = 0; d < r; ++d)
    if (!isPowerOfTwo(sizePerThread[d]) || !isPowerOfTwo(lanesPerSimd[d]) || !isPowerOfTwo(simdsPerGroup[d]))
      throw CompileError("blocked layout " + str() + ": every parameter must be a power of two");
}

std::string BlockedLayout::str() const {
  return "blocked{spt=" + list(sizePerThread) + ", lanes=" + list(lanesPerSimd) + ", simds=" + list(simdsPerGroup) +
         ", order=" + list(order) + "}";
}

}  // namespace tmetal::layout
