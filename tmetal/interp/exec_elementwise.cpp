// arith.constant and the ops that compute each result element from the
// operand elements at the same index (arith, math, elementwise tt ops).
#include <functional>

#include "tmetal/interp/float_format.h"
#include "tmetal/interp/libdevice_semantics.h"
#include "tmetal/interp/memory_access.h"
#include "tmetal/interp/program_executor.h"
#include "tmetal/interp/scalar_semantics.h"

namespace tmetal::interp {

using ir::OpKind;
using ir::Type;

namespace {

using ElementFunction = std::function<Element(const Element* operands)>;

// ptr_to_int and int_to_ptr need integers for (buffer, offset) pairs: each
// buffer gets a made-up base address well apart from the others.
constexpr int kBufferAddressShift = 40;

int64_t pointerToAddress(const Element& pointer) {
  uint64_t base = pointer.buffer < 0 ? 0 : static_cast<uint64_t>(pointer.buffer + 1) << kBufferAddressShift;
  return static_cast<int64_t>(base + static_cast<uint64_t>(pointer.i));
}

Element addressToPointer(int64_t address) {
  Element e;
  int64_t tag = address >> kBufferAddressShift;
  if (tag <= 0) {
    e.i = address;
    return e;
  }
  e.buffer = static_cast<int32_t>(tag - 1);
  e.i = address & ((int64_t{1} << kBufferAddressShift) - 1);
  return e;
}

Element fromInt(int64_t v) {
  Element e;
  e.i = v;
  return e;
}

Element fromFloat(double v) {
  Element e;
  e.f = v;
  return e;
}

Element fromBool(bool b) { return fromInt(b ? -1 : 0); }  // i1 true sign-extends to -1

void requireInt(const ir::Operation& op, const Type& t) {
  if (!t.isInt()) op.fail("expects integer operands and results, got " + t.str());
}

void requireFloat(const ir::Operation& op, const Type& t) {
  if (!t.isFloat()) op.fail("expects float operands and results, got " + t.str());
}

void requireCount(const ir::Operation& op, size_t have, size_t want) {
  if (have != want) op.fail("expects " + std::to_string(want) + " operands, got " + std::to_string(have));
}

// Builds the per-element function of an elementwise op from its operand and
// result element types; everything per op (predicates, widths, attributes)
// is decided here once.
ElementFunction elementFunction(const ir::Operation& op, const std::vector<Type>& in, const Type& out) {
  OpKind kind = op.kind();
  switch (kind) {
    case OpKind::ArithAddI:
    case OpKind::ArithSubI:
    case OpKind::ArithMulI:
    case OpKind::ArithDivSI:
    case OpKind::ArithDivUI:
    case OpKind::ArithCeilDivSI:
    case OpKind::ArithFloorDivSI:
    case OpKind::ArithRemSI:
    case OpKind::ArithRemUI:
    case OpKind::ArithAndI:
    case OpKind::ArithOrI:
    case OpKind::ArithXOrI:
    case OpKind::ArithShLI:
    case OpKind::ArithShRSI:
    case OpKind::ArithShRUI:
    case OpKind::ArithMaxSI:
    case OpKind::ArithMinSI:
    case OpKind::ArithMaxUI:
    case OpKind::ArithMinUI:
    case OpKind::TtMulHiUI: {
      requireCount(op, in.size(), 2);
      requireInt(op, out);
      requireInt(op, in[0]);
      requireInt(op, in[1]);
      int width = out.bitWidth();
      return [kind, width](const Element* e) { return fromInt(integerBinary(kind, e[0].i, e[1].i, width).value()); };
    }
    case OpKind::ArithAddF:
    case OpKind::ArithSubF:
    case OpKind::ArithMulF:
    case OpKind::ArithDivF:
    case OpKind::ArithRemF:
    case OpKind::ArithMaxNumF:
    case OpKind::ArithMinNumF:
    case OpKind::ArithMaximumF:
    case OpKind::ArithMinimumF:
    case OpKind::TtPreciseDivF: {
      requireCount(op, in.size(), 2);
      requireFloat(op, out);
      requireFloat(op, in[0]);
      requireFloat(op, in[1]);
      ir::ScalarKind k = out.scalarKind();
      return [kind, k](const Element* e) { return fromFloat(floatBinary(kind, e[0].f, e[1].f, k).value()); };
    }
    case OpKind::ArithNegF:
    case OpKind::MathExp:
    case OpKind::MathExp2:
    case OpKind::MathLog:
    case OpKind::MathLog2:
    case OpKind::MathSqrt:
    case OpKind::MathRsqrt:
    case OpKind::MathSin:
    case OpKind::MathCos:
    case OpKind::MathTanh:
    case OpKind::MathErf:
    case OpKind::MathAbsF:
    case OpKind::MathFloor:
    case OpKind::MathCeil:
    case OpKind::TtPreciseSqrt: {
      requireCount(op, in.size(), 1);
      requireFloat(op, out);
      requireFloat(op, in[0]);
      ir::ScalarKind k = out.scalarKind();
      return [kind, k](const Element* e) { return fromFloat(floatUnary(kind, e[0].f, k).value()); };
    }
    case OpKind::MathFma: {
      requireCount(op, in.size(), 3);
      requireFloat(op, out);
      ir::ScalarKind k = out.scalarKind();
      return [k](const Element* e) { return fromFloat(floatFma(e[0].f, e[1].f, e[2].f, k)); };
    }
    case OpKind::MathAbsI: {
      requireCount(op, in.size(), 1);
      requireInt(op, out);
      int width = out.bitWidth();
      return [width](const Element* e) {
        uint64_t u = static_cast<uint64_t>(e[0].i);
        return fromInt(wrapInt(e[0].i < 0 ? 0 - u : u, width));
      };
    }
    case OpKind::TtClampF: {
      requireCount(op, in.size(), 3);
      requireFloat(op, out);
      // propagateNan = none: maxnum/minnum, a NaN x clamps to the lower bound;
      // propagateNan = all: a NaN x stays NaN. Printed as a keyword; an
      // integer (0 none, 0xFFFF all) is Triton's enum value.
      bool propagate = false;
      if (const ir::Attribute* a = op.attr("propagateNan")) {
        if (a->kind() == ir::Attribute::Kind::Int)
          propagate = a->asInt() != 0;
        else if (a->asString() == "all")
          propagate = true;
        else if (a->asString() != "none")
          op.fail("unknown propagateNan value '" + a->asString() + "'");
      }
      OpKind lower = propagate ? OpKind::ArithMaximumF : OpKind::ArithMaxNumF;
      OpKind upper = propagate ? OpKind::ArithMinimumF : OpKind::ArithMinNumF;
      ir::ScalarKind k = out.scalarKind();
      return [lower, upper, k](const Element* e) {
        double atLeastLow = floatBinary(lower, e[0].f, e[1].f, k).value();
        return fromFloat(floatBinary(upper, atLeastLow, e[2].f, k).value());
      };
    }
    case OpKind::ArithCmpI: {
      requireCount(op, in.size(), 2);
      requireInt(op, in[0]);
      auto predicate = parseIntPredicate(op.symbolAttr("predicate"));
      if (!predicate) op.fail("unknown predicate '" + op.symbolAttr("predicate") + "'");
      int width = in[0].bitWidth();
      IntPredicate p = *predicate;
      return [p, width](const Element* e) { return fromBool(compareInts(p, e[0].i, e[1].i, width)); };
    }
    case OpKind::ArithCmpF: {
      requireCount(op, in.size(), 2);
      requireFloat(op, in[0]);
      auto predicate = parseFloatPredicate(op.symbolAttr("predicate"));
      if (!predicate) op.fail("unknown predicate '" + op.symbolAttr("predicate") + "'");
      FloatPredicate p = *predicate;
      return [p](const Element* e) { return fromBool(compareFloats(p, e[0].f, e[1].f)); };
    }
    case OpKind::TtExternElementwise: {
      const std::string& symbol = op.symbolAttr("symbol");
      const ir::LibdeviceFunction* f = ir::findLibdeviceFunction(symbol);
      if (!f)
        op.fail("the interpreter does not have the function '" + symbol +
                "' (tmetal has libdevice's float32 and integer functions, docs/codegen.md \"libdevice\")");
      return libdeviceSemantics(*f);
    }
    case OpKind::ArithSelect:
      requireCount(op, in.size(), 3);
      if (!in[0].isInt() || in[0].bitWidth() != 1) op.fail("condition must be i1, got " + in[0].str());
      return [](const Element* e) { return e[0].i != 0 ? e[1] : e[2]; };
    case OpKind::ArithExtSI:
    case OpKind::ArithTruncI:
    case OpKind::ArithIndexCast: {
      requireCount(op, in.size(), 1);
      requireInt(op, in[0]);
      requireInt(op, out);
      int width = out.bitWidth();
      return [width](const Element* e) { return fromInt(wrapInt(static_cast<uint64_t>(e[0].i), width)); };
    }
    case OpKind::ArithExtUI: {
      requireCount(op, in.size(), 1);
      requireInt(op, in[0]);
      requireInt(op, out);
      int from = in[0].bitWidth(), to = out.bitWidth();
      return [from, to](const Element* e) { return fromInt(wrapInt(unsignedInt(e[0].i, from), to)); };
    }
    case OpKind::ArithExtF:
    case OpKind::ArithTruncF:
    case OpKind::TtFpToFp: {
      requireCount(op, in.size(), 1);
      requireFloat(op, in[0]);
      requireFloat(op, out);
      const ir::Attribute* r = op.attr("rounding");
      const bool towardZero = r && r->asString() == "rtz";
      ir::ScalarKind k = out.scalarKind();
      return [k, towardZero](const Element* e) { return fromFloat(convertToFloatKind(e[0].f, k, towardZero)); };
    }
    case OpKind::ArithSIToFP: {
      requireCount(op, in.size(), 1);
      requireInt(op, in[0]);
      requireFloat(op, out);
      ir::ScalarKind k = out.scalarKind();
      return [k](const Element* e) {
        bool negative = e[0].i < 0;
        uint64_t u = static_cast<uint64_t>(e[0].i);
        return fromFloat(integerToFloatKind(negative, negative ? 0 - u : u, k));
      };
    }
    case OpKind::ArithUIToFP: {
      requireCount(op, in.size(), 1);
      requireInt(op, in[0]);
      requireFloat(op, out);
      ir::ScalarKind k = out.scalarKind();
      int from = in[0].bitWidth();
      return [k, from](const Element* e) { return fromFloat(integerToFloatKind(false, unsignedInt(e[0].i, from), k)); };
    }
    case OpKind::ArithFPToSI:
    case OpKind::ArithFPToUI: {
      requireCount(op, in.size(), 1);
      requireFloat(op, in[0]);
      requireInt(op, out);
      int width = out.bitWidth();
      bool isSigned = kind == OpKind::ArithFPToSI;
      return [width, isSigned](const Element* e) { return fromInt(floatToInt(e[0].f, width, isSigned)); };
    }
    case OpKind::ArithBitcast:
    case OpKind::TtBitcast: {
      requireCount(op, in.size(), 1);
      Type from = in[0], to = out;
      if (from.isPointer() || to.isPointer()) {
        if (!from.isPointer() || !to.isPointer()) op.fail("cannot bitcast between " + from.str() + " and " + to.str());
        return [](const Element* e) { return e[0]; };
      }
      if (!from.isScalar() || !to.isScalar() || from.bitWidth() != to.bitWidth())
        op.fail("cannot bitcast " + from.str() + " to " + to.str() + ": the bit widths differ");
      return [from, to](const Element* e) { return elementFromBits(elementBits(e[0], from), to); };
    }
    case OpKind::TtPtrToInt: {
      requireCount(op, in.size(), 1);
      requireInt(op, out);
      int width = out.bitWidth();
      return [width](const Element* e) { return fromInt(wrapInt(pointerToAddress(e[0]), width)); };
    }
    case OpKind::TtIntToPtr:
      requireCount(op, in.size(), 1);
      requireInt(op, in[0]);
      return [](const Element* e) { return addressToPointer(e[0].i); };
    case OpKind::TtAddPtr: {
      requireCount(op, in.size(), 2);
      if (!in[0].isPointer() || in[0].isBlockPointer()) op.fail("expects a pointer, got " + in[0].str());
      requireInt(op, in[1]);
      int64_t elementBytes = storageBytes(in[0].pointee());
      return [elementBytes](const Element* e) {
        Element r = e[0];
        r.i = static_cast<int64_t>(static_cast<uint64_t>(r.i) + static_cast<uint64_t>(e[1].i) * elementBytes);
        return r;
      };
    }
    default:
      break;
  }
  op.fail("is not an elementwise op");
}

Element constantElement(const ir::Operation& op, const ir::Attribute& a, const Type& type) {
  using K = ir::Attribute::Kind;
  if (type.isFloat()) {
    if (a.kind() == K::Float) return fromFloat(roundToFloatKind(a.asFloat(), type.scalarKind()));
    if (a.kind() == K::Int) return fromFloat(roundToFloatKind(static_cast<double>(a.asInt()), type.scalarKind()));
  } else if (type.isInt()) {
    if (a.kind() == K::Int || a.kind() == K::Bool) return fromInt(wrapInt(static_cast<uint64_t>(a.asInt()), type.bitWidth()));
  }
  op.fail("cannot make a constant of type " + type.str() + " from this value");
}

}  // namespace

RuntimeValue ProgramExecutor::constant(const ir::Operation& op) {
  const ir::Attribute* value = op.attr("value");
  if (!value) op.fail("is missing its 'value' attribute");
  const Type& type = resultType(op);
  RuntimeValue result{type.elementOrSelf(), shapeOf(type), {}, nullptr};
  int64_t n = shapeElements(result.shape);
  if (value->kind() == ir::Attribute::Kind::Dense && !value->isSplat()) {
    const auto& elements = value->elements();
    if (static_cast<int64_t>(elements.size()) != n)
      op.fail("dense constant has " + std::to_string(elements.size()) + " elements, its type " + type.str() +
              " has " + std::to_string(n));
    for (const auto& e : elements) result.elements.push_back(constantElement(op, e, result.elementType));
    return result;
  }
  const ir::Attribute& scalar = value->kind() == ir::Attribute::Kind::Dense ? value->elements()[0] : *value;
  result.elements.assign(n, constantElement(op, scalar, result.elementType));
  return result;
}

RuntimeValue ProgramExecutor::elementwise(const ir::Operation& op) {
  std::vector<const RuntimeValue*> operands;
  std::vector<Type> operandTypes;
  std::vector<int64_t> shape;
  bool haveShape = false;
  for (size_t i = 0; i < op.numOperands(); ++i) {
    const RuntimeValue& v = valueOf(op, i);
    if (v.block) op.fail("does not take block pointers");
    if (!v.isScalar()) {
      if (haveShape && v.shape != shape)
        op.fail("operand shapes differ: " + formatIndex(shape) + " and " + formatIndex(v.shape));
      shape = v.shape;
      haveShape = true;
    }
    operands.push_back(&v);
    operandTypes.push_back(v.elementType);
  }
  if (op.numResults() != 1) op.fail("expects one result");
  Type elementType = op.result(0)->type().elementOrSelf();
  ElementFunction fn = elementFunction(op, operandTypes, elementType);

  int64_t n = shapeElements(shape);
  RuntimeValue result{elementType, shape, std::vector<Element>(n), nullptr};
  std::vector<Element> args(operands.size());
  for (int64_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < operands.size(); ++j) args[j] = elementAt(*operands[j], i);
    result.elements[i] = fn(args.data());
  }
  return result;
}

}  // namespace tmetal::interp
