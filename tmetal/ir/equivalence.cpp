#include "tmetal/ir/equivalence.h"

#include <unordered_map>
#include <vector>

#include "tmetal/ir/printer.h"
#include "tmetal/ir/text_syntax.h"

namespace tmetal::ir {

namespace {

// Thrown inside the comparison to stop at the first difference.
struct Difference {
  std::string what;
};

class Comparer {
 public:
  explicit Comparer(const EquivalenceOptions& options) : options_(options) {}

  void modules(const Module& a, const Module& b) {
    attrs(a.attrs(), b.attrs(), "module attributes");
    location(a.loc(), b.loc(), "module location");
    if (a.functions().size() != b.functions().size())
      differ("the modules have " + std::to_string(a.functions().size()) + " and " +
             std::to_string(b.functions().size()) + " functions");
    for (size_t i = 0; i < a.functions().size(); ++i) function(*a.functions()[i], *b.functions()[i]);
  }

 private:
  [[noreturn]] void differ(const std::string& what) const {
    std::string where;
    for (const std::string& part : path_) where += (where.empty() ? "" : ", ") + part;
    throw Difference{where.empty() ? what : where + ": " + what};
  }

  void attrs(const AttrList& a, const AttrList& b, const std::string& what) const {
    for (const auto& [name, value] : a.entries()) {
      const Attribute* other = b.find(name);
      if (!other) differ(what + ": '" + name + "' is only in the first");
      if (*other != value)
        differ(what + ": '" + name + "' is " + printAttribute(value) + " vs " + printAttribute(*other));
    }
    for (const auto& [name, value] : b.entries())
      if (!a.has(name)) differ(what + ": '" + name + "' is only in the second");
  }

  void location(const Location& a, const Location& b, const std::string& what) const {
    if (options_.locations && a != b) differ(what + " differs: " + printLocation(a) + " vs " + printLocation(b));
  }

  void value(const Value* a, const Value* b, const std::string& what) {
    if (a->type() != b->type()) differ(what + " has type '" + a->type().str() + "' vs '" + b->type().str() + "'");
    if (options_.names && a->name() != b->name()) differ(what + " is named '" + a->name() + "' vs '" + b->name() + "'");
    map_[a] = b;
  }

  void function(const Function& a, const Function& b) {
    path_ = {"function " + symbolRef(a.name())};
    if (a.name() != b.name()) differ("the second module has " + symbolRef(b.name()) + " here");
    if (a.isPublic() != b.isPublic()) differ("visibility differs");
    location(a.loc(), b.loc(), "location");
    attrs(a.attrs(), b.attrs(), "attributes");
    if (a.resultTypes() != b.resultTypes()) differ("result types differ");
    if (a.numArguments() != b.numArguments())
      differ(std::to_string(a.numArguments()) + " vs " + std::to_string(b.numArguments()) + " arguments");
    for (size_t i = 0; i < a.numArguments(); ++i) {
      std::string what = "argument " + std::to_string(i);
      attrs(a.argAttrs(i), b.argAttrs(i), what + " attributes");
      location(a.argument(i)->loc(), b.argument(i)->loc(), what + " location");
    }
    region(*a.body(), *b.body());
  }

  void region(const Region& a, const Region& b) {
    if (a.numBlocks() != b.numBlocks())
      differ(std::to_string(a.numBlocks()) + " vs " + std::to_string(b.numBlocks()) + " blocks");
    for (size_t i = 0; i < a.numBlocks(); ++i) block(*a.block(i), *b.block(i));
  }

  void block(const Block& a, const Block& b) {
    if (a.numArguments() != b.numArguments())
      differ(std::to_string(a.numArguments()) + " vs " + std::to_string(b.numArguments()) + " block arguments");
    for (size_t i = 0; i < a.numArguments(); ++i) {
      std::string what = "block argument " + std::to_string(i);
      value(a.argument(i), b.argument(i), what);
      location(a.argument(i)->loc(), b.argument(i)->loc(), what + " location");
    }
    if (a.ops().size() != b.ops().size())
      differ(std::to_string(a.ops().size()) + " vs " + std::to_string(b.ops().size()) + " ops");
    for (size_t i = 0; i < a.ops().size(); ++i) {
      path_.push_back("op #" + std::to_string(i) + " ('" + a.ops()[i]->name() + "')");
      operation(*a.ops()[i], *b.ops()[i]);
      path_.pop_back();
    }
  }

  void operation(const Operation& a, const Operation& b) {
    if (a.name() != b.name()) differ("the second module has '" + b.name() + "' here");
    if (a.numOperands() != b.numOperands())
      differ(std::to_string(a.numOperands()) + " vs " + std::to_string(b.numOperands()) + " operands");
    for (size_t i = 0; i < a.numOperands(); ++i) {
      auto it = map_.find(a.operand(i));
      if (it == map_.end() || it->second != b.operand(i))
        differ("operand " + std::to_string(i) + " refers to a different value");
    }
    if (a.numResults() != b.numResults())
      differ(std::to_string(a.numResults()) + " vs " + std::to_string(b.numResults()) + " results");
    attrs(a.attrs(), b.attrs(), "attributes");
    location(a.loc(), b.loc(), "location");
    if (a.numRegions() != b.numRegions())
      differ(std::to_string(a.numRegions()) + " vs " + std::to_string(b.numRegions()) + " regions");
    for (size_t r = 0; r < a.numRegions(); ++r) {
      path_.push_back("region " + std::to_string(r));
      region(*a.region(r), *b.region(r));
      path_.pop_back();
    }
    // Results are defined after the op's regions, as in the text.
    for (size_t i = 0; i < a.numResults(); ++i) value(a.result(i), b.result(i), "result " + std::to_string(i));
  }

  EquivalenceOptions options_;
  std::vector<std::string> path_;
  std::unordered_map<const Value*, const Value*> map_;
};

}  // namespace

std::string firstDifference(const Module& a, const Module& b, const EquivalenceOptions& options) {
  try {
    Comparer(options).modules(a, b);
  } catch (const Difference& d) {
    return d.what;
  }
  return "";
}

}  // namespace tmetal::ir
