#include "tmetal/graph/index_walk.h"

#include <stdexcept>
#include <string>

namespace tmetal::graph {

int64_t IndexWalk::count() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

int64_t IndexWalk::apply(int64_t index) const {
  int64_t offset = 0;
  for (int d = dims() - 1; d >= 0; --d) {
    const int64_t coordinate = d == 0 ? index : index % sizes[d];
    offset += coordinate * strides[d];
    index /= sizes[d];
  }
  return offset;
}

bool IndexWalk::increasing() const {
  int64_t innerSpan = 0;  // the largest offset of the dimensions inside d
  for (int d = dims() - 1; d >= 0; --d) {
    if (strides[d] <= innerSpan) return false;
    innerSpan += (sizes[d] - 1) * strides[d];
  }
  return true;
}

IndexWalk simplifyWalk(std::vector<int64_t> sizes, std::vector<int64_t> strides) {
  IndexWalk walk;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    // Merging keeps every offset: (c_outer * size + c_inner) * stride_inner
    // equals c_outer * stride_outer + c_inner * stride_inner.
    if (!walk.sizes.empty() && walk.strides.back() == sizes[d] * strides[d]) {
      walk.sizes.back() *= sizes[d];
      walk.strides.back() = strides[d];
      continue;
    }
    walk.sizes.push_back(sizes[d]);
    walk.strides.push_back(strides[d]);
  }
  return walk;
}

namespace {

std::logic_error brokenContract(int width, const std::string& what) {
  return std::logic_error("index walk: vectors of " + std::to_string(width) + " elements need " + what);
}

}  // namespace

IndexWalk stridesInVectors(const IndexWalk& walk, int width) {
  IndexWalk vectors = walk;
  for (int64_t& stride : vectors.strides) {
    if (stride % width != 0) throw brokenContract(width, "strides they divide");
    stride /= width;
  }
  return vectors;
}

IndexWalk vectorizeRun(const IndexWalk& walk, int width) {
  if (width == 1) return walk;
  if (walk.sizes.empty() || walk.strides.back() != 1)
    throw brokenContract(width, "a unit-stride innermost dimension");
  if (walk.sizes.back() % width != 0) throw brokenContract(width, "an innermost size they divide");
  IndexWalk outer{{walk.sizes.begin(), walk.sizes.end() - 1}, {walk.strides.begin(), walk.strides.end() - 1}};
  IndexWalk vectors = stridesInVectors(outer, width);
  vectors.sizes.push_back(walk.sizes.back() / width);
  vectors.strides.push_back(1);
  return vectors;
}

}  // namespace tmetal::graph
