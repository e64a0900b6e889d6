// How ops relate to layouts: which compute each element from the same
// element of their operands (so any layout works for them as long as the
// operands share it), and which may be recomputed in any layout rather than
// converted.
#pragma once

#include "tmetal/ir/operation.h"

namespace tmetal::layout {

// arith.*, math.*, tt.addptr and the other tt ops that map elements one to
// one (tt.clampf, tt.precise_*, tt.fp_to_fp, tt.bitcast, tt.int_to_ptr,
// tt.ptr_to_int, tt.mulhiui, tt.extern_elementwise).
bool isElementwise(ir::OpKind kind);

// Ops whose result is cheap to compute again in another layout when all its
// tensor operands are: constants, tt.make_range, tt.splat, elementwise ops,
// tt.broadcast and tt.expand_dims.
bool isRematerializableKind(ir::OpKind kind);

// Terminators of regions, handled by the op that owns the region.
bool isTerminator(ir::OpKind kind);

}  // namespace tmetal::layout
