#include "tmetal/graph/combiner_ir.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace tmetal::graph {

using ir::Attribute;
using ir::ScalarKind;
using ir::Type;
using ir::Value;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

Attribute scalarConstant(double floatValue, int64_t intValue, ScalarKind kind) {
  return ir::isFloatKind(kind) ? Attribute::floating(floatValue, Type::scalar(kind))
                               : Attribute::integer(intValue, Type::scalar(kind));
}

int64_t smallestInt(ScalarKind k) { return -(int64_t{1} << (ir::scalarBits(k) - 1)); }
int64_t largestInt(ScalarKind k) { return (int64_t{1} << (ir::scalarBits(k) - 1)) - 1; }

// A constant of the element type of `like`, shaped like it.
Value* constantLike(ir::Builder& b, const Attribute& scalar, const Value* like) {
  const Type& t = like->type();
  if (t.isTensor()) return b.constantSplat(scalar, t);
  return scalar.kind() == Attribute::Kind::Float ? b.constantFloat(scalar.asFloat(), t) : b.constantInt(scalar.asInt(), t);
}

Value* select(ir::Builder& b, Value* condition, Value* a, Value* c) {
  return b.create1("arith.select", {condition, a, c}, a->type());
}

Value* compare(ir::Builder& b, const char* floatPredicate, const char* intPredicate, Value* x, Value* y) {
  return x->type().elementOrSelf().isFloat() ? b.cmpf(floatPredicate, x, y) : b.cmpi(intPredicate, x, y);
}

}  // namespace

Attribute combinerIdentity(Combiner c, ScalarKind kind) {
  switch (c) {
    case Combiner::Sum:
    case Combiner::Mean:
    case Combiner::Any: return scalarConstant(0.0, 0, kind);
    case Combiner::Prod:
    case Combiner::All: return scalarConstant(1.0, 1, kind);
    case Combiner::Max:
    case Combiner::ArgMax: return scalarConstant(-kInfinity, smallestInt(kind), kind);
    case Combiner::Min:
    case Combiner::ArgMin: return scalarConstant(kInfinity, largestInt(kind), kind);
  }
  return scalarConstant(0.0, 0, kind);
}

Attribute inputIdentity(Combiner c, ScalarKind input) {
  // The identities are the same values in the input type; any/all map the
  // element to (element != 0), so 0 and 1 give the flags' identities.
  return combinerIdentity(c, input);
}

Value* toAccumulator(ir::Builder& b, Combiner c, Value* input, ScalarKind accumulator) {
  const Type& type = input->type();
  const ScalarKind kind = type.elementOrSelf().scalarKind();
  const Type target = type.isTensor() ? type.withElement(Type::scalar(accumulator)) : Type::scalar(accumulator);
  if (c == Combiner::Any || c == Combiner::All) {
    Value* zero = constantLike(b, scalarConstant(0.0, 0, kind), input);
    Value* nonzero = ir::isFloatKind(kind) ? b.cmpf("une", input, zero) : b.cmpi("ne", input, zero);
    return b.create1("arith.extui", {nonzero}, target);
  }
  if (kind == accumulator) return input;
  if (ir::isFloatKind(kind) && ir::isFloatKind(accumulator)) return b.create1("arith.extf", {input}, target);
  return b.create1("arith.extsi", {input}, target);
}

std::vector<Value*> combineValues(ir::Builder& b, Combiner c, const std::vector<Value*>& accumulated,
                                  const std::vector<Value*>& next) {
  Value* a = accumulated[0];
  Value* x = next[0];
  const bool isFloat = a->type().elementOrSelf().isFloat();
  switch (c) {
    case Combiner::Sum:
    case Combiner::Mean: return {b.binary(isFloat ? "arith.addf" : "arith.addi", a, x)};
    case Combiner::Prod: return {b.binary(isFloat ? "arith.mulf" : "arith.muli", a, x)};
    case Combiner::Max: return {b.binary(isFloat ? "arith.maxnumf" : "arith.maxsi", a, x)};
    case Combiner::Min: return {b.binary(isFloat ? "arith.minnumf" : "arith.minsi", a, x)};
    case Combiner::Any: return {b.binary("arith.ori", a, x)};
    case Combiner::All: return {b.binary("arith.andi", a, x)};
    case Combiner::ArgMax:
    case Combiner::ArgMin: {
      // Triton's _argmax_combine / _argmin_combine with tie_break_left.
      Value* ai = accumulated[1];
      Value* xi = next[1];
      Value* tie = b.binary("arith.andi", compare(b, "oeq", "eq", a, x), b.cmpi("slt", ai, xi));
      Value* wins = c == Combiner::ArgMax ? compare(b, "ogt", "sgt", a, x) : compare(b, "olt", "slt", a, x);
      Value* keep = b.binary("arith.ori", wins, tie);
      return {select(b, keep, a, x), select(b, keep, ai, xi)};
    }
  }
  return {a};
}

bool combinesInIndexOrder(Combiner c, ScalarKind valueKind) {
  return combinerCarriesIndex(c) && ir::isFloatKind(valueKind);
}

Attribute emptyInIndexOrder(ScalarKind valueKind) {
  return Attribute::floating(std::numeric_limits<double>::quiet_NaN(), Type::scalar(valueKind));
}

std::vector<Value*> combineInIndexOrder(ir::Builder& b, Combiner c, const std::vector<Value*>& accumulated,
                                        const std::vector<Value*>& next) {
  if (!combinesInIndexOrder(c, accumulated[0]->type().elementOrSelf().scalarKind()))
    throw std::logic_error(std::string("combining in index order: not an arg-reduction of floats: ") + combinerName(c));
  Value* keep = b.cmpf(c == Combiner::ArgMax ? "oge" : "ole", accumulated[0], next[0]);
  Value* extreme = b.binary(c == Combiner::ArgMax ? "arith.maxnumf" : "arith.minnumf", accumulated[0], next[0]);
  return {extreme, select(b, keep, accumulated[1], next[1])};
}

std::vector<Value*> finishIndexOrder(ir::Builder& b, Combiner c, const std::vector<Value*>& accumulated) {
  Value* values = accumulated[0];
  Value* indices = accumulated[1];
  Value* empty = b.cmpi("eq", indices, constantLike(b, Attribute::integer(kNoIndex), indices));
  Value* identity = constantLike(b, combinerIdentity(c, values->type().elementOrSelf().scalarKind()), values);
  return {select(b, empty, identity, values), indices};
}

ir::Operation* reduceOp(ir::Builder& b, Combiner c, const std::vector<Value*>& operands, int axis) {
  std::vector<Type> results;
  for (Value* v : operands) {
    std::vector<int64_t> shape = v->type().shape();
    shape.erase(shape.begin() + axis);
    results.push_back(shape.empty() ? v->type().element() : Type::tensor(shape, v->type().element()));
  }
  ir::AttrList attrs;
  attrs.set("axis", Attribute::integer(axis));
  ir::Operation* op = b.create("tt.reduce", operands, results, std::move(attrs));
  ir::Block* block = op->addRegion()->addBlock();
  std::vector<Value*> accumulated, next;
  for (Value* v : operands) accumulated.push_back(block->addArgument(v->type().element()));
  for (Value* v : operands) next.push_back(block->addArgument(v->type().element()));
  ir::Builder inner(block);
  inner.setLoc(b.loc());
  inner.create("tt.reduce.return", combineValues(inner, c, accumulated, next), {});
  return op;
}

}  // namespace tmetal::graph
