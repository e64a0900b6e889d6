#include "tmetal/layout/policy.h"

#include <algorithm>
#include <numeric>

#include "tmetal/support/diagnostic.h"
#include "tmetal/support/power_of_two.h"

namespace tmetal::layout {

namespace {

// Dimensions fastest-varying first: by stride, ties by the later logical
// dimension first (as row-major would have it); size-1 dimensions, whose
// stride means nothing, go last.
std::vector<int> memoryOrder(const TensorAccess& a) {
  std::vector<int> order(a.shape.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    bool xUnit = a.shape[x] == 1, yUnit = a.shape[y] == 1;
    if (xUnit != yUnit) return !xUnit;
    if (a.strides[x] != a.strides[y]) return a.strides[x] < a.strides[y];
    return x > y;
  });
  return order;
}

bool isReduced(const TensorAccess& a, int dim) {
  return std::find(a.reducedAxes.begin(), a.reducedAxes.end(), dim) != a.reducedAxes.end();
}

// The unit-stride run: starting at the dimension with stride 1, absorb the
// dimension whose stride equals the run length so far, as long as it plays
// the same role (reduced or kept). A kept dimension in the middle of reduced
// ones breaks the run, since one vector must belong to one role.
void findContiguousRun(const TensorAccess& a, bool byRole, PolicyChoice& c) {
  int start = -1;
  for (int d = static_cast<int>(a.shape.size()) - 1; d >= 0; --d)
    if (a.shape[d] > 1 && a.strides[d] == 1) {
      start = d;
      break;
    }
  if (start < 0) return;
  const bool role = isReduced(a, start);
  c.contiguousDims = {start};
  c.contiguousElements = a.shape[start];
  c.contiguousRunReduced = role;
  for (bool grown = true; grown;) {
    grown = false;
    for (int d = 0; d < static_cast<int>(a.shape.size()); ++d) {
      if (a.shape[d] == 1 || std::find(c.contiguousDims.begin(), c.contiguousDims.end(), d) != c.contiguousDims.end())
        continue;
      if (a.strides[d] != c.contiguousElements || (byRole && isReduced(a, d) != role)) continue;
      c.contiguousDims.push_back(d);
      c.contiguousElements *= a.shape[d];
      grown = true;
      break;
    }
  }
}

// Largest power of two <= 16 bytes that divides the run and every stride
// outside it, so each vector stays inside the run and starts aligned.
int vectorWidthFor(const TensorAccess& a, const PolicyChoice& c) {
  if (c.contiguousDims.empty()) return 1;
  int width = std::max(1, kMaxVectorBytes / a.elementBytes);
  auto fits = [&](int v) {
    if (c.contiguousElements % v != 0) return false;
    for (int d = 0; d < static_cast<int>(a.shape.size()); ++d) {
      bool inRun = std::find(c.contiguousDims.begin(), c.contiguousDims.end(), d) != c.contiguousDims.end();
      if (!inRun && a.shape[d] > 1 && a.strides[d] % v != 0) return false;
    }
    return true;
  };
  while (width > 1 && !fits(width)) width /= 2;
  return width;
}

std::string dimsText(const std::vector<int>& dims) {
  std::string s;
  for (int d : dims) s += (s.empty() ? "" : ",") + std::to_string(d);
  return "[" + s + "]";
}

// A GEMM tile: square BM = BN, the largest power of two that (a) does not
// exceed the problem, (b) keeps BM*BN accumulators within 16 registers per
// thread of a full threadgroup, and (c) lets the A and B tiles of one K step
// (BK = one SIMD width of K) fit in threadgroup memory together.
void chooseGemmTile(const GemmShape& g, int elementBytes, const hw::HardwareProfile& p, PolicyChoice& c) {
  const int64_t bk = std::min<int64_t>(p.simdWidth, nextPowerOfTwo(g.k));
  int64_t tile = std::min(nextPowerOfTwo(g.m), nextPowerOfTwo(g.n));
  while (tile > 8 && (tile * tile > int64_t(p.maxThreadsPerThreadgroup) * 16 ||
                      2 * tile * bk * elementBytes > p.threadgroupMemoryBytes))
    tile /= 2;
  c.tile = {tile, tile, bk};
  c.threadgroupMemoryBytes = 2 * tile * bk * elementBytes;
}

}  // namespace

