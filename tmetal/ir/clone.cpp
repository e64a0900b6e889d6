#include "tmetal/ir/clone.h"

#include <string>
#include <vector>

namespace tmetal::ir {

void cloneInto(const Operation& op, ValueMapping& m, Block& into, const CloneHooks& hooks) {
  if (hooks.replace && hooks.replace(op, m, into)) return;
  std::vector<Value*> operands;
  for (Value* v : op.operands()) {
    if (hooks.operand) {
      operands.push_back(hooks.operand(v, op, m));
      continue;
    }
    auto it = m.find(v);
    operands.push_back(it == m.end() ? v : it->second);
  }
  std::vector<Type> types;
  for (const Value* r : op.results()) types.push_back(r->type());
  Operation* copy = into.append(std::make_unique<Operation>(op.name(), std::move(operands), types, op.attrs(), op.loc()));
  for (size_t i = 0; i < op.numResults(); ++i) {
    copy->result(i)->setName(op.result(i)->name());
    copy->result(i)->setLoc(op.result(i)->loc());
    m[op.result(i)] = copy->result(i);
  }
  for (size_t r = 0; r < op.numRegions(); ++r) {
    Region* region = copy->addRegion();
    for (size_t b = 0; b < op.region(r)->numBlocks(); ++b) {
      const Block* from = op.region(r)->block(b);
      Block* to = region->addBlock();
      for (size_t a = 0; a < from->numArguments(); ++a) {
        const Value* arg = from->argument(a);
        m[arg] = to->addArgument(arg->type(), arg->name(), arg->loc());
      }
      for (const auto& inner : from->ops()) cloneInto(*inner, m, *to, hooks);
    }
  }
}

std::unique_ptr<Function> cloneFunction(const Function& fn, const CloneHooks& hooks) {
  auto copy = std::make_unique<Function>(fn.name(), fn.isPublic());
  ValueMapping m;
  for (size_t i = 0; i < fn.numArguments(); ++i) {
    const Value* a = fn.argument(i);
    m[a] = copy->addArgument(a->type(), a->name(), fn.argAttrs(i), a->loc());
  }
  copy->resultTypes() = fn.resultTypes();
  copy->attrs() = fn.attrs();
  copy->setLoc(fn.loc());
  for (const auto& op : fn.entry()->ops()) cloneInto(*op, m, *copy->entry(), hooks);
  return copy;
}

}  // namespace tmetal::ir
