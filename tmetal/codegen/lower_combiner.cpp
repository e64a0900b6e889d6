// Combiner regions of tt.reduce and tt.scan: a helper function computing the
// region on scalars, and the recognition of regions that are one of the
// SIMD hardware's own reductions (sum, product, max, min, and, or, xor).
#include "tmetal/codegen/kernel_lowering.h"

namespace tmetal::codegen {

using ir::OpKind;

namespace {
const ir::Block& combinerBlock(const ir::Operation& op) {
  if (op.numRegions() != 1 || op.region(0)->numBlocks() != 1) op.fail("expected one combiner region");
  return *op.region(0)->block(0);
}

// The single op of a region `^bb(a, b): r = OP(a, b); return r`, if it is one.
const ir::Operation* singleCombineOp(const ir::Operation& op) {
  const ir::Block& b = combinerBlock(op);
  if (op.numOperands() != 1 || b.ops().size() != 2 || b.numArguments() != 2) return nullptr;
  const ir::Operation* c = b.ops()[0].get();
  const ir::Operation* ret = b.ops()[1].get();
  if (c->numOperands() != 2 || c->numResults() != 1 || ret->numOperands() != 1 || ret->operand(0) != c->result(0))
    return nullptr;
  bool args = (c->operand(0) == b.argument(0) && c->operand(1) == b.argument(1)) ||
              (c->operand(0) == b.argument(1) && c->operand(1) == b.argument(0));
  return args ? c : nullptr;
}

// The ops whose operands may swap places (exactly, but for which payload
// comes out of two NaNs) and that SIMD hardware reduces by itself.
std::optional<SimdOp> simdOpOf(OpKind kind) {
  switch (kind) {
    case OpKind::ArithAddF:
    case OpKind::ArithAddI: return SimdOp::Sum;
    case OpKind::ArithMulF:
    case OpKind::ArithMulI: return SimdOp::Product;
    case OpKind::ArithMaxNumF:
    case OpKind::ArithMaxSI: return SimdOp::Max;
    case OpKind::ArithMinNumF:
    case OpKind::ArithMinSI: return SimdOp::Min;
    case OpKind::ArithAndI: return SimdOp::And;
    case OpKind::ArithOrI: return SimdOp::Or;
    case OpKind::ArithXOrI: return SimdOp::Xor;
    default: return std::nullopt;
  }
}
// The defining op of v if it is `kind` in the region's block.
const ir::Operation* definedAs(const ir::Value* v, OpKind kind, const ir::Block& b) {
  const ir::Operation* d = v->definingOp();
  return d && d->kind() == kind && d->parentBlock() == &b ? d : nullptr;
}

// Whether `c` is `x P y` for a strict order predicate P (slt, sgt, ult,
// ugt), or `y P' x` for its converse: true where x comes strictly before y.
bool strictlyBefore(const ir::Operation* c, const ir::Value* x, const ir::Value* y, bool& greater) {
  if (!c) return false;
  const std::string& p = c->symbolAttr("predicate");
  const bool lt = p == "slt" || p == "ult", gt = p == "sgt" || p == "ugt";
  if (!lt && !gt) return false;
  if (c->operand(0) == x && c->operand(1) == y) greater = gt;
  else if (c->operand(0) == y && c->operand(1) == x) greater = lt;
  else return false;
  return true;
}

// Whether `c` is a strict order of x and y (olt/ogt for floats too): as
// strictlyBefore.
bool valuesOrdered(const ir::Operation* c, const ir::Value* x, const ir::Value* y) {
  if (!c) return false;
  const std::string& p = c->symbolAttr("predicate");
  if (p == "olt" || p == "ogt")
    return (c->operand(0) == x && c->operand(1) == y) || (c->operand(0) == y && c->operand(1) == x);
  bool greater = false;
  return strictlyBefore(c, x, y, greater);
}

// Triton's argmax and argmin with ties to the lower index
// (`_argmax_combine_tie_break_left`): with a = (v, i) and b = (v', i'),
//   take = v > v' or (v == v' and i < i')   (v < v' for argmin)
//   return (take ? v : v', take ? i : i').
// Returns the test i < i' (nullptr where the region is not this).
const ir::Operation* argSelectionIndexTest(const ir::Block& b) {
  if (b.numArguments() != 4) return nullptr;
  const ir::Value *v = b.argument(0), *i = b.argument(1), *w = b.argument(2), *j = b.argument(3);
  if (!v->type().isScalar()) return nullptr;
  const ir::Operation* ret = b.terminator();
  if (ret->numOperands() != 2) return nullptr;
  const ir::Operation* pickValue = definedAs(ret->operand(0), OpKind::ArithSelect, b);
  const ir::Operation* pickIndex = definedAs(ret->operand(1), OpKind::ArithSelect, b);
  if (!pickValue || !pickIndex || pickValue->operand(0) != pickIndex->operand(0)) return nullptr;
  if (pickValue->operand(1) != v || pickValue->operand(2) != w || pickIndex->operand(1) != i ||
      pickIndex->operand(2) != j)
    return nullptr;
  const ir::Operation* take = definedAs(pickValue->operand(0), OpKind::ArithOrI, b);
  if (!take) return nullptr;
  const OpKind compare = ir::isFloatKind(v->type().scalarKind()) ? OpKind::ArithCmpF : OpKind::ArithCmpI;
  for (size_t k : {size_t{0}, size_t{1}}) {
    const ir::Operation* tie = definedAs(take->operand(1 - k), OpKind::ArithAndI, b);
    if (!valuesOrdered(definedAs(take->operand(k), compare, b), v, w) || !tie) continue;
    for (size_t m : {size_t{0}, size_t{1}}) {
      const ir::Operation* equal = definedAs(tie->operand(m), compare, b);
      const std::string eq = compare == OpKind::ArithCmpF ? "oeq" : "eq";
      const bool valuesEqual = equal && equal->symbolAttr("predicate") == eq &&
                               ((equal->operand(0) == v && equal->operand(1) == w) ||
                                (equal->operand(0) == w && equal->operand(1) == v));
      const ir::Operation* indexTest = definedAs(tie->operand(1 - m), OpKind::ArithCmpI, b);
      bool indexGreater = true;
      if (valuesEqual && strictlyBefore(indexTest, i, j, indexGreater) && !indexGreater) return indexTest;
    }
  }
  return nullptr;
}

// take(a, b) and take(b, a) of an integer argmax differ wherever a and b do
// (a strict total order on (v, i)), so both orders pick the same element.
// Integers only: with NaNs the float form is not (two NaNs each take the left).
bool selectsByTotalOrder(const ir::Block& b) {
  return argSelectionIndexTest(b) && !ir::isFloatKind(b.argument(0)->type().scalarKind());
}
}  // namespace

std::optional<SimdOp> KernelLowering::recognizeCombiner(const ir::Operation& op) const {
  const ir::Operation* c = singleCombineOp(op);
  return c ? simdOpOf(c->kind()) : std::nullopt;
}

const ir::Operation* KernelLowering::combinerIndexTest(const ir::Operation& op) const {
  return argSelectionIndexTest(combinerBlock(op));
}

bool KernelLowering::combinerIsCommutative(const ir::Operation& op) const {
  const ir::Block& b = combinerBlock(op);
  if (selectsByTotalOrder(b)) return true;
  const size_t n = op.numOperands();
  if (b.numArguments() != 2 * n || b.ops().size() != n + 1) return false;
  const ir::Operation* ret = b.terminator();
  if (ret->numOperands() != n) return false;
  for (size_t i = 0; i < n; ++i) {
    const ir::Operation* c = ret->operand(i)->definingOp();
    if (!c || c->parentBlock() != &b || c->numOperands() != 2 || !simdOpOf(c->kind())) return false;
    const ir::Value *a = b.argument(i), *other = b.argument(n + i);
    if (!((c->operand(0) == a && c->operand(1) == other) || (c->operand(0) == other && c->operand(1) == a)))
      return false;
  }
  return true;
}

std::string KernelLowering::combinerFunction(const ir::Operation& op, const ir::Operation* alwaysTrue) {
  auto found = combiners_.find({&op, alwaysTrue});
  if (found != combiners_.end()) return found->second;
  const ir::Block& block = combinerBlock(op);
  size_t n = op.numOperands();
  if (block.numArguments() != 2 * n) op.fail("the combiner region must take " + std::to_string(2 * n) + " arguments");
  std::string name = newName(std::string(op.kind() == OpKind::TtScan ? "scan_combine" : "combine") +
                            (alwaysTrue ? "_in_order" : ""));
  // The region is lowered like scalar code, into the helper's own buffer.
  CodeBuffer saved = std::move(body_);
  body_ = CodeBuffer(1);
  std::vector<std::string> params;
  // Asserts and prints (`debug=True` adds overflow checks to integer
  // combiners) need the debug buffer and where they run, which the kernel
  // passes in.
  bool debugOps = false;
  for (const auto& inner : block.ops())
    debugOps |= inner->kind() == OpKind::TtAssert || inner->kind() == OpKind::TtPrint;
  if (debugOps) {
    params.push_back(dialect_.pointerType(ir::Type::i32(), AddressSpace::Device) + " " + kDebugBufferName);
    DebugSite site;
    for (const char* axis : {"pid_x", "pid_y", "pid_z"}) {
      std::string id = newName(axis);
      params.push_back("int " + id);
      site.programId += (site.programId.empty() ? "" : ", ") + id;
    }
    site.threadIndex = newName("thread_index");
    params.push_back("int " + site.threadIndex);
    combinerSite_ = site;
    debugCombiners_.insert(&op);
  }
  for (size_t i = 0; i < block.numArguments(); ++i) {
    const ir::Value* a = block.argument(i);
    std::string pname = newName(a->name().empty() ? (i < n ? "a" : "b") + std::to_string(i % n) : a->name());
    defineScalar(a, pname);
    params.push_back(typeOf(a->type()) + " " + pname);
  }
  for (const auto& inner : block.ops()) {
    if (inner->kind() == OpKind::TtReduceReturn || inner->kind() == OpKind::TtScanReturn) continue;
    if (inner->numRegions() > 0) unsupported(*inner, "control flow inside a combiner region");
    if (inner.get() == alwaysTrue)
      defineScalar(inner->result(0), dialect_.boolLiteral(true));
    else if (inner->kind() == OpKind::TtAssert)
      lowerAssert(*inner);
    else if (inner->kind() == OpKind::TtPrint)
      lowerPrint(*inner);
    else
      lowerScalarOp(*inner);
  }
  combinerSite_.reset();
  const ir::Operation* ret = block.terminator();
  if (!ret || ret->numOperands() != n) op.fail("the combiner region must return " + std::to_string(n) + " values");
  std::string header;
  if (n == 1) {
    body_.line("return " + scalarOf(ret->operand(0)) + ";");
    header = dialect_.helperQualifier() + " " + typeOf(op.operand(0)->type().elementOrSelf()) + " " + name + "(";
  } else {
    for (size_t i = 0; i < n; ++i) {
      std::string out = "out" + std::to_string(i);
      params.push_back(dialect_.referenceParam(typeOf(op.operand(i)->type().elementOrSelf()), out));
      body_.line(out + " = " + scalarOf(ret->operand(i)) + ";");
    }
    header = dialect_.helperQualifier() + " void " + name + "(";
  }
  for (size_t i = 0; i < params.size(); ++i) header += (i ? ", " : "") + params[i];
  CodeBuffer fn(0);
  fn.comment("The combiner of '" + op.name() + "' at " + op.loc().userPos().str() + ".");
  fn.line(header + ") {");
  fn.append(body_);
  fn.line("}");
  fn.blank();
  helpers_.append(fn);
  body_ = std::move(saved);
  combiners_[{&op, alwaysTrue}] = name;
  return name;
}

std::vector<std::string> KernelLowering::combineStatements(const ir::Operation& op, const std::vector<std::string>& acc,
                                                           const std::vector<std::string>& other, bool otherFirst,
                                                           const ir::Operation* alwaysTrue) {
  const std::vector<std::string>& first = otherFirst ? other : acc;
  const std::vector<std::string>& second = otherFirst ? acc : other;
  if (const ir::Operation* c = singleCombineOp(op)) {
    // One arithmetic op: spell it inline ("acc = acc + x").
    bool swapped = c->operand(0) == combinerBlock(op).argument(1);
    std::vector<std::string> args = swapped ? std::vector<std::string>{second[0], first[0]}
                                            : std::vector<std::string>{first[0], second[0]};
    return {acc[0] + " = " + scalarExpr(*c, args) + ";"};
  }
  std::string fn = combinerFunction(op, alwaysTrue);
  std::string debug;  // the debug buffer and this thread's place, for a combiner with asserts or prints
  if (debugCombiners_.count(&op))
    debug = std::string(kDebugBufferName) + ", " + programIdArguments() + ", " + threadIndexArgument() + ", ";
  if (acc.size() == 1) return {acc[0] + " = " + fn + "(" + debug + first[0] + ", " + second[0] + ");"};
  std::string call = fn + "(" + debug;
  for (const std::string& a : first) call += a + ", ";
  for (const std::string& b : second) call += b + ", ";
  for (size_t i = 0; i < acc.size(); ++i) call += acc[i] + (i + 1 < acc.size() ? ", " : ");");
  return {call};
}

}  // namespace tmetal::codegen
