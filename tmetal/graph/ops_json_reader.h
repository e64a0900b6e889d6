// Reads the ops-JSON format:
//   {"ops": [{"type": "tt.sum", "id": "sum_reduce_2d", "input_shapes": [[512, 512]],
//             "dtype": "float32", "strides": [[512, 1]], "args": {"axis": 1}}]}
// or a bare list of ops. `id`, `dtype` (float32), `strides` (row-major) and
// `args` are optional; `axis` is an int, a negative int or a list.
//
// Malformed JSON, or a document that is not an ops list, throws CompileError
// naming file:line:col. A malformed op does not stop the others: it comes back
// with GraphOp::readError set, and unknown op types come back as read, so the
// analyzer can report each op on its own.
#pragma once

#include <string>

#include "tmetal/graph/graph_op.h"

namespace tmetal::graph {

OpsGraph readOpsJson(const std::string& text, const std::string& fileName);
OpsGraph readOpsJsonFile(const std::string& path);

}  // namespace tmetal::graph
