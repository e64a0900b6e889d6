#include "tmetal/layout/distributed_layout.h"

#include <algorithm>
#include <optional>

#include "tmetal/support/diagnostic.h"
#include "tmetal/support/power_of_two.h"

namespace tmetal::layout {

LayoutPtr DistributedLayout::blocked(BlockedLayout params) {
  params.validate();
  auto l = std::make_shared<DistributedLayout>();
  l->root_ = std::move(params);
  for (int d = 0; d < l->root_.rank(); ++d) l->rootDims_.push_back(d);
  return l;
}

namespace {
// The blocked layout without dimension `dim`, which must be trivial.
BlockedLayout dropDimension(const BlockedLayout& b, int dim) {
  BlockedLayout out;
  for (int d = 0; d < b.rank(); ++d) {
    if (d == dim) continue;
    out.sizePerThread.push_back(b.sizePerThread[d]);
    out.lanesPerSimd.push_back(b.lanesPerSimd[d]);
    out.simdsPerGroup.push_back(b.simdsPerGroup[d]);
  }
  for (int d : b.order)
    if (d != dim) out.order.push_back(d > dim ? d - 1 : d);
  return out;
}

// The blocked layout with a new dimension `dim` of one element, lane and
// SIMD group, slowest in order (it never varies).
BlockedLayout insertUnitDimension(const BlockedLayout& b, int dim) {
  BlockedLayout out = b;
  out.sizePerThread.insert(out.sizePerThread.begin() + dim, 1);
  out.lanesPerSimd.insert(out.lanesPerSimd.begin() + dim, 1);
  out.simdsPerGroup.insert(out.simdsPerGroup.begin() + dim, 1);
  for (int& d : out.order)
    if (d >= dim) ++d;
  out.order.push_back(dim);
  return out;
}

// Whether a thread holds one element of dimension `dim` in one lane and one
// SIMD group: along it the layout only repeats.
bool onlyRepeatedAlong(const BlockedLayout& b, int dim) {
  return b.sizePerThread[dim] == 1 && b.lanesPerSimd[dim] == 1 && b.simdsPerGroup[dim] == 1;
}

// A reshape that only removes and inserts dimensions of extent 1: the
// layout with `from`'s unit dimensions dropped (each must have one element,
// lane and SIMD group) and `to`'s inserted. Null otherwise.
std::optional<BlockedLayout> reshapeUnitDimensions(BlockedLayout b, const std::vector<int64_t>& from,
                                                   const std::vector<int64_t>& to) {
  auto withoutUnits = [](const std::vector<int64_t>& shape) {
    std::vector<int64_t> kept;
    for (int64_t e : shape)
      if (e != 1) kept.push_back(e);
    return kept;
  };
  if (withoutUnits(from) != withoutUnits(to)) return std::nullopt;
  for (int d = static_cast<int>(from.size()) - 1; d >= 0; --d) {
    if (from[d] != 1) continue;
    if (!onlyRepeatedAlong(b, d)) return std::nullopt;
    b = dropDimension(b, d);
  }
  for (int d = 0; d < static_cast<int>(to.size()); ++d)
    if (to[d] == 1) b = insertUnitDimension(b, d);
  return b;
}
}  // namespace

LayoutPtr DistributedLayout::slice(const LayoutPtr& parent, int dim) {
  if (dim < 0 || dim >= parent->rank())
    throw CompileError("slice of dimension " + std::to_string(dim) + " of a rank-" + std::to_string(parent->rank()) +
                       " layout");
  if (parent->isBlocked()) {
    const BlockedLayout& b = parent->root_;
    if (onlyRepeatedAlong(b, dim))
      return blocked(dropDimension(b, dim));
  }
  auto l = std::make_shared<DistributedLayout>();
  l->root_ = parent->root_;
  l->parent_ = parent;
  l->sliceDim_ = dim;
  l->rootDims_ = parent->rootDims_;
  l->rootDims_.erase(l->rootDims_.begin() + dim);
  return l;
}

std::string DistributedLayout::str() const {
  if (isBlocked()) return root_.str();
  return "slice{dim=" + std::to_string(sliceDim_) + ", parent=" + parent_->str() + "}";
}

bool DistributedLayout::operator==(const DistributedLayout& o) const {
  if (isBlocked() != o.isBlocked()) return false;
  if (isBlocked()) return root_ == o.root_;
  return sliceDim_ == o.sliceDim_ && *parent_ == *o.parent_;
}

bool sameLayout(const LayoutPtr& a, const LayoutPtr& b) {
  if (!a || !b) return !a && !b;
  return a == b || *a == *b;
}

LayoutPtr insertDimension(const LayoutPtr& layout, int dim) {
  if (layout->isSlice() && layout->sliceDim() == dim) return layout->parent();
  if (layout->isBlocked()) return DistributedLayout::blocked(insertUnitDimension(layout->blockedParams(), dim));
  // A slice of some other dimension: slice the parent after inserting the
  // new dimension into it.
  int sliced = layout->sliceDim();
  int parentDim = dim <= sliced ? dim : dim + 1;
  int newSliced = dim <= sliced ? sliced + 1 : sliced;
  return DistributedLayout::slice(insertDimension(layout->parent(), parentDim), newSliced);
}

LayoutPtr permuteLayout(const LayoutPtr& layout, const std::vector<int>& order) {
  if (!layout->isBlocked()) return nullptr;
  const BlockedLayout& b = layout->blockedParams();
  BlockedLayout out;
  std::vector<int> inverse(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    out.sizePerThread.push_back(b.sizePerThread[order[i]]);
    out.lanesPerSimd.push_back(b.lanesPerSimd[order[i]]);
    out.simdsPerGroup.push_back(b.simdsPerGroup[order[i]]);
    inverse[order[i]] = static_cast<int>(i);
  }
  for (int d : b.order) out.order.push_back(inverse[d]);
  return DistributedLayout::blocked(out);
}

LayoutPtr appendPairDimension(const LayoutPtr& layout) {
  if (!layout->isBlocked()) return nullptr;
  BlockedLayout out = layout->blockedParams();
  int dim = out.rank();
  out.sizePerThread.push_back(2);
  out.lanesPerSimd.push_back(1);
  out.simdsPerGroup.push_back(1);
  out.order.insert(out.order.begin(), dim);
  return DistributedLayout::blocked(out);
}

LayoutPtr dropPairDimension(const LayoutPtr& layout) {
  if (!layout->isBlocked()) return nullptr;
  const BlockedLayout& b = layout->blockedParams();
  int dim = b.rank() - 1;
  if (dim < 1 || b.sizePerThread[dim] != 2 || b.lanesPerSimd[dim] != 1 || b.simdsPerGroup[dim] != 1) return nullptr;
  BlockedLayout pairless = b;
  pairless.sizePerThread[dim] = 1;
  return DistributedLayout::blocked(dropDimension(pairless, dim));
}

namespace {

// Dimension d (extent n) split into (n / piece, piece), the piece the new
// dimension d + 1, next after d in order and faster. Along d, an element's
// index is (its place in the thread's run, lane, SIMD group, repetition) as
// mixed-radix digits, least significant first; the piece takes the low
// digits up to `piece`, the rest the high ones, so that every register keeps
// its element and every lane and SIMD group its bits. Powers of two only, and
// not where the layout's tile along d exceeds n (its threads would repeat
// elements).
std::optional<BlockedLayout> splitDimension(const BlockedLayout& b, int d, int64_t n, int64_t piece) {
  const int64_t s = b.sizePerThread[d], l = b.lanesPerSimd[d], g = b.simdsPerGroup[d];
  if (!isPowerOfTwo(n) || !isPowerOfTwo(piece) || piece > n || s * l * g > n) return std::nullopt;
  int64_t pieceS = std::min(s, piece);
  int64_t pieceL = std::min(l, std::max<int64_t>(1, piece / s));
  int64_t pieceG = std::min(g, std::max<int64_t>(1, piece / (s * l)));
  BlockedLayout out = b;
  out.sizePerThread[d] = static_cast<int>(s / pieceS);
  out.lanesPerSimd[d] = static_cast<int>(l / pieceL);
  out.simdsPerGroup[d] = static_cast<int>(g / pieceG);
  out.sizePerThread.insert(out.sizePerThread.begin() + d + 1, static_cast<int>(pieceS));
  out.lanesPerSimd.insert(out.lanesPerSimd.begin() + d + 1, static_cast<int>(pieceL));
  out.simdsPerGroup.insert(out.simdsPerGroup.begin() + d + 1, static_cast<int>(pieceG));
  std::vector<int> order;
  for (int o : b.order) {
    if (o == d) order.push_back(d + 1);
    order.push_back(o > d ? o + 1 : o);
  }
  out.order = order;
  return out;
}

}  // namespace

namespace {
// Two neighbouring dimensions merged: where the first is only repeated (one
// element, lane and SIMD group along it) and the layout's tile along the
// second does not exceed it, the merged dimension is the second's tile
// repeated the first's extent times as often (a [2, 32, 64] block reshaped
// to [64, 64]); where each thread holds whole runs of the second, the runs
// grow by the first's. Each thread then holds the elements it held; they
// are in the registers they were in where the first is next in order after
// the second (its registers and repetitions come right after the second's),
// which `registersInOrder` requires.
LayoutPtr mergeNeighbours(const BlockedLayout& b, const std::vector<int64_t>& from, const std::vector<int64_t>& to,
                          bool registersInOrder) {
  const int last = b.rank() - 1;
  const auto position = [&](int dim) { return std::find(b.order.begin(), b.order.end(), dim) - b.order.begin(); };
  if (to.size() + 1 != from.size()) return nullptr;
  for (int d = 0; d < last; ++d) {
    bool merges = to[d] == from[d] * from[d + 1] && (!registersInOrder || position(d) == position(d + 1) + 1);
    for (int k = 0; k < d; ++k) merges = merges && to[k] == from[k];
    for (int k = d + 2; k <= last; ++k) merges = merges && to[k - 1] == from[k];
    if (!merges) continue;
    if (onlyRepeatedAlong(b, d) &&
        int64_t{b.sizePerThread[d + 1]} * b.lanesPerSimd[d + 1] * b.simdsPerGroup[d + 1] <= from[d + 1])
      return DistributedLayout::blocked(dropDimension(b, d));
    if (b.sizePerThread[d + 1] == from[d + 1] && b.lanesPerSimd[d + 1] == 1 && b.simdsPerGroup[d + 1] == 1) {
      BlockedLayout runs = b;
      runs.sizePerThread[d] *= b.sizePerThread[d + 1];
      runs.sizePerThread[d + 1] = 1;
      return DistributedLayout::blocked(dropDimension(runs, d + 1));
    }
  }
  return nullptr;
}
}  // namespace

LayoutPtr reshapeLayout(const LayoutPtr& layout, const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  if (!layout->isBlocked() || from.empty() || to.empty()) return nullptr;
  const BlockedLayout& b = layout->blockedParams();
  if (std::optional<BlockedLayout> units = reshapeUnitDimensions(b, from, to)) return DistributedLayout::blocked(*units);
  int last = b.rank() - 1;
  // The last dimension split into two or more (a flat block reshaped into
  // groups): one split at a time, the last new dimension first.
  if (to.size() > from.size() && std::equal(from.begin(), from.end() - 1, to.begin())) {
    int64_t rest = from.back(), product = 1;
    for (size_t k = from.size() - 1; k < to.size(); ++k) product *= to[k];
    if (product != rest) return nullptr;
    BlockedLayout cur = b;
    for (size_t k = to.size() - 1; k > from.size() - 1; --k) {
      std::optional<BlockedLayout> split = splitDimension(cur, last, rest, to[k]);
      if (!split) return nullptr;
      cur = *split;
      rest /= to[k];
    }
    return DistributedLayout::blocked(cur);
  }
  return mergeNeighbours(b, from, to, /*registersInOrder=*/true);
}

LayoutPtr reshapeLayoutKeepingThreads(const LayoutPtr& layout, const std::vector<int64_t>& from,
                                      const std::vector<int64_t>& to) {
  if (!layout->isBlocked() || from.empty() || to.empty()) return nullptr;
  return mergeNeighbours(layout->blockedParams(), from, to, /*registersInOrder=*/false);
}

}  // namespace tmetal::layout
