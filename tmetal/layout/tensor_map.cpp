#include "tmetal/layout/tensor_map.h"

#include <algorithm>
#include <unordered_map>

#include "tmetal/support/diagnostic.h"
#include "tmetal/support/power_of_two.h"

namespace tmetal::layout {

namespace {

std::string shapeStr(const std::vector<int64_t>& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "x" : "") + std::to_string(s[i]);
  return out;
}
}  // namespace

TensorMap::TensorMap(LayoutPtr layout, std::vector<int64_t> shape) : layout_(std::move(layout)), shape_(std::move(shape)) {
  if (static_cast<int>(shape_.size()) != layout_->rank())
    throw CompileError("tensor of shape " + shapeStr(shape_) + " cannot take the rank-" +
                       std::to_string(layout_->rank()) + " layout " + layout_->str());
  for (int64_t e : shape_)
    if (!isPowerOfTwo(e))
      throw CompileError("tensor of shape " + shapeStr(shape_) + ": every extent must be a power of two");
  const BlockedLayout& b = root();
  int r = b.rank();
  rootShape_.assign(r, 1);
  for (int i = 0; i < layout_->rank(); ++i) rootShape_[layout_->rootDims()[i]] = shape_[i];
  block_.resize(r);
  reps_.resize(r);
  laneStride_.resize(r);
  simdStride_.resize(r);
  int lane = 1, simd = 1;
  for (int d : b.order) {
    laneStride_[d] = lane;
    simdStride_[d] = simd;
    lane *= b.lanesPerSimd[d];
    simd *= b.simdsPerGroup[d];
  }
  for (int d = 0; d < r; ++d) {
    block_[d] = std::min<int64_t>(b.sizePerThread[d], rootShape_[d]);
    reps_[d] = std::max<int64_t>(1, rootShape_[d] / b.tile(d));
    numRegisters_ *= block_[d] * reps_[d];
  }
}

int TensorMap::innermostDim() const {
  for (int d : root().order)
    if (block_[d] > 1) return d;
  return -1;
}

std::vector<int64_t> TensorMap::registerOffset(int64_t r) const {
  const BlockedLayout& b = root();
  std::vector<int64_t> off(rootRank(), 0);
  for (int d : b.order) {
    off[d] = r % block_[d];
    r /= block_[d];
  }
  for (int d : b.order) {
    off[d] += (r % reps_[d]) * b.tile(d);
    r /= reps_[d];
  }
  return off;
}

int64_t TensorMap::registerAt(const std::vector<int64_t>& offset) const {
  const BlockedLayout& b = root();
  int64_t r = 0, scale = 1;
  for (int d : b.order) {
    int64_t within = offset[d] % b.tile(d);
    if (within >= block_[d]) return -1;
    r += within * scale;
    scale *= block_[d];
  }
  for (int d : b.order) {
    int64_t rep = offset[d] / b.tile(d);
    if (rep >= reps_[d]) return -1;
    r += rep * scale;
    scale *= reps_[d];
  }
  return r;
}

int TensorMap::laneCoord(int d, int lane) const { return (lane / laneStride_[d]) % root().lanesPerSimd[d]; }
int TensorMap::simdCoord(int d, int simd) const { return (simd / simdStride_[d]) % root().simdsPerGroup[d]; }

int64_t TensorMap::unwrappedThreadOffset(int d, int lane, int simd) const {
  const BlockedLayout& b = root();
  return (static_cast<int64_t>(laneCoord(d, lane)) + static_cast<int64_t>(simdCoord(d, simd)) * b.lanesPerSimd[d]) *
         b.sizePerThread[d];
}

int64_t TensorMap::threadOffset(int d, int lane, int simd) const {
  return unwrappedThreadOffset(d, lane, simd) & (rootShape_[d] - 1);
}

bool TensorMap::wraps(int d) const {
  const BlockedLayout& b = root();
  int64_t maxOffset = static_cast<int64_t>(b.lanesPerSimd[d] * b.simdsPerGroup[d] - 1) * b.sizePerThread[d];
  return maxOffset >= rootShape_[d];
}

int TensorMap::distinctLanes(int d) const {
  const BlockedLayout& b = root();
  int64_t n = rootShape_[d] / b.sizePerThread[d];
  return static_cast<int>(std::clamp<int64_t>(n, 1, b.lanesPerSimd[d]));
}

int TensorMap::distinctSimdGroups(int d) const {
  const BlockedLayout& b = root();
  int64_t n = rootShape_[d] / (static_cast<int64_t>(b.sizePerThread[d]) * b.lanesPerSimd[d]);
  return static_cast<int>(std::clamp<int64_t>(n, 1, b.simdsPerGroup[d]));
}

std::vector<int64_t> TensorMap::tensorIndex(int thread, int64_t r) const {
  int width = root().simdWidth();
  int lane = thread % width, simd = thread / width;
  std::vector<int64_t> off = registerOffset(r);
  std::vector<int64_t> index;
  for (int d : layout_->rootDims()) index.push_back(threadOffset(d, lane, simd) + off[d]);
  return index;
}

bool TensorMap::isOwner(int thread) const {
  int width = root().simdWidth();
  int lane = thread % width, simd = thread / width;
  for (int d = 0; d < rootRank(); ++d)
    if (unwrappedThreadOffset(d, lane, simd) >= rootShape_[d]) return false;
  return true;
}

int64_t rowMajorIndex(const std::vector<int64_t>& index, const std::vector<int64_t>& shape) {
  int64_t linear = 0;
  for (size_t d = 0; d < shape.size(); ++d) linear = linear * shape[d] + index[d];
  return linear;
}

bool sameRegisters(const TensorMap& a, const TensorMap& b) {
  if (a.numThreads() != b.numThreads() || a.numRegisters() != b.numRegisters()) return false;
  for (int thread = 0; thread < a.numThreads(); ++thread)
    for (int64_t r = 0; r < a.numRegisters(); ++r)
      if (rowMajorIndex(a.tensorIndex(thread, r), a.shape()) != rowMajorIndex(b.tensorIndex(thread, r), b.shape()))
        return false;
  return true;
}

std::optional<std::vector<int64_t>> registerPermutation(const TensorMap& a, const TensorMap& b) {
  if (a.numThreads() != b.numThreads()) return std::nullopt;
  std::vector<int64_t> from(b.numRegisters(), -1);
  std::unordered_map<int64_t, int64_t> registerOf;
  for (int thread = 0; thread < a.numThreads(); ++thread) {
    registerOf.clear();
    for (int64_t r = 0; r < a.numRegisters(); ++r)
      registerOf.try_emplace(rowMajorIndex(a.tensorIndex(thread, r), a.shape()), r);
    for (int64_t r = 0; r < b.numRegisters(); ++r) {
      auto it = registerOf.find(rowMajorIndex(b.tensorIndex(thread, r), b.shape()));
      if (it == registerOf.end() || (thread > 0 && from[r] != it->second)) return std::nullopt;
      from[r] = it->second;
    }
  }
  return from;
}

}  // namespace tmetal::layout
