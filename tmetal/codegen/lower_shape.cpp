// Ops that create tensors or move elements without computing: make_range,
// splat, constants, broadcast and expand_dims cost no code beyond the
// indices (they name registers of their operands); trans and reshape keep
// registers where the layouts allow and go through threadgroup memory
// otherwise.
#include "tmetal/codegen/kernel_lowering.h"
#include "tmetal/layout/policy.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::codegen {

using layout::LayoutPtr;
using layout::TensorMap;

RegisterTensor KernelLowering::makeRangeIn(const ir::Operation& op, const LayoutPtr& l) {
  const ir::Value* v = op.result(0);
  TensorMap map(l, v->type().shape());
  int64_t n = map.numRegisters();
  int64_t start = op.intAttr("start");
  int d = l->rootDims()[0];
  std::string base = threadOffset(map, d);
  if (start != 0) base = base == "0" ? std::to_string(start) : base + " + " + std::to_string(start);
  std::string name = nameFor(v);
  RegisterTensor out = RegisterTensor::array(l, v->type().shape(), v->type().element(), name, n);
  if (n == 1) {
    body_.line("int " + name + " = " + base + ";");
    return out;
  }
  // Registers walk the thread's block, then the repetitions of the tile.
  int64_t block = map.blockElements(d);
  int64_t tile = map.root().tile(d);
  std::string step = block == n ? "r" : block == 1 ? "r * " + std::to_string(tile)
                                                   : "(r / " + std::to_string(block) + ") * " + std::to_string(tile) +
                                                         " + r % " + std::to_string(block);
  body_.line("int " + name + "[" + std::to_string(n) + "];");
  body_.line(registerLoop("r", n) + " " + name + "[r] = " +
             (base == "0" ? step : base + " + " + step) + ";");
  return out;
}

RegisterTensor KernelLowering::splatIn(const ir::Operation& op, const LayoutPtr& l) {
  const ir::Value* v = op.result(0);
  int64_t n = TensorMap(l, v->type().shape()).numRegisters();
  return RegisterTensor::uniform(l, v->type().shape(), v->type().element(), scalarOf(op.operand(0)), n);
}

std::string KernelLowering::zeroOf(const ir::Type& scalar) const {
  ir::ScalarKind k = scalar.scalarKind();
  if (k == ir::ScalarKind::I1) return dialect_.boolLiteral(false);
  return scalar.isFloat() ? dialect_.floatLiteral(0.0, k) : dialect_.intLiteral(0, k);
}

RegisterTensor KernelLowering::constantIn(const ir::Operation& op, const LayoutPtr& l) {
  const ir::Value* v = op.result(0);
  const ir::Attribute* value = op.attr("value");
  if (!value) op.fail("missing attribute 'value'");
  if (value->kind() == ir::Attribute::Kind::Dense && !value->isSplat())
    unsupported(op, "dense tensor constants with different elements");
  int64_t n = TensorMap(l, v->type().shape()).numRegisters();
  return RegisterTensor::uniform(l, v->type().shape(), v->type().element(), constantExpr(*value, v->type().element()), n);
}

RegisterTensor KernelLowering::broadcastIn(const ir::Operation& op, const LayoutPtr& l, const RegisterTensor& in) {
  const ir::Value* v = op.result(0);
  if (in.pointerOffsets)
    return RegisterTensor::pointerInto(l, v->type().shape(), in.element, in.pointerBase,
                                       broadcastIn(op, l, *in.pointerOffsets));
  TensorMap out(l, v->type().shape());
  TensorMap from(in.layout, in.shape);
  RegisterTensor t;
  t.layout = l;
  t.shape = v->type().shape();
  t.element = in.element;
  for (int64_t r = 0; r < out.numRegisters(); ++r) {
    std::vector<int64_t> off = out.registerOffset(r);
    for (int d = 0; d < from.rootRank(); ++d)
      if (from.rootShape()[d] == 1) off[d] = 0;
    int64_t src = from.registerAt(off);
    if (src < 0) throw CompileError("internal error: broadcast register " + std::to_string(r) + " has no source");
    t.regs.push_back(in.regs[src]);
  }
  if (in.isUniform() || in.arrayName.empty() || !in.indexMap.empty()) return t;
  // Registers are mixed-radix numbers (block digits, then repetition digits,
  // per root dimension in layout order); the broadcast drops the digits of
  // the broadcast dimensions. Describe that as an index map so that
  // consumers can still loop over the registers.
  std::vector<IndexTerm> terms;
  int64_t outWeight = 1, inWeight = 1;
  auto digit = [&](int64_t outSize, int64_t inSize) {
    if (inSize > 1) {
      if (!terms.empty() && terms.back().divisor * terms.back().modulus == outWeight &&
          terms.back().multiplier * terms.back().modulus == inWeight)
        terms.back().modulus *= outSize;
      else
        terms.push_back({outWeight, outSize, inWeight});
      inWeight *= inSize;
    }
    outWeight *= outSize;
  };
  for (int d : out.root().order) digit(out.blockElements(d), from.blockElements(d));
  for (int d : out.root().order) digit(out.repetitions(d), from.repetitions(d));
  t.arrayName = in.arrayName;
  bool identity = terms.size() == 1 && terms[0].divisor == 1 && terms[0].multiplier == 1 &&
                  terms[0].modulus >= out.numRegisters();
  if (!identity) t.indexMap = terms;
  return t;
}

