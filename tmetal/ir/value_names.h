// The names the TTIR printer gives values. It follows MLIR's AsmPrinter, so
// that printed TTIR reads like Triton's own and a module read from
// `str_nodebug()` prints back the same text:
//  - a value with a name hint keeps it (made unique with a `_N` suffix when a
//    visible value already has it);
//  - other op results are numbered %0, %1, ... and the results of one op
//    share a number (%3:2 defines %3#0 and %3#1); a result with its own hint
//    starts a new group (`%outLHS, %outRHS = tt.split ...`);
//  - other entry-block arguments are %arg0, %arg1, ...;
//  - each region is numbered after everything in its parent region, and
//    sibling regions restart from the same counters and may reuse names.
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tmetal/ir/module.h"

namespace tmetal::ir {

class ValueNames {
 public:
  explicit ValueNames(const Module& module);

  // The value as an operand: "%x", "%3", "%3#1".
  std::string use(const Value* value) const;
  // An op's result list before " = ": "%x", "%3:2", "%outLHS, %outRHS".
  std::string definition(const Operation& op) const;

 private:
  struct Scope {
    const Scope* parent = nullptr;
    std::unordered_set<std::string> used;
    bool contains(const std::string& name) const;
  };
  struct Counters {
    unsigned nextValue = 0;
    unsigned nextArgument = 0;
    unsigned nextConflict = 0;
  };
  struct Entry {
    std::string name;  // without '%'
    size_t groupSize = 1;
    size_t indexInGroup = 0;
  };

  void numberRegion(const Region& region, Counters& counters, Scope& scope);
  void numberOp(const Operation& op, Counters& counters, Scope& scope);
  std::string uniqueName(const std::string& hint, Counters& counters, Scope& scope);

  std::unordered_map<const Value*, Entry> entries_;
  std::unordered_map<const Operation*, std::vector<std::pair<size_t, size_t>>> groups_;  // (first result, size)
};

}  // namespace tmetal::ir
