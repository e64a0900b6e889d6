// The MemoryLayout policy of whole-tensor ops: every reduction COALESCED,
// vector widths and contiguous runs from the strides, tiles from the
// profile's threadgroup memory.
#include <gtest/gtest.h>

#include "tmetal/hw/hardware_profile.h"
#include "tmetal/layout/policy.h"

using namespace tmetal;
using namespace tmetal::layout;

namespace {
const hw::HardwareProfile& generic() {
  static const hw::HardwareProfile p = *hw::findHardwareProfile("apple-generic");
  return p;
}
TensorAccess access(std::vector<int64_t> shape, std::vector<int64_t> strides, int bytes, std::vector<int> axes = {}) {
  if (strides.empty()) strides = rowMajorStrides(shape);
  return TensorAccess{shape, strides, bytes, axes, std::nullopt};
}
}  // namespace

TEST(LayoutPolicy, ReductionsAreCoalescedWithTheRunTheyReduce) {
  PolicyChoice rows = choosePolicy(AccessPattern::Reduction, access({512, 512}, {}, 4, {1}), generic());
  EXPECT_EQ(rows.policy, MemoryLayout::COALESCED);
  EXPECT_EQ(rows.order, (std::vector<int>{1, 0}));
  EXPECT_EQ(rows.contiguousDims, (std::vector<int>{1}));
  EXPECT_EQ(rows.contiguousElements, 512);
  EXPECT_TRUE(rows.contiguousRunReduced);
  EXPECT_EQ(rows.vectorWidth, 4);
  EXPECT_EQ(rows.vectorBytes, 16);

  PolicyChoice columns = choosePolicy(AccessPattern::Reduction, access({512, 512}, {}, 4, {0}), generic());
  EXPECT_EQ(columns.policy, MemoryLayout::COALESCED);
  EXPECT_FALSE(columns.contiguousRunReduced);

  // Reducing the last two of three dimensions: they merge into one run.
  PolicyChoice merged = choosePolicy(AccessPattern::Reduction, access({8, 16, 32}, {}, 2, {1, 2}), generic());
  EXPECT_EQ(merged.contiguousDims, (std::vector<int>{2, 1}));
  EXPECT_EQ(merged.contiguousElements, 512);
  EXPECT_EQ(merged.vectorWidth, 8);  // 16 bytes of float16
}

TEST(LayoutPolicy, VectorWidthDividesTheRunAndKeepsAlignment) {
  EXPECT_EQ(choosePolicy(AccessPattern::Reduction, access({4, 6}, {}, 4, {1}), generic()).vectorWidth, 2);
  EXPECT_EQ(choosePolicy(AccessPattern::Reduction, access({4, 7}, {}, 4, {1}), generic()).vectorWidth, 1);
  // Padded rows (stride 10 for 8 elements): vectors of 2 stay aligned, 4 would not.
  EXPECT_EQ(choosePolicy(AccessPattern::Reduction, access({4, 8}, {10, 1}, 4, {1}), generic()).vectorWidth, 2);
  EXPECT_EQ(choosePolicy(AccessPattern::Reduction, access({64}, {}, 8, {0}), generic()).vectorWidth, 2);
  EXPECT_EQ(choosePolicy(AccessPattern::Reduction, access({64}, {}, 1, {0}), generic()).vectorWidth, 16);
  // No unit stride at all: single elements.
  PolicyChoice strided = choosePolicy(AccessPattern::Reduction, access({4, 8}, {16, 2}, 4, {1}), generic());
  EXPECT_TRUE(strided.contiguousDims.empty());
  EXPECT_EQ(strided.vectorWidth, 1);
}

TEST(LayoutPolicy, ElementwiseFollowsTheMemoryOrder) {
  EXPECT_EQ(choosePolicy(AccessPattern::Elementwise, access({64, 32}, {}, 4), generic()).policy,
            MemoryLayout::ROW_MAJOR);
  EXPECT_EQ(choosePolicy(AccessPattern::Elementwise, access({64, 32}, {1, 64}, 4), generic()).policy,
            MemoryLayout::COLUMN_MAJOR);
  PolicyChoice permuted = choosePolicy(AccessPattern::Elementwise, access({4, 8, 16}, {16, 64, 1}, 4), generic());
  EXPECT_EQ(permuted.policy, MemoryLayout::DEFAULT);
  EXPECT_EQ(permuted.order, (std::vector<int>{2, 0, 1}));
}

TEST(LayoutPolicy, TilesComeFromThreadgroupMemory) {
  TensorAccess gemm = access({1024, 512}, {}, 4);
  gemm.gemm = GemmShape{1024, 1024, 512};
  PolicyChoice f32 = choosePolicy(AccessPattern::Matmul, gemm, generic());
  EXPECT_EQ(f32.policy, MemoryLayout::TILED);
  EXPECT_EQ(f32.tile, (std::vector<int64_t>{128, 128, 32}));
  EXPECT_EQ(f32.threadgroupMemoryBytes, 32768);  // exactly the 32 KB Apple allows
  gemm.elementBytes = 8;
  EXPECT_EQ(choosePolicy(AccessPattern::Matmul, gemm, generic()).tile, (std::vector<int64_t>{64, 64, 32}));
  // Small problems get small tiles.
  TensorAccess small = access({16, 8}, {}, 4);
  small.gemm = GemmShape{16, 24, 8};
  EXPECT_EQ(choosePolicy(AccessPattern::Matmul, small, generic()).tile, (std::vector<int64_t>{16, 16, 8}));

  PolicyChoice t = choosePolicy(AccessPattern::Transpose, access({256, 128}, {}, 4), generic());
  EXPECT_EQ(t.policy, MemoryLayout::TILED);
  EXPECT_EQ(t.tile, (std::vector<int64_t>{32, 32}));
  EXPECT_EQ(t.threadgroupMemoryBytes, 32 * 33 * 4);
}
