#include "tmetal/graph/sample_ops.h"

#include <string>
#include <vector>

namespace tmetal::graph {

namespace {

using nlohmann::json;

// SplitMix64: a fixed, portable generator, so a seed gives the same file with
// every compiler and standard library (std:: distributions do not promise
// that).
class SampleRandom {
 public:
  explicit SampleRandom(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int64_t pick(const std::vector<int64_t>& choices) { return choices[next() % choices.size()]; }

 private:
  uint64_t state_;
};

json op(const std::string& id, const std::string& type, json shapes, json args = nullptr) {
  json o{{"id", id}, {"type", type}, {"input_shapes", std::move(shapes)}};
  if (!args.is_null()) o["args"] = std::move(args);
  return o;
}

}  // namespace

json generateSampleOps(bool large, uint64_t seed) {
  SampleRandom rng(seed);
  auto dim = [&](std::vector<int64_t> choices) { return rng.pick(choices); };
  json ops = json::array();

  // Reductions: row (2-D), all (1-D), several axes (3-D), column (2-D), arg.
  int64_t m = dim({256, 512, 1024, 2048}), n = dim({256, 512, 1024});
  ops.push_back(op("sum_rows_2d", "tt.sum", {{m, n}}, {{"axis", 1}}));
  ops.push_back(op("max_all_1d", "tt.max", {{dim({4096, 65536, 262144, 1048576})}}, {{"axis", 0}}));
  int64_t a = dim({8, 16, 32}), b = dim({32, 64, 128}), c = dim({64, 128, 256});
  ops.push_back(op("mean_3d_axes_0_2", "tt.mean", {{a, b, c}}, {{"axis", {0, 2}}}));
  ops.push_back(op("sum_columns_2d", "tt.sum", {{dim({1024, 4096, 16384}), dim({64, 128, 256})}}, {{"axis", 0}}));
  ops.push_back(op("argmax_last_axis", "tt.argmax", {{dim({128, 512}), dim({1000, 1024})}}, {{"axis", -1}}));

  // The other families.
  int64_t k = dim({64, 128, 256});
  ops.push_back(op("matmul", "tt.matmul", {{m, k}, {k, n}}));
  ops.push_back(op("softmax_rows", "tt.softmax", {{dim({64, 128}), dim({512, 1024, 4096})}}, {{"axis", -1}}));
  ops.push_back(op("add", "tt.add", {{m, n}, {m, n}}));
  json relu = op("relu_column_major", "tt.relu", {{m, n}});
  relu["strides"] = {{1, m}};  // a column-major (transposed) buffer
  ops.push_back(relu);
  ops.push_back(op("transpose", "tt.transpose", {{m, n}}));
  if (!large) return json{{"ops", ops}};

  // Large set: every reduction type, dtypes, strided views and the cases
  // that need a second stage or many rows per threadgroup.
  ops.push_back(op("min_3d_middle_axis", "tt.min", {{a, b, c}}, {{"axis", 1}}));
  ops.push_back(op("prod_1d", "tt.prod", {{dim({1024, 2048, 4096})}}, {{"axis", 0}}));
  json any = op("any_rows_bool", "tt.any", {{dim({64, 256}), dim({128, 512})}}, {{"axis", 1}});
  any["dtype"] = "bool";
  ops.push_back(any);
  ops.push_back(op("all_3d_axes_1_2", "tt.all", {{a, b, c}}, {{"axis", {1, 2}}}));
  ops.push_back(op("argmin_columns", "tt.argmin", {{dim({2048, 8192}), dim({16, 64})}}, {{"axis", 0}}));
  ops.push_back(op("reduce_max_combiner", "tt.reduce", {{m, n}}, {{"axis", 1}, {"combiner", "max"}}));
  json half = op("sum_half_3d_axes_1_2", "tt.sum", {{a, b, c}}, {{"axis", {1, 2}}});
  half["dtype"] = "float16";
  ops.push_back(half);
  ops.push_back(op("sum_two_stage_1d", "tt.sum", {{dim({1 << 20, 1 << 22, 1 << 24})}}, {{"axis", 0}}));
  ops.push_back(op("max_many_rows", "tt.max", {{dim({1 << 20, 1 << 22}), 32}}, {{"axis", 1}}));
  json transposed = op("sum_transposed_view", "tt.sum", {{m, n}}, {{"axis", 1}});
  transposed["strides"] = {{1, m}};  // reducing the strided axis of a transposed buffer
  ops.push_back(transposed);
  ops.push_back(op("mean_all_3d", "tt.mean", {{a, b, c}}));  // no axis: every axis
  ops.push_back(op("layernorm_rows", "tt.layernorm", {{dim({64, 128}), dim({768, 1024})}}, {{"axis", -1}}));
  ops.push_back(op("conv2d", "tt.conv2d", {{1, 64, 56, 56}, {128, 64, 3, 3}}, {{"stride", 1}, {"padding", 1}}));
  ops.push_back(op("gelu", "tt.gelu", {{m, n}}));
  return json{{"ops", ops}};
}

}  // namespace tmetal::graph