RegisterTensor KernelLowering::expandDimsIn(const ir::Operation& op, const LayoutPtr& l, const RegisterTensor& in) {
  // The layouts were chosen so that the register numbering is unchanged.
  RegisterTensor t = reshapedIn(l, op.result(0)->type().shape(), in);
  if (!in.pointerOffsets && TensorMap(l, t.shape).numRegisters() != static_cast<int64_t>(in.size()))
    throw CompileError("internal error: expand_dims changes the register count");
  return t;
}

RegisterTensor KernelLowering::readStagedAt(
    const std::string& buffer, const ir::Value* v,
    const std::function<std::vector<std::pair<std::string, int64_t>>(const TensorMap&, int64_t)>& terms) {
  LayoutPtr l = layouts_.home(v);
  TensorMap out(l, v->type().shape());
  std::string name = nameFor(v);
  RegisterTensor t = RegisterTensor::array(l, v->type().shape(), v->type().element(), name, out.numRegisters());
  body_.line(declaration(v->type().element(), name, out.numRegisters()) + ";");
  for (int64_t r = 0; r < out.numRegisters(); ++r) {
    std::string index;
    for (const auto& [term, stride] : terms(out, r)) {
      if (term == "0") continue;
      index += (index.empty() ? "" : " + ") + (stride == 1 ? term : "(" + term + ") * " + std::to_string(stride));
    }
    body_.line(t.regs[r] + " = " + fromStaged(buffer + "[" + (index.empty() ? "0" : index) + "]", t.element) + ";");
  }
  return t;
}

void KernelLowering::lowerGather(const ir::Operation& op) {
  // The source through threadgroup memory; each result register reads the
  // element its index register names along the axis (the indices' layout is
  // the result's, so register r of both is the same element).
  const ir::Value* v = op.result(0);
  const RegisterTensor& src = operandTensor(op, 0);
  const RegisterTensor& indices = operandTensor(op, 1);
  const int axis = static_cast<int>(op.intAttr("axis"));
  std::string buffer = stageInThreadgroupMemory(op, src, "gather");
  const std::vector<int64_t> stride = layout::rowMajorStrides(src.shape);
  defineTensor(v, readStagedAt(buffer, v, [&](const TensorMap& out, int64_t r) {
    std::vector<std::pair<std::string, int64_t>> terms;
    for (size_t d = 0; d < stride.size(); ++d)
      terms.push_back({static_cast<int>(d) == axis ? "int(" + indices.regs[r] + ")" : indexAlong(out, static_cast<int>(d), r),
                       stride[d]});
    return terms;
  }));
}

void KernelLowering::lowerTrans(const ir::Operation& op) {
  const ir::Value* v = op.result(0);
  const RegisterTensor& in = operandTensor(op, 0);
  LayoutPtr l = layouts_.home(v);
  const ir::Attribute* orderAttr = op.attr("order");
  if (!orderAttr) op.fail("missing attribute 'order'");
  std::vector<int> order(orderAttr->ints().begin(), orderAttr->ints().end());
  LayoutPtr permuted = layout::permuteLayout(in.layout, order);
  if (permuted && layout::sameLayout(permuted, l)) {
    // A transposed layout numbers the registers the same way: no code.
    RegisterTensor t = in;
    t.layout = l;
    t.shape = v->type().shape();
    defineTensor(v, t);
    return;
  }
  std::string buffer = stageInThreadgroupMemory(op, in, "transpose");
  // Output index i along dimension k is input index i along order[k].
  const std::vector<int64_t> inStride = layout::rowMajorStrides(in.shape);
  defineTensor(v, readStagedAt(buffer, v, [&](const TensorMap& out, int64_t r) {
    std::vector<std::pair<std::string, int64_t>> terms;
    for (size_t k = 0; k < order.size(); ++k) terms.push_back({indexAlong(out, static_cast<int>(k), r), inStride[order[k]]});
    return terms;
  }));
}

RegisterTensor KernelLowering::reshapedIn(const LayoutPtr& l, const std::vector<int64_t>& shape,
                                          const RegisterTensor& in) {
  if (in.pointerOffsets)
    return RegisterTensor::pointerInto(l, shape, in.element, in.pointerBase, reshapedIn(l, shape, *in.pointerOffsets));
  RegisterTensor t = in;
  t.layout = l;
  t.shape = shape;
  return t;
}

void KernelLowering::lowerReshape(const ir::Operation& op) {
  const ir::Value* v = op.result(0);
  const RegisterTensor& in = operandTensor(op, 0);
  const TensorMap out(layouts_.home(v), v->type().shape());
  if (layout::sameRegisters(in.map(), out)) {
    // layout::reshapeLayout kept every element in its register: no code.
    defineTensor(v, reshapedIn(layouts_.home(v), v->type().shape(), in));
    return;
  }
  if (std::optional<std::vector<int64_t>> from = layout::registerPermutation(in.map(), out)) {
    // Each thread's elements in other registers (reshapeLayoutKeepingThreads).
    defineTensor(v, renamedRegisters(in, layouts_.home(v), v->type().shape(), *from, nameFor(v)));
    return;
  }
  // Same elements in the same row-major order: a reshape reads the operand's
  // row-major linear index (the whole tile staged along the writers'
  // dimension where it fits, else in pieces).
  const std::string name = nameFor(v);
  if (std::optional<RegisterTensor> across =
          stageAcrossDimensions(op, in, layouts_.home(v), v->type().shape(), "reshape", name)) {
    defineTensor(v, std::move(*across));
    return;
  }
  defineTensor(v, stageThrough(op, "reshape", in.element, in.numElements(), {{&in}},
                               {{layouts_.home(v), v->type().shape(), name}})[0]);
}

}  // namespace tmetal::codegen
