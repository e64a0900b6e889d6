#include "tmetal/layout/distributed_layout.h"

#include <algorithm>

#include "tmetal/support/diagnostic.h"

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
}  // namespace

LayoutPtr DistributedLayout::slice(const LayoutPtr& parent, int dim) {
  if (dim < 0 || dim >= parent->rank())
    throw CompileError("slice of dimension " + std::to_string(dim) + " of a rank-" + std::to_string(parent->rank()) +
                       " layout");
  if (parent->isBlocked()) {
    const BlockedLayout& b = parent->root_;
    if (b.sizePerThread[dim] == 1 && b.lanesPerSimd[dim] == 1 && b.simdsPerGroup[dim] == 1)
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
  if (layout->isBlocked()) {
    const BlockedLayout& b = layout->blockedParams();
    BlockedLayout out;
    out.sizePerThread = b.sizePerThread;
    out.lanesPerSimd = b.lanesPerSimd;
    out.simdsPerGroup = b.simdsPerGroup;
    out.sizePerThread.insert(out.sizePerThread.begin() + dim, 1);
    out.lanesPerSimd.insert(out.lanesPerSimd.begin() + dim, 1);
    out.simdsPerGroup.insert(out.simdsPerGroup.begin() + dim, 1);
    for (int d : b.order) out.order.push_back(d >= dim ? d + 1 : d);
    out.order.push_back(dim);  // slowest: it never varies
    return DistributedLayout::blocked(out);
  }
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

LayoutPtr reshapeLayout(const LayoutPtr& layout, const std::vector<int64_t>& from, const std::vector<int64_t>& to) {
  if (!layout->isBlocked() || from.empty() || to.empty()) return nullptr;
  const BlockedLayout& b = layout->blockedParams();
  int last = b.rank() - 1;
  if (b.order[0] != last) return nullptr;
  auto prefixEquals = [&](size_t n) {
    for (size_t d = 0; d < n; ++d)
      if (from[d] != to[d]) return false;
    return true;
  };
  if (to.size() + 1 == from.size() && last >= 1 && prefixEquals(to.size() - 1) &&
      to.back() == from[last - 1] * from[last]) {
    // Merge: a thread holds whole runs of the last dimension, and the one
    // before it comes next in order.
    if (b.sizePerThread[last] != from[last] || b.lanesPerSimd[last] != 1 || b.simdsPerGroup[last] != 1 ||
        b.order.size() < 2 || b.order[1] != last - 1)
      return nullptr;
    BlockedLayout runs = b;
    runs.sizePerThread[last - 1] *= b.sizePerThread[last];
    runs.sizePerThread[last] = 1;
    return DistributedLayout::blocked(dropDimension(runs, last));
  }
  if (to.size() == from.size() + 1 && prefixEquals(from.size() - 1) && to[last] * to[last + 1] == from[last]) {
    // Split: each thread's run along the last dimension is whole pieces.
    int64_t piece = to[last + 1];
    if (piece < 1 || b.sizePerThread[last] % piece != 0) return nullptr;
    BlockedLayout out = b;
    out.sizePerThread[last] = static_cast<int>(b.sizePerThread[last] / piece);
    out.sizePerThread.push_back(static_cast<int>(piece));
    out.lanesPerSimd.push_back(1);
    out.simdsPerGroup.push_back(1);
    out.order.insert(out.order.begin(), last + 1);
    return DistributedLayout::blocked(out);
  }
  return nullptr;
}

}  // namespace tmetal::layout
