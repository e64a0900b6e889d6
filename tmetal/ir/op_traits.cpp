#include "tmetal/ir/op_traits.h"

#include <string>

namespace tmetal::ir {

bool isElementwise(OpKind kind) {
  switch (kind) {
    case OpKind::ArithConstant:
      return false;
    case OpKind::TtAddPtr:
    case OpKind::TtClampF:
    case OpKind::TtPreciseSqrt:
    case OpKind::TtPreciseDivF:
    case OpKind::TtFpToFp:
    case OpKind::TtBitcast:
    case OpKind::TtIntToPtr:
    case OpKind::TtPtrToInt:
    case OpKind::TtMulHiUI:
    case OpKind::TtExternElementwise:
      return true;
    default:
      break;
  }
  std::string name = opKindName(kind);
  return name.rfind("arith.", 0) == 0 || name.rfind("math.", 0) == 0;
}

bool isTerminator(OpKind kind) {
  switch (kind) {
    case OpKind::ScfYield:
    case OpKind::ScfCondition:
    case OpKind::TtReduceReturn:
    case OpKind::TtScanReturn:
    case OpKind::TtMapElementwiseReturn:
    case OpKind::TtReturn:
      return true;
    default:
      return false;
  }
}

bool computesRegistersOnly(const Operation& op) {
  if (op.numRegions() > 0) return false;
  switch (op.kind()) {
    case OpKind::TtLoad: {
      const Attribute* isVolatile = op.attr("isVolatile");
      return !(isVolatile && isVolatile->kind() == Attribute::Kind::Bool && isVolatile->asBool());
    }
    case OpKind::ArithConstant:
    case OpKind::TtMakeRange:
    case OpKind::TtSplat:
    case OpKind::TtBroadcast:
    case OpKind::TtExpandDims:
    case OpKind::TtAdvance:
    case OpKind::ScfYield:
      return true;
    default:
      return isElementwise(op.kind());
  }
}

bool isRegisterOnlyLoop(const Operation& op) {
  if (op.kind() != OpKind::ScfFor) return false;
  for (const auto& inner : op.region(0)->block(0)->ops())
    if (!computesRegistersOnly(*inner)) return false;
  return true;
}

}  // namespace tmetal::ir
