#include "tmetal/ir/builder.h"

#include <cassert>

namespace tmetal::ir {

Operation* Builder::create(const std::string& name, std::vector<Value*> operands,
                           const std::vector<Type>& resultTypes, AttrList attrs) {
  assert(block_ && "Builder has no insertion block");
  return block_->append(std::make_unique<Operation>(name, std::move(operands), resultTypes, std::move(attrs), loc_));
}

Value* Builder::create1(const std::string& name, std::vector<Value*> operands, const Type& resultType,
                        AttrList attrs) {
  return create(name, std::move(operands), {resultType}, std::move(attrs))->result(0);
}

Value* Builder::constantInt(int64_t v, const Type& t) {
  AttrList a;
  a.set("value", Attribute::integer(v, t));
  return create1("arith.constant", {}, t, std::move(a));
}

Value* Builder::constantFloat(double v, const Type& t) {
  AttrList a;
  a.set("value", Attribute::floating(v, t));
  return create1("arith.constant", {}, t, std::move(a));
}

Value* Builder::constantSplat(const Attribute& scalar, const Type& tensorType) {
  AttrList a;
  a.set("value", Attribute::dense({scalar}, tensorType));
  return create1("arith.constant", {}, tensorType, std::move(a));
}

Value* Builder::programId(int axis) {
  AttrList a;
  a.set("axis", Attribute::integer(axis));
  return create1("tt.get_program_id", {}, Type::i32(), std::move(a));
}

Value* Builder::makeRange(int64_t start, int64_t end) {
  AttrList a;
  a.set("end", Attribute::integer(end));
  a.set("start", Attribute::integer(start));
  return create1("tt.make_range", {}, Type::tensor({end - start}, Type::i32()), std::move(a));
}

Value* Builder::splat(Value* v, const std::vector<int64_t>& shape) {
  return create1("tt.splat", {v}, Type::tensor(shape, v->type()));
}

Value* Builder::broadcast(Value* v, const std::vector<int64_t>& shape) {
  return create1("tt.broadcast", {v}, Type::tensor(shape, v->type().element()));
}

Value* Builder::expandDims(Value* v, int axis) {
  std::vector<int64_t> shape = v->type().shape();
  shape.insert(shape.begin() + axis, 1);
  AttrList a;
  a.set("axis", Attribute::integer(axis));
  return create1("tt.expand_dims", {v}, Type::tensor(shape, v->type().element()), std::move(a));
}

Value* Builder::binary(const std::string& name, Value* lhs, Value* rhs) {
  return create1(name, {lhs, rhs}, lhs->type());
}

Value* Builder::cmpi(const std::string& predicate, Value* lhs, Value* rhs) {
  AttrList a;
  a.set("predicate", Attribute::symbol(predicate));
  return create1("arith.cmpi", {lhs, rhs}, lhs->type().withElement(Type::i1()), std::move(a));
}

Value* Builder::cmpf(const std::string& predicate, Value* lhs, Value* rhs) {
  AttrList a;
  a.set("predicate", Attribute::symbol(predicate));
  return create1("arith.cmpf", {lhs, rhs}, lhs->type().withElement(Type::i1()), std::move(a));
}

Value* Builder::addPtr(Value* ptr, Value* offset) { return create1("tt.addptr", {ptr, offset}, ptr->type()); }

Value* Builder::load(Value* ptr, Value* mask, Value* other) {
  std::vector<Value*> operands{ptr};
  if (mask) operands.push_back(mask);
  if (other) operands.push_back(other);
  const Type& pt = ptr->type();
  Type result = pt.isTensor() ? pt.withElement(pt.element().pointee()) : pt.pointee();
  return create1("tt.load", std::move(operands), result);
}

void Builder::store(Value* ptr, Value* value, Value* mask) {
  std::vector<Value*> operands{ptr, value};
  if (mask) operands.push_back(mask);
  create("tt.store", std::move(operands), {});
}

void Builder::ret(std::vector<Value*> values) { create("tt.return", std::move(values), {}); }

}  // namespace tmetal::ir
