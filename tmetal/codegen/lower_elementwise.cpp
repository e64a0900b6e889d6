// Elementwise ops on tensors (one statement per register, or a loop over
// them) and ops on scalars (one statement).
#include "tmetal/codegen/kernel_lowering.h"
#include "tmetal/ir/op_traits.h"

namespace tmetal::codegen {

using ir::OpKind;
using layout::LayoutPtr;
using layout::TensorMap;

namespace {

// arith.muli of two 32-bit integers both sign-extended (or both
// zero-extended) to 64 bits: the values before the extensions.
struct WideProduct {
  const ir::Value* lhs;
  const ir::Value* rhs;
  bool isSigned;
};

std::optional<WideProduct> wideProduct(const ir::Operation& op) {
  if (op.kind() != OpKind::ArithMulI || op.result(0)->type().elementOrSelf().bitWidth() != 64) return std::nullopt;
  const ir::Operation* a = op.operand(0)->definingOp();
  const ir::Operation* b = op.operand(1)->definingOp();
  if (!a || !b || a->kind() != b->kind() || (a->kind() != OpKind::ArithExtSI && a->kind() != OpKind::ArithExtUI))
    return std::nullopt;
  for (const ir::Operation* ext : {a, b})
    if (ext->operand(0)->type().elementOrSelf().bitWidth() != 32) return std::nullopt;
  return WideProduct{a->operand(0), b->operand(0), a->kind() == OpKind::ArithExtSI};
}

// The math.cos of op's operand where op is a math.sin (or the sin where op
// is a cos), in the same block, of float.
const ir::Operation* sinCosPartner(const ir::Operation& op) {
  OpKind other;
  if (op.kind() == OpKind::MathSin) other = OpKind::MathCos;
  else if (op.kind() == OpKind::MathCos) other = OpKind::MathSin;
  else return nullptr;
  if (op.result(0)->type().elementOrSelf().scalarKind() != ir::ScalarKind::F32 || !op.parentBlock()) return nullptr;
  for (const auto& candidate : op.parentBlock()->ops())
    if (candidate->kind() == other && candidate->operand(0) == op.operand(0)) return candidate.get();
  return nullptr;
}

}  // namespace

// sin and cos of the same floats (a rotary embedding's angles, a polar
// transform) share one range reduction: the first of the two lowered
// computes both (MSL's sincos; CUDA's sincosf), the second takes its result.
std::optional<RegisterTensor> KernelLowering::sinCosOf(const ir::Operation& op, const LayoutPtr& l,
                                                       const RegisterTensor& operand) {
  const ir::Value* v = op.result(0);
  if (auto it = sinCosComputed_.find(v); it != sinCosComputed_.end()) {
    for (auto t = it->second.begin(); t != it->second.end(); ++t) {
      if (!layout::sameLayout(t->layout, l)) continue;
      RegisterTensor done = std::move(*t);
      it->second.erase(t);
      return done;
    }
  }
  const ir::Operation* partner = sinCosPartner(op);
  if (!partner || computedIn(partner->result(0), l)) return std::nullopt;
  const bool isSin = op.kind() == OpKind::MathSin;
  const ir::Value* sinValue = isSin ? v : partner->result(0);
  const ir::Value* cosValue = isSin ? partner->result(0) : v;
  int64_t n = TensorMap(l, v->type().shape()).numRegisters();
  std::string cosName = nameFor(cosValue);
  RegisterTensor cosine = RegisterTensor::array(l, v->type().shape(), v->type().element(), cosName, n);
  body_.line(declaration(v->type().element(), cosName, n) + ";");
  RegisterTensor sine = computeRegisters(sinValue, l, {&operand, &cosine}, [&](const std::vector<std::string>& a) {
    return dialect_.sinCos(a[0], a[1], options_.fastMath);
  });
  sinCosComputed_[partner->result(0)].push_back(isSin ? cosine : sine);
  return isSin ? sine : cosine;
}

RegisterTensor KernelLowering::elementwiseIn(const ir::Operation& op, const LayoutPtr& l,
                                             const std::vector<const RegisterTensor*>& operands) {
  const ir::Value* v = op.result(0);
  int64_t n = TensorMap(l, v->type().shape()).numRegisters();
  // Scalar operands (arith.select's condition may be one) act as uniform tensors.
  std::vector<RegisterTensor> scalars;
  scalars.reserve(op.numOperands());
  std::vector<const RegisterTensor*> args;
  for (size_t i = 0; i < op.numOperands(); ++i) {
    if (operands[i]) {
      args.push_back(operands[i]);
    } else {
      scalars.push_back(RegisterTensor::uniform(l, v->type().shape(), op.operand(i)->type(), scalarOf(op.operand(i)), n));
      args.push_back(&scalars.back());
    }
  }
  std::function<std::string(const std::vector<std::string>&)> expr = [&](const std::vector<std::string>& a) {
    return scalarExpr(op, a);
  };
  // Multiplied from the 32-bit values where they are at hand in this layout.
  if (std::optional<WideProduct> w = wideProduct(op)) {
    const RegisterTensor* lhs = computedIn(w->lhs, l);
    const RegisterTensor* rhs = computedIn(w->rhs, l);
    if (lhs && rhs) {
      args = {lhs, rhs};
      expr = [&, isSigned = w->isSigned](const std::vector<std::string>& a) {
        return dialect_.wideMultiply(a[0], a[1], isSigned);
      };
    }
  }
  if (std::all_of(args.begin(), args.end(), [](const RegisterTensor* t) { return t->isUniform(); })) {
    // The same value in every register (splats and constants): compute it once.
    std::vector<std::string> a;
    for (const RegisterTensor* t : args) a.push_back(t->regs[0]);
    std::string name = nameFor(v);
    body_.line(typeOf(v->type().element()) + " " + name + " = " + expr(a) + ";");
    return RegisterTensor::uniform(l, v->type().shape(), v->type().element(), name, n);
  }
  if (op.kind() == OpKind::MathSin || op.kind() == OpKind::MathCos)
    if (std::optional<RegisterTensor> t = sinCosOf(op, l, *args[0])) return std::move(*t);
  if (op.kind() == OpKind::TtAddPtr) {
    // A buffer indexed by offsets: keep base and offsets apart (see
    // RegisterTensor::pointerOffsets).
    const RegisterTensor& ptr = *args[0];
    const RegisterTensor& offsets = *args[1];
    if (ptr.isUniform())
      return RegisterTensor::pointerInto(l, v->type().shape(), v->type().element(), ptr.regs[0], offsets);
    if (ptr.pointerOffsets) {
      const RegisterTensor& before = *ptr.pointerOffsets;
      bool wide = before.element.bitWidth() == 64 || offsets.element.bitWidth() == 64;
      ir::Type type = wide ? ir::Type::i64() : ir::Type::i32();
      std::string name = newName(nameFor(v) + "_offsets");
      RegisterTensor sum = RegisterTensor::array(l, v->type().shape(), type, name, n);
      body_.line(declaration(type, name, n) + (n == 1 ? " = " + before.regs[0] + " + " + offsets.regs[0] + ";" : ";"));
      if (n > 1)
        forEachRegister(
            n,
            [&](const std::string& idx) -> std::optional<std::string> {
              std::optional<std::string> a = before.at(idx), b = offsets.at(idx);
              if (!a || !b) return std::nullopt;
              return name + "[" + idx + "] = " + *a + " + " + *b + ";";
            },
            [&](int64_t r) { return sum.regs[r] + " = " + before.regs[r] + " + " + offsets.regs[r] + ";"; });
      return RegisterTensor::pointerInto(l, v->type().shape(), v->type().element(), ptr.pointerBase, sum);
    }
  }
  return computeRegisters(v, l, args, expr);
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
  if (!ir::isElementwise(op.kind())) unsupported(op, "this op");
  std::string name = nameFor(v);
  if (std::optional<WideProduct> w = wideProduct(op)) {
    body_.line(typeOf(v->type()) + " " + name + " = " +
               dialect_.wideMultiply(scalarOf(w->lhs), scalarOf(w->rhs), w->isSigned) + ";");
    defineScalar(v, name);
    return;
  }
  if (auto done = sinCosScalars_.find(v); done != sinCosScalars_.end()) {
    defineScalar(v, done->second);
    sinCosScalars_.erase(done);
    return;
  }
  if (const ir::Operation* partner = sinCosPartner(op)) {
    // As sinCosOf, for scalars.
    const bool isSin = op.kind() == OpKind::MathSin;
    std::string other = nameFor(partner->result(0));
    const std::string& sine = isSin ? name : other;
    const std::string& cosine = isSin ? other : name;
    body_.line(typeOf(v->type()) + " " + cosine + ";");
    body_.line(typeOf(v->type()) + " " + sine + " = " +
               dialect_.sinCos(scalarOf(op.operand(0)), cosine, options_.fastMath) + ";");
    sinCosScalars_[partner->result(0)] = other;
    defineScalar(v, name);
    return;
  }
  std::vector<std::string> args;
  for (const ir::Value* o : op.operands()) args.push_back(scalarOf(o));
  body_.line(typeOf(v->type()) + " " + name + " = " + scalarExpr(op, args) + ";");
  defineScalar(v, name);
}

}  // namespace tmetal::codegen
