// The one-op shorthand of `tmetal analyze --operation`:
//   TYPE:SHAPES[:AXES[:DTYPE]]
// e.g. "tt.sum:[1048576]:0", "tt.max:[4194304,32]:1", "tt.mean:[8,16,32]:[0,2]:float16",
// "tt.matmul:[128,64],[64,32]". AXES is an integer or a bracketed list.
// Syntax errors (a symbolic dimension included) throw CompileError at
// "--operation:1:<column>".
#pragma once

#include <string>

#include "tmetal/graph/graph_op.h"

namespace tmetal::graph {

inline constexpr const char* kOperationSource = "--operation";

GraphOp parseOperationSpec(const std::string& spec, size_t index = 0);

}  // namespace tmetal::graph
