#include "tmetal/ir/decompose_dot_scaled.h"

#include <limits>
#include <string>
#include <vector>

#include "tmetal/ir/builder.h"
#include "tmetal/ir/clone.h"

namespace tmetal::ir {

DotScaledOperands dotScaledOperands(const Operation& op) {
  std::vector<int64_t> segments{1, 1, 1, 1, 1};
  if (const Attribute* s = op.attr("operandSegmentSizes")) segments = s->ints();
  if (segments.size() != 5) op.fail("attribute 'operandSegmentSizes' must have 5 entries");
  size_t total = 0;
  for (int64_t n : segments) total += static_cast<size_t>(n);
  if (total != op.numOperands())
    op.fail("has " + std::to_string(op.numOperands()) + " operands, but 'operandSegmentSizes' counts " +
            std::to_string(total));
  DotScaledOperands out;
  size_t next = 0;
  Value** slots[5] = {&out.a, &out.aScale, &out.b, &out.bScale, &out.acc};
  for (int i = 0; i < 5; ++i)
    if (segments[i]) *slots[i] = op.operand(next++);
  return out;
}

bool hasDotScaled(const Function& fn) {
  bool found = false;
  walk(*fn.body(), [&](const Operation* op) { found |= op->kind() == OpKind::TtDotScaled; });
  return found;
}

namespace {

class Decomposer {
 public:
  Decomposer(const Operation& op, ValueMapping& m, Block& into) : op_(op), m_(m), b_(&into) { b_.setLoc(op.loc()); }

  void run() {
    DotScaledOperands in = dotScaledOperands(op_);
    const std::string lhs = op_.symbolAttr("lhs"), rhs = op_.symbolAttr("rhs");
    const Attribute* fast = op_.attr("fastMath");
    fastMath_ = fast && fast->asBool();
    for (const char* packing : {"lhs_k_pack", "rhs_k_pack"})
      if (const Attribute* p = op_.attr(packing); p && !p->asBool())
        op_.fail("e2m1 operands packed along M or N (" + std::string(packing) + " = false) are not supported");
    compute_ = lhs == "fp16" || rhs == "fp16" ? Type::f16() : Type::bf16();
    Value* a = operand(mapped(in.a), in.aScale ? mapped(in.aScale) : nullptr, lhs, false);
    Value* b = operand(mapped(in.b), in.bScale ? mapped(in.bScale) : nullptr, rhs, true);
    m_[op_.result(0)] = b_.create1("tt.dot", {a, b, mapped(in.acc)}, op_.result(0)->type());
  }

 private:
  Value* mapped(Value* v) const {
    auto it = m_.find(v);
    return it == m_.end() ? v : it->second;
  }

  Value* splatInt(int64_t v, const Type& like) {
    return b_.constantSplat(Attribute::integer(v, like.element()), like);
  }

  // A K-major operand (A: [M, K]; B: [K, N]) in the compute type, scaled.
  Value* operand(Value* x, Value* scale, const std::string& format, bool isB) {
    const Type& t = x->type();
    if (t.rank() != 2) op_.fail("multiplies rank-2 tensors, found " + t.str());
    Value* wide = nullptr;
    if (format == "e2m1") {
      wide = unpackE2m1(x, isB);
    } else if (format == "e4m3" || format == "e5m2" || format == "bf16" || format == "fp16") {
      wide = convert(x, compute_);
    } else {
      op_.fail("operand format '" + format + "' is not supported (e2m1, e4m3, e5m2, bf16, fp16)");
    }
    if (!scale) return wide;
    return applyScale(wide, scale, isB);
  }

  // Exact widening of a float tensor (or a conversion between the 16-bit
  // types, through f32, as Triton's reference does).
  Value* convert(Value* x, const Type& to) {
    const Type& from = x->type().element();
    if (from == to) return x;
    const Type f32 = x->type().withElement(Type::f32());
    Value* wide = from == Type::f32() ? x : b_.create1("tt.fp_to_fp", {x}, f32);
    if (to == Type::f32()) return wide;
    AttrList rounding;
    rounding.set("rounding", Attribute::symbol("rtne"));
    return b_.create1("tt.fp_to_fp", {wide}, x->type().withElement(to), std::move(rounding));
  }

  // e2m1 code (sign bit 3, exponent bits 2-1, mantissa bit 0) -> f32 bits:
  // 0, 0.5, then (1 + m/2) * 2^(e - 1).
  Value* e2m1Value(Value* nibble) {
    const Type& t = nibble->type();
    Value* magnitude = b_.binary("arith.andi", nibble, splatInt(7, t));
    Value* sign = b_.binary("arith.shli", b_.binary("arith.andi", nibble, splatInt(8, t)), splatInt(28, t));
    Value* exponent = b_.binary("arith.shrui", magnitude, splatInt(1, t));
    Value* normal = b_.binary(
        "arith.ori",
        b_.binary("arith.shli", b_.binary("arith.addi", exponent, splatInt(126, t)), splatInt(23, t)),
        b_.binary("arith.shli", b_.binary("arith.andi", magnitude, splatInt(1, t)), splatInt(22, t)));
    Value* half = splatInt(0x3F000000, t);
    Value* bits = b_.create1("arith.select", {b_.cmpi("ult", magnitude, splatInt(2, t)),
                                              b_.create1("arith.select", {b_.cmpi("eq", magnitude, splatInt(1, t)), half,
                                                                          splatInt(0, t)},
                                                         t),
                                              normal},
                             t);
    bits = b_.binary("arith.ori", bits, sign);
    return convert(b_.create1("tt.bitcast", {bits}, t.withElement(Type::f32())), compute_);
  }

