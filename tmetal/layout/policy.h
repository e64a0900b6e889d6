// The MemoryLayout policy each whole-tensor op gets, with the concrete
// parameters the planner and the kernels use: dimension order, vector width,
// the contiguous run the vectors walk, and tile sizes for tiled ops. The
// analyzer prints these choices; the reduction planner builds on them, so
// there is one source for "which layout".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tmetal/hw/hardware_profile.h"
#include "tmetal/layout/memory_layout.h"

namespace tmetal::layout {

// What an op does with its main input, as far as the layout policy cares.
enum class AccessPattern {
  Reduction,         // combine along some axes (tt.sum, tt.argmax, ...)
  RowNormalization,  // reduce along one axis, then rewrite it (softmax, layernorm)
  Matmul,            // C[M,N] = A[M,K] B[K,N]
  Convolution,       // lowered as an implicit GEMM
  Transpose,
  Elementwise,
};

const char* accessPatternName(AccessPattern p);  // "reduction", "matmul", ...

// The GEMM an op lowers to (matmul as is, conv2d as an implicit GEMM).
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
};

struct TensorAccess {
  std::vector<int64_t> shape;    // every dimension >= 1
  std::vector<int64_t> strides;  // in elements, same rank as shape, >= 0
  int elementBytes = 4;
  std::vector<int> reducedAxes;  // sorted, unique, in range (reductions only)
  std::optional<GemmShape> gemm;  // Matmul / Convolution
};

struct PolicyChoice {
  MemoryLayout policy = MemoryLayout::DEFAULT;
  // Dimensions from fastest- to slowest-varying in memory (Triton's `order`).
  std::vector<int> order;
  // The unit-stride run: the dimensions (fastest first) that together form
  // one contiguous block, and its length in elements. Empty / 1 when no
  // dimension has unit stride.
  std::vector<int> contiguousDims;
  int64_t contiguousElements = 1;
  // Elements per vector access: the largest power of two that fits 16 bytes,
  // divides the contiguous run and keeps every vector aligned.
  int vectorWidth = 1;
  int vectorBytes = 0;
  // COALESCED reductions: true when the contiguous run is reduced (lanes of a
  // SIMD group read neighbouring vectors of one output and combine them),
  // false when it is kept (each lane owns neighbouring outputs).
  bool contiguousRunReduced = false;
  // TILED: {BM, BN, BK} for GEMMs, {rows, columns} for a transpose.
  std::vector<int64_t> tile;
  int64_t threadgroupMemoryBytes = 0;  // TILED staging buffers
  std::string reason;                  // one sentence: why this policy
};

// The widest vector access, in bytes, the COALESCED policy uses (a float4).
inline constexpr int kMaxVectorBytes = 16;

PolicyChoice choosePolicy(AccessPattern pattern, const TensorAccess& access, const hw::HardwareProfile& profile);

// Row-major strides for a shape (the default when an op gives none).
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape);

}  // namespace tmetal::layout
