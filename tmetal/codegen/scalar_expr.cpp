// The scalar semantics of the elementwise ops: one application of an op to
// operand expressions, with Triton's (MLIR's) meaning spelled in C. Used for
// every register of a tensor op, for scalar ops and inside combiner regions.
#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>

#include "tmetal/codegen/kernel_lowering.h"
#include "tmetal/ir/float_bits.h"
#include "tmetal/ir/libdevice.h"
#include "tmetal/support/diagnostic.h"
#include "tmetal/support/power_of_two.h"

namespace tmetal::codegen {

using ir::OpKind;
using ir::ScalarKind;

namespace {

ScalarKind kindOf(const ir::Type& t) {
  const ir::Type& e = t.elementOrSelf();
  return e.isScalar() ? e.scalarKind() : ScalarKind::I64;
}

bool isSmallFloat(ScalarKind k) { return k == ScalarKind::F16 || k == ScalarKind::BF16; }

// v = x % m or x & (m - 1) for a constant power of two m: whether v is zero
// says whether x is a multiple of m.
struct PowerOfTwoRemainder {
  const ir::Value* x;
  int64_t modulus;
};

std::optional<PowerOfTwoRemainder> powerOfTwoRemainder(const ir::Value* v, const analysis::AxisInfoAnalysis& axis) {
  const ir::Operation* def = v->definingOp();
  if (!def || def->numOperands() != 2) return std::nullopt;
  auto constant = [&](size_t i) { return axis.get(def->operand(i)).constantValue; };
  switch (def->kind()) {
    case OpKind::ArithRemSI:
    case OpKind::ArithRemUI:
      if (std::optional<int64_t> m = constant(1); m && isPowerOfTwo(*m)) return PowerOfTwoRemainder{def->operand(0), *m};
      return std::nullopt;
    case OpKind::ArithAndI:
      for (size_t i : {size_t{1}, size_t{0}})
        if (std::optional<int64_t> mask = constant(i); mask && *mask >= 0 && isPowerOfTwo(*mask + 1))
          return PowerOfTwoRemainder{def->operand(1 - i), *mask + 1};
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// cond = (x % m == 0) or (x % m != 0) with m a power of two: the remainder,
// and the branch (0: then, 1: else) in which x is a multiple of m.
std::optional<std::pair<PowerOfTwoRemainder, size_t>> multipleTest(const ir::Value* cond,
                                                                   const analysis::AxisInfoAnalysis& axis) {
  const ir::Operation* cmp = cond->definingOp();
  if (!cmp || cmp->kind() != OpKind::ArithCmpI) return std::nullopt;
  const std::string& p = cmp->symbolAttr("predicate");
  if (p != "eq" && p != "ne") return std::nullopt;
  for (size_t i : {size_t{1}, size_t{0}}) {
    if (axis.get(cmp->operand(i)).constantValue != 0) continue;
    if (std::optional<PowerOfTwoRemainder> r = powerOfTwoRemainder(cmp->operand(1 - i), axis))
      return std::make_pair(*r, size_t{p == "eq" ? 0u : 1u});
  }
  return std::nullopt;
}

// Whether every element of v is >= 0 as a signed integer, from how it is
// made: program ids and counts, ranges from zero up, non-negative
// constants, zero-extensions, and ands, remainders and quotients of those.
bool knownNonNegative(const ir::Value* v, const analysis::AxisInfoAnalysis& axis, int depth = 0) {
  if (std::optional<int64_t> c = axis.get(v).constantValue) return *c >= 0;
  const ir::Operation* def = v->definingOp();
  if (!def || depth > 8) return false;
  auto operand = [&](size_t i) { return knownNonNegative(def->operand(i), axis, depth + 1); };
  auto positiveConstant = [&](size_t i) {
    std::optional<int64_t> c = axis.get(def->operand(i)).constantValue;
    return c && *c > 0;
  };
  switch (def->kind()) {
    case OpKind::TtGetProgramId:
    case OpKind::TtGetNumPrograms:
    case OpKind::ArithExtUI: return true;
    case OpKind::TtMakeRange: return def->intAttr("start") >= 0;
    case OpKind::TtSplat:
    case OpKind::TtBroadcast:
    case OpKind::TtExpandDims: return operand(0);
    case OpKind::ArithAndI: return operand(0) || operand(1);
    case OpKind::ArithRemSI:
    case OpKind::ArithDivSI: return operand(0) && positiveConstant(1);
    default: return false;
  }
}

}  // namespace

bool KernelLowering::nonNegativeByPositiveConstant(const ir::Operation& op) const {
  std::optional<int64_t> d = axis_.get(op.operand(1)).constantValue;
  return d && *d > 0 && knownNonNegative(op.operand(0), axis_);
}

bool KernelLowering::knownMultiple(const ir::Operation& at, const ir::Value* x, int64_t divisor) const {
  if (axis_.get(x).divisibilityOfAll() % divisor == 0) return true;
  for (const ir::Block* block = at.parentBlock(); block;) {
    const ir::Operation* parent = block->parentOp();
    if (!parent) break;
    if (parent->kind() == OpKind::ScfIf) {
      if (auto test = multipleTest(parent->operand(0), axis_)) {
        const auto& [remainder, branch] = *test;
        if (remainder.x == x && remainder.modulus % divisor == 0 && parent->numRegions() > branch &&
            block->parentRegion() == parent->region(branch))
          return true;
      }
    }
    block = parent->parentBlock();
  }
  return false;
}

std::set<const ir::Operation*> KernelLowering::remaindersComparedWithZero() const {
  // A remainder op (x & (m - 1), which powerOfTwoRemainder also reads as
  // one, is already its low bits).
  auto powerOfTwoRemainderOp = [&](const ir::Value* v) -> const ir::Operation* {
    const ir::Operation* def = v->definingOp();
    if (!def || def->kind() == OpKind::ArithAndI || !powerOfTwoRemainder(v, axis_)) return nullptr;
    return def;
  };
  std::set<const ir::Operation*> tested, usedOtherwise;
  ir::walk(*fn_.body(), [&](const ir::Operation* op) {
    const bool zeroTest = op->kind() == OpKind::ArithCmpI &&
                          (op->symbolAttr("predicate") == "eq" || op->symbolAttr("predicate") == "ne");
    for (size_t i = 0; i < op->numOperands(); ++i) {
      const ir::Operation* remainder = powerOfTwoRemainderOp(op->operand(i));
      if (!remainder) continue;
      const bool againstZero = zeroTest && axis_.get(op->operand(1 - i)).constantValue == 0;
      (againstZero ? tested : usedOtherwise).insert(remainder);
    }
  });
  std::set<const ir::Operation*> out;
  for (const ir::Operation* r : tested)
    if (!usedOtherwise.count(r)) out.insert(r);
  return out;
}

std::string KernelLowering::constantExpr(const ir::Attribute& value, const ir::Type& type) const {
  const ir::Attribute* scalar = &value;
  if (value.kind() == ir::Attribute::Kind::Dense) scalar = &value.elements().at(0);
  ScalarKind k = kindOf(type);
  switch (scalar->kind()) {
    case ir::Attribute::Kind::Bool:
    case ir::Attribute::Kind::Int:
      if (ir::isFloatKind(k)) return dialect_.floatLiteral(static_cast<double>(scalar->asInt()), k);
      return dialect_.intLiteral(scalar->asInt(), k);
    case ir::Attribute::Kind::Float:
      return dialect_.floatLiteral(scalar->asFloat(), k);
    default:
      throw CompileError("constant of type " + type.str() + " has no scalar value");
  }
}

std::string KernelLowering::compareExpr(const ir::Operation& op, const std::vector<std::string>& a) const {
  const std::string& p = op.symbolAttr("predicate");
  const std::string& x = a[0];
  const std::string& y = a[1];
  ScalarKind k = kindOf(op.operand(0)->type());
  if (op.kind() == OpKind::ArithCmpI) {
    auto u = [&](const std::string& v) { return dialect_.convert(v, dialect_.unsignedType(k)); };
    if (p == "eq") return x + " == " + y;
    if (p == "ne") return x + " != " + y;
    if (p == "slt") return x + " < " + y;
    if (p == "sle") return x + " <= " + y;
    if (p == "sgt") return x + " > " + y;
    if (p == "sge") return x + " >= " + y;
    if (p == "ult") return u(x) + " < " + u(y);
    if (p == "ule") return u(x) + " <= " + u(y);
    if (p == "ugt") return u(x) + " > " + u(y);
    if (p == "uge") return u(x) + " >= " + u(y);
  } else {
    // C comparisons are ordered (false on NaN) except !=, which is unordered.
    std::string nan = dialect_.isNan(x) + " || " + dialect_.isNan(y);
    if (p == "false") return "false";
    if (p == "true") return "true";
    if (p == "oeq") return x + " == " + y;
    if (p == "ogt") return x + " > " + y;
    if (p == "oge") return x + " >= " + y;
    if (p == "olt") return x + " < " + y;
    if (p == "ole") return x + " <= " + y;
    if (p == "one") return "(" + x + " < " + y + " || " + x + " > " + y + ")";
    if (p == "ord") return "!(" + nan + ")";
    if (p == "ueq") return "!(" + x + " < " + y + " || " + x + " > " + y + ")";
    if (p == "ugt") return "!(" + x + " <= " + y + ")";
    if (p == "uge") return "!(" + x + " < " + y + ")";
    if (p == "ult") return "!(" + x + " >= " + y + ")";
    if (p == "ule") return "!(" + x + " > " + y + ")";
    if (p == "une") return x + " != " + y;
    if (p == "uno") return nan;
  }
  op.fail("unknown comparison predicate '" + p + "'");
}

// 8-bit floats are bits in both dialects: every arith cast to or from one
// goes through float, which holds all their values exactly.
std::string KernelLowering::float8CastExpr(const ir::Operation& op, const std::string& a, ScalarKind from,
                                           ScalarKind to) {
  const std::string f32 = dialect_.scalarType(ScalarKind::F32);
  switch (op.kind()) {
    case OpKind::ArithExtF:
    case OpKind::ArithTruncF:
      return floatConversions_.convert(a, from, to, false);
    case OpKind::ArithSIToFP:
    case OpKind::ArithUIToFP: {
      std::string value = from == ScalarKind::I1 ? "(" + a + " ? " + dialect_.floatLiteral(op.kind() == OpKind::ArithSIToFP ? -1.0 : 1.0, ScalarKind::F32) + " : " + dialect_.floatLiteral(0.0, ScalarKind::F32) + ")"
                          : op.kind() == OpKind::ArithSIToFP ? dialect_.convert(a, f32)
                                                             : dialect_.convert(dialect_.convert(a, dialect_.unsignedType(from)), f32);
      return floatConversions_.convert(value, ScalarKind::F32, to, false);
    }
    case OpKind::ArithFPToSI:
    case OpKind::ArithFPToUI: {
      const std::string value = floatConversions_.convert(a, from, ScalarKind::F32, false);
      if (to == ScalarKind::I1) return "(" + value + " != 0)";
      if (op.kind() == OpKind::ArithFPToSI) return dialect_.convert(value, dialect_.scalarType(to));
      return dialect_.convert(dialect_.convert(value, dialect_.unsignedType(to)), dialect_.scalarType(to));
    }
    default:
      op.fail("is not a conversion of 8-bit floats");
  }
}

// The absolute value of an 8-bit float clears its sign bit, except in the
// FNUZ formats' NaN, 0x80.
std::string KernelLowering::float8AbsExpr(const std::string& x, ScalarKind k) const {
  const std::string cleared = dialect_.convert(x + " & 0x7f", dialect_.scalarType(k));
  if (ir::floatFormat(k).specials != ir::FloatFormat::Specials::NegativeZeroIsNan) return cleared;
  return "(" + x + " == 0x80 ? " + x + " : " + cleared + ")";
}

std::string KernelLowering::castExpr(const ir::Operation& op, const std::string& a) {
  ScalarKind from = kindOf(op.operand(0)->type());
  ScalarKind to = kindOf(op.result(0)->type());
  std::string toType = dialect_.scalarType(to);
  auto conv = [&](const std::string& x, const std::string& t) { return dialect_.convert(x, t); };
  if (op.kind() != OpKind::TtFpToFp && (ir::isFloat8Kind(from) || ir::isFloat8Kind(to)))
    return float8CastExpr(op, a, from, to);
  switch (op.kind()) {
    case OpKind::ArithExtSI:
      // i1 is signed too: true extends to -1.
      if (from == ScalarKind::I1) return "(" + a + " ? " + dialect_.intLiteral(-1, to) + " : " + dialect_.intLiteral(0, to) + ")";
      return conv(a, toType);
    case OpKind::ArithExtUI:
      if (from == ScalarKind::I1) return conv(a, toType);
      return conv(conv(a, dialect_.unsignedType(from)), toType);
    case OpKind::ArithTruncI:
      if (to == ScalarKind::I1) return "(" + a + " & 1) != 0";
      return conv(a, toType);
    case OpKind::ArithIndexCast:
      return conv(a, toType);
    case OpKind::ArithSIToFP:
      if (from == ScalarKind::I1) return "(" + a + " ? " + dialect_.floatLiteral(-1.0, to) + " : " + dialect_.floatLiteral(0.0, to) + ")";
      return conv(a, toType);
    case OpKind::ArithUIToFP:
      if (from == ScalarKind::I1) return conv(a, toType);
      return conv(conv(a, dialect_.unsignedType(from)), toType);
    case OpKind::ArithFPToSI:
      if (to == ScalarKind::I1) return a + " != 0";
      return conv(a, toType);
    case OpKind::ArithFPToUI:
      return conv(conv(a, dialect_.unsignedType(to)), toType);
    case OpKind::ArithExtF:
    case OpKind::ArithTruncF:
    case OpKind::TtFpToFp: {
      const ir::Attribute* rounding = op.attr("rounding");
      const bool towardZero = rounding && rounding->asString() == "rtz";
      if (towardZero || ir::isFloat8Kind(from) || ir::isFloat8Kind(to))
        return floatConversions_.convert(a, from, to, towardZero);
      // Between half and bfloat the value passes through float.
      if (isSmallFloat(from) && isSmallFloat(to)) return conv(conv(a, dialect_.scalarType(ScalarKind::F32)), toType);
      return conv(a, toType);
    }
    default:
      op.fail("is not a cast");
  }
}

std::string KernelLowering::mathExpr(const ir::Operation& op, MathFn fn, const std::vector<std::string>& args) {
  ScalarKind k = kindOf(op.result(0)->type());
  // 16-bit floats are computed in float and rounded once, as Triton does.
  const bool wide = dialect_.mathNeedsFloat(k);
  const ScalarKind computed = wide ? ScalarKind::F32 : k;
  std::vector<std::string> operands;
  for (const std::string& a : args)
    operands.push_back(wide ? dialect_.convert(a, dialect_.scalarType(ScalarKind::F32)) : a);
  if (fn == MathFn::Exp && !options_.fastMath && computed == ScalarKind::F32) {
    // exp(x) = exp2(x * log2(e)), as Triton's GPU backends compute tl.exp:
    // one multiply before the hardware's exp2 instead of a longer
    // range-reduced sequence (within a few ulp for |x| of softmax inputs).
    operands = {"(" + operands[0] + ") * " + dialect_.floatLiteral(1.4426950408889634, ScalarKind::F32)};
    fn = MathFn::Exp2;
  }
  if (std::find(mathUsed_.begin(), mathUsed_.end(), fn) == mathUsed_.end()) mathUsed_.push_back(fn);
  const std::string result = dialect_.mathCall(fn, operands, computed, options_.fastMath);
  return wide ? dialect_.convert(result, dialect_.scalarType(k)) : result;
}

std::string KernelLowering::scalarExpr(const ir::Operation& op, const std::vector<std::string>& a) {
  ScalarKind rk = kindOf(op.result(0)->type());
  ScalarKind k0 = op.numOperands() ? kindOf(op.operand(0)->type()) : rk;
  auto u = [&](const std::string& x) { return dialect_.convert(x, dialect_.unsignedType(k0)); };
  auto back = [&](const std::string& x) { return dialect_.convert(x, dialect_.scalarType(rk)); };
  auto bin = [&](const char* o) { return a[0] + " " + o + " " + a[1]; };
  // bfloat arithmetic is done in float and rounded once (the correctly
  // rounded result), as Triton's backends do.
  auto fbin = [&](const char* o) {
    if (rk != ScalarKind::BF16) return bin(o);
    std::string f = dialect_.scalarType(ScalarKind::F32);
    return back(dialect_.convert(a[0], f) + " " + o + " " + dialect_.convert(a[1], f));
  };
  if (rk == ScalarKind::I1) {
    // i1 arithmetic wraps modulo 2, and signed i1 true is -1: C's bool
    // arithmetic would promote to int and saturate instead.
    switch (op.kind()) {
      case OpKind::ArithAddI:
      case OpKind::ArithSubI: return bin("^");
      case OpKind::ArithMulI:
      case OpKind::ArithMaxSI:
      case OpKind::ArithMinUI: return bin("&");
      case OpKind::ArithMinSI:
      case OpKind::ArithMaxUI: return bin("|");
      default: break;
    }
  }
  switch (op.kind()) {
    case OpKind::ArithAddI:
    case OpKind::TtAddPtr: return bin("+");
    case OpKind::ArithSubI: return bin("-");
    case OpKind::ArithMulI: return bin("*");
    case OpKind::ArithDivSI:
      // An exact division by a power of two is an arithmetic shift; C's
      // division would add the rounding fix-up for negative dividends.
      if (std::optional<int64_t> d = axis_.get(op.operand(1)).constantValue;
          d && *d > 1 && isPowerOfTwo(*d) && knownMultiple(op, op.operand(0), *d))
        return a[0] + " >> " + std::to_string(log2OfPowerOfTwo(*d));
      // A program id divided by a positive constant: the target compiler does
      // not know the id is not negative, and would keep the signed fix-up.
      if (nonNegativeByPositiveConstant(op)) return back(u(a[0]) + " / " + u(a[1]));
      return bin("/");
    case OpKind::ArithRemSI:
    case OpKind::ArithRemUI:
      if (remaindersComparedWithZero_.count(&op))
        return dialect_.lowBits(a[0], static_cast<uint64_t>(*axis_.get(op.operand(1)).constantValue) - 1, k0);
      return op.kind() == OpKind::ArithRemSI && !nonNegativeByPositiveConstant(op) ? bin("%")
                                                                                     : back(u(a[0]) + " % " + u(a[1]));
    case OpKind::ArithDivUI: return back(u(a[0]) + " / " + u(a[1]));
    case OpKind::ArithCeilDivSI:
      return a[0] + " / " + a[1] + " + ((" + a[0] + " % " + a[1] + " != 0) && ((" + a[0] + " < 0) == (" + a[1] +
             " < 0)) ? 1 : 0)";
    case OpKind::ArithFloorDivSI:
      return a[0] + " / " + a[1] + " - ((" + a[0] + " % " + a[1] + " != 0) && ((" + a[0] + " < 0) != (" + a[1] +
             " < 0)) ? 1 : 0)";
    case OpKind::ArithAndI: return bin("&");
    case OpKind::ArithOrI: return bin("|");
    case OpKind::ArithXOrI: return bin("^");
    case OpKind::ArithShLI: return bin("<<");
    case OpKind::ArithShRSI: return bin(">>");
    case OpKind::ArithShRUI: return back(u(a[0]) + " >> " + u(a[1]));
    case OpKind::ArithMaxSI: return dialect_.minMax(true, a[0], a[1], false);
    case OpKind::ArithMinSI: return dialect_.minMax(false, a[0], a[1], false);
    case OpKind::ArithMaxUI: return back(dialect_.minMax(true, u(a[0]), u(a[1]), false));
    case OpKind::ArithMinUI: return back(dialect_.minMax(false, u(a[0]), u(a[1]), false));
    case OpKind::ArithAddF: return fbin("+");
    case OpKind::ArithSubF: return fbin("-");
    case OpKind::ArithMulF: return fbin("*");
    case OpKind::ArithDivF:
      if (rk == ScalarKind::BF16) return fbin("/");
      return dialect_.floatDivide(a[0], a[1], rk);
    case OpKind::ArithRemF: {
      // fmod truncates like MLIR's remf; 16-bit floats go through float.
      if (rk == ScalarKind::F32) return "fmod(" + a[0] + ", " + a[1] + ")";
      std::string f = dialect_.scalarType(ScalarKind::F32);
      return back("fmod(" + dialect_.convert(a[0], f) + ", " + dialect_.convert(a[1], f) + ")");
    }
    case OpKind::ArithNegF: return "-" + a[0];
    case OpKind::ArithMaxNumF: return dialect_.minMax(true, a[0], a[1], true);
    case OpKind::ArithMinNumF: return dialect_.minMax(false, a[0], a[1], true);
    case OpKind::ArithMaximumF:
    case OpKind::ArithMinimumF: {
      // NaN-propagating: a + b is NaN when either is.
      bool isMax = op.kind() == OpKind::ArithMaximumF;
      return "(" + dialect_.isNan(a[0]) + " || " + dialect_.isNan(a[1]) + ") ? " +
             back(a[0] + " + " + a[1]) + " : " + dialect_.minMax(isMax, a[0], a[1], true);
    }
    case OpKind::ArithCmpI:
    case OpKind::ArithCmpF: return compareExpr(op, a);
    case OpKind::ArithSelect: return a[0] + " ? " + a[1] + " : " + a[2];
    case OpKind::ArithExtSI:
    case OpKind::ArithExtUI:
    case OpKind::ArithTruncI:
    case OpKind::ArithIndexCast:
    case OpKind::ArithSIToFP:
    case OpKind::ArithUIToFP:
    case OpKind::ArithFPToSI:
    case OpKind::ArithFPToUI:
    case OpKind::ArithExtF:
    case OpKind::ArithTruncF:
      return castExpr(op, a[0]);
    case OpKind::TtFpToFp:
      if (!ir::isFloatKind(k0) || k0 == ScalarKind::F64 || rk == ScalarKind::F64) unsupported(op, "this conversion");
      return castExpr(op, a[0]);
    case OpKind::TtIntToPtr:
      // A 64-bit address (Metal 3 converts between device pointers and ulong).
      return dialect_.pointerCast(a[0], dialect_.typeName(op.result(0)->type().elementOrSelf()));
    case OpKind::TtPtrToInt:
      return dialect_.convert(dialect_.pointerCast(a[0], dialect_.unsignedType(ScalarKind::I64)),
                              dialect_.scalarType(rk));
    case OpKind::ArithBitcast:
    case OpKind::TtBitcast:
      if (op.result(0)->type().elementOrSelf().isPointer())
        return dialect_.pointerCast(a[0], dialect_.typeName(op.result(0)->type().elementOrSelf()));
      if (k0 == ScalarKind::I1) return a[0];  // i1 to i1: nothing else has one bit
      return dialect_.bitcast(a[0], dialect_.scalarType(rk));
    case OpKind::MathExp: return mathExpr(op, MathFn::Exp, a);
    case OpKind::MathExp2: return mathExpr(op, MathFn::Exp2, a);
    case OpKind::MathLog: return mathExpr(op, MathFn::Log, a);
    case OpKind::MathLog2: return mathExpr(op, MathFn::Log2, a);
    case OpKind::MathSqrt: return mathExpr(op, MathFn::FastSqrt, a);
    case OpKind::TtPreciseSqrt: return mathExpr(op, MathFn::Sqrt, a);
    case OpKind::MathRsqrt: return mathExpr(op, MathFn::Rsqrt, a);
    case OpKind::MathSin: return mathExpr(op, MathFn::Sin, a);
    case OpKind::MathCos: return mathExpr(op, MathFn::Cos, a);
    case OpKind::MathTanh: return mathExpr(op, MathFn::Tanh, a);
    case OpKind::MathErf: return mathExpr(op, MathFn::Erf, a);
    case OpKind::MathFloor: return mathExpr(op, MathFn::Floor, a);
    case OpKind::MathCeil: return mathExpr(op, MathFn::Ceil, a);
    case OpKind::MathAbsF:
      if (ir::isFloat8Kind(rk)) return float8AbsExpr(a[0], rk);
      return mathExpr(op, MathFn::AbsF, a);
    case OpKind::MathFma: return mathExpr(op, MathFn::Fma, a);
    case OpKind::TtPreciseDivF: return mathExpr(op, MathFn::Div, a);
    case OpKind::MathAbsI: return a[0] + " < 0 ? " + back("-" + a[0]) + " : " + a[0];
    case OpKind::TtMulHiUI: return back("mulhi(" + u(a[0]) + ", " + u(a[1]) + ")");
    case OpKind::TtClampF: {
      std::string clamped = dialect_.minMax(false, dialect_.minMax(true, a[0], a[1], true), a[2], true);
      const ir::Attribute* nan = op.attr("propagateNan");
      bool propagate = nan && (nan->kind() == ir::Attribute::Kind::Symbol || nan->kind() == ir::Attribute::Kind::String)
                           ? nan->asString() == "all"
                           : nan && nan->kind() == ir::Attribute::Kind::Int && nan->asInt() != 0;
      if (!propagate) return clamped;
      return dialect_.isNan(a[0]) + " ? " + a[0] + " : " + clamped;
    }
    case OpKind::TtExternElementwise: {
      const std::string& symbol = op.symbolAttr("symbol");
      const ir::LibdeviceFunction* f = ir::findLibdeviceFunction(symbol);
      if (!f)
        unsupported(op, "the function '" + symbol +
                            "' (tmetal has libdevice's float32 and integer functions, docs/codegen.md \"libdevice\")");
      return libdeviceCalls_.call(op, *f, a);
    }
    default:
      unsupported(op, "this op");
  }
}

}  // namespace tmetal::codegen
