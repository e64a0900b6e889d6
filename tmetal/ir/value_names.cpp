#include "tmetal/ir/value_names.h"

#include <deque>

#include "tmetal/ir/text_syntax.h"

namespace tmetal::ir {

bool ValueNames::Scope::contains(const std::string& name) const {
  for (const Scope* s = this; s; s = s->parent)
    if (s->used.count(name)) return true;
  return false;
}

ValueNames::ValueNames(const Module& module) {
  struct Pending {
    const Region* region;
    Counters counters;
    const Scope* parent;
  };
  std::deque<Scope> scopes;  // stable addresses: nested scopes point at their parents
  const Scope& moduleScope = scopes.emplace_back();
  std::vector<Pending> pending;
  for (const auto& function : module.functions()) pending.push_back({function->body(), Counters{}, &moduleScope});
  while (!pending.empty()) {
    Pending next = pending.back();
    pending.pop_back();
    Scope& scope = scopes.emplace_back();
    scope.parent = next.parent;
    numberRegion(*next.region, next.counters, scope);
    // Nested regions start from the counters left after this whole region.
    for (size_t b = 0; b < next.region->numBlocks(); ++b)
      for (const auto& op : next.region->block(b)->ops())
        for (size_t r = 0; r < op->numRegions(); ++r) pending.push_back({op->region(r), next.counters, &scope});
  }
}

std::string ValueNames::uniqueName(const std::string& hint, Counters& counters, Scope& scope) {
  std::string name = sanitizeValueName(hint);
  if (scope.contains(name)) {
    std::string probe;
    do {
      probe = name + "_" + std::to_string(counters.nextConflict++);
    } while (scope.contains(probe));
    name = probe;
  }
  scope.used.insert(name);
  return name;
}

void ValueNames::numberRegion(const Region& region, Counters& counters, Scope& scope) {
  for (size_t b = 0; b < region.numBlocks(); ++b) {
    const Block* block = region.block(b);
    for (const Value* arg : block->arguments()) {
      // Every entry-block argument takes an %argN number, named or not.
      std::string fallback = b == 0 ? "arg" + std::to_string(counters.nextArgument++) : "";
      std::string name;
      if (!arg->name().empty())
        name = uniqueName(arg->name(), counters, scope);
      else if (b == 0)
        name = uniqueName(fallback, counters, scope);
      else
        name = std::to_string(counters.nextValue++);
      entries_[arg] = Entry{name, 1, 0};
    }
    for (const auto& op : block->ops()) numberOp(*op, counters, scope);
  }
}

void ValueNames::numberOp(const Operation& op, Counters& counters, Scope& scope) {
  std::vector<std::pair<size_t, size_t>>& groups = groups_[&op];
  for (size_t i = 0; i < op.numResults(); ++i) {
    if (i == 0 || !op.result(i)->name().empty()) groups.push_back({i, 0});
    ++groups.back().second;
  }
  for (const auto& [first, size] : groups) {
    const Value* head = op.result(first);
    std::string name =
        head->name().empty() ? std::to_string(counters.nextValue++) : uniqueName(head->name(), counters, scope);
    for (size_t k = 0; k < size; ++k) entries_[op.result(first + k)] = Entry{name, size, k};
  }
}

std::string ValueNames::use(const Value* value) const {
  auto it = entries_.find(value);
  if (it == entries_.end()) return "%<<UNKNOWN SSA VALUE>>";
  const Entry& e = it->second;
  std::string out = "%" + e.name;
  if (e.groupSize > 1) out += "#" + std::to_string(e.indexInGroup);
  return out;
}

std::string ValueNames::definition(const Operation& op) const {
  std::string out;
  auto it = groups_.find(&op);
  if (it == groups_.end()) return out;
  for (const auto& [first, size] : it->second) {
    if (!out.empty()) out += ", ";
    out += "%" + entries_.at(op.result(first)).name;
    if (size > 1) out += ":" + std::to_string(size);
  }
  return out;
}

}  // namespace tmetal::ir
