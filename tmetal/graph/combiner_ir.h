// The combiners of graph reductions written as kernel IR, in the form
// Triton's tl.sum / tl.max / tl.argmax / ... produce: the combining ops
// (on tensors while a thread accumulates, on scalars inside tt.reduce's
// combiner region), the identity that masked-off elements contribute, and
// the conversion of input elements to the accumulator type.
//
// max and min use arith.maxnumf / arith.minnumf for floats, as tl.max and
// tl.min do by default (a NaN loses to a number). argmax and argmin combine
// (value, index) pairs with Triton's tie_break_left combiner: the greater
// (smaller) value wins, equal values keep the smaller index, so the result is
// the first occurrence whatever order the pairs meet in.
#pragma once

#include <vector>

#include "tmetal/graph/combiner.h"
#include "tmetal/ir/builder.h"

namespace tmetal::graph {

// The identity of `c` in the accumulator type `kind`: 0 for sums, 1 for
// products, -inf / the smallest integer for max and argmax, +inf / the
// largest for min and argmin, 0 for any, 1 for all.
ir::Attribute combinerIdentity(Combiner c, ir::ScalarKind kind);

// The value a masked-off load of a raw input element (of type `input`)
// yields, chosen so that toAccumulator() turns it into the identity.
ir::Attribute inputIdentity(Combiner c, ir::ScalarKind input);

// Converts loaded input elements (scalar or tensor) to the accumulator
// type: float16/bfloat16 sums and products widen to float32; any and all
// turn each element into a 32-bit flag (element != 0).
ir::Value* toAccumulator(ir::Builder& b, Combiner c, ir::Value* input, ir::ScalarKind accumulator);

// combine(accumulated, next): one value each for most combiners, (value,
// index) pairs for argmax and argmin. Works elementwise on tensors of one
// shape or on scalars.
std::vector<ir::Value*> combineValues(ir::Builder& b, Combiner c, const std::vector<ir::Value*>& accumulated,
                                      const std::vector<ir::Value*>& next);

// argmax and argmin in index order. When each accumulator walks its reduce
// indices upwards, with masked-off elements (the identity, no index) only
// after the real ones, every pair `next` brings has a greater index than the
// pairs accumulated, so Triton's combiner reduces to keep = accumulated >=
// next (<= for argmin): an equal value keeps the earlier index. That is one
// comparison instead of three and holds for NaNs too, save for the empty
// accumulator, whose identity (-inf, no index) must lose to a real -inf. So
// accumulators combined in index order start empty as (NaN, no index), which
// loses every comparison, and finishIndexOrder() turns a still-empty one back
// into the identity before the pairs meet in any other order. The comparison
// only picks the index: the value is max(accumulated, next) (min for
// argmin), the kept value save where NaNs take part, and one packed
// instruction for pairs of 16-bit floats where a select of them is not.
bool combinesInIndexOrder(Combiner c, ir::ScalarKind valueKind);  // arg-reductions of floats
ir::Attribute emptyInIndexOrder(ir::ScalarKind valueKind);        // NaN
std::vector<ir::Value*> combineInIndexOrder(ir::Builder& b, Combiner c, const std::vector<ir::Value*>& accumulated,
                                            const std::vector<ir::Value*>& next);
std::vector<ir::Value*> finishIndexOrder(ir::Builder& b, Combiner c, const std::vector<ir::Value*>& accumulated);

// A tt.reduce of `operands` along `axis` with the combiner region of `c`.
ir::Operation* reduceOp(ir::Builder& b, Combiner c, const std::vector<ir::Value*>& operands, int axis);

// The largest int32: the index masked-off (value, index) pairs carry, so a
// real element with an equal value always wins the tie.
inline constexpr int64_t kNoIndex = 2147483647;

}  // namespace tmetal::graph
