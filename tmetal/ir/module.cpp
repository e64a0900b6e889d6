#include "tmetal/ir/module.h"

#include "tmetal/support/diagnostic.h"

namespace tmetal::ir {

Function::Function(std::string name, bool isPublic)
    : name_(std::move(name)), public_(isPublic), body_(std::make_unique<Region>(nullptr)) {
  body_->addBlock();
}

Value* Function::addArgument(Type type, std::string name, AttrList attrs, Location loc) {
  argAttrs_.push_back(std::move(attrs));
  return entry()->addArgument(std::move(type), std::move(name), std::move(loc));
}

int64_t Function::argDivisibility(size_t i) const {
  const Attribute* a = argAttrs_.at(i).find("tt.divisibility");
  return a && a->kind() == Attribute::Kind::Int ? a->asInt() : 1;
}

Function* Module::addFunction(std::string name, bool isPublic) {
  functions_.push_back(std::make_unique<Function>(std::move(name), isPublic));
  return functions_.back().get();
}

Function* Module::lookup(const std::string& name) const {
  for (const auto& f : functions_)
    if (f->name() == name) return f.get();
  return nullptr;
}

Function* Module::kernel() const {
  Function* found = nullptr;
  for (const auto& f : functions_) {
    if (!f->isPublic()) continue;
    if (found)
      throw CompileError(f->loc().userPos(), "module has more than one public function ('" + found->name() +
                                                 "' and '" + f->name() + "'); expected one kernel");
    found = f.get();
  }
  if (!found) throw CompileError(loc_.userPos(), "module has no public tt.func to compile");
  return found;
}

}  // namespace tmetal::ir
