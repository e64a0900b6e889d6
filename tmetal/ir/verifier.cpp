#include "tmetal/ir/verifier.h"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <unordered_set>
#include <vector>

#include "tmetal/ir/decompose_dot_scaled.h"
#include "tmetal/ir/libdevice.h"
#include "tmetal/ir/op_syntax.h"
#include "tmetal/ir/text_syntax.h"

namespace tmetal::ir {

namespace {

std::string quoted(const Type& t) { return "'" + t.str() + "'"; }

bool sameShape(const Type& a, const Type& b) {
  if (a.isTensor() != b.isTensor()) return false;
  return !a.isTensor() || a.shape() == b.shape();
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

bool oneOf(const std::string& s, std::initializer_list<const char*> options) {
  for (const char* o : options)
    if (s == o) return true;
  return false;
}

std::string listOf(std::initializer_list<const char*> options) {
  std::string s;
  for (const char* o : options) s += (s.empty() ? "" : ", ") + std::string(o);
  return s;
}

bool isIntLike(const Type& t) { return t.elementOrSelf().isInt(); }
bool isFloatLike(const Type& t) { return t.elementOrSelf().isFloat(); }

class Verifier {
 public:
  explicit Verifier(const Module& module) : module_(module) {}

  void run() {
    for (const auto& f : module_.functions()) function(*f);
  }

 private:
  [[noreturn]] void failFunction(const Function& f, const std::string& message) const {
    throw CompileError(f.loc().userPos(), "function " + symbolRef(f.name()) + ": " + message);
  }

  void function(const Function& f) {
    visible_.clear();
    for (size_t i = 0; i < f.numArguments(); ++i) {
      if (f.argument(i)->type().isNone()) failFunction(f, "argument " + std::to_string(i) + " has no type");
      visible_.insert(f.argument(i));
      const Attribute* divisibility = f.argAttrs(i).find("tt.divisibility");
      if (divisibility && divisibility->kind() != Attribute::Kind::Int)
        failFunction(f, "tt.divisibility of argument " + std::to_string(i) + " must be an integer");
    }
    if (f.body()->numBlocks() != 1) failFunction(f, "the body must be one block");
    const Block& body = *f.entry();
    const Operation* last = body.terminator();
    if (!last || last->kind() != OpKind::TtReturn) failFunction(f, "the body must end with 'tt.return'");
    function_ = &f;
    block(body);
  }

  void block(const Block& b) {
    std::vector<const Value*> added;
    for (const Value* arg : b.arguments()) {
      visible_.insert(arg);
      added.push_back(arg);
    }
    for (size_t i = 0; i < b.ops().size(); ++i) {
      const Operation& op = *b.ops()[i];
      operation(op, i + 1 == b.ops().size());
      for (const Value* r : op.results()) {
        visible_.insert(r);
        added.push_back(r);
      }
    }
    for (const Value* v : added) visible_.erase(v);
  }

  void operation(const Operation& op, bool isLast) {
    if (op.kind() == OpKind::Unknown) op.fail("unknown op: tmetal supports the ops listed in ops.def");
    for (size_t i = 0; i < op.numOperands(); ++i) {
      const Value* v = op.operand(i);
      if (!v) op.fail("operand " + std::to_string(i) + " is missing");
      if (!visible_.count(v)) op.fail("operand " + std::to_string(i) + " is not defined before its use");
      if (v->type().isNone()) op.fail("operand " + std::to_string(i) + " has no type");
    }
    for (size_t i = 0; i < op.numResults(); ++i)
      if (op.result(i)->type().isNone()) op.fail("result " + std::to_string(i) + " has no type");
    terminatorPlacement(op, isLast);
    checkOp(op);
    for (size_t r = 0; r < op.numRegions(); ++r)
      for (size_t b = 0; b < op.region(r)->numBlocks(); ++b) block(*op.region(r)->block(b));
  }

  // Terminators end exactly the regions of the op they belong to.
  void terminatorPlacement(const Operation& op, bool isLast) {
    OpKind parent =
        op.parentBlock() && op.parentBlock()->parentOp() ? op.parentBlock()->parentOp()->kind() : OpKind::TtFunc;
    auto require = [&](std::initializer_list<OpKind> parents, const char* where) {
      if (std::find(parents.begin(), parents.end(), parent) == parents.end())
        op.fail(std::string("must be the last op of ") + where);
      if (!isLast) op.fail("must be the last op of its block");
    };
    switch (op.kind()) {
      case OpKind::TtReturn: require({OpKind::TtFunc}, "a function body"); break;
      case OpKind::ScfYield:
        require({OpKind::ScfFor, OpKind::ScfIf, OpKind::ScfWhile}, "an scf.for, scf.if or scf.while region");
        if (parent == OpKind::ScfWhile && (op.parentBlock()->parentOp()->numRegions() < 2 ||
                                           op.parentBlock()->parentRegion() != op.parentBlock()->parentOp()->region(1)))
          op.fail("must end the 'after' region of scf.while; the 'before' region ends with scf.condition");
        break;
      case OpKind::ScfCondition:
        require({OpKind::ScfWhile}, "the 'before' region of scf.while");
        if (op.parentBlock()->parentRegion() != op.parentBlock()->parentOp()->region(0))
          op.fail("must end the 'before' region of scf.while");
        break;
      case OpKind::TtReduceReturn: require({OpKind::TtReduce}, "a tt.reduce combiner"); break;
      case OpKind::TtScanReturn: require({OpKind::TtScan}, "a tt.scan combiner"); break;
      case OpKind::TtMapElementwiseReturn: require({OpKind::TtMapElementwise}, "a tt.map_elementwise region"); break;
      default: break;
    }
  }

  void counts(const Operation& op, size_t minOperands, size_t maxOperands, size_t results) const {
    const size_t n = op.numOperands();
    if (n < minOperands || n > maxOperands) {
      std::string expected = minOperands == maxOperands
                                 ? std::to_string(minOperands)
                                 : std::to_string(minOperands) + " to " + std::to_string(maxOperands);
      op.fail("expects " + expected + " operand(s), found " + std::to_string(n));
    }
    if (op.numResults() != results)
      op.fail("expects " + std::to_string(results) + " result(s), found " + std::to_string(op.numResults()));
  }

  void noRegions(const Operation& op) const {
    if (op.numRegions() != 0) op.fail("expects no regions, found " + std::to_string(op.numRegions()));
  }

  const Attribute& requireAttr(const Operation& op, const char* name, Attribute::Kind kind, const char* what) const {
    const Attribute* a = op.attr(name);
    if (!a || a->kind() != kind) op.fail(std::string("needs attribute '") + name + "' (" + what + ")");
    return *a;
  }

  void enumAttr(const Operation& op, const char* name, std::initializer_list<const char*> options,
                bool required) const {
    const Attribute* a = op.attr(name);
    if (!a) {
      if (required) op.fail(std::string("needs attribute '") + name + "' (one of " + listOf(options) + ")");
      return;
    }
    if (a->kind() != Attribute::Kind::Symbol || !oneOf(a->asString(), options))
      op.fail(std::string("attribute '") + name + "' must be one of " + listOf(options));
  }

  const Type& type(const Operation& op, size_t i) const { return op.operand(i)->type(); }
  const Type& resultType(const Operation& op, size_t i = 0) const { return op.result(i)->type(); }

  void expectType(const Operation& op, const std::string& what, const Type& actual, const Type& expected) const {
    if (actual != expected) op.fail(what + " must have type " + quoted(expected) + ", found " + quoted(actual));
  }

  // A block of a region with one block, ending in `terminator`.
  const Block& singleBlock(const Operation& op, size_t region, const char* what) const {
    if (op.numRegions() <= region || op.region(region)->numBlocks() != 1)
      op.fail(std::string("the ") + what + " must be one block");
    return *op.region(region)->block(0);
  }

  const Operation& terminatorOf(const Operation& op, const Block& b, OpKind kind, const char* what) const {
    const Operation* t = b.terminator();
    if (!t || t->kind() != kind) op.fail(std::string("the ") + what + " must end with '" + opKindName(kind) + "'");
    return *t;
  }

  void checkOp(const Operation& op);
  void checkElementwise(const Operation& op);
  void checkCast(const Operation& op);
  void checkShapeOp(const Operation& op);
  void checkMemoryOp(const Operation& op);
  void checkReduceOrScan(const Operation& op, bool isScan);
  void checkMapElementwise(const Operation& op);
  void checkFor(const Operation& op);
  void checkIf(const Operation& op);
  void checkWhile(const Operation& op);
  void checkConstant(const Operation& op);
  void checkDot(const Operation& op);
  void checkDotScaled(const Operation& op);
  void checkLibdeviceCall(const Operation& op);
  void checkBlockPointerOp(const Operation& op);
  void checkMisc(const Operation& op);

  const Module& module_;
  const Function* function_ = nullptr;
  std::unordered_set<const Value*> visible_;
};

void Verifier::checkOp(const Operation& op) {
  switch (op.kind()) {
    case OpKind::ScfFor: return checkFor(op);
    case OpKind::ScfIf: return checkIf(op);
    case OpKind::ScfWhile: return checkWhile(op);
    case OpKind::TtReduce: return checkReduceOrScan(op, false);
    case OpKind::TtScan: return checkReduceOrScan(op, true);
    case OpKind::TtMapElementwise: return checkMapElementwise(op);
    default: break;
  }
  noRegions(op);
  switch (opSyntax(op.kind())) {
    case OpSyntax::SameType:
    case OpSyntax::Compare:
    case OpSyntax::Select: return checkElementwise(op);
    case OpSyntax::Cast: return checkCast(op);
    case OpSyntax::Constant: return checkConstant(op);
    case OpSyntax::Load:
    case OpSyntax::Store:
    case OpSyntax::AddPtr:
    case OpSyntax::AtomicRMW:
    case OpSyntax::AtomicCAS: return checkMemoryOp(op);
    case OpSyntax::Dot: return checkDot(op);
    case OpSyntax::DotScaled: return checkDotScaled(op);
    case OpSyntax::MakeTensorPtr:
    case OpSyntax::Advance: return checkBlockPointerOp(op);
    case OpSyntax::Arrow:
    case OpSyntax::Reshape:
    case OpSyntax::FpToFp:
      if (op.kind() != OpKind::TtBitcast && op.kind() != OpKind::TtIntToPtr && op.kind() != OpKind::TtPtrToInt &&
          op.kind() != OpKind::TtFpToFp && op.kind() != OpKind::TtHistogram)
        return checkShapeOp(op);
      return checkCast(op);
    default: return checkMisc(op);
  }
}

void Verifier::checkElementwise(const Operation& op) {
  const OpKind kind = op.kind();
  if (opSyntax(kind) == OpSyntax::Select) {
    counts(op, 3, 3, 1);
    const Type& value = resultType(op);
    expectType(op, "the true value", type(op, 1), value);
    expectType(op, "the false value", type(op, 2), value);
    const Type& condition = type(op, 0);
    if (condition != Type::i1() && condition != value.withElement(Type::i1()))
      op.fail("the condition must be i1 or an i1 tensor of the values' shape, found " + quoted(condition));
    return;
  }
  if (opSyntax(kind) == OpSyntax::Compare) {
    counts(op, 2, 2, 1);
    const bool isInt = kind == OpKind::ArithCmpI;
    if (isInt)
      enumAttr(op, "predicate", {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"}, true);
    else
      enumAttr(op, "predicate",
               {"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une",
                "uno", "true"},
               true);
    const Type& lhs = type(op, 0);
    expectType(op, "the right operand", type(op, 1), lhs);
    if (isInt ? !isIntLike(lhs) : !isFloatLike(lhs))
      op.fail(std::string("compares ") + (isInt ? "integers" : "floats") + ", found " + quoted(lhs));
    expectType(op, "the result", resultType(op), lhs.withElement(Type::i1()));
    return;
  }
  const size_t arity = sameTypeArity(kind);
  counts(op, arity, arity, 1);
  const Type& result = resultType(op);
  for (size_t i = 0; i < arity; ++i)
    if (type(op, i) != result)
      op.fail("operand " + std::to_string(i) + " has type " + quoted(type(op, i)) + " but the result has type " +
              quoted(result) + "; elementwise operands and result must have the same type");
  const std::string& name = op.name();
  const bool wantsFloat = name.back() == 'f' || (name.rfind("math.", 0) == 0 && kind != OpKind::MathAbsI) ||
                          kind == OpKind::TtPreciseSqrt || kind == OpKind::TtPreciseDivF ||
                          kind == OpKind::ArithMaxNumF || kind == OpKind::ArithMinNumF ||
                          kind == OpKind::ArithMaximumF || kind == OpKind::ArithMinimumF;
  if (wantsFloat ? !isFloatLike(result) : !isIntLike(result))
    op.fail(std::string("works on ") + (wantsFloat ? "floats" : "integers") + ", found " + quoted(result));
}

void Verifier::checkCast(const Operation& op) {
  const OpKind kind = op.kind();
  counts(op, 1, kind == OpKind::TtHistogram ? 2 : 1, 1);
  const Type& from = type(op, 0);
  const Type& to = resultType(op);
  if (kind == OpKind::TtHistogram) {
    if (!from.isTensor() || from.rank() != 1 || !from.element().isInt())
      op.fail("the input must be a 1-D integer tensor, found " + quoted(from));
    if (!to.isTensor() || to.rank() != 1 || !to.element().isInt())
      op.fail("the result must be a 1-D integer tensor, found " + quoted(to));
    if (op.numOperands() == 2) expectType(op, "the mask", type(op, 1), from.withElement(Type::i1()));
    return;
  }
  if (!sameShape(from, to))
    op.fail("casts keep the shape: " + quoted(from) + " and " + quoted(to) + " differ in shape");
  const Type& a = from.elementOrSelf();
  const Type& b = to.elementOrSelf();
  auto need = [&](bool ok, const std::string& rule) {
    if (!ok) op.fail(rule + ", found " + quoted(from) + " to " + quoted(to));
  };
  switch (kind) {
    case OpKind::ArithExtSI:
    case OpKind::ArithExtUI:
      need(a.isInt() && b.isInt() && b.bitWidth() > a.bitWidth(), "extends an integer to a wider integer");
      break;
    case OpKind::ArithTruncI:
      need(a.isInt() && b.isInt() && b.bitWidth() < a.bitWidth(), "truncates an integer to a narrower integer");
      break;
    case OpKind::ArithExtF:
      need(a.isFloat() && b.isFloat() && b.bitWidth() > a.bitWidth(), "extends a float to a wider float");
      break;
    case OpKind::ArithTruncF:
      need(a.isFloat() && b.isFloat() && b.bitWidth() < a.bitWidth(), "truncates a float to a narrower float");
      break;
    case OpKind::ArithSIToFP:
    case OpKind::ArithUIToFP: need(a.isInt() && b.isFloat(), "converts an integer to a float"); break;
    case OpKind::ArithFPToSI:
    case OpKind::ArithFPToUI: need(a.isFloat() && b.isInt(), "converts a float to an integer"); break;
    case OpKind::ArithIndexCast: need(a.isInt() && b.isInt(), "converts between integer types"); break;
    case OpKind::ArithBitcast:
      need(a.isScalar() && b.isScalar() && a.bitWidth() == b.bitWidth(),
           "reinterprets bits between types of one width");
      break;
    case OpKind::TtBitcast:
      need(a.bitWidth() == b.bitWidth(), "reinterprets bits between element types of one width");
      break;
    case OpKind::TtIntToPtr: need(a == Type::i64() && b.isPointer(), "converts i64 to a pointer"); break;
    case OpKind::TtPtrToInt: need(a.isPointer() && b == Type::i64(), "converts a pointer to i64"); break;
    case OpKind::TtFpToFp: {
      need(a.isFloat() && b.isFloat(), "converts between float types");
      enumAttr(op, "rounding", {"rtne", "rtz"}, false);
      if (b.bitWidth() < a.bitWidth() && !op.attr("rounding"))
        op.fail("a conversion to a narrower float needs attribute 'rounding' (rtne or rtz)");
      break;
    }
    default: break;
  }
}

void Verifier::checkShapeOp(const Operation& op) {
  const OpKind kind = op.kind();
  const size_t operands = kind == OpKind::TtJoin || kind == OpKind::TtCat ? 2 : 1;
  counts(op, operands, operands, kind == OpKind::TtSplit ? 2 : 1);
  const Type& src = type(op, 0);
  const Type& result = resultType(op);
  if (kind == OpKind::TtSplat) {
    if (src.isTensor()) op.fail("splats a scalar, found the tensor " + quoted(src));
    if (!result.isTensor() || result.element() != src)
      op.fail("the result must be a tensor of " + quoted(src) + ", found " + quoted(result));
    return;
  }
  if (!src.isTensor()) op.fail("expects a tensor operand, found " + quoted(src));
  if (kind != OpKind::TtSplit && !result.isTensor()) op.fail("the result must be a tensor, found " + quoted(result));
  const Type& element = src.element();
  if (kind != OpKind::TtSplit && result.element() != element)
    op.fail("keeps the element type " + quoted(element) + ", but the result is " + quoted(result));
  const std::vector<int64_t>& in = src.shape();
  switch (kind) {
    case OpKind::TtBroadcast: {
      const std::vector<int64_t>& out = result.shape();
      if (in.size() != out.size()) op.fail("cannot change the rank: " + quoted(src) + " to " + quoted(result));
      for (size_t d = 0; d < in.size(); ++d)
        if (in[d] != out[d] && in[d] != 1)
          op.fail("dimension " + std::to_string(d) + " has size " + std::to_string(in[d]) +
                  "; only size-1 dimensions broadcast (" + quoted(src) + " to " + quoted(result) + ")");
      return;
    }
    case OpKind::TtExpandDims: {
      const Attribute& axis = requireAttr(op, "axis", Attribute::Kind::Int, "an integer");
      if (axis.asInt() < 0 || axis.asInt() > static_cast<int64_t>(in.size()))
        op.fail("axis " + std::to_string(axis.asInt()) + " is out of range for a rank-" + std::to_string(in.size()) +
                " tensor");
      std::vector<int64_t> expected = in;
      expected.insert(expected.begin() + axis.asInt(), 1);
      if (result.shape() != expected)
        op.fail("the result shape must be " + shapeText(expected) + ", found " + shapeText(result.shape()));
      return;
    }
    case OpKind::TtReshape:
      if (src.numElements() != result.numElements())
        op.fail("cannot change the number of elements: " + quoted(src) + " to " + quoted(result));
      return;
    case OpKind::TtTrans: {
      const Attribute& order = requireAttr(op, "order", Attribute::Kind::DenseArray, "array<i32: ...>");
      std::vector<int64_t> sorted = order.ints();
      std::sort(sorted.begin(), sorted.end());
      bool permutation = sorted.size() == in.size();
      for (size_t i = 0; permutation && i < sorted.size(); ++i) permutation = sorted[i] == static_cast<int64_t>(i);
      if (!permutation) op.fail("'order' must be a permutation of the " + std::to_string(in.size()) + " dimensions");
      std::vector<int64_t> expected;
      for (int64_t d : order.ints()) expected.push_back(in[static_cast<size_t>(d)]);
      if (result.shape() != expected)
        op.fail("the result shape must be " + shapeText(expected) + ", found " + shapeText(result.shape()));
      return;
    }
    case OpKind::TtJoin: {
      expectType(op, "the second operand", type(op, 1), src);
      std::vector<int64_t> expected = in;
      expected.push_back(2);
      if (result.shape() != expected)
        op.fail("the result shape must be " + shapeText(expected) + ", found " + shapeText(result.shape()));
      return;
    }
    case OpKind::TtSplit: {
      if (in.size() < 2 || in.back() != 2) op.fail("splits a tensor whose last dimension is 2, found " + quoted(src));
      Type expected = Type::tensor(std::vector<int64_t>(in.begin(), in.end() - 1), element);
      expectType(op, "the first result", resultType(op, 0), expected);
      expectType(op, "the second result", resultType(op, 1), expected);
      return;
    }
    case OpKind::TtCat:
      expectType(op, "the second operand", type(op, 1), src);
      if (result.rank() != src.rank() || result.numElements() != 2 * src.numElements())
        op.fail("the result must hold both operands: " + quoted(result) + " for two " + quoted(src));
      return;
    default: return;
  }
}

void Verifier::checkMemoryOp(const Operation& op) {
  const OpKind kind = op.kind();
  if (kind == OpKind::TtAddPtr) {
    counts(op, 2, 2, 1);
    const Type& ptr = type(op, 0);
    const Type& offset = type(op, 1);
    if (!ptr.elementOrSelf().isPointer() || ptr.isBlockPointer())
      op.fail("the first operand must be a pointer or a tensor of pointers, found " + quoted(ptr));
    if (!offset.elementOrSelf().isInt()) op.fail("the offset must be an integer, found " + quoted(offset));
    if (!sameShape(ptr, offset))
      op.fail("pointer " + quoted(ptr) + " and offset " + quoted(offset) + " must have the same shape");
    expectType(op, "the result", resultType(op), ptr);
    return;
  }
  const bool isLoad = kind == OpKind::TtLoad, isStore = kind == OpKind::TtStore;
  if (isLoad)
    counts(op, 1, 3, 1);
  else if (isStore)
    counts(op, 2, 3, 0);
  else if (kind == OpKind::TtAtomicRMW)
    counts(op, 2, 3, 1);
  else
    counts(op, 3, 3, 1);
  const Type& ptr = type(op, 0);
  Type loaded;
  if (!loadedType(ptr, loaded)) op.fail("needs a pointer or a tensor of pointers, found " + quoted(ptr));
  const Type mask = loaded.withElement(Type::i1());
  if (isLoad || isStore) {
    const bool blockPointer = ptr.isBlockPointer();
    if (isLoad) {
      expectType(op, "the result", resultType(op), loaded);
      if (op.numOperands() > 1) expectType(op, "the mask", type(op, 1), mask);
      if (op.numOperands() > 2) expectType(op, "'other'", type(op, 2), loaded);
    } else {
      expectType(op, "the stored value", type(op, 1), loaded);
      if (op.numOperands() > 2) expectType(op, "the mask", type(op, 2), mask);
    }
    if (blockPointer && op.numOperands() > (isLoad ? 1u : 2u))
      op.fail("a block pointer access takes no mask or 'other'; use boundaryCheck and padding");
    enumAttr(op, "cache", {"none", "ca", "cg", "wb", "cs", "wt", "cv"}, false);
    enumAttr(op, "evict", {"normal", "evict_first", "evict_last"}, false);
    if (const Attribute* v = op.attr("isVolatile"); v && v->kind() != Attribute::Kind::Bool)
      op.fail("attribute 'isVolatile' must be true or false");
    if (const Attribute* check = op.attr("boundaryCheck")) {
      if (check->kind() != Attribute::Kind::DenseArray) op.fail("attribute 'boundaryCheck' must be array<i32: ...>");
      if (!check->ints().empty() && !blockPointer) op.fail("'boundaryCheck' applies only to block pointers");
      for (int64_t d : check->ints())
        if (d < 0 || d >= loaded.rank())
          op.fail("boundaryCheck dimension " + std::to_string(d) + " is out of range for " + quoted(loaded));
    }
    if (const Attribute* padding = op.attr("padding")) {
      if (padding->kind() != Attribute::Kind::Int || (padding->asInt() != 1 && padding->asInt() != 2))
        op.fail("attribute 'padding' must be 1 (zero) or 2 (nan)");
      if (!blockPointer) op.fail("'padding' applies only to block pointers");
    }
    return;
  }
  // Atomics.
  if (ptr.isBlockPointer()) op.fail("atomics take a pointer or a tensor of pointers, not a block pointer");
  if (!loaded.elementOrSelf().isScalar()) op.fail("atomics work on integers and floats, found " + quoted(loaded));
  enumAttr(op, "sem", {"relaxed", "acquire", "release", "acq_rel"}, true);
  enumAttr(op, "scope", {"gpu", "cta", "sys"}, true);
  if (kind == OpKind::TtAtomicRMW) {
    enumAttr(op, "atomic_rmw_op", {"and", "or", "xor", "add", "fadd", "max", "min", "umax", "umin", "exch"}, true);
    expectType(op, "the value", type(op, 1), loaded);
    if (op.numOperands() > 2) expectType(op, "the mask", type(op, 2), mask);
  } else {
    expectType(op, "the compared value", type(op, 1), loaded);
    expectType(op, "the new value", type(op, 2), loaded);
  }
  expectType(op, "the result", resultType(op), loaded);
}

void Verifier::checkDotScaled(const Operation& op) {
  if (op.numResults() != 1) op.fail("must have one result");
  const Attribute* segments = op.attr("operandSegmentSizes");
  if (!segments || segments->kind() != Attribute::Kind::DenseArray || segments->ints().size() != 5)
    op.fail("needs attribute 'operandSegmentSizes' (which of a, a_scale, b, b_scale, acc are there)");
  for (size_t i = 0; i < 5; ++i)
    if (segments->ints()[i] != (i % 2 ? 0 : 1) && segments->ints()[i] != 1)
      op.fail("attribute 'operandSegmentSizes' must be 1, 0|1, 1, 0|1, 1");
  const DotScaledOperands in = dotScaledOperands(op);
  enumAttr(op, "lhs", {"e2m1", "e4m3", "e5m2", "bf16", "fp16"}, true);
  enumAttr(op, "rhs", {"e2m1", "e4m3", "e5m2", "bf16", "fp16"}, true);
  const Type& a = in.a->type();
  const Type& b = in.b->type();
  const Type& c = in.acc->type();
  expectType(op, "the result", resultType(op), c);
  if (!a.isTensor() || !b.isTensor() || !c.isTensor() || a.rank() != 2 || b.rank() != 2 || c.rank() != 2)
    op.fail("multiplies rank-2 tensors, found " + quoted(a) + " * " + quoted(b) + " -> " + quoted(c));
  if (c.element() != Type::f32()) op.fail("accumulates in f32, found " + quoted(c));
  if (const Attribute* f = op.attr("fastMath"); f && f->kind() != Attribute::Kind::Bool)
    op.fail("attribute 'fastMath' must be a boolean");
}

// A known libdevice function gets its types checked (a call of an unknown
// one is refused where it would run: the interpreter, the code generators).
void Verifier::checkLibdeviceCall(const Operation& op) {
  const std::string& symbol = op.symbolAttr("symbol");
  const LibdeviceFunction* f = findLibdeviceFunction(symbol);
  if (!f) return;
  auto typeName = [](LibdeviceType t) { return std::string(scalarName(libdeviceScalarKind(t))); };
  if (op.numOperands() != f->arguments.size())
    op.fail(symbol + " takes " + std::to_string(f->arguments.size()) + " operand(s), found " +
            std::to_string(op.numOperands()));
  for (size_t i = 0; i < f->arguments.size(); ++i)
    if (type(op, i).elementOrSelf() != Type::scalar(libdeviceScalarKind(f->arguments[i])))
      op.fail(symbol + ": operand " + std::to_string(i) + " must be " + typeName(f->arguments[i]) + ", found " +
              quoted(type(op, i)));
  if (resultType(op).elementOrSelf() != Type::scalar(libdeviceScalarKind(f->result)))
    op.fail(symbol + ": the result must be " + typeName(f->result) + ", found " + quoted(resultType(op)));
}

void Verifier::checkDot(const Operation& op) {
  counts(op, 3, 3, 1);
  const Type& a = type(op, 0);
  const Type& b = type(op, 1);
  const Type& c = type(op, 2);
  expectType(op, "the result", resultType(op), c);
  if (!a.isTensor() || !b.isTensor() || !c.isTensor() || a.rank() != b.rank() || a.rank() != c.rank() ||
      (a.rank() != 2 && a.rank() != 3))
    op.fail("multiplies rank-2 (or batched rank-3) tensors, found " + quoted(a) + " * " + quoted(b) + " -> " +
            quoted(c));
  const size_t r = static_cast<size_t>(a.rank());
  const auto& sa = a.shape();
  const auto& sb = b.shape();
  const auto& sc = c.shape();
  if (sa[r - 1] != sb[r - 2] || sc[r - 2] != sa[r - 2] || sc[r - 1] != sb[r - 1] ||
      (r == 3 && (sa[0] != sb[0] || sa[0] != sc[0])))
    op.fail("shapes do not multiply: " + quoted(a) + " * " + quoted(b) + " -> " + quoted(c));
  const bool float8Pair = a.element().isFloat() && b.element().isFloat() && ir::isFloat8Kind(a.element().scalarKind()) &&
                          ir::isFloat8Kind(b.element().scalarKind());  // Triton allows any two 8-bit floats
  if (a.element() != b.element() && !float8Pair)
    op.fail("a and b must have the same element type, found " + quoted(a.element()) + " and " + quoted(b.element()));
  if (a.element().isFloat() != c.element().isFloat())
    op.fail("the accumulator must be " + std::string(a.element().isFloat() ? "a float" : "an integer") +
            " tensor, found " + quoted(c));
  enumAttr(op, "inputPrecision", {"tf32", "tf32x3", "ieee", "bf16x3", "bf16x6"}, false);
  if (const Attribute* acc = op.attr("maxNumImpreciseAcc"); acc && acc->kind() != Attribute::Kind::Int)
    op.fail("attribute 'maxNumImpreciseAcc' must be an integer");
}

void Verifier::checkBlockPointerOp(const Operation& op) {
  if (op.numResults() != 1) op.fail("expects 1 result(s), found " + std::to_string(op.numResults()));
  const Type& result = resultType(op);
  if (!result.isBlockPointer()) op.fail("the result must be a pointer to a tensor, found " + quoted(result));
  const size_t rank = static_cast<size_t>(result.pointee().rank());
  if (op.kind() == OpKind::TtAdvance) {
    counts(op, 1 + rank, 1 + rank, 1);
    expectType(op, "the pointer", type(op, 0), result);
    for (size_t i = 1; i <= rank; ++i) expectType(op, "offset " + std::to_string(i - 1), type(op, i), Type::i32());
    return;
  }
  counts(op, 1 + 3 * rank, 1 + 3 * rank, 1);
  expectType(op, "the base", type(op, 0), Type::pointer(result.pointee().element(), result.addressSpace()));
  for (size_t i = 0; i < rank; ++i) {
    expectType(op, "shape " + std::to_string(i), type(op, 1 + i), Type::i64());
    expectType(op, "stride " + std::to_string(i), type(op, 1 + rank + i), Type::i64());
    expectType(op, "offset " + std::to_string(i), type(op, 1 + 2 * rank + i), Type::i32());
  }
  const Attribute& order = requireAttr(op, "order", Attribute::Kind::DenseArray, "array<i32: ...>");
  std::vector<int64_t> sorted = order.ints();
  std::sort(sorted.begin(), sorted.end());
  bool permutation = sorted.size() == rank;
  for (size_t i = 0; permutation && i < rank; ++i) permutation = sorted[i] == static_cast<int64_t>(i);
  if (!permutation) op.fail("'order' must be a permutation of the " + std::to_string(rank) + " dimensions");
}

void Verifier::checkConstant(const Operation& op) {
  counts(op, 0, 0, 1);
  const Attribute* value = op.attr("value");
  if (!value) op.fail("needs attribute 'value'");
  const Type& result = resultType(op);
  switch (value->kind()) {
    case Attribute::Kind::Bool: expectType(op, "the result", result, Type::i1()); return;
    case Attribute::Kind::Int:
      if (!value->type().isInt()) op.fail("an integer value needs an integer type, found " + quoted(value->type()));
      expectType(op, "the result", result, value->type());
      return;
    case Attribute::Kind::Float:
      if (!value->type().isFloat()) op.fail("a float value needs a float type, found " + quoted(value->type()));
      expectType(op, "the result", result, value->type());
      return;
    case Attribute::Kind::Dense: {
      expectType(op, "the result", result, value->type());
      if (!result.isTensor()) op.fail("a dense value needs a tensor type, found " + quoted(result));
      const size_t count = value->elements().size();
      if (count != 1 && static_cast<int64_t>(count) != result.numElements())
        op.fail("dense value has " + std::to_string(count) + " element(s); " + quoted(result) + " needs 1 or " +
                std::to_string(result.numElements()));
      const Type& element = result.element();
      for (const Attribute& e : value->elements()) {
        bool fits = element == Type::i1() ? e.kind() == Attribute::Kind::Bool
                    : element.isInt()     ? e.kind() == Attribute::Kind::Int && e.type() == element
                    : element.isFloat()   ? e.kind() == Attribute::Kind::Float && e.type() == element
                                          : false;
        if (!fits) op.fail("dense elements must be values of " + quoted(element));
      }
      return;
    }
    default: op.fail("attribute 'value' must be an integer, float, boolean or dense constant");
  }
}

void Verifier::checkReduceOrScan(const Operation& op, bool isScan) {
  const size_t n = op.numOperands();
  if (n == 0) op.fail("expects at least one operand");
  if (op.numResults() != n)
    op.fail("expects " + std::to_string(n) + " result(s), one per operand, found " + std::to_string(op.numResults()));
  if (op.numRegions() != 1) op.fail("expects one combiner region, found " + std::to_string(op.numRegions()));
  const Type& first = type(op, 0);
  if (!first.isTensor()) op.fail("operand 0 must be a tensor, found " + quoted(first));
  const Attribute& axis = requireAttr(op, "axis", Attribute::Kind::Int, "an integer");
  if (axis.asInt() < 0 || axis.asInt() >= first.rank())
    op.fail("axis " + std::to_string(axis.asInt()) + " is out of range for " + quoted(first));
  if (isScan) {
    const Attribute* reverse = op.attr("reverse");
    if (reverse && reverse->kind() != Attribute::Kind::Bool) op.fail("attribute 'reverse' must be true or false");
  }
  std::vector<Type> elements;
  for (size_t i = 0; i < n; ++i) {
    const Type& t = type(op, i);
    if (!t.isTensor() || t.shape() != first.shape())
      op.fail("all operands must be tensors of one shape: operand " + std::to_string(i) + " is " + quoted(t) +
              ", operand 0 is " + quoted(first));
    elements.push_back(t.element());
    Type expected = t;
    if (!isScan) {
      std::vector<int64_t> shape = t.shape();
      shape.erase(shape.begin() + axis.asInt());
      expected = shape.empty() ? t.element() : Type::tensor(shape, t.element());
    }
    expectType(op, "result " + std::to_string(i), resultType(op, i), expected);
  }
  const Block& combiner = singleBlock(op, 0, "combiner region");
  if (combiner.numArguments() != 2 * n)
    op.fail("the combiner must take " + std::to_string(2 * n) + " arguments (accumulated and current values), found " +
            std::to_string(combiner.numArguments()));
  for (size_t i = 0; i < 2 * n; ++i)
    expectType(op, "combiner argument " + std::to_string(i), combiner.argument(i)->type(), elements[i % n]);
  const OpKind terminatorKind = isScan ? OpKind::TtScanReturn : OpKind::TtReduceReturn;
  const Operation& ret = terminatorOf(op, combiner, terminatorKind, "combiner");
  if (ret.numOperands() != n)
    op.fail("the combiner must return " + std::to_string(n) + " value(s), found " + std::to_string(ret.numOperands()));
  for (size_t i = 0; i < n; ++i) expectType(op, "combined value " + std::to_string(i), type(ret, i), elements[i]);
}

void Verifier::checkMapElementwise(const Operation& op) {
  if (op.numOperands() == 0 || op.numResults() == 0) op.fail("expects at least one operand and one result");
  const Type& first = type(op, 0);
  if (!first.isTensor()) op.fail("expects tensor operands, found " + quoted(first));
  for (size_t i = 0; i < op.numOperands(); ++i)
    if (!type(op, i).isTensor() || type(op, i).shape() != first.shape())
      op.fail("operand " + std::to_string(i) + " must be a tensor of the shape of operand 0, found " + quoted(type(op, i)));
  for (size_t i = 0; i < op.numResults(); ++i)
    if (!resultType(op, i).isTensor() || resultType(op, i).shape() != first.shape())
      op.fail("result " + std::to_string(i) + " must be a tensor of the operands' shape, found " +
              quoted(resultType(op, i)));
  int64_t pack = 1;
  if (const Attribute* p = op.attr("pack")) {
    if (p->kind() != Attribute::Kind::Int || p->asInt() < 1) op.fail("attribute 'pack' must be a positive integer");
    pack = p->asInt();
  }
  if (op.numRegions() != 1) op.fail("expects one region");
  const Block& body = singleBlock(op, 0, "region");
  const size_t n = op.numOperands(), m = op.numResults(), k = static_cast<size_t>(pack);
  if (body.numArguments() != n * k)
    op.fail("the region must take " + std::to_string(n * k) + " arguments (pack " + std::to_string(pack) +
            " per operand), found " + std::to_string(body.numArguments()));
  for (size_t i = 0; i < n * k; ++i)
    expectType(op, "region argument " + std::to_string(i), body.argument(i)->type(), type(op, i / k).element());
  const Operation& ret = terminatorOf(op, body, OpKind::TtMapElementwiseReturn, "region");
  if (ret.numOperands() != m * k)
    op.fail("the region must return " + std::to_string(m * k) + " value(s), found " + std::to_string(ret.numOperands()));
  for (size_t i = 0; i < m * k; ++i)
    expectType(op, "returned value " + std::to_string(i), type(ret, i), resultType(op, i / k).element());
}

void Verifier::checkFor(const Operation& op) {
  if (op.numOperands() < 3) op.fail("expects a lower bound, an upper bound and a step");
  const Type& iv = type(op, 0);
  if (!iv.isInt() || iv == Type::i1()) op.fail("the bounds must be integers, found " + quoted(iv));
  expectType(op, "the upper bound", type(op, 1), iv);
  expectType(op, "the step", type(op, 2), iv);
  const size_t carried = op.numOperands() - 3;
  if (op.numResults() != carried)
    op.fail("expects one result per loop-carried value (" + std::to_string(carried) + "), found " +
            std::to_string(op.numResults()));
  if (op.numRegions() != 1) op.fail("expects one body region");
  const Block& body = singleBlock(op, 0, "body");
  if (body.numArguments() != carried + 1)
    op.fail("the body must take the induction variable and " + std::to_string(carried) +
            " loop-carried value(s), found " + std::to_string(body.numArguments()) + " argument(s)");
  expectType(op, "the induction variable", body.argument(0)->type(), iv);
  for (size_t i = 0; i < carried; ++i) {
    const Type& t = type(op, 3 + i);
    expectType(op, "loop-carried argument " + std::to_string(i), body.argument(1 + i)->type(), t);
    expectType(op, "result " + std::to_string(i), resultType(op, i), t);
  }
  const Operation& yield = terminatorOf(op, body, OpKind::ScfYield, "body");
  if (yield.numOperands() != carried)
    op.fail("the body must yield " + std::to_string(carried) + " value(s), found " +
            std::to_string(yield.numOperands()));
  for (size_t i = 0; i < carried; ++i)
    expectType(op, "yielded value " + std::to_string(i), type(yield, i), type(op, 3 + i));
}

void Verifier::checkIf(const Operation& op) {
  counts(op, 1, 1, op.numResults());
  expectType(op, "the condition", type(op, 0), Type::i1());
  if (op.numRegions() < 1 || op.numRegions() > 2)
    op.fail("expects a then region and an optional else region, found " + std::to_string(op.numRegions()) +
            " region(s)");
  if (op.numResults() > 0 && op.numRegions() != 2) op.fail("an scf.if with results needs an else region");
  const char* const names[2] = {"then region", "else region"};
  for (size_t r = 0; r < op.numRegions(); ++r) {
    const Block& b = singleBlock(op, r, names[r]);
    if (b.numArguments() != 0) op.fail(std::string("the ") + names[r] + " takes no arguments");
    const Operation& yield = terminatorOf(op, b, OpKind::ScfYield, names[r]);
    if (yield.numOperands() != op.numResults())
      op.fail(std::string("the ") + names[r] + " must yield " + std::to_string(op.numResults()) + " value(s), found " +
              std::to_string(yield.numOperands()));
    for (size_t i = 0; i < op.numResults(); ++i)
      expectType(op, std::string("value ") + std::to_string(i) + " yielded by the " + names[r], type(yield, i),
                 resultType(op, i));
  }
}

void Verifier::checkWhile(const Operation& op) {
  if (op.numRegions() != 2) op.fail("expects a 'before' and an 'after' region");
  const Block& before = singleBlock(op, 0, "'before' region");
  const Block& after = singleBlock(op, 1, "'after' region");
  const size_t n = op.numOperands();
  if (before.numArguments() != n)
    op.fail("the 'before' region must take " + std::to_string(n) + " argument(s), one per initial value, found " +
            std::to_string(before.numArguments()));
  for (size_t i = 0; i < n; ++i)
    expectType(op, "'before' argument " + std::to_string(i), before.argument(i)->type(), type(op, i));
  const Operation& condition = terminatorOf(op, before, OpKind::ScfCondition, "'before' region");
  if (condition.numOperands() < 1) op.fail("scf.condition needs a condition");
  expectType(op, "the condition", type(condition, 0), Type::i1());
  const size_t m = op.numResults();
  if (condition.numOperands() - 1 != m)
    op.fail("scf.condition must forward " + std::to_string(m) + " value(s), one per result, found " +
            std::to_string(condition.numOperands() - 1));
  if (after.numArguments() != m)
    op.fail("the 'after' region must take " + std::to_string(m) + " argument(s), one per result, found " +
            std::to_string(after.numArguments()));
  for (size_t i = 0; i < m; ++i) {
    expectType(op, "forwarded value " + std::to_string(i), type(condition, 1 + i), resultType(op, i));
    expectType(op, "'after' argument " + std::to_string(i), after.argument(i)->type(), resultType(op, i));
  }
  const Operation& yield = terminatorOf(op, after, OpKind::ScfYield, "'after' region");
  if (yield.numOperands() != n)
    op.fail("the 'after' region must yield " + std::to_string(n) + " value(s), one per initial value, found " +
            std::to_string(yield.numOperands()));
  for (size_t i = 0; i < n; ++i) expectType(op, "yielded value " + std::to_string(i), type(yield, i), type(op, i));
}

void Verifier::checkMisc(const Operation& op) {
  switch (op.kind()) {
    case OpKind::TtGetProgramId:
    case OpKind::TtGetNumPrograms: {
      counts(op, 0, 0, 1);
      const Attribute& axis = requireAttr(op, "axis", Attribute::Kind::Int, "0, 1 or 2");
      if (axis.asInt() < 0 || axis.asInt() > 2)
        op.fail("axis must be 0, 1 or 2, found " + std::to_string(axis.asInt()));
      expectType(op, "the result", resultType(op), Type::i32());
      return;
    }
    case OpKind::TtMakeRange: {
      counts(op, 0, 0, 1);
      int64_t start = requireAttr(op, "start", Attribute::Kind::Int, "an integer").asInt();
      int64_t end = requireAttr(op, "end", Attribute::Kind::Int, "an integer").asInt();
      if (end <= start)
        op.fail("'end' (" + std::to_string(end) + ") must be greater than 'start' (" + std::to_string(start) + ")");
      expectType(op, "the result", resultType(op), Type::tensor({end - start}, Type::i32()));
      return;
    }
    case OpKind::TtReturn: {
      counts(op, 0, op.numOperands(), 0);
      const std::vector<Type>& results = function_->resultTypes();
      if (op.numOperands() != results.size())
        op.fail("returns " + std::to_string(op.numOperands()) + " value(s) but the function returns " +
                std::to_string(results.size()));
      for (size_t i = 0; i < results.size(); ++i)
        expectType(op, "returned value " + std::to_string(i), type(op, i), results[i]);
      return;
    }
    case OpKind::TtCall: {
      const Attribute* callee = op.attr("callee");
      if (!callee || callee->kind() != Attribute::Kind::Symbol) op.fail("needs attribute 'callee' (a function name)");
      const Function* f = module_.lookup(callee->asString());
      if (!f) op.fail("calls " + symbolRef(callee->asString()) + ", which is not a function of the module");
      if (op.numOperands() != f->numArguments())
        op.fail("passes " + std::to_string(op.numOperands()) + " argument(s) to " + symbolRef(f->name()) +
                ", which takes " + std::to_string(f->numArguments()));
      for (size_t i = 0; i < op.numOperands(); ++i)
        expectType(op, "argument " + std::to_string(i), type(op, i), f->argument(i)->type());
      if (op.numResults() != f->resultTypes().size())
        op.fail("expects " + std::to_string(f->resultTypes().size()) + " result(s) from " + symbolRef(f->name()) +
                ", found " + std::to_string(op.numResults()));
      for (size_t i = 0; i < op.numResults(); ++i)
        expectType(op, "result " + std::to_string(i), resultType(op, i), f->resultTypes()[i]);
      return;
    }
    case OpKind::TtClampF: {
      counts(op, 3, 3, 1);
      for (size_t i = 0; i < 3; ++i) expectType(op, "operand " + std::to_string(i), type(op, i), resultType(op));
      if (!isFloatLike(resultType(op))) op.fail("works on floats, found " + quoted(resultType(op)));
      enumAttr(op, "propagateNan", {"none", "all"}, true);
      return;
    }
    case OpKind::TtExternElementwise: {
      if (op.numResults() != 1) op.fail("expects 1 result(s), found " + std::to_string(op.numResults()));
      for (size_t i = 0; i < op.numOperands(); ++i)
        if (!sameShape(type(op, i), resultType(op)))
          op.fail("operand " + std::to_string(i) + " must have the result's shape");
      requireAttr(op, "symbol", Attribute::Kind::String, "the function's name");
      checkLibdeviceCall(op);
      return;
    }
    case OpKind::TtUnsplat: {
      counts(op, 1, 1, 1);
      const Type& src = type(op, 0);
      bool single = src.isTensor();
      if (single)
        for (int64_t extent : src.shape()) single &= extent == 1;
      if (!single) op.fail("expects a tensor of one element, found " + quoted(src));
      expectType(op, "the result", resultType(op), src.element());
      return;
    }
    case OpKind::UbPoison:
      counts(op, 0, 0, 1);
      if (!resultType(op).isScalar() && !(resultType(op).isTensor() && resultType(op).element().isScalar()))
        op.fail("the result must be a number or a tensor of numbers, found " + quoted(resultType(op)));
      return;
    case OpKind::GpuBarrier:
      counts(op, 0, 0, 0);
      return;
    case OpKind::TtGather: {
      counts(op, 2, 2, 1);
      const Type& src = type(op, 0);
      const Type& indices = type(op, 1);
      if (!src.isTensor() || !indices.isTensor() || src.rank() != indices.rank())
        op.fail("expects a source and an index tensor of the same rank, found " + quoted(src) + " and " +
                quoted(indices));
      if (!indices.element().isInt()) op.fail("the indices must be integers, found " + quoted(indices));
      int64_t axis = requireAttr(op, "axis", Attribute::Kind::Int, "an integer").asInt();
      if (axis < 0 || axis >= src.rank())
        op.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(src.rank()));
      for (int d = 0; d < src.rank(); ++d)
        if (d != axis && src.shape()[d] != indices.shape()[d])
          op.fail("the indices must have the source's extent along dimension " + std::to_string(d) +
                  " (not the axis), found " + quoted(indices) + " for " + quoted(src));
      expectType(op, "the result", resultType(op), indices.withElement(src.element()));
      return;
    }
    case OpKind::LlvmAssume:
      counts(op, 1, 1, 0);
      expectType(op, "the condition", type(op, 0), Type::i1());
      return;
    case OpKind::TtAssert: {
      counts(op, 1, 1, 0);
      if (type(op, 0).elementOrSelf() != Type::i1()) op.fail("the condition must be i1, found " + quoted(type(op, 0)));
      requireAttr(op, "message", Attribute::Kind::String, "a string");
      return;
    }
    case OpKind::TtPrint: {
      counts(op, 0, op.numOperands(), 0);
      requireAttr(op, "prefix", Attribute::Kind::String, "a string");
      if (const Attribute* isSigned = op.attr("isSigned");
          isSigned && (isSigned->kind() != Attribute::Kind::DenseArray || isSigned->ints().size() != op.numOperands()))
        op.fail("attribute 'isSigned' must be an array with one entry per printed value");
      return;
    }
    case OpKind::ScfYield:
    case OpKind::ScfCondition:
    case OpKind::TtReduceReturn:
    case OpKind::TtScanReturn:
    case OpKind::TtMapElementwiseReturn:
      counts(op, 0, op.numOperands(), 0);  // the parent op checks the values
      return;
    case OpKind::TtFunc: op.fail("must not appear as an op; functions are Module::functions()");
    default: return;
  }
}

}  // namespace

void verify(const Module& module) { Verifier(module).run(); }

}  // namespace tmetal::ir
