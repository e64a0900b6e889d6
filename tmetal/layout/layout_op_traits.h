// How ops relate to layouts: which may be recomputed in any layout rather
// than converted (elementwise ops, which take any layout their operands
// share, are ir::isElementwise).
#pragma once

#include "tmetal/ir/operation.h"

namespace tmetal::layout {

// Ops whose result is cheap to compute again in another layout when all its
// tensor operands are: constants, tt.make_range, tt.splat, elementwise ops,
// tt.broadcast and tt.expand_dims.
bool isRematerializableKind(ir::OpKind kind);

}  // namespace tmetal::layout
