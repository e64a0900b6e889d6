#include "tmetal/graph/combiner.h"

#include <climits>

namespace tmetal::graph {

const char* combinerName(Combiner c) {
  switch (c) {
    case Combiner::Sum: return "sum";
    case Combiner::Mean: return "mean";
    case Combiner::Max: return "max";
    case Combiner::Min: return "min";
    case Combiner::Prod: return "prod";
    case Combiner::ArgMax: return "argmax";
    case Combiner::ArgMin: return "argmin";
    case Combiner::Any: return "any";
    case Combiner::All: return "all";
  }
  return "?";
}

std::optional<Combiner> parseCombiner(const std::string& name) {
  for (Combiner c : {Combiner::Sum, Combiner::Mean, Combiner::Max, Combiner::Min, Combiner::Prod, Combiner::ArgMax,
                     Combiner::ArgMin, Combiner::Any, Combiner::All})
    if (name == combinerName(c)) return c;
  return std::nullopt;
}

bool combinerCarriesIndex(Combiner c) { return c == Combiner::ArgMax || c == Combiner::ArgMin; }

int scalarBytes(ir::ScalarKind k) { return k == ir::ScalarKind::I1 ? 1 : ir::scalarBits(k) / 8; }

ir::ScalarKind accumulatorKind(Combiner c, ir::ScalarKind input) {
  using ir::ScalarKind;
  switch (c) {
    case Combiner::Sum:
    case Combiner::Mean:
    case Combiner::Prod:
      if (input == ScalarKind::F16 || input == ScalarKind::BF16) return ScalarKind::F32;
      if (input == ScalarKind::I1 || input == ScalarKind::I8 || input == ScalarKind::I16) return ScalarKind::I32;
      return input;
    case Combiner::Any:
    case Combiner::All: return ScalarKind::I32;
    default: return input;
  }
}

int accumulatorBytes(Combiner c, ir::ScalarKind input, int64_t reduceCount) {
  int bytes = scalarBytes(accumulatorKind(c, input));
  if (combinerCarriesIndex(c)) bytes += reduceCount > INT32_MAX ? 8 : 4;
  return bytes;
}

std::optional<std::string> simdIntrinsic(Combiner c) {
  switch (c) {
    case Combiner::Sum:
    case Combiner::Mean: return std::string("simd_sum");
    case Combiner::Max: return std::string("simd_max");
    case Combiner::Min: return std::string("simd_min");
    case Combiner::Prod: return std::string("simd_product");
    case Combiner::Any: return std::string("simd_or");
    case Combiner::All: return std::string("simd_and");
    default: return std::nullopt;
  }
}

}  // namespace tmetal::graph
