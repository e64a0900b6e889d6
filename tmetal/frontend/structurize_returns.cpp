#include "tmetal/frontend/structurize_returns.h"

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_set>

#include "tmetal/ir/clone.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::frontend {

namespace {

using Mapping = ir::ValueMapping;

// Copying a block into every path that reaches it can grow exponentially
// with the nesting; real kernels stay far below this (in ops copied, and in
// blocks entered, which counts paths through blocks that hold no ops).
constexpr size_t kMaxCopiedOps = 100000;

class Structurizer {
 public:
  Structurizer(const ir::Region& body, const std::vector<std::unique_ptr<ir::Operation>>& entryOps,
               const std::unordered_map<const ir::Block*, Branch>& branches)
      : branches_(branches), path_{body.block(0)} {
    // Every value of the old body: each use must be one whose definition
    // was copied on the same path (MLIR's dominance).
    for (const auto& op : entryOps) collect(*op);
    for (size_t b = 1; b < body.numBlocks(); ++b) collect(*body.block(b));
    // What the body returns, and with which op: each scf.if returns the same.
    for (size_t b = 1; b < body.numBlocks() && !returnOp_; ++b) {
      const ir::Operation* last = body.block(b)->terminator();
      if (last && isReturn(last->kind())) returnOp_ = last;
    }
    if (!returnOp_) throw CompileError("a body of several blocks in which no block returns");
    for (const ir::Value* v : returnOp_->operands()) results_.push_back(v->type());
  }

  static bool isReturn(ir::OpKind k) { return k == ir::OpKind::TtReturn || k == ir::OpKind::TtMapElementwiseReturn; }

  // Copies `ops` (the ops of `block`, without its branch) into `into`, then
  // what the block's branch leads to. `top`: `into` is the function body.
  void emit(const std::vector<std::unique_ptr<ir::Operation>>& ops, const ir::Block* block, Mapping m,
            ir::Block* into, bool top) {
    for (const auto& op : ops) {
      if (isReturn(op->kind())) {
        // Nested, the returned values leave through the scf.if around it.
        std::vector<ir::Value*> values;
        for (ir::Value* v : op->operands()) values.push_back(mapped(m, v, op->loc()));
        into->append(terminator(top ? op->name() : "scf.yield", std::move(values), op->loc()));
        return;
      }
      clone(*op, m, *into);
    }
    auto it = branches_.find(block);
    if (it == branches_.end()) throw CompileError("a block of the function body ends without a terminator");
    const Branch& branch = it->second;
    if (!branch.condition) return enter(branch.onTrue, std::move(m), into, top, branch.loc);
    auto ifOp = std::make_unique<ir::Operation>("scf.if", std::vector<ir::Value*>{mapped(m, branch.condition, branch.loc)},
                                                results_, ir::AttrList{}, branch.loc);
    for (const Successor* successor : {&branch.onTrue, &branch.onFalse})
      enter(*successor, m, ifOp->addRegion()->addBlock(), false, branch.loc);
    ir::Operation* made = into->append(std::move(ifOp));
    into->append(terminator(top ? returnOp_->name() : "scf.yield", made->results(), branch.loc));
  }

 private:
  ir::Value* mapped(const Mapping& m, ir::Value* v, const ir::Location& at) const {
    auto it = m.find(v);
    if (it != m.end()) return it->second;
    if (old_.count(v))
      throw CompileError(at.userPos(), "a value is used on a path where it is not defined (its definition does not "
                                       "dominate the use)");
    return v;
  }

  void collect(const ir::Operation& op) {
    for (const ir::Value* r : op.results()) old_.insert(r);
    for (size_t r = 0; r < op.numRegions(); ++r)
      for (size_t b = 0; b < op.region(r)->numBlocks(); ++b) collect(*op.region(r)->block(b));
  }
  void collect(const ir::Block& block) {
    for (const ir::Value* a : block.arguments()) old_.insert(a);
    for (const auto& op : block.ops()) collect(*op);
  }

  // Copies the block a branch at `at` leads to. A block already on the path
  // is a loop in unstructured form, which Triton never emits (its loops are
  // scf ops) and which could not become an scf.if.
  void enter(const Successor& s, Mapping m, ir::Block* into, bool top, const ir::Location& at) {
    if (std::find(path_.begin(), path_.end(), s.block) != path_.end())
      throw CompileError(at.userPos(), "a branch back to a block on its own path (a loop in unstructured control "
                                       "flow): only branches toward returns are supported; write loops as scf.for "
                                       "or scf.while");
    if (++entered_ > kMaxCopiedOps)
      throw CompileError(at.userPos(), "the function's early returns lead through more than " +
                                           std::to_string(kMaxCopiedOps) +
                                           " block copies; restructure the kernel's returns");
    for (size_t i = 0; i < s.args.size(); ++i) m[s.block->argument(i)] = mapped(m, s.args[i], s.block->argument(i)->loc());
    path_.push_back(s.block);
    emit(s.block->ops(), s.block, std::move(m), into, top);
    path_.pop_back();
  }

  void clone(const ir::Operation& op, Mapping& m, ir::Block& into) {
    ir::CloneHooks hooks;
    hooks.operand = [this](ir::Value* v, const ir::Operation& user, const Mapping& mapping) {
      return mapped(mapping, v, user.loc());
    };
    hooks.replace = [this](const ir::Operation& inner, Mapping&, ir::Block&) {
      if (++copied_ > kMaxCopiedOps)
        inner.fail("the function's early returns would copy more than " + std::to_string(kMaxCopiedOps) +
                   " ops into their paths; restructure the kernel's returns");
      return false;
    };
    ir::cloneInto(op, m, into, hooks);
  }

  static std::unique_ptr<ir::Operation> terminator(const std::string& name, std::vector<ir::Value*> values,
                                                   const ir::Location& loc) {
    return std::make_unique<ir::Operation>(name, std::move(values), std::vector<ir::Type>{}, ir::AttrList{}, loc);
  }

  const std::unordered_map<const ir::Block*, Branch>& branches_;
  const ir::Operation* returnOp_ = nullptr;  // a return of the old body
  std::vector<ir::Type> results_;            // what it returns: each scf.if returns them
  std::unordered_set<const ir::Value*> old_;
  std::vector<const ir::Block*> path_;  // the blocks being copied, outermost first
  size_t copied_ = 0, entered_ = 0;
};

}  // namespace

void structurizeReturns(ir::Region& body, const std::unordered_map<const ir::Block*, Branch>& branches) {
  ir::Block* entry = body.block(0);
  std::vector<std::unique_ptr<ir::Operation>> entryOps = entry->takeOps();
  Structurizer(body, entryOps, branches).emit(entryOps, entry, {}, entry, true);
  body.eraseBlocksFrom(1);
}

}  // namespace tmetal::frontend
