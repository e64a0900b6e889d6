#include "tmetal/analysis/axis_info_transfer.h"

#include <algorithm>
#include <numeric>

namespace tmetal::analysis {

using ir::OpKind;

namespace {

constexpr int64_t kMax = AxisInfo::kMaxDivisibility;

std::vector<int64_t> shapeOf(const ir::Type& t) {
  if (t.isTensor()) return t.shape();
  return {1};
}

int rankOf(const ir::Type& t) { return std::max(1, t.rank()); }

int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }
int64_t mulCapped(int64_t a, int64_t b) { return std::min(kMax, a * b); }
// Largest power of two dividing a run length (runs are powers of two in
// practice, but be safe).
int64_t pow2Part(int64_t v) { return powerOfTwoDivisor(v); }

// Constancy of an elementwise result: the runs of equal elements that every
// operand shares.
std::vector<int64_t> sharedConstancy(const std::vector<const AxisInfo*>& ops, int rank) {
  std::vector<int64_t> k(rank, 0);
  for (int d = 0; d < rank; ++d)
    for (const AxisInfo* o : ops)
      if (o->rank() == rank) k[d] = k[d] ? gcd(k[d], o->constancy[d]) : o->constancy[d];
  for (auto& v : k)
    if (v == 0) v = 1;
  return k;
}

AxisInfo elementwiseDefault(const ir::Operation& op, const std::vector<const AxisInfo*>& ops) {
  int rank = rankOf(op.result(0)->type());
  AxisInfo r = AxisInfo::unknown(rank);
  if (!ops.empty()) r.constancy = sharedConstancy(ops, rank);
  return r;
}

AxisInfo withConstant(AxisInfo info, std::optional<int64_t> value) {
  info.constantValue = value;
  if (value) {
    for (auto& d : info.divisibility) d = std::max(d, powerOfTwoDivisor(*value));
  }
  return info;
}

// lhs + rhs and lhs - rhs; for tt.addptr rhs counts in elements of
// `rhsScale` bytes while lhs is a byte address.
AxisInfo addSub(const AxisInfo& l, const AxisInfo& r, bool subtract, int64_t rhsScale) {
  int rank = l.rank();
  AxisInfo out = AxisInfo::unknown(rank);
  for (int d = 0; d < rank; ++d) {
    // A contiguous run plus something constant over the run stays contiguous;
    // a constant minus a contiguous run decreases, so only lhs may be it.
    int64_t c = gcd(l.contiguity[d], r.constancy[d]);
    if (!subtract) c = std::max(c, gcd(l.constancy[d], r.contiguity[d]));
    out.contiguity[d] = c;
    out.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
    int64_t run = std::max<int64_t>(c, 1);
    out.divisibility[d] =
        std::min(l.divisibilityAtRuns(d, run, rhsScale), mulCapped(r.divisibilityAtRuns(d, run), rhsScale));
  }
  if (l.constantValue && r.constantValue)
    out = withConstant(out, subtract ? *l.constantValue - *r.constantValue
                                     : *l.constantValue + *r.constantValue * rhsScale);
  return out;
}

AxisInfo mul(const AxisInfo& l, const AxisInfo& r) {
  int rank = l.rank();
  AxisInfo out = AxisInfo::unknown(rank);
  bool lOne = l.constantValue == 1, rOne = r.constantValue == 1;
  for (int d = 0; d < rank; ++d) {
    out.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
    if (lOne) {
      out.contiguity[d] = r.contiguity[d];
      out.divisibility[d] = r.divisibility[d];
    } else if (rOne) {
      out.contiguity[d] = l.contiguity[d];
      out.divisibility[d] = l.divisibility[d];
    } else {
      // Every element is a product of an element of each side.
      out.divisibility[d] = mulCapped(l.divisibilityAtRuns(d, 1), r.divisibilityAtRuns(d, 1));
    }
  }
  if (l.constantValue && r.constantValue) out = withConstant(out, *l.constantValue * *r.constantValue);
  if (l.constantValue == 0 || r.constantValue == 0) out = withConstant(out, 0);
  return out;
}

// lhs / c for a positive constant c. Offsets are non-negative in practice;
// like Triton we do not model the rounding of negative quotients.
AxisInfo divide(const AxisInfo& l, const AxisInfo& r) {
  int rank = l.rank();
  AxisInfo out = AxisInfo::unknown(rank);
  for (int d = 0; d < rank; ++d) out.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
  if (r.constantValue == 1) {
    out = l;
    out.constantValue = l.constantValue;
    return out;
  }
  if (r.constantValue && *r.constantValue > 0) {
    int64_t c = *r.constantValue;
    for (int d = 0; d < rank; ++d) {
      int64_t runStart = l.divisibility[d];
      // A contiguous run starting at a multiple of c gives runs of equal
      // quotients of length c.
      if (l.contiguity[d] > 1 && runStart % c == 0)
        out.constancy[d] = std::max(out.constancy[d], gcd(l.contiguity[d], c));
      int64_t all = l.divisibilityAtRuns(d, 1);
      if ((c & (c - 1)) == 0 && all % c == 0) out.divisibility[d] = std::max<int64_t>(1, all / c);
    }
    if (l.constantValue) out = withConstant(out, *l.constantValue / c);
  }
  return out;
}

// lhs % c for a positive constant c.
AxisInfo remainder(const AxisInfo& l, const AxisInfo& r) {
  int rank = l.rank();
  AxisInfo out = AxisInfo::unknown(rank);
  for (int d = 0; d < rank; ++d) out.constancy[d] = gcd(l.constancy[d], r.constancy[d]);
  if (r.constantValue && *r.constantValue > 0) {
    int64_t c = *r.constantValue;
    for (int d = 0; d < rank; ++d) {
      // A run starting at a multiple of g = gcd(start, c) stays below the
      // next multiple of c for g elements, so it stays contiguous.
      int64_t g = gcd(l.divisibility[d], pow2Part(c));
      out.contiguity[d] = l.contiguity[d] > 1 ? gcd(l.contiguity[d], g) : 1;
      int64_t run = out.contiguity[d];
      out.divisibility[d] = std::min(l.divisibilityAtRuns(d, run), pow2Part(c));
    }
    if (l.constantValue) out = withConstant(out, *l.constantValue % c);
  }
  return out;
}

// Is `x OP n` uniform over aligned runs when x increases by one along them?
bool lessThanLike(const std::string& p) { return p == "slt" || p == "ult" || p == "sge" || p == "uge"; }
// `n OP x` with x increasing: n <= x is !(x < n), n > x is x < n.
bool greaterThanLike(const std::string& p) { return p == "sle" || p == "ule" || p == "sgt" || p == "ugt"; }

AxisInfo compareInts(const ir::Operation& op, const AxisInfo& l, const AxisInfo& r) {
  int rank = l.rank();
  AxisInfo out = AxisInfo::unknown(rank);
  const std::string& p = op.symbolAttr("predicate");
  for (int d = 0; d < rank; ++d) {
    int64_t k = gcd(l.constancy[d], r.constancy[d]);
    // A threshold that is a multiple of g cannot fall inside an aligned run
    // of g consecutive values that starts at a multiple of g.
    auto runOfThreshold = [&](const AxisInfo& contiguous, const AxisInfo& threshold) {
      int64_t g = gcd(contiguous.contiguity[d], threshold.constancy[d]);
      g = gcd(g, contiguous.divisibilityAtRuns(d, g));
      g = gcd(g, threshold.divisibilityAtRuns(d, 1));
      return g;
    };
    if (l.contiguity[d] > 1 && lessThanLike(p)) k = std::max(k, runOfThreshold(l, r));
    if (r.contiguity[d] > 1 && greaterThanLike(p)) k = std::max(k, runOfThreshold(r, l));
    out.constancy[d] = k;
  }
  if (l.constantValue && r.constantValue) {
    int64_t a = *l.constantValue, b = *r.constantValue;
    uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    std::optional<bool> v;
    if (p == "eq") v = a == b;
    else if (p == "ne") v = a != b;
    else if (p == "slt") v = a < b;
    else if (p == "sle") v = a <= b;
    else if (p == "sgt") v = a > b;
    else if (p == "sge") v = a >= b;
    else if (p == "ult") v = ua < ub;
    else if (p == "ule") v = ua <= ub;
    else if (p == "ugt") v = ua > ub;
    else if (p == "uge") v = ua >= ub;
    if (v) out.constantValue = *v ? 1 : 0;
  }
  return out;
}

AxisInfo select(const AxisInfo& c, const AxisInfo& a, const AxisInfo& b, bool scalarCondition) {
  if (c.constantValue) return *c.constantValue ? a : b;
  int rank = a.rank();
  AxisInfo out = AxisInfo::unknown(rank);
  for (int d = 0; d < rank; ++d) {
    // A scalar condition picks one whole operand: no run limit (gcd(0, x) == x).
    int64_t ck = scalarCondition ? 0 : c.constancy[d];
    out.constancy[d] = gcd(ck, gcd(a.constancy[d], b.constancy[d]));
    out.contiguity[d] = gcd(ck, gcd(a.contiguity[d], b.contiguity[d]));
    int64_t run = out.contiguity[d];
    out.divisibility[d] = std::min(a.divisibilityAtRuns(d, run), b.divisibilityAtRuns(d, run));
  }
  if (a.constantValue && a.constantValue == b.constantValue) out.constantValue = a.constantValue;
  return out;
}

AxisInfo splat(const ir::Operation& op, const AxisInfo& scalar) {
  std::vector<int64_t> shape = shapeOf(op.result(0)->type());
  int rank = static_cast<int>(shape.size());
  AxisInfo out = AxisInfo::unknown(rank);
  for (int d = 0; d < rank; ++d) {
    out.divisibility[d] = scalar.divisibilityOfAll();
    out.constancy[d] = shape[d];
  }
  out.constantValue = scalar.constantValue;
  return out;
}

AxisInfo broadcast(const ir::Operation& op, const AxisInfo& in) {
  std::vector<int64_t> from = shapeOf(op.operand(0)->type());
  std::vector<int64_t> to = shapeOf(op.result(0)->type());
  AxisInfo out = in;
  for (size_t d = 0; d < to.size() && d < from.size(); ++d) {
    if (from[d] == 1 && to[d] != 1) {
      out.contiguity[d] = 1;
      out.constancy[d] = to[d];
      out.divisibility[d] = in.divisibilityOfAll();
    }
  }
  return out;
}

AxisInfo expandDims(const ir::Operation& op, const AxisInfo& in) {
  int axis = static_cast<int>(op.intAttr("axis"));
  AxisInfo out = in;
  if (op.operand(0)->type().rank() == 0) out = AxisInfo::unknown(0);  // never happens in valid TTIR
  int64_t all = in.divisibilityOfAll();
  out.contiguity.insert(out.contiguity.begin() + axis, 1);
  out.divisibility.insert(out.divisibility.begin() + axis, all);
  out.constancy.insert(out.constancy.begin() + axis, 1);
  out.constantValue = in.constantValue;
  return out;
}

AxisInfo trans(const ir::Operation& op, const AxisInfo& in) {
  const ir::Attribute* order = op.attr("order");
  AxisInfo out = in;
  if (!order) return out;
  for (size_t i = 0; i < order->ints().size(); ++i) {
    size_t from = static_cast<size_t>(order->ints()[i]);
    out.contiguity[i] = in.contiguity.at(from);
    out.divisibility[i] = in.divisibility.at(from);
    out.constancy[i] = in.constancy.at(from);
  }
  return out;
}

// A reshape that only adds or drops size-1 dimensions keeps every run.
AxisInfo reshape(const ir::Operation& op, const AxisInfo& in) {
  std::vector<int64_t> from = shapeOf(op.operand(0)->type());
  std::vector<int64_t> to = shapeOf(op.result(0)->type());
  std::vector<int> fromDims, toDims;
  for (size_t d = 0; d < from.size(); ++d)
    if (from[d] != 1) fromDims.push_back(static_cast<int>(d));
  for (size_t d = 0; d < to.size(); ++d)
    if (to[d] != 1) toDims.push_back(static_cast<int>(d));
  AxisInfo out = AxisInfo::unknown(static_cast<int>(to.size()));
  out.constantValue = in.constantValue;
  bool sameRuns = fromDims.size() == toDims.size();
  for (size_t i = 0; sameRuns && i < fromDims.size(); ++i) sameRuns = from[fromDims[i]] == to[toDims[i]];
  int64_t all = in.divisibilityOfAll();
  for (auto& d : out.divisibility) d = all;
  if (!sameRuns) return out;
  for (size_t i = 0; i < toDims.size(); ++i) {
    out.contiguity[toDims[i]] = in.contiguity[fromDims[i]];
    out.divisibility[toDims[i]] = in.divisibility[fromDims[i]];
    out.constancy[toDims[i]] = in.constancy[fromDims[i]];
  }
  return out;
}

int64_t pointeeBytes(const ir::Type& ptrOrTensor) {
  const ir::Type& p = ptrOrTensor.elementOrSelf();
  if (!p.isPointer() || !p.pointee().isScalar()) return 1;
  return std::max(1, p.pointee().bitWidth() / 8);
}

}  // namespace

