// tt.atomic_rmw and tt.atomic_cas: each element is updated once, by the
// thread that owns it (replicas must not repeat an update). Scalars are
// updated by thread 0. Old values that are used travel from the updating
// thread to the others through threadgroup memory. Metal's device atomics
// are relaxed: Triton's memory orders (`sem`, acq_rel unless given) come
// from device-scope fences around them, a release fence before and an
// acquire fence after, as C++ builds them from relaxed atomics.
#include "tmetal/codegen/kernel_lowering.h"

namespace tmetal::codegen {

using ir::ScalarKind;
using layout::LayoutPtr;
using layout::TensorMap;

namespace {
AtomicOp atomicOpOf(const ir::Operation& op) {
  const std::string& s = op.symbolAttr("atomic_rmw_op");
  if (s == "add") return AtomicOp::Add;
  if (s == "fadd") return AtomicOp::FAdd;
  if (s == "and") return AtomicOp::And;
  if (s == "or") return AtomicOp::Or;
  if (s == "xor") return AtomicOp::Xor;
  if (s == "max") return AtomicOp::Max;
  if (s == "min") return AtomicOp::Min;
  if (s == "umax") return AtomicOp::UMax;
  if (s == "umin") return AtomicOp::UMin;
  if (s == "exch") return AtomicOp::Exch;
  op.fail("unknown atomic_rmw_op '" + s + "'");
}
}  // namespace

std::string KernelLowering::atomicStatement(const ir::Operation& op, const std::string& ptr,
                                            const std::vector<std::string>& values, const std::string& result) {
  const ir::Type& t = op.result(0)->type().elementOrSelf();
  ScalarKind k = t.isScalar() ? t.scalarKind() : ScalarKind::I64;
  const bool half = k == ScalarKind::F16 || k == ScalarKind::BF16;
  atomicsUsed_ = true;
  if (op.kind() == ir::OpKind::TtAtomicCAS) {
    if (k != ScalarKind::I32 && k != ScalarKind::F32 && !half)
      unsupported(op, "tt.atomic_cas on " + t.str() + " (Metal's device atomics are 32-bit)");
    return result + " = " + dialect_.atomicCas(ptr, values[0], values[1], k) + ";";
  }
  const std::string& value = values[0];
  AtomicOp a = atomicOpOf(op);
  if (dialect_.hasAtomic(a, k)) return result + " = " + dialect_.atomicRmw(a, ptr, value, k) + ";";
  std::string desired;
  if (k == ScalarKind::F32 && (a == AtomicOp::Max || a == AtomicOp::Min)) {
    desired = dialect_.minMax(a == AtomicOp::Max, result, value, true);
  } else if (half && a == AtomicOp::FAdd) {
    // Rounded once from the float sum, as a native 16-bit float add would be.
    std::string f = dialect_.scalarType(ScalarKind::F32);
    desired = dialect_.convert(dialect_.convert(result, f) + " + " + dialect_.convert(value, f), dialect_.scalarType(k));
  } else {
    unsupported(op, "tt.atomic_rmw " + op.symbolAttr("atomic_rmw_op") + " on " + t.str() +
                        (t.isScalar() && t.bitWidth() == 64 ? " (Metal's device atomics are 32-bit)" : ""));
  }
  // No such atomic: a compare-and-swap loop on the bits (16-bit values swap
  // inside their aligned 32-bit word).
  std::string bits = dialect_.scalarType(half ? ScalarKind::I16 : ScalarKind::I32);
  return "{ " + result + " = " + dereference(ptr) + "; while (true) { " + dialect_.scalarType(k) + " seen = " +
         dialect_.atomicCas(ptr, result, desired, k) + "; if (" + dialect_.bitcast("seen", bits) +
         " == " + dialect_.bitcast(result, bits) + ") break; " + result + " = seen; } }";
}

std::string KernelLowering::broadcastFromThreadZero(const ir::Operation& op, const ir::Type& type,
                                                    const std::string& value) {
  std::string elementType = typeOf(type);
  std::string buffer =
      threadgroupBuffer(op, "tg_scalar", type, 1, "the result of the atomic at " + op.loc().userPos().str());
  barrierBeforeReuse();
  body_.line("if (" + dialect_.builtinName(Builtin::ThreadIndex) + " == 0) " + buffer + "[0] = " + value + ";");
  body_.line(dialect_.barrier());
  std::string name = newName(value + "_all");
  body_.line(elementType + " " + name + " = " + buffer + "[0];");
  return name;
}

namespace {
// Operand layout of an atomic: ptr, then the value(s), then the mask.
struct AtomicOperands {
  size_t ptr = 0;
  std::vector<size_t> values;
  std::optional<size_t> mask;
};
AtomicOperands atomicOperands(const ir::Operation& op) {
  AtomicOperands o;
  if (op.kind() == ir::OpKind::TtAtomicCAS) {
    o.values = {1, 2};
  } else {
    o.values = {1};
    if (op.numOperands() > 2) o.mask = 2;
  }
  return o;
}
}  // namespace

namespace {
bool releases(const std::string& sem) { return sem != "relaxed" && sem != "acquire"; }
bool acquires(const std::string& sem) { return sem != "relaxed" && sem != "release"; }
}  // namespace

void KernelLowering::lowerAtomicRmw(const ir::Operation& op) {
  const ir::Attribute* semAttr = op.attr("sem");
  const std::string sem = semAttr ? semAttr->asString() : "acq_rel";
  // Only the threads that update fence: the others' accesses are ordered
  // with the atomics by barriers (tl.debug_barrier), as on Triton's GPUs.
  lowerAtomicUpdates(op, releases(sem) ? dialect_.releaseFence() : "", acquires(sem) ? dialect_.acquireFence() : "");
}

void KernelLowering::lowerAtomicUpdates(const ir::Operation& op, const std::string& fenceBefore,
                                        const std::string& fenceAfter) {
  const ir::Value* v = op.result(0);
  AtomicOperands operands = atomicOperands(op);
  if (!v->type().isTensor()) {
    useBuiltin(Builtin::ThreadIndex);
    std::string name = nameFor(v);
    const ir::Type& t = v->type();
    body_.line(typeOf(t) + " " + name + " = " + zeroOf(t) + ";");
    std::vector<std::string> scalarValues;
    for (size_t i : operands.values) scalarValues.push_back(scalarOf(op.operand(i)));
    std::string cond = dialect_.builtinName(Builtin::ThreadIndex) + " == 0";
    if (operands.mask) cond += " && " + scalarOf(op.operand(*operands.mask));
    body_.open("if (" + cond + ")");
    if (!fenceBefore.empty()) body_.line(fenceBefore);
    body_.line(atomicStatement(op, scalarOf(op.operand(0)), scalarValues, name));
    if (!fenceAfter.empty()) body_.line(fenceAfter);
    body_.close();
    defineScalar(v, used_.count(v) ? broadcastFromThreadZero(op, t, name) : name);
    return;
  }
  LayoutPtr l = layouts_.home(v);
  TensorMap map(l, v->type().shape());
  int64_t n = map.numRegisters();
  const ir::Type& element = v->type().element();
  const RegisterTensor& ptr = operandTensor(op, 0);
  std::vector<const RegisterTensor*> vals;
  for (size_t i : operands.values) vals.push_back(&operandTensor(op, i));
  const RegisterTensor* mask = operands.mask ? &operandTensor(op, *operands.mask) : nullptr;
  std::string name = nameFor(v);
  RegisterTensor out = RegisterTensor::array(l, v->type().shape(), element, name, n);
  std::string zero = zeroOf(element);
  body_.line(declaration(element, name, n) + (n == 1 ? " = " + zero + ";" : ";"));
  if (n > 1) body_.line(registerLoop("r", n) + " " + name + "[r] = " + zero + ";");
  std::string owner = ownerCondition(map);
  if (!owner.empty()) body_.open("if (" + owner + ")");
  if (!fenceBefore.empty()) body_.line(fenceBefore);
  forEachRegister(
      n,
      [&](const std::string& idx) -> std::optional<std::string> {
        std::optional<std::string> p = ptr.at(idx), m = mask ? mask->at(idx) : std::optional<std::string>("");
        std::vector<std::string> values;
        for (const RegisterTensor* t : vals) {
          std::optional<std::string> x = t->at(idx);
          if (!x) return std::nullopt;
          values.push_back(*x);
        }
        if (!p || !m) return std::nullopt;
        return (mask ? "if (" + *m + ") " : "") + atomicStatement(op, *p, values, name + "[" + idx + "]");
      },
      [&](int64_t r) {
        std::vector<std::string> values;
        for (const RegisterTensor* t : vals) values.push_back(t->regs[r]);
        return (mask ? "if (" + mask->regs[r] + ") " : "") + atomicStatement(op, ptr.regs[r], values, out.regs[r]);
      });
  if (!fenceAfter.empty()) body_.line(fenceAfter);
  if (!owner.empty()) body_.close();
  // Replicas did not perform the update; they get the owner's old value.
  if (!owner.empty() && used_.count(v)) out = convertLayout(op, out, l, name + "_all");
  defineTensor(v, out);
}

void KernelLowering::lowerAtomicCas(const ir::Operation& op) { lowerAtomicRmw(op); }

}  // namespace tmetal::codegen
