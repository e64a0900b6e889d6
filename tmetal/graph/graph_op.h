// Graph IR: whole-tensor ops as the ops-JSON file (or --operation) states
// them, before any checking beyond their syntax. Analysis checks shapes,
// axes and dtypes and plans each op.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tmetal/support/diagnostic.h"

namespace tmetal::graph {

struct GraphOp {
  size_t index = 0;  // position in the file, from 0
  std::string id;    // optional name given in the file
  std::string type;  // as written: "tt.sum"
  std::vector<std::vector<int64_t>> inputShapes;
  // Per input, in elements; an empty list means row-major contiguous.
  std::vector<std::vector<int64_t>> inputStrides;
  std::string dtype = "float32";
  // args
  std::optional<std::vector<int64_t>> axes;  // `axis` as written (may be negative); nullopt: not given
  bool axisWasList = false;                  // `axis` was written as a list
  std::optional<std::string> combiner;       // tt.reduce: the combining function
  std::optional<std::vector<int64_t>> perm;  // tt.transpose
  std::vector<int64_t> convStride = {1, 1};  // tt.conv2d
  std::vector<int64_t> convPadding = {0, 0};
  bool keepDims = false;

  SourcePos pos;          // where the op starts, when known
  std::string readError;  // non-empty: the op itself is malformed

  // "ops[2] 'sum_reduce_2d' (tt.sum)", or "ops[2] (tt.sum)" without an id.
  std::string label() const;
};

struct OpsGraph {
  std::string source;  // file name, or "--operation"
  std::vector<GraphOp> ops;
};

}  // namespace tmetal::graph
