#include "tmetal/layout/blocked_layout_choice.h"

#include <algorithm>

#include "tmetal/support/power_of_two.h"

namespace tmetal::layout {

namespace {


// A layout being built: every parameter starts at 1.
struct Builder {
  std::vector<int64_t> shape;
  BlockedLayout b;

  Builder(const std::vector<int64_t>& s, std::vector<int> order) : shape(s) {
    int r = static_cast<int>(s.size());
    b.sizePerThread.assign(r, 1);
    b.lanesPerSimd.assign(r, 1);
    b.simdsPerGroup.assign(r, 1);
    b.order = std::move(order);
  }
  // How many more lanes or SIMD groups dimension d can take before they
  // would only hold replicas.
  int room(int d) const {
    int64_t used = static_cast<int64_t>(b.sizePerThread[d]) * b.lanesPerSimd[d] * b.simdsPerGroup[d];
    return static_cast<int>(std::max<int64_t>(1, shape[d] / used));
  }
  void giveLanes(int d, int& left, int most) {
    int t = std::min({left, room(d), std::max(1, most)});
    t = floorPowerOfTwo(t);
    b.lanesPerSimd[d] *= t;
    left /= t;
  }
  void giveSimds(int d, int& left, int most) {
    int t = floorPowerOfTwo(std::min({left, room(d), std::max(1, most)}));
    b.simdsPerGroup[d] *= t;
    left /= t;
  }
};

std::vector<int> rowMajorOrder(int rank) {
  std::vector<int> o;
  for (int d = rank - 1; d >= 0; --d) o.push_back(d);
  return o;
}

std::vector<int> columnMajorOrder(int rank) {
  std::vector<int> o;
  for (int d = 0; d < rank; ++d) o.push_back(d);
  return o;
}

int64_t product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t e : v) p *= e;
  return p;
}

BlockedLayout coalesced(const std::vector<int64_t>& shape, int numSimds, const AccessHint& hint) {
  int rank = static_cast<int>(shape.size());
  Builder lb(shape, hint.order.empty() ? rowMajorOrder(rank) : hint.order);
  auto reduced = [&](int d) {
    return std::find(hint.reducedAxes.begin(), hint.reducedAxes.end(), d) != hint.reducedAxes.end();
  };
  int fastest = lb.b.order[0];
  int threads = kSimdWidth * numSimds;
  int64_t perThread = std::max<int64_t>(1, product(shape) / threads);
  int bytes = std::max(1, hint.elementBytes);
  // A loop that only loads and reduces along the contiguous dimension reads
  // single elements of 4 bytes or more: the lowering then issues all four
  // unrolled trips' loads before their arithmetic, which 16-byte vectors do
  // not allow on NVIDIA (ptxas gives the trips' vectors the same registers).
  // Measured on an H100, a float32 row sum of 128x1024: 6.2 -> 4.9 us.
  // Halves keep their 16-byte vectors: read as half2 (loads first too) the
  // same sum took 5.3 -> 6.1 us, and 49 -> 51 us at 8192x8192. Where the
  // contiguous dimension is kept (a column walk, each lane owning several
  // outputs), vectors stay too: the planner's float32 column stages ran up
  // to 10% slower reading elements (docs/layouts.md, "Loops of loads").
  const bool loopOfElements = hint.inRegisterOnlyLoop && reduced(fastest) && bytes >= kLoopElementBytes;
  const int maxBytes = loopOfElements ? bytes : kMaxVectorAccessBytes;
  int vec = floorPowerOfTwo(std::min<int64_t>({std::max(1, hint.vectorElements), std::max(1, maxBytes / bytes),
                                               shape[fastest], perThread}));
  // Where halves are stored beside a float32 store of the same layout, eight
  // elements a thread would make each float32 store instruction two vectors
  // 32 bytes apart a lane, half of every sector: float32 -> float16 and
  // bfloat16 casts of 32M elements ran 0.96x of Triton so (H200), whose
  // float32 store is one vector a lane. Four a thread store the halves as
  // 8-byte vectors instead, still whole sectors a SIMD group.
  if (hint.storedElementBytes > 0) vec = std::min(vec, std::max(1, kMaxVectorAccessBytes / hint.storedElementBytes));
  lb.b.sizePerThread[fastest] = vec;

  // Lanes: first along the contiguous dimension; when another axis is
  // reduced, only as many as one 128-byte transaction needs, so that the
  // rest can go to the reduced axis and combine in the SIMD group.
  int lanes = kSimdWidth;
  bool anyReduced = !hint.reducedAxes.empty();
  int rowLanes = std::max(1, kCoalescedRowBytes / (vec * bytes));
  lb.giveLanes(fastest, lanes, anyReduced && !reduced(fastest) ? rowLanes : kSimdWidth);
  for (int d : lb.b.order)
    if (d != fastest && reduced(d)) lb.giveLanes(d, lanes, kSimdWidth);
  for (int d : lb.b.order) lb.giveLanes(d, lanes, kSimdWidth);
  lb.b.lanesPerSimd[fastest] *= lanes;  // a tensor smaller than a SIMD group: replicas

  // SIMD groups: dimensions that are kept first, so that a reduction stays
  // inside SIMD groups where it can. A reduced contiguous dimension read in
  // vectors takes them first, as far as it has room (Triton's warp order):
  // measured on an H200, an 8x256 float32 row-sum tile in a loop ran 2.4%
  // faster as 2x2 SIMD groups than as 4x1, while with scalar accesses (an
  // 8x128 tile) the kept-first 4x1 was 13% faster (docs/layouts.md).
  bool vectorsFirst = vec > 1 && reduced(fastest);
  std::vector<int> fill;
  if (vectorsFirst) fill.push_back(fastest);
  for (int d : lb.b.order)
    if (!reduced(d)) fill.push_back(d);
  for (int d : lb.b.order)
    if (reduced(d) && !(vectorsFirst && d == fastest)) fill.push_back(d);
  int simds = numSimds;
  for (int d : fill) lb.giveSimds(d, simds, numSimds);
  lb.b.simdsPerGroup[fill[0]] *= simds;
  return lb.b;
}

