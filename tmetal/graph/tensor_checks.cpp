#include "tmetal/graph/tensor_checks.h"

#include <algorithm>
#include <limits>

#include "tmetal/support/diagnostic.h"

namespace tmetal::graph {

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

int64_t checkedMultiply(int64_t a, int64_t b) {
  if (a != 0 && b > std::numeric_limits<int64_t>::max() / a) return -1;
  return a * b;
}

int64_t checkShape(const std::vector<int64_t>& shape) {
  if (shape.empty()) throw CompileError("input shape is empty; a tensor needs at least one dimension");
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] < 1)
      throw CompileError("dimension " + std::to_string(d) + " of " + shapeText(shape) + " is " +
                         std::to_string(shape[d]) + "; dimensions must be positive");
  int64_t count = 1;
  for (int64_t dim : shape) {
    count = checkedMultiply(count, dim);
    if (count < 0) throw CompileError("element count of " + shapeText(shape) + " overflows 64 bits");
  }
  return count;
}

void checkStrides(const std::vector<int64_t>& strides, const std::vector<int64_t>& shape) {
  if (strides.size() != shape.size())
    throw CompileError(std::to_string(strides.size()) + " strides given for the rank-" + std::to_string(shape.size()) +
                       " input " + shapeText(shape));
  for (size_t d = 0; d < strides.size(); ++d)
    if (strides[d] < 0)
      throw CompileError("stride " + std::to_string(d) + " is " + std::to_string(strides[d]) +
                         "; strides must be >= 0");
}

std::vector<int> normalizeAxes(const std::vector<int64_t>& axes, const std::vector<int64_t>& shape) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<int> out;
  std::vector<int64_t> written;
  for (int64_t a : axes) {
    if (a < -rank || a >= rank)
      throw CompileError("axis " + std::to_string(a) + " is out of range for the rank-" + std::to_string(rank) +
                         " input " + shapeText(shape) + " (valid: " + std::to_string(-rank) + ".." +
                         std::to_string(rank - 1) + ")");
    int axis = static_cast<int>(a < 0 ? a + rank : a);
    auto seen = std::find(out.begin(), out.end(), axis);
    if (seen != out.end())
      throw CompileError("axis " + std::to_string(a) + " repeats axis " +
                         std::to_string(written[seen - out.begin()]));
    out.push_back(axis);
    written.push_back(a);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace tmetal::graph