AxisInfo constantAxisInfo(const ir::Operation& op) {
  const ir::Type& t = op.result(0)->type();
  std::vector<int64_t> shape = shapeOf(t);
  int rank = static_cast<int>(shape.size());
  AxisInfo out = AxisInfo::unknown(rank);
  out.constancy = shape;
  const ir::Attribute* a = op.attr("value");
  if (!a) return out;
  const ir::Attribute* scalar = a;
  if (a->kind() == ir::Attribute::Kind::Dense) {
    if (!a->isSplat()) return AxisInfo::unknown(rank);
    scalar = &a->elements()[0];
  }
  if (scalar->kind() == ir::Attribute::Kind::Int || scalar->kind() == ir::Attribute::Kind::Bool)
    out = withConstant(out, scalar->asInt());
  return out;
}

AxisInfo transferAxisInfo(const ir::Operation& op, const std::vector<const AxisInfo*>& in) {
  const ir::Type& resultType = op.result(0)->type();
  auto shiftAmount = [&](const AxisInfo& r) -> std::optional<int64_t> {
    if (r.constantValue && *r.constantValue >= 0 && *r.constantValue < 31) return *r.constantValue;
    return std::nullopt;
  };
  switch (op.kind()) {
    case OpKind::ArithConstant:
      return constantAxisInfo(op);
    case OpKind::TtMakeRange: {
      AxisInfo out = AxisInfo::unknown(1);
      int64_t start = op.intAttr("start"), end = op.intAttr("end");
      out.contiguity[0] = end - start;
      out.divisibility[0] = powerOfTwoDivisor(start);
      return out;
    }
    case OpKind::TtSplat:
      return splat(op, *in[0]);
    case OpKind::TtBroadcast:
      return broadcast(op, *in[0]);
    case OpKind::TtExpandDims:
      return expandDims(op, *in[0]);
    case OpKind::TtTrans:
      return trans(op, *in[0]);
    case OpKind::TtReshape:
      return reshape(op, *in[0]);
    case OpKind::ArithAddI:
      return addSub(*in[0], *in[1], false, 1);
    case OpKind::ArithSubI:
      return addSub(*in[0], *in[1], true, 1);
    case OpKind::TtAddPtr:
      return addSub(*in[0], *in[1], false, pointeeBytes(op.operand(0)->type()));
    case OpKind::ArithMulI:
      return mul(*in[0], *in[1]);
    case OpKind::ArithDivSI:
    case OpKind::ArithDivUI:
      return divide(*in[0], *in[1]);
    case OpKind::ArithRemSI:
    case OpKind::ArithRemUI:
      return remainder(*in[0], *in[1]);
    case OpKind::ArithShLI:
      if (auto s = shiftAmount(*in[1])) {
        AxisInfo factor = AxisInfo::unknown(in[1]->rank());
        factor.constancy = in[1]->constancy;
        factor = withConstant(factor, int64_t{1} << *s);
        return mul(*in[0], factor);
      }
      return elementwiseDefault(op, in);
    case OpKind::ArithShRSI:
    case OpKind::ArithShRUI:
      if (auto s = shiftAmount(*in[1])) {
        AxisInfo divisor = AxisInfo::unknown(in[1]->rank());
        divisor.constancy = in[1]->constancy;
        divisor = withConstant(divisor, int64_t{1} << *s);
        return divide(*in[0], divisor);
      }
      return elementwiseDefault(op, in);
    case OpKind::ArithCmpI:
      return compareInts(op, *in[0], *in[1]);
    case OpKind::ArithSelect:
      return select(*in[0], *in[1], *in[2], !op.operand(0)->type().isTensor() && resultType.isTensor());
    case OpKind::ArithExtSI:
    case OpKind::ArithExtUI:
    case OpKind::ArithIndexCast: {
      AxisInfo out = *in[0];
      return out;
    }
    case OpKind::ArithAndI:
    case OpKind::ArithOrI:
    case OpKind::ArithXOrI:
    case OpKind::ArithMaxSI:
    case OpKind::ArithMinSI: {
      AxisInfo out = elementwiseDefault(op, in);
      if (in[0]->constantValue && in[1]->constantValue) {
        int64_t a = *in[0]->constantValue, b = *in[1]->constantValue;
        int64_t v = op.kind() == OpKind::ArithAndI   ? (a & b)
                    : op.kind() == OpKind::ArithOrI  ? (a | b)
                    : op.kind() == OpKind::ArithXOrI ? (a ^ b)
                    : op.kind() == OpKind::ArithMaxSI ? std::max(a, b)
                                                      : std::min(a, b);
        out = withConstant(out, v);
      }
      return out;
    }
    case OpKind::TtBitcast:
      // A pointer cast keeps every byte address: divisibility (in bytes) and
      // constancy hold; contiguity (in elements) only for same-size pointees.
      if (op.result(0)->type().elementOrSelf().isPointer()) {
        AxisInfo out = *in[0];
        out.constantValue.reset();
        if (pointeeBytes(op.operand(0)->type()) != pointeeBytes(op.result(0)->type()))
          out.contiguity.assign(out.contiguity.size(), 1);
        return out;
      }
      return elementwiseDefault(op, in);
    case OpKind::TtLoad: {
      // Loading through a pointer that is constant over a run gives a value
      // constant over that run.
      AxisInfo out = AxisInfo::unknown(rankOf(resultType));
      out.constancy = in[0]->constancy;
      return out;
    }
    case OpKind::TtGetProgramId:
    case OpKind::TtGetNumPrograms:
      return AxisInfo::unknown(1);
    default:
      return elementwiseDefault(op, in);
  }
}

}  // namespace tmetal::analysis
