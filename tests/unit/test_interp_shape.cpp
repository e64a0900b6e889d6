// Ops that rearrange tensors: broadcast, expand_dims, reshape, trans, join,
// split and cat keep every element and move it where Triton says.
#include <gtest/gtest.h>

#include "interp_test_support.h"

using namespace tmetal;
using namespace tmetal::interp;
using namespace tmetal::interp::testing;
using ir::Attribute;
using ir::Type;

namespace {

// Loads a rows x cols i32 matrix, applies `rearrange`, and stores the result
// row-major into a buffer of the same number of elements.
std::vector<int32_t> rearranged(int64_t rows, int64_t cols,
                                const std::function<ir::Value*(ir::Builder&, ir::Value*)>& rearrange) {
  KernelUnderTest t;
  ir::Value* in = t.arg(Type::pointer(Type::i32()), "in_ptr");
  ir::Value* out = t.arg(Type::pointer(Type::i32()), "out_ptr");
  ir::Value* x = t.b.load(pointersAtShape(t.b, in, matrixOffsets(t.b, rows, cols)));
  ir::Value* y = rearrange(t.b, x);
  const std::vector<int64_t>& shape = y->type().shape();
  ir::Value* offsets = shape.size() == 1 ? t.b.makeRange(0, shape[0]) : matrixOffsets(t.b, shape[0], shape[1]);
  t.b.store(pointersAtShape(t.b, out, offsets), y);
  t.b.ret();
  std::vector<int32_t> m(rows * cols);
  for (int32_t i = 0; i < rows * cols; ++i) m[i] = i;
  std::vector<KernelArg> args{bufferOf(m), bufferOf(std::vector<int32_t>(y->type().numElements()))};
  interpret(*t.kernel, args, {1, 1, 1});
  return contentsOf<int32_t>(args[1]);
}

}  // namespace

TEST(InterpShape, TransposeFollowsOrder) {
  auto t = [](ir::Builder& b, ir::Value* x) {
    return b.create1("tt.trans", {x}, Type::tensor({3, 2}, Type::i32()), attrs({{"order", Attribute::denseArray({1, 0})}}));
  };
  EXPECT_EQ(rearranged(2, 3, t), (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
}

TEST(InterpShape, ReshapeKeepsRowMajorOrder) {
  auto r = [](ir::Builder& b, ir::Value* x) { return b.create1("tt.reshape", {x}, Type::tensor({3, 2}, Type::i32())); };
  EXPECT_EQ(rearranged(2, 3, r), (std::vector<int32_t>{0, 1, 2, 3, 4, 5}));
}

TEST(InterpShape, BroadcastRepeatsSizeOneDimensions) {
  // Row 1 of the matrix, as 1x3, broadcast to 2x3.
  auto bc = [](ir::Builder& b, ir::Value* x) {
    ir::Value* row = b.create1("tt.trans", {x}, Type::tensor({3, 2}, Type::i32()), attrs({{"order", Attribute::denseArray({1, 0})}}));
    ir::Value* pair = b.create("tt.split", {row}, {Type::tensor({3}, Type::i32()), Type::tensor({3}, Type::i32())})->result(1);
    return b.broadcast(b.expandDims(pair, 0), {2, 3});
  };
  EXPECT_EQ(rearranged(2, 3, bc), (std::vector<int32_t>{3, 4, 5, 3, 4, 5}));
}

TEST(InterpShape, JoinInterleavesAndSplitSeparates) {
  auto joinRows = [](ir::Builder& b, ir::Value* x) {
    ir::Value* cols = b.create1("tt.trans", {x}, Type::tensor({3, 2}, Type::i32()), attrs({{"order", Attribute::denseArray({1, 0})}}));
    ir::Operation* parts = b.create("tt.split", {cols}, {Type::tensor({3}, Type::i32()), Type::tensor({3}, Type::i32())});
    // join(row1, row0): pairs (3, 0), (4, 1), (5, 2)
    return b.create1("tt.join", {parts->result(1), parts->result(0)}, Type::tensor({3, 2}, Type::i32()));
  };
  EXPECT_EQ(rearranged(2, 3, joinRows), (std::vector<int32_t>{3, 0, 4, 1, 5, 2}));
}

TEST(InterpShape, CatAppendsAlongTheFirstDimension) {
  auto cat = [](ir::Builder& b, ir::Value* x) {
    ir::Value* flat = b.create1("tt.reshape", {x}, Type::tensor({6}, Type::i32()));
    return b.create1("tt.cat", {flat, flat}, Type::tensor({12}, Type::i32()));
  };
  EXPECT_EQ(rearranged(2, 3, cat), (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5}));
}
