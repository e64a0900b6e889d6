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

// The element type in which a tt.dot's operand is multiplied on SIMD-group
// matrices (8-bit floats widened to f16).
ir::ScalarKind matrixOperandKind(const ir::Operation& dot, size_t operand);
// Whether a tt.dot's operands can be SIMD-group matrices: 2-D, both f16 or
// both bf16 as multiplied (the lowering also needs extents in whole tiles and
// the threadgroup memory, lower_dot_matrix.cpp).
bool hasMatrixOperands(const ir::Operation& dot);

}  // namespace tmetal::layout
