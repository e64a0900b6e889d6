// How each MemoryLayout policy builds the blocked layout of one tensor shape.
// The layout assignment calls this for the tensors that anchor layouts
// (loads, stores, atomics, reductions, dots) and for tensors nothing anchors.
//
//   COALESCED  order from the contiguity of the accessed memory; up to 16-byte
//              vectors along the contiguous dimension where contiguity and
//              alignment allow (single elements of 4 bytes or more where a
//              loop of loads reduces along it, so that the lowering can put
//              all its unrolled trips' loads in flight); lanes cover 128-byte
//              rows of the contiguous dimension, then the reduced axis (so the
//              SIMD hardware does the combining), then the rest; SIMD groups go
//              to dimensions that are not reduced, so most reductions never
//              leave a SIMD group.
//   ROW_MAJOR  no vectors; lanes walk the last dimension first, SIMD groups
//              take the first (a SIMD group per row band).
//   COLUMN_MAJOR  the mirror image: lanes walk the first dimension, SIMD
//              groups the last; a 1-D tensor gives each thread one contiguous
//              run (the vector read as a column per thread).
//   TILED      2x2 blocks per thread (4 in 1-D), lanes as a square-ish 4x8
//              grid, SIMD groups as square-ish as their number allows.
//   DEFAULT    resolves to COALESCED.
#pragma once

#include <cstdint>
#include <vector>

#include "tmetal/layout/blocked_layout.h"
#include "tmetal/layout/memory_layout.h"

namespace tmetal::layout {

constexpr int kSimdWidth = 32;          // Apple GPUs and NVIDIA warps alike
constexpr int kMaxVectorAccessBytes = 16;
constexpr int kCoalescedRowBytes = 128;  // one memory transaction of a SIMD group
// Elements at least this wide are read one per access in a loop that the
// lowering writes out loads first (docs/layouts.md, "Loops of loads").
constexpr int kLoopElementBytes = 4;

// What COALESCED knows about a tensor from the memory accesses that use it.
struct AccessHint {
  std::vector<int> order;      // fastest first; empty: row-major
  int vectorElements = 1;      // elements one vector access may cover
  int elementBytes = 4;
  std::vector<int> reducedAxes;  // axes a downstream tt.reduce / tt.scan combines along
  // Every access of the tensor is a load in a loop whose body only loads and
  // computes registers (ir::isRegisterOnlyLoop), which the lowering writes
  // out loads first when its loads read single elements.
  bool inRegisterOnlyLoop = false;
  // The widest element any store of the tensor writes (0: none is stored):
  // a thread's run along the fastest dimension is one vector of it at most.
  int storedElementBytes = 0;
};

// The policy a user-visible MemoryLayout value stands for (DEFAULT -> COALESCED).
MemoryLayout resolvePolicy(MemoryLayout policy);

BlockedLayout chooseBlockedLayout(MemoryLayout policy, const std::vector<int64_t>& shape, int numSimdGroups,
                                  const AccessHint& hint);

// The accumulator layout COALESCED gives tt.dot: a register tile of up to
// 4x4 elements per thread, so that each k step reads a row of A and a column
// of B once for up to 16 FMAs (lanes along N, SIMD groups along M).
BlockedLayout chooseDotLayout(const std::vector<int64_t>& shape, int numSimdGroups);

// The edge of a SIMD-group matrix (simdgroup_float8x8; mma.sync's tiles).
constexpr int64_t kMatrixTile = 8;

// The SIMD groups of a tt.dot on SIMD-group matrices as a grid over C's
// tilesM x tilesN tiles; {0, 0} when none fits.
struct MatrixGroups {
  int groupsM = 0, groupsN = 0;
  bool operator==(const MatrixGroups&) const = default;
};
// As many groups as divide the tiles evenly, then the squarest blocks (fewest
// tile loads per multiply). `rowsOnly`: every group along the rows, where
// they divide them evenly - a dot chained to another one, or whose rows are
// reduced, then keeps each row in one SIMD group (Triton's choice for
// chained dots, for the same reason).
MatrixGroups chooseMatrixGroups(int64_t tilesM, int64_t tilesN, int simdGroups, bool rowsOnly);

// The registers of C's tiles, where every SIMD group takes part: lane 4g + t
// holds elements (g, 2t) and (g, 2t + 1) of each tile of its group, and group
// (i, j) the tiles (i + a * groupsM, j + b * groupsN), a tile's two registers
// after the previous tile's (row-major over the group's tiles). This is
// mma.sync's accumulator on CUDA; on Metal one shuffle a tile moves them to
// and from the lanes the tile's hardware layout gives them (CEmitter::
// matrixToRegisters).
BlockedLayout matrixAccumulatorLayout(MatrixGroups groups);
// The grid of a matrix accumulator layout; {0, 0} for any other layout.
MatrixGroups matrixGroupsOf(const BlockedLayout& b);

}  // namespace tmetal::layout
