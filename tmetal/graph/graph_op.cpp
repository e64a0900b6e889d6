#include "tmetal/graph/graph_op.h"

namespace tmetal::graph {

std::string GraphOp::label() const {
  std::string s = "ops[" + std::to_string(index) + "]";
  if (!id.empty()) s += " '" + id + "'";
  if (!type.empty()) s += " (" + type + ")";
  return s;
}

}  // namespace tmetal::graph
