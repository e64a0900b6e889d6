#include "tmetal/ir/inline_calls.h"

#include <algorithm>
#include <string>
#include <vector>

#include "tmetal/ir/clone.h"

namespace tmetal::ir {

namespace {

// A function called in a loop of calls would copy without end; real kernels
// stay far below this.
constexpr size_t kMaxInlinedOps = 100000;

class Inliner {
 public:
  explicit Inliner(const Module& module) : module_(module) {
    hooks_.replace = [this](const Operation& op, ValueMapping& m, Block& into) {
      if (++copied_ > kMaxInlinedOps)
        op.fail("inlining the kernel's calls would copy more than " + std::to_string(kMaxInlinedOps) + " ops");
      if (op.kind() != OpKind::TtCall) return false;
      inlineCall(op, m, into);
      return true;
    };
  }

  const CloneHooks& hooks() const { return hooks_; }

 private:
  void inlineCall(const Operation& call, ValueMapping& m, Block& into) {
    const Function* callee = module_.lookup(call.symbolAttr("callee"));
    if (!callee) call.fail("calls @" + call.symbolAttr("callee") + ", which is not a function of the module");
    if (std::find(active_.begin(), active_.end(), callee) != active_.end())
      call.fail("calls @" + callee->name() + " recursively, which a GPU kernel cannot do");
    if (callee->body()->numBlocks() != 1) call.fail("calls @" + callee->name() + ", whose body has several blocks");
    ValueMapping inner;
    for (size_t i = 0; i < callee->numArguments(); ++i) {
      auto it = m.find(call.operand(i));
      inner[callee->argument(i)] = it == m.end() ? call.operand(i) : it->second;
    }
    active_.push_back(callee);
    for (const auto& op : callee->entry()->ops()) {
      if (op->kind() != OpKind::TtReturn) {
        cloneInto(*op, inner, into, hooks_);
        continue;
      }
      // The call's results are the returned values' copies.
      for (size_t i = 0; i < call.numResults(); ++i) {
        auto it = inner.find(op->operand(i));
        m[call.result(i)] = it == inner.end() ? op->operand(i) : it->second;
      }
    }
    active_.pop_back();
  }

  const Module& module_;
  CloneHooks hooks_;
  std::vector<const Function*> active_;  // the calls being inlined, outermost first
  size_t copied_ = 0;
};

}  // namespace

bool hasCalls(const Function& fn) {
  bool found = false;
  walk(*fn.body(), [&](const Operation* op) { found |= op->kind() == OpKind::TtCall; });
  return found;
}

std::unique_ptr<Function> inlineCalls(const Module& module, const Function& kernel) {
  Inliner inliner(module);
  return cloneFunction(kernel, inliner.hooks());
}

}  // namespace tmetal::ir
