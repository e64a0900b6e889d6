// A distributed layout applied to one tensor shape: which element of the
// tensor each thread holds in each of its registers.
//
// Everything is computed on the root blocked layout (a slice is its parent
// with extent 1 along the sliced dimension). For root dimension d:
//   index[d] = threadOffset[d](lane, simd) + registerOffset[d](register)
// where threadOffset is the runtime part (lane and SIMD-group coordinates,
// wrapped into the extent) and registerOffset the compile-time part
// (repetition * tile + position inside the thread's block). Registers walk
// the thread's block first (root order, fastest dimension first: a vector is
// a run of consecutive registers), then the repetitions.
//
// When the tile is larger than the tensor, threads hold replicas; exactly one
// thread per element is its owner (the one whose unwrapped offsets are in
// range), and only owners store.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "tmetal/layout/distributed_layout.h"

namespace tmetal::layout {

class TensorMap {
 public:
  // Throws CompileError when the shape's rank differs from the layout's or an
  // extent is not a power of two.
  TensorMap(LayoutPtr layout, std::vector<int64_t> shape);

  const LayoutPtr& layout() const { return layout_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  const BlockedLayout& root() const { return layout_->root(); }
  int rootRank() const { return root().rank(); }
  // The tensor's extents on the root dimensions (1 where sliced).
  const std::vector<int64_t>& rootShape() const { return rootShape_; }
  int numThreads() const { return root().simdWidth() * root().numSimdGroups(); }

  int64_t numRegisters() const { return numRegisters_; }
  // Elements of one block of a thread along root dimension d, and how many
  // times the tile repeats along it.
  int64_t blockElements(int d) const { return block_[d]; }
  int64_t repetitions(int d) const { return reps_[d]; }

  // The root dimension whose consecutive elements a thread holds in
  // consecutive registers (the first in order with more than one element per
  // thread), or -1 when every block holds one element.
  int innermostDim() const;

  // Compile-time part of the index of register r, per root dimension.
  std::vector<int64_t> registerOffset(int64_t r) const;
  // The register whose registerOffset is `offset`; -1 if none.
  int64_t registerAt(const std::vector<int64_t>& offset) const;

  // Lane id = sum over d of laneCoord(d) * laneStride(d); same for SIMD groups.
  int laneStride(int d) const { return laneStride_[d]; }
  int simdStride(int d) const { return simdStride_[d]; }
  int laneCoord(int d, int lane) const;
  int simdCoord(int d, int simd) const;
  // threadOffset before wrapping into the extent.
  int64_t unwrappedThreadOffset(int d, int lane, int simd) const;
  int64_t threadOffset(int d, int lane, int simd) const;
  // Whether the thread offset must be wrapped (the tile exceeds the extent).
  bool wraps(int d) const;

  // How many lanes (SIMD groups) along d hold different elements; the
  // others hold replicas of lane (group) coordinate modulo that count.
  int distinctLanes(int d) const;
  int distinctSimdGroups(int d) const;

  // Tensor index (in the tensor's own dimensions) of register r of `thread`
  // (thread = simd * simdWidth + lane).
  std::vector<int64_t> tensorIndex(int thread, int64_t r) const;
  // Whether `thread` owns (rather than replicates) its elements.
  bool isOwner(int thread) const;

 private:
  LayoutPtr layout_;
  std::vector<int64_t> shape_;
  std::vector<int64_t> rootShape_;
  std::vector<int64_t> block_;
  std::vector<int64_t> reps_;
  std::vector<int> laneStride_;
  std::vector<int> simdStride_;
  int64_t numRegisters_ = 1;
};

// The position of `index` in the row-major order of `shape`.
int64_t rowMajorIndex(const std::vector<int64_t>& index, const std::vector<int64_t>& shape);

// Whether register r of every thread holds the same element (by row-major
// position) in both tensors: a reshape between them moves nothing.
bool sameRegisters(const TensorMap& a, const TensorMap& b);

// For each register of b, the register of a that holds the same element (by
// row-major position) in every thread, the same register in all of them:
// a reshape or conversion between them only renames registers. Nullopt
// where a thread holds one of b's elements in no register of a, or the
// registers differ between threads.
std::optional<std::vector<int64_t>> registerPermutation(const TensorMap& a, const TensorMap& b);

}  // namespace tmetal::layout
