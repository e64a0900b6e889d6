// Layout conversions through threadgroup memory: every owner thread writes
// its registers at the elements' row-major positions, a barrier, then every
// thread reads the registers of the new layout.
#include <algorithm>

#include "tmetal/codegen/kernel_lowering.h"

namespace tmetal::codegen {

using layout::LayoutPtr;
using layout::TensorMap;

void KernelLowering::barrierBeforeReuse() {
  // In a loop the buffer is written again while slow threads may still read
  // the previous iteration's values.
  if (loopDepth_ > 0) body_.line(dialect_.barrier());
}

std::string KernelLowering::stageInThreadgroupMemory(const ir::Operation& op, const RegisterTensor& in,
                                                     const std::string& purpose, bool barrierBefore,
                                                     bool barrierAfter) {
  int64_t numel = 1;
  for (int64_t e : in.shape) numel *= e;
  std::string elementType = typeOf(in.element);
  int bytes = in.element.isPointer() ? 8 : std::max(1, in.element.bitWidth() / 8);
  std::string name = newName("tg_" + purpose);
  threadgroupMemory_.allocate(op, name, elementType, bytes, numel, purpose + " at " + op.loc().userPos().str());
  threadgroupDecls_.push_back(dialect_.threadgroupArray(elementType, name, numel));

  TensorMap map = in.map();
  int64_t n = map.numRegisters();
  if (barrierBefore) barrierBeforeReuse();
  std::string owner = ownerCondition(map);
  if (!owner.empty()) body_.open("if (" + owner + ")");
  std::string base = bindBase(linearIndexBase(map), name + "_at", n);
  std::vector<IndexTerm> terms = linearIndexTerms(map);
  forEachRegister(
      n,
      [&](const std::string& idx) -> std::optional<std::string> {
        std::optional<std::string> v = in.at(idx);
        if (!v) return std::nullopt;
        return name + "[" + offsetExpr(base, terms, idx, n) + "] = " + *v + ";";
      },
      [&](int64_t r) {
        return name + "[" + offsetExpr(base, linearIndexConstant(map, r)) + "] = " + in.regs[r] + ";";
      });
  if (!owner.empty()) body_.close();
  if (barrierAfter) body_.line(dialect_.barrier());
  return name;
}

RegisterTensor KernelLowering::convertLayout(const ir::Operation& op, const RegisterTensor& in, const LayoutPtr& to,
                                             const std::string& hint) {
  body_.comment("layout conversion of " + hint + " to " + to->str());
  std::string buffer = stageInThreadgroupMemory(op, in, "conversion");
  TensorMap out(to, in.shape);
  int64_t n = out.numRegisters();
  std::string name = newName(hint);
  RegisterTensor t = RegisterTensor::array(to, in.shape, in.element, name, n);
  body_.line(declaration(in.element, name, n) + ";");
  std::string base = bindBase(linearIndexBase(out), name + "_at", n);
  std::vector<IndexTerm> terms = linearIndexTerms(out);
  forEachRegister(
      n,
      [&](const std::string& idx) -> std::optional<std::string> {
        return name + "[" + idx + "] = " + buffer + "[" + offsetExpr(base, terms, idx, n) + "];";
      },
      [&](int64_t r) {
        return t.regs[r] + " = " + buffer + "[" + offsetExpr(base, linearIndexConstant(out, r)) + "];";
      });
  return t;
}

}  // namespace tmetal::codegen
