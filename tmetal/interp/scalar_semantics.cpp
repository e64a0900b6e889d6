#include "tmetal/interp/scalar_semantics.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "tmetal/interp/float_format.h"

namespace tmetal::interp {

using ir::OpKind;
using ir::ScalarKind;

int64_t wrapInt(uint64_t bits, int width) {
  if (width >= 64) return static_cast<int64_t>(bits);
  uint64_t mask = (uint64_t{1} << width) - 1;
  uint64_t low = bits & mask;
  uint64_t signBit = uint64_t{1} << (width - 1);
  return static_cast<int64_t>((low ^ signBit) - signBit);
}

uint64_t unsignedInt(int64_t value, int width) {
  if (width >= 64) return static_cast<uint64_t>(value);
  return static_cast<uint64_t>(value) & ((uint64_t{1} << width) - 1);
}

namespace {

int64_t minSigned(int width) { return wrapInt(uint64_t{1} << (width - 1), width); }

int64_t signedDivide(int64_t a, int64_t b, int width) {
  if (b == 0) return -1;
  if (b == -1) return wrapInt(0 - static_cast<uint64_t>(a), width);  // INT_MIN / -1 wraps to INT_MIN
  return a / b;
}

int64_t signedRemainder(int64_t a, int64_t b) {
  if (b == 0) return a;
  if (b == -1) return 0;
  return a % b;
}

uint64_t mulHigh(uint64_t a, uint64_t b, int width) {
  if (width >= 64) return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
  // a, b < 2^width <= 2^32 here, so the product fits in 64 bits.
  return (a * b) >> width;
}

// Orders -0 below +0 among equal operands, so max/min are deterministic.
template <typename T>
T maxOrdered(T a, T b) {
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}
template <typename T>
T minOrdered(T a, T b) {
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

// Applies a binary float function in the precision the result type computes in.
template <typename Fn>
double inPrecision(ScalarKind kind, double a, double b, Fn fn) {
  if (kind == ScalarKind::F64) return fn(a, b);
  float r = fn(static_cast<float>(a), static_cast<float>(b));
  return roundToFloatKind(r, kind);
}

template <typename Fn>
double inPrecision(ScalarKind kind, double a, Fn fn) {
  if (kind == ScalarKind::F64) return fn(a);
  float r = fn(static_cast<float>(a));
  return roundToFloatKind(r, kind);
}

}  // namespace

std::optional<int64_t> integerBinary(OpKind op, int64_t a, int64_t b, int width) {
  uint64_t ua = unsignedInt(a, width), ub = unsignedInt(b, width);
  switch (op) {
    case OpKind::ArithAddI:
      return wrapInt(ua + ub, width);
    case OpKind::ArithSubI:
      return wrapInt(ua - ub, width);
    case OpKind::ArithMulI:
      return wrapInt(ua * ub, width);
    case OpKind::ArithDivSI:
      return signedDivide(a, b, width);
    case OpKind::ArithDivUI:
      return ub == 0 ? int64_t{-1} : wrapInt(ua / ub, width);
    case OpKind::ArithCeilDivSI: {
      if (b == 0 || b == -1) return signedDivide(a, b, width);
      int64_t q = a / b;
      if (a % b != 0 && ((a > 0) == (b > 0))) ++q;
      return q;
    }
    case OpKind::ArithFloorDivSI: {
      if (b == 0 || b == -1) return signedDivide(a, b, width);
      int64_t q = a / b;
      if (a % b != 0 && ((a < 0) != (b < 0))) --q;
      return q;
    }
    case OpKind::ArithRemSI:
      return signedRemainder(a, b);
    case OpKind::ArithRemUI:
      return ub == 0 ? a : wrapInt(ua % ub, width);
    case OpKind::ArithAndI:
      return wrapInt(ua & ub, width);
    case OpKind::ArithOrI:
      return wrapInt(ua | ub, width);
    case OpKind::ArithXOrI:
      return wrapInt(ua ^ ub, width);
    case OpKind::ArithShLI:
      return ub >= static_cast<uint64_t>(width) ? 0 : wrapInt(ua << ub, width);
    case OpKind::ArithShRUI:
      return ub >= static_cast<uint64_t>(width) ? 0 : wrapInt(ua >> ub, width);
    case OpKind::ArithShRSI:
      return ub >= static_cast<uint64_t>(width) ? (a < 0 ? -1 : 0) : (a >> ub);
    case OpKind::ArithMaxSI:
      return std::max(a, b);
    case OpKind::ArithMinSI:
      return std::min(a, b);
    case OpKind::ArithMaxUI:
      return ua >= ub ? a : b;
    case OpKind::ArithMinUI:
      return ua <= ub ? a : b;
    case OpKind::TtMulHiUI:
      return wrapInt(mulHigh(ua, ub, width), width);
    default:
      return std::nullopt;
  }
}

std::optional<double> floatBinary(OpKind op, double a, double b, ScalarKind kind) {
  switch (op) {
    case OpKind::ArithAddF:
      return inPrecision(kind, a, b, [](auto x, auto y) { return x + y; });
    case OpKind::ArithSubF:
      return inPrecision(kind, a, b, [](auto x, auto y) { return x - y; });
    case OpKind::ArithMulF:
      return inPrecision(kind, a, b, [](auto x, auto y) { return x * y; });
    case OpKind::ArithDivF:
    case OpKind::TtPreciseDivF:
      return inPrecision(kind, a, b, [](auto x, auto y) { return x / y; });
    case OpKind::ArithRemF:
      return inPrecision(kind, a, b, [](auto x, auto y) { return std::fmod(x, y); });
    case OpKind::ArithMaxNumF:
      return inPrecision(kind, a, b, [](auto x, auto y) {
        if (std::isnan(x)) return y;
        if (std::isnan(y)) return x;
        return maxOrdered(x, y);
      });
    case OpKind::ArithMinNumF:
      return inPrecision(kind, a, b, [](auto x, auto y) {
        if (std::isnan(x)) return y;
        if (std::isnan(y)) return x;
        return minOrdered(x, y);
      });
    case OpKind::ArithMaximumF:
      return inPrecision(kind, a, b, [](auto x, auto y) {
        if (std::isnan(x)) return x;
        if (std::isnan(y)) return y;
        return maxOrdered(x, y);
      });
    case OpKind::ArithMinimumF:
      return inPrecision(kind, a, b, [](auto x, auto y) {
        if (std::isnan(x)) return x;
        if (std::isnan(y)) return y;
        return minOrdered(x, y);
      });
    default:
      return std::nullopt;
  }
}

std::optional<double> floatUnary(OpKind op, double a, ScalarKind kind) {
  switch (op) {
    case OpKind::ArithNegF:
      return -a;  // exact in every format, NaN sign flips as LLVM's fneg does
    case OpKind::MathAbsF:
      return std::fabs(a);
    case OpKind::MathExp:
      return inPrecision(kind, a, [](auto x) { return std::exp(x); });
    case OpKind::MathExp2:
      return inPrecision(kind, a, [](auto x) { return std::exp2(x); });
    case OpKind::MathLog:
      return inPrecision(kind, a, [](auto x) { return std::log(x); });
    case OpKind::MathLog2:
      return inPrecision(kind, a, [](auto x) { return std::log2(x); });
    case OpKind::MathSqrt:
    case OpKind::TtPreciseSqrt:
      return inPrecision(kind, a, [](auto x) { return std::sqrt(x); });
    case OpKind::MathRsqrt:
      return inPrecision(kind, a, [](auto x) { return decltype(x){1} / std::sqrt(x); });
    case OpKind::MathSin:
      return inPrecision(kind, a, [](auto x) { return std::sin(x); });
    case OpKind::MathCos:
      return inPrecision(kind, a, [](auto x) { return std::cos(x); });
    case OpKind::MathTanh:
      return inPrecision(kind, a, [](auto x) { return std::tanh(x); });
    case OpKind::MathErf:
      return inPrecision(kind, a, [](auto x) { return std::erf(x); });
    case OpKind::MathFloor:
      return std::floor(a);  // exact: the result is representable in the input's type
    case OpKind::MathCeil:
      return std::ceil(a);
    default:
      return std::nullopt;
  }
}

double floatFma(double a, double b, double c, ScalarKind kind) {
  if (kind == ScalarKind::F64) return std::fma(a, b, c);
  return roundToFloatKind(std::fmaf(static_cast<float>(a), static_cast<float>(b), static_cast<float>(c)), kind);
}

std::optional<IntPredicate> parseIntPredicate(const std::string& name) {
  static const std::pair<const char*, IntPredicate> kNames[] = {
      {"eq", IntPredicate::Eq},   {"ne", IntPredicate::Ne},   {"slt", IntPredicate::Slt}, {"sle", IntPredicate::Sle},
      {"sgt", IntPredicate::Sgt}, {"sge", IntPredicate::Sge}, {"ult", IntPredicate::Ult}, {"ule", IntPredicate::Ule},
      {"ugt", IntPredicate::Ugt}, {"uge", IntPredicate::Uge},
  };
  for (const auto& [n, p] : kNames)
    if (name == n) return p;
  return std::nullopt;
}

bool compareInts(IntPredicate p, int64_t a, int64_t b, int width) {
  uint64_t ua = unsignedInt(a, width), ub = unsignedInt(b, width);
  switch (p) {
    case IntPredicate::Eq:
      return a == b;
    case IntPredicate::Ne:
      return a != b;
    case IntPredicate::Slt:
      return a < b;
    case IntPredicate::Sle:
      return a <= b;
    case IntPredicate::Sgt:
      return a > b;
    case IntPredicate::Sge:
      return a >= b;
    case IntPredicate::Ult:
      return ua < ub;
    case IntPredicate::Ule:
      return ua <= ub;
    case IntPredicate::Ugt:
      return ua > ub;
    case IntPredicate::Uge:
      return ua >= ub;
  }
  return false;
}

std::optional<FloatPredicate> parseFloatPredicate(const std::string& name) {
  using R = FloatPredicate::Relation;
  if (name == "false") return FloatPredicate{R::Never, false};
  if (name == "true") return FloatPredicate{R::Always, true};
  if (name == "ord") return FloatPredicate{R::Ordered, false};
  if (name == "uno") return FloatPredicate{R::Never, true};
  // The rest are o<rel> (false when an operand is NaN) or u<rel> (true then).
  if (name.size() != 3 || (name[0] != 'o' && name[0] != 'u')) return std::nullopt;
  bool unorderedResult = name[0] == 'u';
  static const std::pair<const char*, R> kRelations[] = {
      {"eq", R::Eq}, {"ne", R::Ne}, {"lt", R::Lt}, {"le", R::Le}, {"gt", R::Gt}, {"ge", R::Ge},
  };
  for (const auto& [n, r] : kRelations)
    if (name.compare(1, 2, n) == 0) return FloatPredicate{r, unorderedResult};
  return std::nullopt;
}

bool compareFloats(FloatPredicate p, double a, double b) {
  using R = FloatPredicate::Relation;
  if (std::isnan(a) || std::isnan(b)) return p.resultIfUnordered;
  switch (p.relation) {
    case R::Always:
    case R::Ordered:
      return true;
    case R::Never:
      return false;
    case R::Eq:
      return a == b;
    case R::Ne:
      return a != b;
    case R::Lt:
      return a < b;
    case R::Le:
      return a <= b;
    case R::Gt:
      return a > b;
    case R::Ge:
      return a >= b;
  }
  return false;
}

int64_t floatToInt(double value, int width, bool isSigned) {
  if (std::isnan(value)) return 0;
  double t = std::trunc(value);
  if (isSigned) {
    double lowest = -std::ldexp(1.0, width - 1);
    if (t <= lowest) return minSigned(width);
    if (t >= -lowest) return wrapInt((uint64_t{1} << (width - 1)) - 1, width);
    return static_cast<int64_t>(t);
  }
  if (t <= 0) return 0;
  if (t >= std::ldexp(1.0, width)) return wrapInt(~uint64_t{0}, width);
  return wrapInt(static_cast<uint64_t>(t), width);
}

}  // namespace tmetal::interp
