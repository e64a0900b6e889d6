// tt.load and tt.store: each thread accesses the elements its layout gives
// it, as vectors of up to 16 bytes where AxisInfo proves the addresses
// contiguous and aligned. Under a mask, a vector is no wider than the mask
// is uniform (its constancy, as in Triton), so that one condition guards
// each vector.
#include <algorithm>
#include <map>
#include <numeric>

#include "tmetal/codegen/kernel_lowering.h"

namespace tmetal::codegen {

using ir::ScalarKind;
using layout::LayoutPtr;
using layout::TensorMap;

namespace {

// How a vector access of `width` elements is spelled. Vectors of 16- and
// 8-bit elements that fill whole 32-bit words travel as int, int2 or int4
// whose components are reinterpreted as half2, char4, ...: MSL vectors have
// at most four components, and a masked load of a half4 or char4 (`vec =
// other; if (mask) vec = load`) became on NVIDIA a byte permute per element
// merging the load into `vec`, which waits for the load where it issues (a
// load meant to stay in flight, as in a loop that loads ahead, did not).
struct VectorSpelling {
  const CEmitter& dialect;
  ScalarKind kind;
  int width;

  bool inWords() const {
    const int bits = ir::scalarBits(kind);
    return (bits == 16 || bits == 8) && width * bits % 32 == 0;
  }
  int perCarrierComponent() const { return inWords() ? 32 / ir::scalarBits(kind) : 1; }
  int carrierComponents() const { return width / perCarrierComponent(); }
  std::string type() const {
    if (!inWords()) return dialect.vectorType(kind, width);
    if (carrierComponents() == 1) return dialect.scalarType(ScalarKind::I32);
    return dialect.vectorType(ScalarKind::I32, carrierComponents());
  }
  std::string packType() const { return dialect.vectorType(kind, perCarrierComponent()); }
  std::string element(const std::string& vec, int j) const {
    if (!inWords()) return dialect.vectorElement(vec, j);
    int per = perCarrierComponent();
    const std::string word = carrierComponents() == 1 ? vec : dialect.vectorElement(vec, j / per);
    return dialect.vectorElement(dialect.bitcast(word, packType()), j % per);
  }
  // The carrier's components for `parts` (one per element).
  std::vector<std::string> components(const std::vector<std::string>& parts) const {
    if (!inWords()) return parts;
    int per = perCarrierComponent();
    std::vector<std::string> out;
    for (int c = 0; c < width / per; ++c) {
      std::string packed = packType() + "(";
      for (int k = 0; k < per; ++k) packed += (k ? ", " : "") + parts[c * per + k];
      out.push_back(dialect.bitcast(packed + ")", dialect.scalarType(ScalarKind::I32)));
    }
    return out;
  }
};

// The element at `ptr` where `cond` holds, else `other`. An i1 lives in
// memory as a byte, read as `!= 0`.
std::string guardedRead(const CEmitter& dialect, const std::string& ptr, const std::string& cond,
                        const std::string& other, bool isBool) {
  if (!isBool) return dialect.maskedLoad(ptr, cond, other);
  return cond + " ? " + dereference(ptr) + " != 0 : " + other;
}

int elementBytesOf(const ir::Type& element) {
  if (element.isScalar() && element.scalarKind() == ScalarKind::I1) return 1;
  return std::max(1, element.bitWidth() / 8);
}

// The tensor dimension that root dimension `rootDim` is, or -1 (sliced, or -1).
int tensorDimOf(const TensorMap& map, int rootDim) {
  const std::vector<int>& dims = map.layout()->rootDims();
  auto it = std::find(dims.begin(), dims.end(), rootDim);
  return rootDim < 0 || it == dims.end() ? -1 : static_cast<int>(it - dims.begin());
}


// Whether each register group (a vector's registers, in column order) holds,
// in every thread, consecutive columns of one row from a column that is a
// multiple of the group's size, and `only` (when given) takes or leaves the
// group whole.
bool groupsAreAlignedRuns(const TensorMap& map, const std::vector<std::vector<int64_t>>& groups,
                          const std::function<bool(int64_t)>& only) {
  for (const std::vector<int64_t>& group : groups) {
    const int64_t width = static_cast<int64_t>(group.size());
    if (only)
      for (int64_t r : group)
        if (only(r) != only(group[0])) return false;
    for (int thread = 0; thread < map.numThreads(); ++thread) {
      const std::vector<int64_t> first = map.tensorIndex(thread, group[0]);
      if (first[1] % width != 0) return false;
      for (int64_t j = 1; j < width; ++j) {
        const std::vector<int64_t> next = map.tensorIndex(thread, group[j]);
        if (next[0] != first[0] || next[1] != first[1] + j) return false;
      }
    }
  }
  return true;
}
}  // namespace

void KernelLowering::recordAccess(const ir::Operation& op, const std::string& kind, const TensorMap& map, int width,
                                  const ir::Value* mask) {
  std::string maskKind = !mask ? "none" : width == 1 ? "per element" : "uniform over each vector";
  decisions_["accesses"].push_back({{"op", op.loc().userPos().str()}, {"kind", kind}, {"layout", map.layout()->str()},
                                    {"vector_elements", width}, {"mask", maskKind}});
}

int KernelLowering::vectorWidth(const ir::Operation& op, const TensorMap& map, int elementBytes,
                                const ir::Value* mask) const {
  const ir::Type& element = op.operand(0)->type().element().pointee();
  if (!element.isScalar() || element.scalarKind() == ScalarKind::I1) return 1;
  int fastest = map.innermostDim();
  int dim = tensorDimOf(map, fastest);
  if (dim < 0) return 1;
  const analysis::AxisInfo& ptr = axis_.get(op.operand(0));
  int64_t v = std::min<int64_t>({map.blockElements(fastest), analysis::powerOfTwoDivisor(ptr.contiguity[dim]),
                                 layout::kMaxVectorAccessBytes / elementBytes});
  while (v > 1 && ptr.divisibilityAtRuns(dim, v, elementBytes) < v * elementBytes) v /= 2;
  // No wider than the mask is uniform. "The vector when every lane is set,
  // else elements" was slower on an NVIDIA H200 (CUDA target) in the small
  // suite kernels with ragged masks: for loads, the elements were unpacked
  // inside the branch before the next load could issue (bf16_axpy 1.65 us,
  // 1.22 us with element loads; bench/results/2026-11-21-h200-masked-loads);
  // for stores, the branch per vector and its element fallback cost more
  // than the vector saves (bench/results/2026-11-21-h200-masked-stores).
  if (mask) v = std::min<int64_t>(v, std::max<int64_t>(1, analysis::powerOfTwoDivisor(axis_.get(mask).constancy[dim])));
  return static_cast<int>(std::max<int64_t>(v, 1));
}

int KernelLowering::loadVectorWidth(const ir::Operation& load) const {
  const ir::Value* v = load.result(0);
  const LayoutPtr l = layouts_.home(v);
  if (!v->type().isTensor() || !l) return 1;
  return vectorWidth(load, TensorMap(l, v->type().shape()), elementBytesOf(v->type().element()),
                     load.numOperands() > 1 ? load.operand(1) : nullptr);
}

void KernelLowering::lowerLoad(const ir::Operation& op) {
  const RegisterTensor* mask = op.numOperands() > 1 ? &operandTensor(op, 1) : nullptr;
  const RegisterTensor* other = op.numOperands() > 2 ? &operandTensor(op, 2) : nullptr;
  const bool deferred = streamedLoads_.count(&op) > 0;  // loaded piece by piece by its store
  RegisterTensor t = loadIn(op, layouts_.home(op.result(0)), operandTensor(op, 0), mask, other, deferred);
  if (deferred)
    for (int64_t r = 0; r < static_cast<int64_t>(t.regs.size()); ++r) deferredLoads_[t.regs[r]] = {&op, r};
  defineTensor(op.result(0), std::move(t));
}

RegisterTensor KernelLowering::loadIn(const ir::Operation& op, const LayoutPtr& l, const RegisterTensor& ptr,
                                      const RegisterTensor* mask, const RegisterTensor* other, bool deferred) {
  const ir::Value* v = op.result(0);
  TensorMap map(l, v->type().shape());
  int64_t n = map.numRegisters();
  const ir::Type& element = v->type().element();
  std::string name = nameFor(v);
  RegisterTensor out = RegisterTensor::array(l, v->type().shape(), element, name, n);
  const ir::Value* maskValue = mask ? op.operand(1) : nullptr;
  recordAccess(op, "load", map, vectorWidth(op, map, elementBytesOf(element), maskValue), maskValue);
  if (n == 1 && !deferred) {
    bool isBool = element.isScalar() && element.scalarKind() == ScalarKind::I1;
    std::string value = isBool ? dereference(ptr.regs[0]) + " != 0" : dereference(ptr.regs[0]);
    if (mask)
      value = guardedRead(dialect_, ptr.regs[0], mask->regs[0], other ? other->regs[0] : zeroOf(element), isBool);
    body_.line(declaration(element, name, 1) + " = " + value + ";");
    return out;
  }
  body_.line(declaration(element, name, n) + ";");
  if (!deferred) loadRegisters(op, out, ptr, mask, other);
  return out;
}

void KernelLowering::loadRegisters(const ir::Operation& op, const RegisterTensor& out, const RegisterTensor& ptr,
                                   const RegisterTensor* mask, const RegisterTensor* other,
                                   const std::function<bool(int64_t)>& only) {
  const TensorMap map = out.map();
  const int64_t n = map.numRegisters();
  const ir::Type& element = out.element;
  bool isBool = element.isScalar() && element.scalarKind() == ScalarKind::I1;
  std::string zero = zeroOf(element);
  auto read = [&](const std::string& p) { return isBool ? dereference(p) + " != 0" : dereference(p); };
  auto otherAt = [&](int64_t r) { return other ? other->regs[r] : zero; };
  auto readIf = [&](const std::string& p, const std::string& m, const std::string& o) {
    return guardedRead(dialect_, p, m, o, isBool);
  };
  auto readRegister = [&](int64_t r) {
    if (!mask) return out.regs[r] + " = " + read(ptr.regs[r]) + ";";
    return out.regs[r] + " = " + readIf(ptr.regs[r], mask->regs[r], otherAt(r)) + ";";
  };
  const std::string& name = out.arrayName;
  int width = vectorWidth(op, map, elementBytesOf(element), mask ? op.operand(1) : nullptr);
  if (width == 1) {
    if (only) {
      for (int64_t r = 0; r < n; ++r)
        if (only(r)) body_.line(readRegister(r));
      return;
    }
    forEachRegister(
        n,
        [&](const std::string& idx) -> std::optional<std::string> {
          std::optional<std::string> p = ptr.at(idx);
          if (!p) return std::nullopt;
          if (!mask) return name + "[" + idx + "] = " + read(*p) + ";";
          std::optional<std::string> m = mask->at(idx);
          std::optional<std::string> o = other ? other->at(idx) : std::optional<std::string>(zero);
          if (!m || !o) return std::nullopt;
          return name + "[" + idx + "] = " + readIf(*p, *m, *o) + ";";
        },
        readRegister);
    return;
  }

  // Vector accesses: registers [g*width, g*width + width) are consecutive
  // elements of the fastest dimension.
  VectorSpelling spelling{dialect_, element.scalarKind(), width};
  std::string vt = spelling.type();
  int64_t groups = n / width;
  // Emits the accesses of one group whose first register is `first` (a
  // loop expression or a number); `reg(k)` names register first + k of a tensor.
  auto emitGroup = [&](const std::function<std::string(const RegisterTensor&, int)>& reg, bool ownBlock) {
    // vec = the load; under a mask (uniform over the vector), vec = the
    // other values first and the load over them when the mask holds, so that
    // the elements are taken out of one vector after the condition (no merge
    // of two sets of elements: on NVIDIA, a byte permute per 16-bit element).
    const std::string t = "vec";  // block-local, reserved: no value takes this name
    const std::string load = dialect_.vectorLoad(reg(ptr, 0), vt, AddressSpace::Device);
    if (ownBlock) body_.open("");
    if (mask) {
      std::vector<std::string> others;
      for (int k = 0; k < width; ++k) others.push_back(other ? reg(*other, k) : zero);
      body_.line(vt + " " + t + " = " + dialect_.vectorOf(vt, spelling.components(others)) + ";");
      body_.line(dialect_.maskedVectorLoad(t, reg(ptr, 0), vt, reg(*mask, 0), loopDepth_ > 0));
    } else {
      body_.line(vt + " " + t + " = " + load + ";");
    }
    for (int k = 0; k < width; ++k) body_.line(reg(out, k) + " = " + spelling.element(t, k) + ";");
    if (ownBlock) body_.close();
  };
  bool symbolic = ptr.at("g").has_value() && (!mask || mask->at("g")) && (!other || other->at("g"));
  if (symbolic && groups > 1 && !only) {
    std::string w = std::to_string(width);
    body_.open(registerLoop("g", groups));
    emitGroup([&](const RegisterTensor& t, int k) { return *t.at(w + " * g" + (k ? " + " + std::to_string(k) : "")); },
              false);
    body_.close();
    return;
  }
  for (int64_t g = 0; g < groups; ++g) {
    int taken = 0;
    for (int k = 0; k < width; ++k) taken += !only || only(g * width + k);
    if (taken == width)
      emitGroup([&](const RegisterTensor& t, int k) { return t.regs[g * width + k]; }, true);
    else  // part of a vector: its elements one by one
      for (int k = 0; k < width; ++k)
        if (only(g * width + k)) body_.line(readRegister(g * width + k));
  }
}

void KernelLowering::lowerStore(const ir::Operation& op) {
  if (streamedStores_.count(&op)) return lowerStreamedStore(op);
  const RegisterTensor& ptr = operandTensor(op, 0);
  const RegisterTensor& value = operandTensor(op, 1);
  const RegisterTensor* mask = op.numOperands() > 2 ? &operandTensor(op, 2) : nullptr;
  const ir::Value* maskValue = mask ? op.operand(2) : nullptr;
  const int width = vectorWidth(op, value.map(), elementBytesOf(op.operand(1)->type().element()), maskValue);
  recordAccess(op, "store", value.map(), width, maskValue);
  storeRegisters(op, ptr, value, mask);
}

void KernelLowering::storeRegisters(const ir::Operation& op, const RegisterTensor& ptr, const RegisterTensor& value,
                                    const RegisterTensor* mask, const std::function<bool(int64_t)>& only) {
  const ir::Type& element = op.operand(1)->type().element();
  TensorMap map = value.map();
  int64_t n = map.numRegisters();
  bool isBool = element.isScalar() && element.scalarKind() == ScalarKind::I1;
  const ir::Value* maskValue = mask ? op.operand(2) : nullptr;
  int width = vectorWidth(op, map, elementBytesOf(element), maskValue);
  const bool oneOfSeveral = loopDepth_ == 0 && width == 1 && n > 1;
  // `*p = x`, where `cond` holds when it is not empty.
  auto write = [&](const std::string& p, const std::string& x, const std::string& cond) {
    const std::string stored = isBool ? dialect_.convert(x, dialect_.scalarType(ScalarKind::I8)) : x;
    return cond.empty() ? dereference(p) + " = " + stored + ";" : dialect_.maskedStore(p, stored, cond, oneOfSeveral);
  };
  auto writeRegister = [&](int64_t r) { return write(ptr.regs[r], value.regs[r], mask ? mask->regs[r] : ""); };
  std::string owner = ownerCondition(map);
  if (n == 1 && width == 1) {
    if (only && !only(0)) return;
    std::string cond = owner;
    if (mask) cond += (cond.empty() ? "" : " && ") + mask->regs[0];
    body_.line(write(ptr.regs[0], value.regs[0], cond));
    return;
  }
  // Replicated elements are stored once, by their owner.
  if (!owner.empty()) body_.open("if (" + owner + ")");
  if (width == 1) {
    if (only) {
      for (int64_t r = 0; r < n; ++r)
        if (only(r)) body_.line(writeRegister(r));
    } else {
      forEachRegister(
          n,
          [&](const std::string& idx) -> std::optional<std::string> {
            std::optional<std::string> p = ptr.at(idx), x = value.at(idx);
            std::optional<std::string> m = mask ? mask->at(idx) : std::optional<std::string>("");
            if (!p || !x || !m) return std::nullopt;
            return write(*p, *x, *m);
          },
          writeRegister);
    }
  } else {
    VectorSpelling spelling{dialect_, element.scalarKind(), width};
    std::string vt = spelling.type();
    int64_t groups = n / width;
    auto emitGroup = [&](const std::function<std::string(const RegisterTensor&, int)>& reg) {
      std::vector<std::string> parts;
      for (int k = 0; k < width; ++k) parts.push_back(reg(value, k));
      std::string vectorStore = dialect_.vectorStore(reg(ptr, 0), vt, AddressSpace::Device, spelling.components(parts));
      body_.line((mask ? "if (" + reg(*mask, 0) + ") " : "") + vectorStore);
    };
    bool symbolic = ptr.at("g") && value.at("g") && (!mask || mask->at("g"));
    if (symbolic && groups > 1 && !only) {
      std::string w = std::to_string(width);
      body_.open(registerLoop("g", groups));
      emitGroup([&](const RegisterTensor& t, int k) {
        return *t.at(w + " * g" + (k ? " + " + std::to_string(k) : ""));
      });
      body_.close();
    } else {
      for (int64_t g = 0; g < groups; ++g) {
        int taken = 0;
        for (int k = 0; k < width; ++k) taken += !only || only(g * width + k);
        if (taken == width)
          emitGroup([&](const RegisterTensor& t, int k) { return t.regs[g * width + k]; });
        else  // part of a vector: its elements one by one
          for (int k = 0; k < width; ++k)
            if (only(g * width + k)) body_.line(writeRegister(g * width + k));
      }
    }
  }
  if (!owner.empty()) body_.close();
}

void KernelLowering::lowerScalarLoad(const ir::Operation& op) {
  const ir::Value* v = op.result(0);
  const ir::Type& t = v->type();
  if (!op.operand(0)->type().isPointer() || op.operand(0)->type().isBlockPointer())
    unsupported(op, "loads through block pointers");
  bool isBool = t.isScalar() && t.scalarKind() == ScalarKind::I1;
  std::string p = scalarOf(op.operand(0));
  std::string read = isBool ? "*" + p + " != 0" : "*" + p;
  if (op.numOperands() > 1) {
    std::string other = op.numOperands() > 2 ? scalarOf(op.operand(2)) : zeroOf(t);
    read = guardedRead(dialect_, p, scalarOf(op.operand(1)), other, isBool);
  }
  std::string name = nameFor(v);
  body_.line(typeOf(t) + " " + name + " = " + read + ";");
  defineScalar(v, name);
}

void KernelLowering::lowerScalarStore(const ir::Operation& op) {
  if (!op.operand(0)->type().isPointer() || op.operand(0)->type().isBlockPointer())
    unsupported(op, "stores through block pointers");
  const ir::Type& t = op.operand(1)->type();
  bool isBool = t.isScalar() && t.scalarKind() == ScalarKind::I1;
  std::string x = scalarOf(op.operand(1));
  if (isBool) x = dialect_.convert(x, dialect_.scalarType(ScalarKind::I8));
  // Every thread holds the scalar; one of them stores it.
  useBuiltin(Builtin::ThreadIndex);
  std::string cond = dialect_.builtinName(Builtin::ThreadIndex) + " == 0";
  if (op.numOperands() > 2) cond += " && " + scalarOf(op.operand(2));
  body_.line("if (" + cond + ") *" + scalarOf(op.operand(0)) + " = " + x + ";");
}

// Each thread's runs of consecutive columns as vectors: every thread's run
// must start at a column that is a multiple of the width (checked for each
// thread and register, as the layout places them) and rows must keep that
// alignment, so that every vector is aligned in a 16-byte aligned buffer.
bool KernelLowering::writeStagedVectors(const RegisterTensor& in, const std::string& buffer, int64_t rowStride,
                                        const std::function<std::string(const std::string&)>& element,
                                        const std::function<bool(int64_t)>& only, int64_t widest) {
  if (in.shape.size() != 2 || !in.element.isScalar() || in.element.scalarKind() == ScalarKind::I1) return false;
  const TensorMap map = in.map();
  const int innermost = map.innermostDim();
  if (innermost < 0 || tensorDimOf(map, innermost) != 1) return false;
  const int bytes = elementBytesOf(in.element);
  int64_t width = std::min<int64_t>(map.blockElements(innermost), layout::kMaxVectorAccessBytes / bytes);
  if (widest) width = std::min(width, widest);
  while (width > 1 && map.blockElements(innermost) % width != 0) width /= 2;
  const int64_t n = map.numRegisters(), rowLength = in.shape[1];
  if (width < 2 || n % width != 0 || rowLength % width != 0 || rowStride % width != 0) return false;
  std::vector<std::vector<int64_t>> runs;  // consecutive registers
  for (int64_t r = 0; r < n; r += width) {
    runs.emplace_back(width);
    std::iota(runs.back().begin(), runs.back().end(), r);
  }
  if (!groupsAreAlignedRuns(map, runs, only)) return false;
  const VectorSpelling spelling{dialect_, in.element.scalarKind(), static_cast<int>(width)};
  const std::string owner = ownerCondition(map);
  if (!owner.empty()) body_.open("if (" + owner + ")");
  const std::string base = bindBase(linearIndexBase(map), buffer + "_at", n / width);
  for (int64_t r = 0; r < n; r += width) {
    if (only && !only(r)) continue;
    std::vector<std::string> values(in.regs.begin() + r, in.regs.begin() + r + width);
    body_.line(dialect_.vectorStore(buffer + " + " + element(offsetExpr(base, linearIndexConstant(map, r))),
                                    spelling.type(), AddressSpace::Threadgroup, spelling.components(values)));
  }
  if (!owner.empty()) body_.close();
  return true;
}

bool KernelLowering::readStagedWords(const RegisterTensor& t, const std::string& buffer,
                                     const std::function<std::string(const std::string&)>& place,
                                     const std::function<bool(int64_t)>& only,
                                     const std::function<void(int64_t)>& after) {
  if (t.shape.size() != 2 || !t.element.isScalar() || t.element.scalarKind() == ScalarKind::I1) return false;
  const int bytes = elementBytesOf(t.element);
  if (bytes >= 4) return false;
  const int per = 4 / bytes;
  const TensorMap map = t.map();
  const int64_t n = map.numRegisters();
  if (n % per != 0 || t.shape[1] % per != 0) return false;
  // The words of thread 0: each lead register (an aligned column) and the
  // registers of the rest of its word, in column order.
  std::map<std::pair<int64_t, int64_t>, int64_t> registerAt;
  for (int64_t r = 0; r < n; ++r) {
    const std::vector<int64_t> i = map.tensorIndex(0, r);
    registerAt[{i[0], i[1]}] = r;
  }
  std::vector<std::vector<int64_t>> words;
  std::vector<bool> taken(n, false);
  for (int64_t r = 0; r < n; ++r) {
    const std::vector<int64_t> i = map.tensorIndex(0, r);
    if (i[1] % per != 0) continue;
    std::vector<int64_t> word;
    for (int m = 0; m < per; ++m) {
      auto it = registerAt.find({i[0], i[1] + m});
      if (it == registerAt.end() || taken[it->second]) return false;
      word.push_back(it->second);
      taken[it->second] = true;
    }
    words.push_back(word);
  }
  if (static_cast<int64_t>(words.size()) * per != n || !groupsAreAlignedRuns(map, words, only)) return false;
  const VectorSpelling spelling{dialect_, t.element.scalarKind(), per};
  const std::string base = bindBase(linearIndexBase(map), t.arrayName.empty() ? buffer + "_at" : t.arrayName + "_at",
                                    n);
  for (const std::vector<int64_t>& word : words) {  // by lead register
    if (only && !only(word[0])) continue;
    body_.open("");
    const std::string w = "word";  // block-local, reserved: no value takes this name
    body_.line(spelling.type() + " " + w + " = " +
               dialect_.vectorLoad(buffer + " + " + place(offsetExpr(base, linearIndexConstant(map, word[0]))),
                                   spelling.type(), AddressSpace::Threadgroup) +
               ";");
    for (int m = 0; m < per; ++m) body_.line(t.regs[word[m]] + " = " + spelling.element(w, m) + ";");
    body_.close();
    if (after)
      for (int64_t r : word) after(r);
  }
  if (after) after(-1);
  return true;
}

}  // namespace tmetal::codegen
