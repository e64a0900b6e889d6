#include "tmetal/ir/float8_uses.h"

#include "tmetal/ir/op_traits.h"

namespace tmetal::ir {

namespace {

bool isFloat8(const Type& t) {
  const Type& e = t.isPointer() ? t.pointee() : t;
  if (e.isTensor()) return isFloat8(e.element());
  return e.isScalar() && isFloat8Kind(e.scalarKind());
}

}  // namespace

bool acceptsFloat8(OpKind kind) {
  switch (kind) {
    // Conversions, and elementwise ops that do not compute with the value.
    case OpKind::TtFpToFp:
    case OpKind::ArithExtF:
    case OpKind::ArithTruncF:
    case OpKind::ArithSIToFP:
    case OpKind::ArithUIToFP:
    case OpKind::ArithFPToSI:
    case OpKind::ArithFPToUI:
    case OpKind::TtBitcast:
    case OpKind::ArithBitcast:
    case OpKind::ArithSelect:
    case OpKind::MathAbsF:  // the sign bit only
    case OpKind::ArithConstant:
    case OpKind::TtAddPtr:  // pointers to 8-bit floats
    // tt.dot widens its 8-bit operands exactly before multiplying.
    case OpKind::TtDot:
    case OpKind::TtDotScaled:
      return true;
    // Atomics and prints would compute with (or format) the value.
    case OpKind::TtAtomicRMW:
    case OpKind::TtAtomicCAS:
    case OpKind::TtPrint:
    case OpKind::TtHistogram:
      return false;
    default:
      // Everything else that is not elementwise moves data: memory, shapes,
      // control flow, reductions and scans (whose combiners are checked
      // as ops of their own).
      return !isElementwise(kind);
  }
}

void checkFloat8Uses(const Function& fn) {
  walk(*fn.body(), [](const Operation* op) {
    if (acceptsFloat8(op->kind())) return;
    auto check = [&](const Value* v) {
      if (isFloat8(v->type()))
        op->fail("computes with " + v->type().str() +
                 ": 8-bit floats are storage types on this backend; convert them first (x.to(tl.float16) or "
                 "x.to(tl.float32))");
    };
    for (const Value* v : op->operands()) check(v);
    for (const Value* v : op->results()) check(v);
  });
}

}  // namespace tmetal::ir
