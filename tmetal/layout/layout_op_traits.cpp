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

}  // namespace tmetal::layout
