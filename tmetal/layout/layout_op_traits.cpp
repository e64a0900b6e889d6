#include "tmetal/layout/layout_op_traits.h"

#include "tmetal/ir/op_traits.h"

namespace tmetal::layout {

using ir::OpKind;

bool isRematerializableKind(OpKind kind) {
  switch (kind) {
    case OpKind::ArithConstant:
    case OpKind::TtMakeRange:
    case OpKind::TtSplat:
    case OpKind::TtBroadcast:
    case OpKind::TtExpandDims:
      return true;
    case OpKind::TtExternElementwise:
      return false;  // a call we know nothing about: compute it once
    default:
      return ir::isElementwise(kind);
  }
}

ir::ScalarKind matrixOperandKind(const ir::Operation& dot, size_t operand) {
  const ir::ScalarKind k = dot.operand(operand)->type().element().scalarKind();
  return ir::isFloat8Kind(k) ? ir::ScalarKind::F16 : k;
}

bool hasMatrixOperands(const ir::Operation& dot) {
  const ir::ScalarKind tiles = matrixOperandKind(dot, 0);
  return dot.operand(0)->type().rank() == 2 && tiles == matrixOperandKind(dot, 1) &&
         (tiles == ir::ScalarKind::F16 || tiles == ir::ScalarKind::BF16);
}

}  // namespace tmetal::layout
