// Where a thread's elements lie: the runtime part of every index, computed
// once per layout at the top of the kernel (the "prologue") from the lane and
// SIMD-group ids, and the owner test for layouts that replicate elements.
#include "tmetal/codegen/kernel_lowering.h"

namespace tmetal::codegen {

using layout::TensorMap;

namespace {

// The coordinate `var / stride % count` of an id that runs over `total`,
// without the parts that are no-ops.
std::string coordinate(const std::string& var, int stride, int count, int total) {
  if (count == 1) return "0";
  if (stride == 1 && count == total) return var;
  if (stride == 1) return var + " % " + std::to_string(count);
  if (stride * count == total) return var + " / " + std::to_string(stride);
  return "(" + var + " / " + std::to_string(stride) + ") % " + std::to_string(count);
}

std::string plus(const std::string& a, const std::string& b) {
  if (a == "0") return b;
  if (b == "0") return a;
  return a + " + " + b;
}

std::string plusConstant(const std::string& a, int64_t c) {
  if (c == 0) return a;
  if (a == "0") return std::to_string(c);
  return a + " + " + std::to_string(c);
}

}  // namespace

std::vector<int64_t> sliceOffset(std::vector<int64_t> offset, int dim, int sliceRootRank) {
  if (static_cast<int>(offset.size()) == sliceRootRank)
    offset[dim] = 0;
  else
    offset.erase(offset.begin() + dim);
  return offset;
}

std::string KernelLowering::laneCoord(const TensorMap& map, int d) {
  const layout::BlockedLayout& b = map.root();
  if (b.lanesPerSimd[d] == 1) return "0";
  useBuiltin(Builtin::LaneIndex);
  return coordinate(dialect_.builtinName(Builtin::LaneIndex), map.laneStride(d), b.lanesPerSimd[d], b.simdWidth());
}

std::string KernelLowering::simdCoord(const TensorMap& map, int d) {
  const layout::BlockedLayout& b = map.root();
  if (b.simdsPerGroup[d] == 1) return "0";
  useBuiltin(Builtin::SimdGroupIndex);
  return coordinate(dialect_.builtinName(Builtin::SimdGroupIndex), map.simdStride(d), b.simdsPerGroup[d],
                    b.numSimdGroups());
}

std::string KernelLowering::unwrappedOffset(const TensorMap& map, int d) {
  const layout::BlockedLayout& b = map.root();
  if (b.lanesPerSimd[d] * b.simdsPerGroup[d] == 1) return "0";
  size_t id = 0;
  while (id < rootLayouts_.size() && !(rootLayouts_[id] == b)) ++id;
  std::string prefix = "L" + std::to_string(id);
  if (id == rootLayouts_.size()) {
    rootLayouts_.push_back(b);
    prologue_.line("// " + prefix + " = " + b.str());
  }
  std::string name = prefix + "_o" + std::to_string(d);
  if (prologueNames_.insert(name).second) {
    names_.insert(name);
    std::string lanes = laneCoord(map, d);
    std::string simds = simdCoord(map, d);
    std::string sum = lanes;
    if (simds != "0") {
      simds = parenthesized(simds);
      std::string scaled = b.lanesPerSimd[d] > 1 ? simds + " * " + std::to_string(b.lanesPerSimd[d]) : simds;
      sum = plus(lanes, scaled);
    }
    std::string expr = "int(" + sum + ")";
    if (b.sizePerThread[d] > 1) expr += " * " + std::to_string(b.sizePerThread[d]);
    prologue_.line("int " + name + " = " + expr + ";");
  }
  return name;
}

std::string KernelLowering::threadOffset(const TensorMap& map, int d) {
  if (map.rootShape()[d] == 1) return "0";
  std::string u = unwrappedOffset(map, d);
  if (u == "0" || !map.wraps(d)) return u;
  return "(" + u + " & " + std::to_string(map.rootShape()[d] - 1) + ")";
}

std::string KernelLowering::ownerCondition(const TensorMap& map) {
  std::string cond;
  const layout::BlockedLayout& b = map.root();
  for (int d = 0; d < map.rootRank(); ++d) {
    int64_t maxOffset = static_cast<int64_t>(b.lanesPerSimd[d] * b.simdsPerGroup[d] - 1) * b.sizePerThread[d];
    if (maxOffset < map.rootShape()[d]) continue;
    std::string u = unwrappedOffset(map, d);
    std::string test = map.rootShape()[d] == 1 ? u + " == 0" : u + " < " + std::to_string(map.rootShape()[d]);
    cond += (cond.empty() ? "" : " && ") + test;
  }
  return cond;
}

std::string KernelLowering::indexAlong(const TensorMap& map, int dim, int64_t r) {
  int d = map.layout()->rootDims()[dim];
  return plusConstant(threadOffset(map, d), map.registerOffset(r)[d]);
}

std::string KernelLowering::linearIndexBase(const TensorMap& map) {
  std::string base = "0";
  int64_t stride = 1;
  const std::vector<int>& dims = map.layout()->rootDims();
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    std::string off = threadOffset(map, dims[i]);
    if (off != "0") base = plus(base, stride == 1 ? off : off + " * " + std::to_string(stride));
    stride *= map.shape()[i];
  }
  return base;
}

int64_t KernelLowering::linearIndexConstant(const TensorMap& map, int64_t r) const {
  std::vector<int64_t> off = map.registerOffset(r);
  int64_t c = 0, stride = 1;
  const std::vector<int>& dims = map.layout()->rootDims();
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    c += off[dims[i]] * stride;
    stride *= map.shape()[i];
  }
  return c;
}

std::vector<IndexTerm> KernelLowering::linearIndexTerms(const TensorMap& map) const {
  int r = map.rootRank();
  std::vector<int64_t> stride(r, 0);
  int64_t s = 1;
  const std::vector<int>& dims = map.layout()->rootDims();
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    stride[dims[i]] = s;
    s *= map.shape()[i];
  }
  std::vector<IndexTerm> terms;
  int64_t weight = 1;
  auto digit = [&](int64_t size, int64_t multiplier) {
    if (size <= 1) return;
    if (!terms.empty() && terms.back().divisor * terms.back().modulus == weight &&
        terms.back().multiplier * terms.back().modulus == multiplier)
      terms.back().modulus *= size;
    else
      terms.push_back({weight, size, multiplier});
    weight *= size;
  };
  for (int d : map.root().order) digit(map.blockElements(d), stride[d]);
  for (int d : map.root().order) digit(map.repetitions(d), map.root().tile(d) * stride[d]);
  return terms;
}

std::string KernelLowering::offsetExpr(const std::string& base, const std::vector<IndexTerm>& terms,
                                       const std::string& index, int64_t count) const {
  std::string t = renderIndexTerms(terms, index, count);
  if (t == "0") return base;
  return base == "0" ? t : base + " + " + t;
}

std::string KernelLowering::offsetExpr(const std::string& base, int64_t constant) const {
  return plusConstant(base, constant);
}

std::string KernelLowering::bindBase(const std::string& base, const std::string& hint, int64_t uses) {
  if (uses <= 1 || base.find(' ') == std::string::npos) return base;
  std::string name = newName(hint);
  body_.line("int " + name + " = " + base + ";");
  return name;
}

}  // namespace tmetal::codegen
