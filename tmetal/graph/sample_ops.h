// A varied, reproducible ops-JSON file for trying the analyzer: every op
// family, reductions over 1-, 2- and 3-D shapes with single and multiple
// axes, row, column, all and strided (transposed-view) reductions. The seed
// only changes sizes, never which ops appear, so coverage is the same for
// every seed and a seed always gives the same file.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

namespace tmetal::graph {

// The basic set has 10 ops; the large set adds 14 more (24).
nlohmann::json generateSampleOps(bool large, uint64_t seed);

}  // namespace tmetal::graph
