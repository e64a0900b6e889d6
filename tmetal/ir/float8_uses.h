// 8-bit floats are storage formats: no GPU tmetal targets computes in them
// (Apple GPUs have no fp8 arithmetic; Triton's own NVIDIA backend converts
// them before computing too). A kernel may load, store, move, select,
// take the absolute value of (the sign bit), reinterpret and convert
// them, and multiply them in tt.dot; any other op on
// them is refused here, once, for the interpreter and every code generator.
#pragma once

#include "tmetal/ir/module.h"

namespace tmetal::ir {

// Whether an op of this kind may have 8-bit float operands or results.
bool acceptsFloat8(OpKind kind);

// Fails (CompileError at the op, with the user's line) on the first op that
// computes with an 8-bit float.
void checkFloat8Uses(const Function& fn);

}  // namespace tmetal::ir
