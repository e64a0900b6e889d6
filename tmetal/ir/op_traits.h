// What kind of computation an op is, independent of any pass: used by the
// layout assignment (which layouts an op accepts) and by the interpreter
// (which ops it evaluates element by element).
#pragma once

#include "tmetal/ir/operation.h"

namespace tmetal::ir {

// Ops that compute each element of their result from the same element of
// their operands: arith.* (but arith.constant), math.*, and tt.addptr,
// tt.clampf, tt.precise_sqrt, tt.precise_divf, tt.fp_to_fp, tt.bitcast,
// tt.int_to_ptr, tt.ptr_to_int, tt.mulhiui and tt.extern_elementwise.
bool isElementwise(OpKind kind);

// Terminators of regions: tt.return, scf.yield, scf.condition,
// tt.reduce.return and tt.scan.return. Each must end its block; the op
// owning the region handles it.
bool isTerminator(OpKind kind);

}  // namespace tmetal::ir