  // Two e2m1 values a byte along K, the low nibble first: A [M, K/2] -> [M, K],
  // B [K/2, N] -> [K, N].
  Value* unpackE2m1(Value* packed, bool isB) {
    const Type& t = packed->type();
    if (t.element() != Type::i8()) op_.fail("e2m1 operands are packed in i8, found " + t.str());
    const Type i32 = t.withElement(Type::i32());
    Value* bytes = b_.create1("arith.extui", {packed}, i32);
    Value* low = e2m1Value(b_.binary("arith.andi", bytes, splatInt(15, i32)));
    Value* high = e2m1Value(b_.binary("arith.shrui", bytes, splatInt(4, i32)));
    std::vector<int64_t> shape = t.shape();
    Value* pairs = b_.create1("tt.join", {low, high}, Type::tensor({shape[0], shape[1], 2}, compute_));
    if (!isB) return b_.create1("tt.reshape", {pairs}, Type::tensor({shape[0], shape[1] * 2}, compute_));
    AttrList order;
    order.set("order", Attribute::denseArray({0, 2, 1}));
    Value* kMajor = b_.create1("tt.trans", {pairs}, Type::tensor({shape[0], 2, shape[1]}, compute_), std::move(order));
    return b_.create1("tt.reshape", {kMajor}, Type::tensor({shape[0] * 2, shape[1]}, compute_));
  }

  // x * 2^(s - 127) with s from `scale` ([M, K/32] for A, [N, K/32] for B).
  Value* applyScale(Value* x, Value* scale, bool isB) {
    const Type& st = scale->type();
    const std::vector<int64_t>& xs = x->type().shape();
    const int64_t rows = isB ? xs[1] : xs[0], k = isB ? xs[0] : xs[1];
    if (!st.isTensor() || st.rank() != 2 || st.element() != Type::i8() || st.shape()[0] != rows ||
        st.shape()[1] * 32 != k)
      op_.fail("the scale of " + std::string(isB ? "b" : "a") + " must be tensor<" + std::to_string(rows) + "x" +
               std::to_string(k / 32) + "xi8> (one per 32 elements of K), found " + st.str());
    // The factors of the small scale tensor first...
    const Type i32 = st.withElement(Type::i32());
    Value* exponent = b_.create1("arith.extui", {scale}, i32);
    Value* factor = b_.create1("tt.bitcast", {b_.binary("arith.shli", exponent, splatInt(23, i32))},
                               st.withElement(Type::f32()));
    factor = convert(factor, compute_);
    if (!fastMath_) {
      Value* nan = b_.constantSplat(Attribute::floating(std::numeric_limits<double>::quiet_NaN(), compute_),
                                    st.withElement(compute_));
      factor = b_.create1("arith.select", {b_.cmpi("eq", exponent, splatInt(255, i32)), nan, factor},
                          st.withElement(compute_));
    }
    // ...then each element of x gathers its block's factor (k / 32 along
    // K): the gather lands in x's layout, so only the small factors go
    // through threadgroup memory. B's factors are [N, K/32]: transposed to
    // [K/32, N] first (small too).
    if (isB) {
      AttrList order;
      order.set("order", Attribute::denseArray({1, 0}));
      factor = b_.create1("tt.trans", {factor}, Type::tensor({k / 32, rows}, compute_), std::move(order));
    }
    Value* block = b_.binary("arith.divsi", b_.makeRange(0, static_cast<int32_t>(k)),
                             splatInt(32, Type::tensor({k}, Type::i32())));
    Value* index = b_.broadcast(b_.expandDims(block, isB ? 1 : 0), x->type().shape());
    AttrList axis;
    axis.set("axis", Attribute::integer(isB ? 0 : 1));
    Value* perElement = b_.create1("tt.gather", {factor, index}, x->type(), std::move(axis));
    return b_.binary("arith.mulf", x, perElement);
  }

  const Operation& op_;
  ValueMapping& m_;
  Builder b_;
  Type compute_;
  bool fastMath_ = false;
};

}  // namespace

std::unique_ptr<Function> decomposeDotScaled(const Function& kernel) {
  CloneHooks hooks;
  hooks.replace = [](const Operation& op, ValueMapping& mapping, Block& into) {
    if (op.kind() != OpKind::TtDotScaled) return false;
    Decomposer(op, mapping, into).run();
    return true;
  };
  return cloneFunction(kernel, hooks);
}

}  // namespace tmetal::ir
