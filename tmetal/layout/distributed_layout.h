// Distributed layouts: a blocked layout, or a slice of one (the layout a
// reduction along `dim` leaves, which expand_dims(dim) turns back into the
// parent). Layouts are immutable and shared; compare them with sameLayout().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tmetal/layout/blocked_layout.h"

namespace tmetal::layout {

class DistributedLayout;
using LayoutPtr = std::shared_ptr<const DistributedLayout>;

class DistributedLayout {
 public:
  static LayoutPtr blocked(BlockedLayout params);
  // `parent` without dimension `dim`. Canonical: slicing a dimension that the
  // parent does not spread (one element, lane and SIMD group) gives the
  // blocked layout without it, so that equal mappings compare equal.
  static LayoutPtr slice(const LayoutPtr& parent, int dim);

  bool isBlocked() const { return !parent_; }
  bool isSlice() const { return static_cast<bool>(parent_); }
  const BlockedLayout& blockedParams() const { return root_; }  // blocked layouts only
  const LayoutPtr& parent() const { return parent_; }           // slices only
  int sliceDim() const { return sliceDim_; }                    // slices only
  int rank() const { return static_cast<int>(rootDims_.size()); }

  // The blocked layout at the bottom of the slice chain, and for each
  // dimension of this layout the root dimension it is. Root dimensions not
  // listed are sliced away: the tensor has extent 1 there.
  const BlockedLayout& root() const { return root_; }
  const std::vector<int>& rootDims() const { return rootDims_; }

  // "blocked{...}" or "slice{dim=1, parent=blocked{...}}"
  std::string str() const;
  bool operator==(const DistributedLayout& o) const;

 private:
  BlockedLayout root_;
  LayoutPtr parent_;
  int sliceDim_ = -1;
  std::vector<int> rootDims_;
};

// Null-safe structural equality.
bool sameLayout(const LayoutPtr& a, const LayoutPtr& b);

// expand_dims on a layout: a new dimension at `dim` holding one element,
// spread over nothing; the register mapping is unchanged. Slices of `dim`
// give the parent back.
LayoutPtr insertDimension(const LayoutPtr& layout, int dim);

// tt.trans on a layout: result dimension i is operand dimension order[i].
// Null when the layout is a slice that cannot be permuted in place.
LayoutPtr permuteLayout(const LayoutPtr& layout, const std::vector<int>& order);

// tt.join on a layout: a new last dimension of 2 held in each thread's
// registers, fastest in order, so that a thread holds both operands'
// elements of every position it held. Null for slices.
LayoutPtr appendPairDimension(const LayoutPtr& layout);

// tt.split on a layout whose last dimension (of 2) lies in each thread's
// registers (two elements per thread, one lane and one SIMD group along it):
// the layout without it, which holds each half where the pair was. Null
// when the pair is spread over threads, or for slices.
LayoutPtr dropPairDimension(const LayoutPtr& layout);

// tt.reshape on a layout, where it keeps every register where it is:
// merging two neighbouring dimensions, the first next in order after the
// second, when each thread holds whole runs of the second or the first is
// only repeated; removing or inserting dimensions of extent 1; or splitting
// the last dimension into two or more (a flat block reshaped into groups),
// its thread's run, lanes, SIMD groups and
// repetitions going to the last new dimension first, wherever the layout's
// tile along it does not exceed its extent. Null otherwise: the reshape
// then goes through threadgroup memory.
LayoutPtr reshapeLayout(const LayoutPtr& layout, const std::vector<int64_t>& from, const std::vector<int64_t>& to);

// The merges of reshapeLayout without its order condition: each thread
// holds the elements it held, not all in the registers they were in (the
// lowering renames its registers; no element moves between threads). Null
// where no merge applies.
LayoutPtr reshapeLayoutKeepingThreads(const LayoutPtr& layout, const std::vector<int64_t>& from,
                                      const std::vector<int64_t>& to);

}  // namespace tmetal::layout
