// Copying ops: the reader copies blocks into every path that reaches them
// (structurize_returns), the code generator copies a called function's body
// into its caller (inline_calls) and kernels with tt.dot_scaled
// (decompose_dot_scaled).
#pragma once

#include <functional>
#include <memory>
#include <unordered_map>

#include "tmetal/ir/module.h"
#include "tmetal/ir/operation.h"

namespace tmetal::ir {

// Old value -> its copy. Values it does not hold are used as they are.
using ValueMapping = std::unordered_map<const Value*, Value*>;

struct CloneHooks {
  // The copy's operand for `value`, an operand of `user`; unset: m's entry, else the value itself.
  std::function<Value*(Value* value, const Operation& user, const ValueMapping& m)> operand;
  // Called for `op` and for each op of its regions before it is copied, in
  // program order; it may put something else in `into` instead and return
  // true (the op is then not copied).
  std::function<bool(const Operation& op, ValueMapping& m, Block& into)> replace;
};

// Appends a copy of `op` (with its regions) to `into`, its operands mapped
// through m, and records in m the copies of its results and block arguments.
void cloneInto(const Operation& op, ValueMapping& m, Block& into, const CloneHooks& hooks = {});

// A copy of a single-block function (arguments, attributes, location and
// body), each op of its body passed through cloneInto with `hooks`.
std::unique_ptr<Function> cloneFunction(const Function& fn, const CloneHooks& hooks = {});

}  // namespace tmetal::ir
