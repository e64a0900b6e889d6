// Checks that kernel IR is well formed before any stage relies on it: every
// op has the operands, results, attributes and regions ops.def gives it, with
// types that fit (elementwise shapes, i1 compares, shape rules of splat,
// broadcast, expand_dims, reshape, trans, pointer and value types of
// addptr/load/store/atomics, dot shapes, reduce/scan combiners, scf block
// arguments and yields), terminators sit where they belong and every operand
// is defined before its use. A failure is a CompileError at the op's user
// location (Operation::fail): "file:line:col: error: 'op.name': message".
#pragma once

#include "tmetal/ir/module.h"

namespace tmetal::ir {

void verify(const Module& module);

}  // namespace tmetal::ir