const char* accessPatternName(AccessPattern p) {
  switch (p) {
    case AccessPattern::Reduction: return "reduction";
    case AccessPattern::RowNormalization: return "row-normalization";
    case AccessPattern::Matmul: return "matmul";
    case AccessPattern::Convolution: return "convolution";
    case AccessPattern::Transpose: return "transpose";
    case AccessPattern::Elementwise: return "elementwise";
  }
  return "?";
}

std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

PolicyChoice choosePolicy(AccessPattern pattern, const TensorAccess& a, const hw::HardwareProfile& profile) {
  if (a.strides.size() != a.shape.size())
    throw CompileError("layout policy: " + std::to_string(a.strides.size()) + " strides for a rank-" +
                       std::to_string(a.shape.size()) + " tensor");
  PolicyChoice c;
  c.order = memoryOrder(a);
  const bool byRole = pattern == AccessPattern::Reduction || pattern == AccessPattern::RowNormalization;
  findContiguousRun(a, byRole, c);
  c.vectorWidth = vectorWidthFor(a, c);
  c.vectorBytes = c.vectorWidth * a.elementBytes;

  switch (pattern) {
    case AccessPattern::Reduction:
    case AccessPattern::RowNormalization:
      // Every reduction is COALESCED: the SIMD hardware combines lanes, so
      // lanes must sit along contiguous memory.
      c.policy = MemoryLayout::COALESCED;
      if (c.contiguousDims.empty())
        c.reason = "no dimension has unit stride: lanes gather single elements";
      else if (c.contiguousRunReduced)
        c.reason = "the contiguous run " + dimsText(c.contiguousDims) +
                   " is reduced: neighbouring lanes read neighbouring " + std::to_string(c.vectorWidth) +
                   "-wide vectors of one output and combine through the SIMD group";
      else
        c.reason = "the contiguous run " + dimsText(c.contiguousDims) + " is kept: each lane owns " +
                   std::to_string(c.vectorWidth) + " neighbouring outputs and walks the reduced axes";
      return c;
    case AccessPattern::Matmul:
    case AccessPattern::Convolution: {
      if (!a.gemm) throw CompileError("layout policy: a GEMM-like op needs its M, N and K");
      c.policy = MemoryLayout::TILED;
      chooseGemmTile(*a.gemm, a.elementBytes, profile, c);
      c.reason = std::string(pattern == AccessPattern::Convolution ? "implicit GEMM: " : "") +
                 "A and B tiles are staged in threadgroup memory and reused across the tile";
      return c;
    }
    case AccessPattern::Transpose:
      // One SIMD width square, padded by one column so that the column reads
      // of the staged tile hit different threadgroup-memory banks.
      c.policy = MemoryLayout::TILED;
      c.tile = {profile.simdWidth, profile.simdWidth};
      c.threadgroupMemoryBytes = int64_t(profile.simdWidth) * (profile.simdWidth + 1) * a.elementBytes;
      c.reason = "reads rows and writes columns: a tile staged in threadgroup memory keeps both coalesced";
      return c;
    case AccessPattern::Elementwise: {
      std::vector<int> nonUnit;
      for (int d : c.order)
        if (a.shape[d] > 1) nonUnit.push_back(d);
      bool rowMajor = true, columnMajor = true;
      for (size_t i = 1; i < nonUnit.size(); ++i) {
        if (nonUnit[i] > nonUnit[i - 1]) rowMajor = false;
        if (nonUnit[i] < nonUnit[i - 1]) columnMajor = false;
      }
      const bool dense = !c.contiguousDims.empty();
      if (dense && rowMajor) {
        c.policy = MemoryLayout::ROW_MAJOR;
        c.reason = "the last dimension is contiguous: threads walk memory in row-major order";
      } else if (dense && columnMajor) {
        c.policy = MemoryLayout::COLUMN_MAJOR;
        c.reason = "the first dimension is contiguous: threads walk memory in column-major order";
      } else {
        c.policy = MemoryLayout::DEFAULT;
        c.reason = dense ? "permuted strides: threads follow the memory order " + dimsText(c.order)
                         : "no dimension has unit stride: the default blocked layout";
      }
      return c;
    }
  }
  return c;
}

}  // namespace tmetal::layout