BlockedLayout rowMajor(const std::vector<int64_t>& shape, int numSimds) {
  int rank = static_cast<int>(shape.size());
  Builder lb(shape, rowMajorOrder(rank));
  int lanes = kSimdWidth;
  for (int d : lb.b.order) lb.giveLanes(d, lanes, kSimdWidth);
  lb.b.lanesPerSimd[lb.b.order[0]] *= lanes;
  int simds = numSimds;
  for (int d = 0; d < rank; ++d) lb.giveSimds(d, simds, numSimds);
  lb.b.simdsPerGroup[0] *= simds;
  return lb.b;
}

BlockedLayout columnMajor(const std::vector<int64_t>& shape, int numSimds) {
  int rank = static_cast<int>(shape.size());
  Builder lb(shape, columnMajorOrder(rank));
  if (rank == 1)
    lb.b.sizePerThread[0] = floorPowerOfTwo(std::max<int64_t>(1, shape[0] / (kSimdWidth * numSimds)));
  int lanes = kSimdWidth;
  for (int d : lb.b.order) lb.giveLanes(d, lanes, kSimdWidth);
  lb.b.lanesPerSimd[0] *= lanes;
  int simds = numSimds;
  for (int d = rank - 1; d >= 0; --d) lb.giveSimds(d, simds, numSimds);
  lb.b.simdsPerGroup[rank - 1] *= simds;
  return lb.b;
}

BlockedLayout tiled(const std::vector<int64_t>& shape, int numSimds) {
  int rank = static_cast<int>(shape.size());
  Builder lb(shape, rowMajorOrder(rank));
  int fast = rank - 1, slow = rank >= 2 ? rank - 2 : -1;
  int lanes = kSimdWidth, simds = numSimds;
  if (slow < 0) {
    lb.b.sizePerThread[fast] = static_cast<int>(std::min<int64_t>(4, shape[fast]));
    lb.giveLanes(fast, lanes, kSimdWidth);
  } else {
    lb.b.sizePerThread[fast] = static_cast<int>(std::min<int64_t>(2, shape[fast]));
    lb.b.sizePerThread[slow] = static_cast<int>(std::min<int64_t>(2, shape[slow]));
    lb.giveLanes(fast, lanes, 8);
    lb.giveLanes(slow, lanes, 4);
    // SIMD groups alternate between the two tile dimensions: 4 -> 2x2.
    for (bool progress = true; simds > 1 && progress;) {
      progress = false;
      for (int d : {slow, fast}) {
        if (simds > 1 && lb.room(d) > 1) {
          lb.giveSimds(d, simds, 2);
          progress = true;
        }
      }
    }
  }
  for (int d : lb.b.order) lb.giveLanes(d, lanes, kSimdWidth);
  lb.b.lanesPerSimd[fast] *= lanes;
  for (int d : lb.b.order) lb.giveSimds(d, simds, numSimds);
  lb.b.simdsPerGroup[slow >= 0 ? slow : fast] *= simds;
  return lb.b;
}

}  // namespace

