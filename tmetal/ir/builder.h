// Builds ops at the end of a block. Used by the reader, the planner (which
// writes kernels for graph ops) and tests.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tmetal/ir/module.h"

namespace tmetal::ir {

class Builder {
 public:
  explicit Builder(Block* block = nullptr) : block_(block) {}

  void setInsertionBlock(Block* b) { block_ = b; }
  Block* insertionBlock() const { return block_; }
  void setLoc(Location l) { loc_ = std::move(l); }
  const Location& loc() const { return loc_; }

  // The general form: any op, results of the given types.
  Operation* create(const std::string& name, std::vector<Value*> operands, const std::vector<Type>& resultTypes,
                    AttrList attrs = {});
  // Shorthand for ops with one result.
  Value* create1(const std::string& name, std::vector<Value*> operands, const Type& resultType, AttrList attrs = {});

  Value* constantInt(int64_t v, const Type& t = Type::i32());
  Value* constantFloat(double v, const Type& t = Type::f32());
  // A splat tensor constant: dense<v> : tensor<...>.
  Value* constantSplat(const Attribute& scalar, const Type& tensorType);
  Value* programId(int axis);
  Value* makeRange(int64_t start, int64_t end);
  Value* splat(Value* v, const std::vector<int64_t>& shape);
  Value* broadcast(Value* v, const std::vector<int64_t>& shape);
  Value* expandDims(Value* v, int axis);
  Value* binary(const std::string& name, Value* lhs, Value* rhs);  // result type = lhs type
  Value* cmpi(const std::string& predicate, Value* lhs, Value* rhs);
  Value* cmpf(const std::string& predicate, Value* lhs, Value* rhs);
  Value* addPtr(Value* ptr, Value* offset);
  Value* load(Value* ptr, Value* mask = nullptr, Value* other = nullptr);
  void store(Value* ptr, Value* value, Value* mask = nullptr);
  void ret(std::vector<Value*> values = {});

 private:
  Block* block_;
  Location loc_;
};

}  // namespace tmetal::ir
