// Triton lowers a `return` inside an `if` to unstructured control flow: the
// function body (or the region of a tl.map_elementwise) becomes several
// blocks ending in cf.cond_br, cf.br or a return. tmetal's IR is structured, so the reader rebuilds such a body
// as nested scf.if ops. Every path ends in a return, so a conditional branch
// becomes an scf.if whose two regions hold the code of its two successors
// up to their returns, and nothing follows it but the return. A block that
// several branches reach is copied into each (the graph is acyclic: loops
// are scf ops, and Triton refuses a return inside a loop).
#pragma once

#include <unordered_map>
#include <vector>

#include "tmetal/ir/module.h"

namespace tmetal::frontend {

struct Successor {
  ir::Block* block = nullptr;
  std::vector<ir::Value*> args;  // the block's arguments
};

struct Branch {
  ir::Value* condition = nullptr;  // null for cf.br, which goes to onTrue
  Successor onTrue, onFalse;
  ir::Location loc;
};

// Rebuilds `body` (a function's, or a tt.map_elementwise region, whose
// function returns the same way) as one block. Its blocks end in a return
// (tt.return, tt.map_elementwise.return) or in the branch `branches` holds
// for them; where the body returns values each scf.if yields what its paths
// return. Throws CompileError when a use is not dominated by its definition,
// a branch leads back to a block on its own path (a loop), or copying
// shared blocks would exceed a limit.
void structurizeReturns(ir::Region& body, const std::unordered_map<const ir::Block*, Branch>& branches);

}  // namespace tmetal::frontend
