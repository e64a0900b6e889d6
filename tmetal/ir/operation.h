// The kernel IR: SSA values, operations with attributes and regions, blocks.
// Modelled on MLIR's generic operation so that every Triton op fits one
// shape; what each op expects is listed in ops.def. Owned by unique_ptr so
// that Value* and Operation* stay stable for the IR's lifetime.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tmetal/ir/attribute.h"
#include "tmetal/ir/location.h"
#include "tmetal/ir/type.h"

namespace tmetal::ir {

enum class OpKind : uint16_t {
#define OP(Enum, Name) Enum,
#include "tmetal/ir/ops.def"
  Unknown,
};

const char* opKindName(OpKind k);
// OpKind::Unknown for names tmetal does not know.
OpKind opKindFromName(const std::string& name);

class Operation;
class Block;
class Region;

class Value {
 public:
  const Type& type() const { return type_; }
  void setType(Type t) { type_ = std::move(t); }
  // The name hint Triton printed ("offs_2" for %offs_2); empty for numbered values.
  const std::string& name() const { return name_; }
  void setName(std::string n) { name_ = std::move(n); }
  // For results: the op defining it. Null for block arguments.
  Operation* definingOp() const { return def_; }
  // For block arguments: the block. Null for results.
  Block* ownerBlock() const { return block_; }
  unsigned index() const { return index_; }
  bool isBlockArgument() const { return block_ != nullptr; }
  // The block that defines the value: its op's block, or the block it is an
  // argument of. A value "from outside" a block is one whose defining block
  // is another (an enclosing loop's arguments included).
  Block* definingBlock() const;
  // Whether the value is defined inside one of op's regions, at any depth.
  bool isDefinedWithin(const Operation& op) const;
  // Block arguments carry their own location (function arguments do).
  const Location& loc() const { return loc_; }
  void setLoc(Location l) { loc_ = std::move(l); }

 private:
  friend class Operation;
  friend class Block;
  Type type_;
  std::string name_;
  Operation* def_ = nullptr;
  Block* block_ = nullptr;
  unsigned index_ = 0;
  Location loc_;
};

class Operation {
 public:
  Operation(std::string name, std::vector<Value*> operands, const std::vector<Type>& resultTypes,
            AttrList attrs, Location loc);

  const std::string& name() const { return name_; }
  OpKind kind() const { return kind_; }

  const std::vector<Value*>& operands() const { return operands_; }
  Value* operand(size_t i) const { return operands_.at(i); }
  size_t numOperands() const { return operands_.size(); }
  void setOperand(size_t i, Value* v) { operands_.at(i) = v; }

  size_t numResults() const { return results_.size(); }
  Value* result(size_t i = 0) const { return results_.at(i).get(); }
  std::vector<Value*> results() const;

  AttrList& attrs() { return attrs_; }
  const AttrList& attrs() const { return attrs_; }
  const Attribute* attr(const std::string& name) const { return attrs_.find(name); }
  // Attribute value helpers; throw CompileError naming the op when missing.
  int64_t intAttr(const std::string& name) const;
  const std::string& symbolAttr(const std::string& name) const;

  // Regions are owned by the op; the op becomes their parent.
  Region* addRegion();
  size_t numRegions() const { return regions_.size(); }
  Region* region(size_t i) const { return regions_.at(i).get(); }

  const Location& loc() const { return loc_; }
  void setLoc(Location l) { loc_ = std::move(l); }
  Block* parentBlock() const { return parent_; }

  // An error naming this op and the user's source line.
  [[noreturn]] void fail(const std::string& message) const;

 private:
  friend class Block;
  std::string name_;
  OpKind kind_;
  std::vector<Value*> operands_;
  std::vector<std::unique_ptr<Value>> results_;
  AttrList attrs_;
  std::vector<std::unique_ptr<Region>> regions_;
  Location loc_;
  Block* parent_ = nullptr;
};

class Block {
 public:
  explicit Block(Region* parent) : parent_(parent) {}

  Value* addArgument(Type type, std::string name = "", Location loc = {});
  size_t numArguments() const { return args_.size(); }
  Value* argument(size_t i) const { return args_.at(i).get(); }
  std::vector<Value*> arguments() const;

  // Appends the op and takes ownership.
  Operation* append(std::unique_ptr<Operation> op);
  // Removes every op and hands them over (the block keeps its arguments).
  std::vector<std::unique_ptr<Operation>> takeOps();
  const std::vector<std::unique_ptr<Operation>>& ops() const { return ops_; }
  Operation* terminator() const { return ops_.empty() ? nullptr : ops_.back().get(); }

  Region* parentRegion() const { return parent_; }
  Operation* parentOp() const;

 private:
  Region* parent_;
  std::vector<std::unique_ptr<Value>> args_;
  std::vector<std::unique_ptr<Operation>> ops_;
};

class Region {
 public:
  explicit Region(Operation* parent) : parent_(parent) {}
  Block* addBlock();
  size_t numBlocks() const { return blocks_.size(); }
  // Destroys blocks first.. (their values must no longer be used).
  void eraseBlocksFrom(size_t first);
  Block* block(size_t i = 0) const { return blocks_.at(i).get(); }
  Operation* parentOp() const { return parent_; }

 private:
  Operation* parent_;
  std::vector<std::unique_ptr<Block>> blocks_;
};

}  // namespace tmetal::ir
