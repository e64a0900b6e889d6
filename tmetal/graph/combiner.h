// The combining function of a reduction and what it needs: the accumulator
// type, and the SIMD-group intrinsic that combines lanes when one exists.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tmetal/ir/type.h"

namespace tmetal::graph {

enum class Combiner { Sum, Mean, Max, Min, Prod, ArgMax, ArgMin, Any, All };

const char* combinerName(Combiner c);  // "sum", "argmax", ...
std::optional<Combiner> parseCombiner(const std::string& name);

// Arg-reductions carry (value, index) pairs through every combine step.
bool combinerCarriesIndex(Combiner c);

// The type partial results are kept in: sums and products of 16-bit floats
// and small integers widen (to f32 / i32) so partials do not overflow or
// lose precision; max/min keep the input type; any/all keep a 32-bit flag.
ir::ScalarKind accumulatorKind(Combiner c, ir::ScalarKind input);

// Bytes of one accumulator, the index included for arg-reductions (32-bit
// indices, 64-bit when the reduced extent does not fit in int32).
int accumulatorBytes(Combiner c, ir::ScalarKind input, int64_t reduceCount);

// The Metal SIMD-group function that combines all 32 lanes ("simd_sum"), or
// nullopt when lanes combine with a shuffle-xor butterfly instead (arg-
// reductions carry two values).
std::optional<std::string> simdIntrinsic(Combiner c);

// Bytes of one element of a scalar type; i1 is stored as one byte.
int scalarBytes(ir::ScalarKind k);

}  // namespace tmetal::graph
