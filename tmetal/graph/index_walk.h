// An index walk: a linear index decomposed over a list of dimensions
// (outermost first, row-major) and recombined with another set of strides,
// offset = sum of coordinate_d * stride_d. It is how the reduction kernels
// turn a plan output or reduce index into a memory offset, an output
// position or an argmax index. The sizes and strides reach the kernel as
// scalar arguments, so one compiled kernel serves every shape whose walks
// have the same number of dimensions.
#pragma once

#include <cstdint>
#include <vector>

namespace tmetal::graph {

struct IndexWalk {
  std::vector<int64_t> sizes;    // outermost first
  std::vector<int64_t> strides;  // one per size

  int dims() const { return static_cast<int>(sizes.size()); }
  int64_t count() const;  // product of the sizes
  // sum of coordinate_d * stride_d for the coordinates of `index`. The
  // outermost coordinate is index / (inner sizes) without a modulo, exactly
  // as the kernels compute it.
  int64_t apply(int64_t index) const;
  // Whether apply() strictly increases with the index over [0, count()):
  // every stride exceeds the largest offset the dimensions inside it reach.
  bool increasing() const;
};

// The simplest walk equal to the given one for every index below the
// product of the sizes: dimensions of size 1 are dropped, and an outer
// dimension merges with its inner neighbour when its stride is the
// neighbour's size times the neighbour's stride.
IndexWalk simplifyWalk(std::vector<int64_t> sizes, std::vector<int64_t> strides);

// Walks in units of vectors of `width` elements, which is how the kernels
// keep AxisInfo able to prove their vector accesses aligned: they compute
// offsets in vectors and multiply by the width last. Both require what the
// plan guarantees for its vector width and throw std::logic_error otherwise.
//
// A walk over a reduce space whose innermost dimension is the contiguous
// run: the innermost dimension counted in vectors (its stride must be 1 and
// its size a multiple of `width`), every other stride in vectors.
IndexWalk vectorizeRun(const IndexWalk& walk, int width);
// A walk over dimensions outside the contiguous run: every stride in vectors.
IndexWalk stridesInVectors(const IndexWalk& walk, int width);

}  // namespace tmetal::graph
