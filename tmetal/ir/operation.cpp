#include "tmetal/ir/operation.h"

#include <unordered_map>

#include "tmetal/support/diagnostic.h"

namespace tmetal::ir {

namespace {
const char* const kOpNames[] = {
#define OP(Enum, Name) Name,
#include "tmetal/ir/ops.def"
    "<unknown>",
};
}  // namespace

const char* opKindName(OpKind k) { return kOpNames[static_cast<size_t>(k)]; }

OpKind opKindFromName(const std::string& name) {
  static const auto* table = [] {
    auto* m = new std::unordered_map<std::string, OpKind>();
    for (size_t i = 0; i < static_cast<size_t>(OpKind::Unknown); ++i) (*m)[kOpNames[i]] = static_cast<OpKind>(i);
    return m;
  }();
  auto it = table->find(name);
  return it == table->end() ? OpKind::Unknown : it->second;
}

Operation::Operation(std::string name, std::vector<Value*> operands, const std::vector<Type>& resultTypes,
                     AttrList attrs, Location loc)
    : name_(std::move(name)),
      kind_(opKindFromName(name_)),
      operands_(std::move(operands)),
      attrs_(std::move(attrs)),
      loc_(std::move(loc)) {
  for (size_t i = 0; i < resultTypes.size(); ++i) {
    auto v = std::make_unique<Value>();
    v->type_ = resultTypes[i];
    v->def_ = this;
    v->index_ = static_cast<unsigned>(i);
    results_.push_back(std::move(v));
  }
}

std::vector<Value*> Operation::results() const {
  std::vector<Value*> out;
  for (const auto& r : results_) out.push_back(r.get());
  return out;
}

int64_t Operation::intAttr(const std::string& name) const {
  const Attribute* a = attrs_.find(name);
  if (!a || a->kind() != Attribute::Kind::Int) fail("missing integer attribute '" + name + "'");
  return a->asInt();
}

const std::string& Operation::symbolAttr(const std::string& name) const {
  const Attribute* a = attrs_.find(name);
  if (!a || (a->kind() != Attribute::Kind::Symbol && a->kind() != Attribute::Kind::String))
    fail("missing attribute '" + name + "'");
  return a->asString();
}

Region* Operation::addRegion() {
  regions_.push_back(std::make_unique<Region>(this));
  return regions_.back().get();
}

void Operation::fail(const std::string& message) const {
  throw CompileError(loc_.userPos(), "'" + name_ + "': " + message);
}

Value* Block::addArgument(Type type, std::string name, Location loc) {
  auto v = std::make_unique<Value>();
  v->type_ = std::move(type);
  v->name_ = std::move(name);
  v->block_ = this;
  v->index_ = static_cast<unsigned>(args_.size());
  v->loc_ = std::move(loc);
  args_.push_back(std::move(v));
  return args_.back().get();
}

std::vector<Value*> Block::arguments() const {
  std::vector<Value*> out;
  for (const auto& a : args_) out.push_back(a.get());
  return out;
}

Operation* Block::append(std::unique_ptr<Operation> op) {
  op->parent_ = this;
  ops_.push_back(std::move(op));
  return ops_.back().get();
}

std::vector<std::unique_ptr<Operation>> Block::takeOps() {
  std::vector<std::unique_ptr<Operation>> ops = std::move(ops_);
  ops_.clear();
  for (auto& op : ops) op->parent_ = nullptr;
  return ops;
}

Operation* Block::parentOp() const { return parent_ ? parent_->parentOp() : nullptr; }

Block* Value::definingBlock() const { return def_ ? def_->parentBlock() : block_; }

bool Value::isDefinedWithin(const Operation& op) const {
  for (const Block* b = definingBlock(); b; b = b->parentOp() ? b->parentOp()->parentBlock() : nullptr)
    if (b->parentOp() == &op) return true;
  return false;
}

Block* Region::addBlock() {
  blocks_.push_back(std::make_unique<Block>(this));
  return blocks_.back().get();
}

void Region::eraseBlocksFrom(size_t first) {
  if (first < blocks_.size()) blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(first), blocks_.end());
}

}  // namespace tmetal::ir
