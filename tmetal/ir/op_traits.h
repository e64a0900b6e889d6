// What kind of computation an op is, independent of any pass: used by the
// layout assignment (which layouts an op accepts), the lowering (which loops
// it may reorder) and the interpreter (which ops it evaluates element by
// element).
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

// Ops whose lowering computes registers from registers or reads device
// memory (a tt.load that is not volatile): no store, atomic, barrier,
// threadgroup memory or region, so the lowering may write several of them
// out in another order (the "loads first" loops of docs/codegen.md).
bool computesRegistersOnly(const Operation& op);

// An scf.for whose body holds only such ops.
bool isRegisterOnlyLoop(const Operation& op);

}  // namespace tmetal::ir