BlockedLayout chooseDotLayout(const std::vector<int64_t>& shape, int numSimds) {
  Builder lb(shape, rowMajorOrder(static_cast<int>(shape.size())));
  int rank = static_cast<int>(shape.size());
  int n = rank - 1, m = rank - 2;
  int64_t perThread = std::max<int64_t>(1, product(shape) / (kSimdWidth * numSimds));
  int sptN = floorPowerOfTwo(std::min<int64_t>({4, shape[n], perThread}));
  lb.b.sizePerThread[n] = sptN;
  if (m >= 0)
    lb.b.sizePerThread[m] = floorPowerOfTwo(std::min<int64_t>({4, shape[m], std::max<int64_t>(1, perThread / sptN)}));
  int lanes = kSimdWidth;
  for (int d : lb.b.order) lb.giveLanes(d, lanes, kSimdWidth);
  lb.b.lanesPerSimd[n] *= lanes;
  int simds = numSimds;
  for (int d = 0; d < rank; ++d) lb.giveSimds(d, simds, numSimds);
  lb.b.simdsPerGroup[0] *= simds;
  lb.b.validate();
  return lb.b;
}

MatrixGroups chooseMatrixGroups(int64_t tilesM, int64_t tilesN, int simdGroups, bool rowsOnly) {
  if (rowsOnly && tilesM % simdGroups == 0) return {simdGroups, 1};
  MatrixGroups best;
  int64_t bestBlock = 0;
  for (int64_t gm = 1; gm <= std::min<int64_t>(tilesM, simdGroups); ++gm) {
    if (tilesM % gm) continue;
    for (int64_t gn = 1; gm * gn <= simdGroups && gn <= tilesN; ++gn) {
      if (tilesN % gn) continue;
      const int64_t block = tilesM / gm + tilesN / gn;
      const int64_t groups = gm * gn, bestGroups = int64_t(best.groupsM) * best.groupsN;
      if (best.groupsM == 0 || groups > bestGroups || (groups == bestGroups && block < bestBlock)) {
        best = {int(gm), int(gn)};
        bestBlock = block;
      }
    }
  }
  return best;
}

BlockedLayout matrixAccumulatorLayout(MatrixGroups groups) {
  BlockedLayout b{{1, 2}, {8, 4}, {groups.groupsM, groups.groupsN}, {1, 0}};
  b.validate();
  return b;
}

MatrixGroups matrixGroupsOf(const BlockedLayout& b) {
  if (b.rank() != 2 || b.sizePerThread != std::vector<int>{1, 2} || b.lanesPerSimd != std::vector<int>{8, 4} ||
      b.order != std::vector<int>{1, 0})
    return {};
  return {b.simdsPerGroup[0], b.simdsPerGroup[1]};
}

MemoryLayout resolvePolicy(MemoryLayout policy) {
  return policy == MemoryLayout::DEFAULT ? MemoryLayout::COALESCED : policy;
}

BlockedLayout chooseBlockedLayout(MemoryLayout policy, const std::vector<int64_t>& shape, int numSimdGroups,
                                  const AccessHint& hint) {
  BlockedLayout b;
  switch (resolvePolicy(policy)) {
    case MemoryLayout::ROW_MAJOR: b = rowMajor(shape, numSimdGroups); break;
    case MemoryLayout::COLUMN_MAJOR: b = columnMajor(shape, numSimdGroups); break;
    case MemoryLayout::TILED: b = tiled(shape, numSimdGroups); break;
    default: b = coalesced(shape, numSimdGroups, hint); break;
  }
  b.validate();
  return b;
}

}  // namespace tmetal::layout
