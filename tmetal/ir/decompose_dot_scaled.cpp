#include "tmetal/ir/decompose_dot_scaled.h"

#include <limits>
#include <string>
#include <tuple>
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
    // e2m1 pairs packed along K (the default) or along M (A) / N (B).
    auto packedAlongK = [&](const char* name) {
      const Attribute* p = op_.attr(name);
      return !p || p->asBool();
    };
    const bool aAlongK = packedAlongK("lhs_k_pack"), bAlongK = packedAlongK("rhs_k_pack");
    for (const std::string& format : {lhs, rhs})
      if (format != "e2m1" && format != "e4m3" && format != "e5m2" && format != "bf16" && format != "fp16")
        op_.fail("operand format '" + format + "' is not supported (e2m1, e4m3, e5m2, bf16, fp16)");
    for (Value* x : {in.a, in.b})
      if (x->type().rank() != 2) op_.fail("multiplies rank-2 tensors, found " + x->type().str());
    compute_ = lhs == "fp16" || rhs == "fp16" ? Type::f16() : Type::bf16();
    Value* acc = mapped(in.acc);
    Value* aScale = in.aScale ? mapped(in.aScale) : nullptr;
    Value* bScale = in.bScale ? mapped(in.bScale) : nullptr;
    const Type& result = op_.result(0)->type();
    for (auto [format, alongK] : {std::pair{lhs, aAlongK}, std::pair{rhs, bAlongK}})
      if (!alongK && format != "e2m1") op_.fail("only e2m1 operands are packed along M or N, found " + format);
    // A's e2m1 pairs along K or B's along N lie along the operand's rows,
    // A's along M down its columns.
    Value* a = mapped(in.a);
    if (rhs != "e2m1" || !bAlongK) {
      if (lhs == "e2m1") a = aAlongK ? unpackRows(a) : unpackColumns(a);
      a = scaled(convert(a, compute_), aScale, false, 1);
      Value* b = scaled(rhs == "e2m1" ? unpackRows(mapped(in.b)) : convert(mapped(in.b), compute_), bScale, true, 1);
      m_[op_.result(0)] = b_.create1("tt.dot", {a, b, acc}, result);
      return;
    }
    // e2m1 holds two elements of K a byte, k = 2i (low nibble) and 2i + 1.
    // B's pairs run down its columns, and interleaving them would move whole
    // tiles through threadgroup memory. A sum over k may take them in any
    // order: the product is that of the even elements plus that of the odd
    // ones, A split into its even and odd columns (along its rows, which
    // the layouts do in registers).
    const bool unpackA = lhs == "e2m1" && !aAlongK;
    auto [aEven, aOdd] = halves(unpackA ? unpackColumns(a) : a, aScale, unpackA ? "unpacked" : lhs, false);
    auto [bEven, bOdd] = halves(mapped(in.b), bScale, rhs, true);
    acc = b_.create1("tt.dot", {aEven, bEven, acc}, result);
    m_[op_.result(0)] = b_.create1("tt.dot", {aOdd, bOdd, acc}, result);
  }

 private:
  Value* mapped(Value* v) const {
    auto it = m_.find(v);
    return it == m_.end() ? v : it->second;
  }

  Value* splatInt(int64_t v, const Type& like) {
    return b_.constantSplat(Attribute::integer(v, like.element()), like);
  }

  // The values of the low and high nibbles of e2m1 bytes (k = 2i and
  // 2i + 1), in the compute type.
  std::pair<Value*, Value*> nibbles(Value* packed) {
    const Type& t = packed->type();
    if (t.element() != Type::i8()) op_.fail("e2m1 operands are packed in i8, found " + t.str());
    const Type i32 = t.withElement(Type::i32());
    Value* bytes = b_.create1("arith.extui", {packed}, i32);
    return {e2m1Value(b_.binary("arith.andi", bytes, splatInt(15, i32))),
            e2m1Value(b_.binary("arith.shrui", bytes, splatInt(4, i32)))};
  }

  // A's e2m1 pairs lie along its rows: unpacked next to each other,
  // [M, K/2] -> [M, K/2, 2] -> [M, K], in registers.
  Value* unpackRows(Value* packed) {
    auto [low, high] = nibbles(packed);
    const std::vector<int64_t>& shape = packed->type().shape();
    Value* pairs = b_.create1("tt.join", {low, high}, Type::tensor({shape[0], shape[1], 2}, compute_));
    return b_.create1("tt.reshape", {pairs}, Type::tensor({shape[0], shape[1] * 2}, compute_));
  }

  // A's e2m1 pairs packed along M lie down its columns: [M/2, K] ->
  // [M/2, K, 2] -> [M/2, 2, K] -> [M, K].
  Value* unpackColumns(Value* packed) {
    auto [low, high] = nibbles(packed);
    const std::vector<int64_t>& shape = packed->type().shape();
    Value* pairs = b_.create1("tt.join", {low, high}, Type::tensor({shape[0], shape[1], 2}, compute_));
    AttrList order;
    order.set("order", Attribute::denseArray({0, 2, 1}));
    Value* rows = b_.create1("tt.trans", {pairs}, Type::tensor({shape[0], 2, shape[1]}, compute_), std::move(order));
    return b_.create1("tt.reshape", {rows}, Type::tensor({shape[0] * 2, shape[1]}, compute_));
  }

  Value* transpose(Value* x) {
    const std::vector<int64_t>& shape = x->type().shape();
    AttrList order;
    order.set("order", Attribute::denseArray({1, 0}));
    return b_.create1("tt.trans", {x}, Type::tensor({shape[1], shape[0]}, x->type().element()), std::move(order));
  }

  // The elements of a K-major operand (A: [M, K]; an e2m1 B: [K/2, N]
  // packed) at even and at odd k, each in the compute type and scaled:
  // [M, K/2] or [K/2, N].
  std::pair<Value*, Value*> halves(Value* x, Value* scale, const std::string& format, bool isB) {
    Value* even = nullptr;
    Value* odd = nullptr;
    if (format == "e2m1") {
      std::tie(even, odd) = nibbles(x);
    } else {
      // A (only A: an unpacked B takes the one-dot path): K as pairs along
      // its rows, split in registers.
      const std::vector<int64_t>& shape = x->type().shape();
      const Type& element = x->type().element();
      const Type half = Type::tensor({shape[0], shape[1] / 2}, element);
      Value* pairs = b_.create1("tt.reshape", {x}, Type::tensor({shape[0], shape[1] / 2, 2}, element));
      Operation* split = b_.create("tt.split", {pairs}, {half, half});
      even = convert(split->result(0), compute_);
      odd = convert(split->result(1), compute_);
    }
    return {scaled(even, scale, isB, 2), scaled(odd, scale, isB, 2)};
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

  // x times its block's scale: an e8m0 exponent s (i8, 2^(s - 127), one
  // for each 32 elements of K: the MX formats) or an e4m3 factor
  // (f8E4M3FN, one for each 16: NVIDIA's nvfp4). `scale` is [M, K/block]
  // for A, [N, K/block] for B; x holds every element of K, or (kFraction 2)
  // only the even or the odd ones.
  Value* scaled(Value* x, Value* scale, bool isB, int64_t kFraction) {
    if (!scale) return x;
    const Type& st = scale->type();
    const std::vector<int64_t>& xs = x->type().shape();
    const int64_t rows = isB ? xs[1] : xs[0], k = isB ? xs[0] : xs[1];
    const int64_t fullK = k * kFraction;
    const bool e4m3 = st.isTensor() && st.element() == Type::scalar(ScalarKind::F8E4M3FN);
    const int64_t block = e4m3 ? 16 : 32;
    if (!st.isTensor() || st.rank() != 2 || (st.element() != Type::i8() && !e4m3) || st.shape()[0] != rows ||
        st.shape()[1] * block != fullK) {
      const std::string shape = std::to_string(rows) + "x" + std::to_string(fullK / 32) + "xi8";
      op_.fail("the scale of " + std::string(isB ? "b" : "a") + " must be tensor<" + shape +
               "> (one per 32 elements of K) or tensor<" + std::to_string(rows) + "x" + std::to_string(fullK / 16) +
               "xf8E4M3FN> (one per 16), found " + st.str());
    }
    // Each element of x gathers its block's scale (k / perBlock along K):
    // the gather lands in x's layout, where the factor is computed
    // (layout_assignment), so only the small 8-bit scales go through
    // threadgroup memory (which a buffer of 8-bit elements may lend). B's
    // scales are [N, K/block]: transposed to [K/block, N] first (small too).
    if (isB) scale = transpose(scale);
    const int64_t perBlock = block / kFraction;
    Value* index = b_.broadcast(
        b_.expandDims(b_.binary("arith.divsi", b_.makeRange(0, k), splatInt(perBlock, Type::tensor({k}, Type::i32()))),
                      isB ? 1 : 0),
        xs);
    AttrList axis;
    axis.set("axis", Attribute::integer(isB ? 0 : 1));
    Value* perElement = b_.create1("tt.gather", {scale, index}, x->type().withElement(st.element()), std::move(axis));
    // An e4m3 factor is exact in the compute type (as is its product with
    // an operand's few significant bits), a NaN code staying NaN.
    if (e4m3) return b_.binary("arith.mulf", x, convert(perElement, compute_));
    const Type i32 = x->type().withElement(Type::i32());
    Value* exponent = b_.create1("arith.extui", {perElement}, i32);
    Value* factor = b_.create1("tt.bitcast", {b_.binary("arith.shli", exponent, splatInt(23, i32))},
                               x->type().withElement(Type::f32()));
    factor = convert(factor, compute_);
    if (!fastMath_) {
      Value* nan = b_.constantSplat(Attribute::floating(std::numeric_limits<double>::quiet_NaN(), compute_),
                                    x->type().withElement(compute_));
      factor = b_.create1("arith.select", {b_.cmpi("eq", exponent, splatInt(255, i32)), nan, factor},
                          x->type().withElement(compute_));
    }
    return b_.binary("arith.mulf", x, factor);
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
