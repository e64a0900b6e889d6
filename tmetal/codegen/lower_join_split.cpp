// tt.join, tt.split and tt.cat. Layout assignment gives a join's result its
// operands' layout with the pair dimension in each thread's registers, and a
// split whose pairs lie in registers the layout without them
// (layout::appendPairDimension, dropPairDimension): then every thread pairs
// or unpairs its own registers, with no threadgroup memory and no barrier.
// Otherwise, and for cat, the elements go through threadgroup memory at their
// row-major positions (join: a's element i at 2i, b's at 2i + 1; cat: b after
// a along dimension 0, as the interpreter orders it).
#include <optional>
#include <utility>

#include "tmetal/codegen/kernel_lowering.h"

namespace tmetal::codegen {

using layout::TensorMap;

namespace {

// For each register of `pairs` (a tensor with a last dimension of 2), the
// register of `halves` (the tensor without it) at the same position, and
// which half it is. Nullopt unless, in every thread, register r of `pairs`
// holds the element of that register of `halves` and that half: only then
// can the pairs be made or taken apart in registers.
std::optional<std::vector<std::pair<int64_t, int>>> registersOfPairs(const TensorMap& pairs, const TensorMap& halves) {
  if (pairs.numThreads() != halves.numThreads() || pairs.numRegisters() != 2 * halves.numRegisters())
    return std::nullopt;
  std::vector<std::pair<int64_t, int>> source;
  for (int64_t r = 0; r < pairs.numRegisters(); ++r) {
    std::vector<int64_t> offset = pairs.registerOffset(r);
    int half = static_cast<int>(offset.back());
    offset.pop_back();
    int64_t q = halves.registerAt(offset);
    if (q < 0) return std::nullopt;
    source.push_back({q, half});
  }
  for (int thread = 0; thread < pairs.numThreads(); ++thread) {
    for (int64_t r = 0; r < pairs.numRegisters(); ++r) {
      std::vector<int64_t> index = pairs.tensorIndex(thread, r);
      int half = static_cast<int>(index.back());
      index.pop_back();
      if (half != source[r].second || halves.tensorIndex(thread, source[r].first) != index) return std::nullopt;
    }
  }
  return source;
}

// Whether register r of the pairs is half r % 2 of register r / 2: the order
// appendPairDimension gives, which a loop can copy.
bool interleaved(const std::vector<std::pair<int64_t, int>>& source) {
  for (size_t r = 0; r < source.size(); ++r)
    if (source[r].first != static_cast<int64_t>(r / 2) || source[r].second != static_cast<int>(r % 2)) return false;
  return true;
}

}  // namespace

bool KernelLowering::joinInRegisters(const ir::Operation& op) {
  const ir::Value* v = op.result(0);
  const RegisterTensor& a = operandTensor(op, 0);
  const RegisterTensor& b = operandTensor(op, 1);
  if (v->type().element().isPointer() || !layout::sameLayout(a.layout, b.layout)) return false;
  TensorMap pairs(layouts_.home(v), v->type().shape());
  auto source = registersOfPairs(pairs, a.map());
  if (!source) return false;
  std::string name = nameFor(v);
  RegisterTensor out = RegisterTensor::array(pairs.layout(), v->type().shape(), v->type().element(), name,
                                             pairs.numRegisters());
  body_.line(declaration(v->type().element(), name, pairs.numRegisters()) + ";");
  std::optional<std::string> fromA = a.at("q"), fromB = b.at("q");
  if (interleaved(*source) && fromA && fromB && !out.arrayName.empty()) {
    body_.line(registerLoop("q", a.size()) + " {");
    body_.line("  " + out.arrayName + "[2 * q] = " + *fromA + ";");
    body_.line("  " + out.arrayName + "[2 * q + 1] = " + *fromB + ";");
    body_.line("}");
  } else {
    for (size_t r = 0; r < source->size(); ++r) {
      const auto& [q, half] = (*source)[r];
      body_.line(out.regs[r] + " = " + (half == 0 ? a : b).regs[q] + ";");
    }
  }
  defineTensor(v, out);
  return true;
}

bool KernelLowering::splitInRegisters(const ir::Operation& op) {
  const RegisterTensor& in = operandTensor(op, 0);
  const ir::Value* low = op.result(0);
  const ir::Value* high = op.result(1);
  if (in.element.isPointer() || !layout::sameLayout(layouts_.home(low), layouts_.home(high))) return false;
  TensorMap halves(layouts_.home(low), low->type().shape());
  auto source = registersOfPairs(in.map(), halves);
  if (!source) return false;
  std::vector<RegisterTensor> outs;
  for (const ir::Value* v : {low, high}) {
    std::string name = nameFor(v);
    outs.push_back(RegisterTensor::array(halves.layout(), v->type().shape(), v->type().element(), name,
                                         halves.numRegisters()));
    body_.line(declaration(v->type().element(), name, halves.numRegisters()) + ";");
  }
  std::optional<std::string> even = in.at("2 * q"), odd = in.at("2 * q + 1");
  if (interleaved(*source) && even && odd && !outs[0].arrayName.empty() && !outs[1].arrayName.empty()) {
    body_.line(registerLoop("q", halves.numRegisters()) + " {");
    body_.line("  " + outs[0].arrayName + "[q] = " + *even + ";");
    body_.line("  " + outs[1].arrayName + "[q] = " + *odd + ";");
    body_.line("}");
  } else {
    for (size_t r = 0; r < source->size(); ++r) {
      const auto& [q, half] = (*source)[r];
      body_.line(outs[half].regs[q] + " = " + in.regs[r] + ";");
    }
  }
  defineTensor(low, outs[0]);
  defineTensor(high, outs[1]);
  return true;
}

void KernelLowering::lowerJoinSplitCat(const ir::Operation& op) {
  switch (op.kind()) {
    case ir::OpKind::TtJoin: {
      if (joinInRegisters(op)) return;
      const RegisterTensor& a = operandTensor(op, 0);
      const RegisterTensor& b = operandTensor(op, 1);
      const ir::Value* v = op.result(0);
      defineTensor(v, stageThrough(op, "join", a.element, 2 * a.numElements(), {{&a, 2, 0}, {&b, 2, 1}},
                                   {{layouts_.home(v), v->type().shape(), nameFor(v)}})[0]);
      return;
    }
    case ir::OpKind::TtSplit: {
      if (splitInRegisters(op)) return;
      const RegisterTensor& in = operandTensor(op, 0);
      std::vector<StagedRead> halves;
      for (int64_t k = 0; k < 2; ++k) {
        const ir::Value* v = op.result(k);
        halves.push_back({layouts_.home(v), v->type().shape(), nameFor(v), 2, k});
      }
      std::vector<RegisterTensor> out = stageThrough(op, "split", in.element, in.numElements(), {{&in}}, halves);
      for (size_t k = 0; k < 2; ++k) defineTensor(op.result(k), out[k]);
      return;
    }
    case ir::OpKind::TtCat: {
      const RegisterTensor& a = operandTensor(op, 0);
      const RegisterTensor& b = operandTensor(op, 1);
      const ir::Value* v = op.result(0);
      defineTensor(v, stageThrough(op, "cat", a.element, a.numElements() + b.numElements(),
                                   {{&a, 1, 0}, {&b, 1, a.numElements()}},
                                   {{layouts_.home(v), v->type().shape(), nameFor(v)}})[0]);
      return;
    }
    default:
      unsupported(op, "this op");
  }
}

}  // namespace tmetal::codegen
