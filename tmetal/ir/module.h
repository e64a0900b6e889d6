// Functions and modules. A kernel is a public tt.func; its entry block's
// arguments are the kernel arguments, each with its argument attributes
// (tt.divisibility, tt.pointer_range, ...).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tmetal/ir/operation.h"

namespace tmetal::ir {

class Function {
 public:
  Function(std::string name, bool isPublic);

  const std::string& name() const { return name_; }
  bool isPublic() const { return public_; }
  Region* body() const { return body_.get(); }
  Block* entry() const { return body_->block(0); }

  // Arguments are the entry block's arguments.
  Value* addArgument(Type type, std::string name = "", AttrList attrs = {}, Location loc = {});
  size_t numArguments() const { return entry()->numArguments(); }
  Value* argument(size_t i) const { return entry()->argument(i); }
  const AttrList& argAttrs(size_t i) const { return argAttrs_.at(i); }
  AttrList& argAttrs(size_t i) { return argAttrs_.at(i); }
  // tt.divisibility of argument i, 1 when absent.
  int64_t argDivisibility(size_t i) const;

  std::vector<Type>& resultTypes() { return resultTypes_; }
  const std::vector<Type>& resultTypes() const { return resultTypes_; }
  AttrList& attrs() { return attrs_; }
  const AttrList& attrs() const { return attrs_; }
  const Location& loc() const { return loc_; }
  void setLoc(Location l) { loc_ = std::move(l); }

 private:
  std::string name_;
  bool public_;
  std::unique_ptr<Region> body_;
  std::vector<AttrList> argAttrs_;
  std::vector<Type> resultTypes_;
  AttrList attrs_;
  Location loc_;
};

class Module {
 public:
  Function* addFunction(std::string name, bool isPublic);
  const std::vector<std::unique_ptr<Function>>& functions() const { return functions_; }
  Function* lookup(const std::string& name) const;
  // The kernel to compile: the only public function. Throws CompileError if
  // there is none or more than one.
  Function* kernel() const;

  AttrList& attrs() { return attrs_; }
  const AttrList& attrs() const { return attrs_; }
  const Location& loc() const { return loc_; }
  void setLoc(Location l) { loc_ = std::move(l); }

 private:
  std::vector<std::unique_ptr<Function>> functions_;
  AttrList attrs_;
  Location loc_;
};

// Calls fn(op) for every op nested in the region, in program order,
// visiting an op before the ops of its regions.
template <typename Fn>
void walk(const Region& region, Fn&& fn) {
  for (size_t b = 0; b < region.numBlocks(); ++b)
    for (const auto& op : region.block(b)->ops()) {
      fn(op.get());
      for (size_t r = 0; r < op->numRegions(); ++r) walk(*op->region(r), fn);
    }
}

}  // namespace tmetal::ir
