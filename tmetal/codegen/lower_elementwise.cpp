// Elementwise ops on tensors (one statement per register, or a loop over
// them) and ops on scalars (one statement).
#include "tmetal/codegen/kernel_lowering.h"
#include "tmetal/layout/layout_op_traits.h"

namespace tmetal::codegen {

using ir::OpKind;
using layout::LayoutPtr;
using layout::TensorMap;

RegisterTensor KernelLowering::elementwiseIn(const ir::Operation& op, const LayoutPtr& l,
                                             const std::vector<const RegisterTensor*>& operands) {
  const ir::Value* v = op.result(0);
  int64_t n = TensorMap(l, v->type().shape()).numRegisters();
  // Scalar operands (arith.select's condition may be one) act as uniform tensors.
  std::vector<RegisterTensor> scalars;
  scalars.reserve(op.numOperands());
  std::vector<const RegisterTensor*> args;
  bool allUniform = true;
  for (size_t i = 0; i < op.numOperands(); ++i) {
    if (operands[i]) {
      args.push_back(operands[i]);
      allUniform &= operands[i]->isUniform();
    } else {
      scalars.push_back(RegisterTensor::uniform(l, v->type().shape(), op.operand(i)->type(), scalarOf(op.operand(i)), n));
      args.push_back(&scalars.back());
    }
  }
  if (allUniform) {
    // The same value in every register (splats and constants): compute it once.
    std::vector<std::string> a;
    for (const RegisterTensor* t : args) a.push_back(t->regs[0]);
    std::string name = nameFor(v);
    body_.line(typeOf(v->type().element()) + " " + name + " = " + scalarExpr(op, a) + ";");
    return RegisterTensor::uniform(l, v->type().shape(), v->type().element(), name, n);
  }
  return computeRegisters(v, l, args, [&](const std::vector<std::string>& a) { return scalarExpr(op, a); });
}

void KernelLowering::lowerScalarOp(const ir::Operation& op) {
  if (op.numResults() != 1) unsupported(op, "this op");
  const ir::Value* v = op.result(0);
  switch (op.kind()) {
    case OpKind::ArithConstant: {
      const ir::Attribute* value = op.attr("value");
      if (!value) op.fail("missing attribute 'value'");
      defineScalar(v, constantExpr(*value, v->type()));
      return;
    }
    case OpKind::TtGetProgramId:
    case OpKind::TtGetNumPrograms: {
      int axis = static_cast<int>(op.intAttr("axis"));
      bool isId = op.kind() == OpKind::TtGetProgramId;
      useBuiltin(isId ? Builtin::ProgramId : Builtin::NumPrograms);
      std::string name = nameFor(v);
      body_.line("int " + name + " = " + (isId ? dialect_.programIdExpr(axis) : dialect_.numProgramsExpr(axis)) + ";");
      defineScalar(v, name);
      return;
    }
    case OpKind::TtAddPtr: {
      std::string name = nameFor(v);
      body_.line(typeOf(v->type()) + " " + name + " = " + scalarOf(op.operand(0)) + " + " + scalarOf(op.operand(1)) + ";");
      defineScalar(v, name);
      return;
    }
    default:
      break;
  }
  if (!layout::isElementwise(op.kind())) unsupported(op, "this op");
  std::vector<std::string> args;
  for (const ir::Value* o : op.operands()) args.push_back(scalarOf(o));
  std::string name = nameFor(v);
  body_.line(typeOf(v->type()) + " " + name + " = " + scalarExpr(op, args) + ";");
  defineScalar(v, name);
}

}  // namespace tmetal::codegen
