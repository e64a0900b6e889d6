// The reference interpreter: runs a kernel over a grid of programs on host
// buffers, with whole-tensor semantics (each SSA value is a whole block-level
// tensor). It is the oracle every backend is checked against, so it is
// simple rather than fast and shares no code with any lowering.
//
// Execution order, which fixes every result the IR leaves open:
//   - programs run one after another, x fastest, then y, then z;
//   - within an op, elements are processed in row-major order: when a store
//     or atomic hits one address from several elements, the last one wins
//     (atomics see each other's updates in that order);
//   - tt.reduce and tt.scan combine along the axis strictly left to right
//     (right to left for a reverse scan): acc = combine(acc, x[k]);
//   - tt.dot accumulates over k in order, in f32 for f16/bf16/f32 inputs
//     (acc = acc + a*b, products of f16/bf16 are exact in f32, no fused
//     multiply-add; an f32 input is used at full precision, never as tf32);
//   - masked-off lanes of loads, stores and atomics never touch memory; a
//     masked-off load without `other` yields 0.
// See scalar_semantics.h for the choices inside single ops.
#pragma once

#include <array>
#include <cstdint>
#include <iostream>
#include <vector>

#include "tmetal/interp/kernel_args.h"
#include "tmetal/ir/module.h"

namespace tmetal::interp {

struct InterpretOptions {
  // The module holding the kernel, for tt.call of non-inlined functions.
  const ir::Module* module = nullptr;
  // Where tt.print writes.
  std::ostream* printStream = &std::cout;
  // An scf.while that runs more iterations (in one program) is reported
  // instead of hanging.
  int64_t maxWhileIterations = int64_t{1} << 24;
};

// Runs `kernel` once per program of `grid` (x, y, z; each at least 0).
// Buffer arguments are read and written in place. Throws CompileError for
// bad arguments, out-of-bounds accesses, failed tt.assert and ops the
// interpreter does not support, naming the op's source line and the program.
void interpret(const ir::Function& kernel, std::vector<KernelArg>& args, std::array<int64_t, 3> grid,
               const InterpretOptions& options = {});

}  // namespace tmetal::interp
