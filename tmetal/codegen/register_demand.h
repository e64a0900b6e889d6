// How many registers a thread wants so that a loop of loads keeps its
// unrolled trips' loads in flight together: the figure the CUDA target turns
// into __launch_bounds__'s minimum blocks per multiprocessor
// (docs/codegen.md, "Registers for loops of loads").
#pragma once

#include "tmetal/ir/module.h"
#include "tmetal/layout/layout_assignment.h"

namespace tmetal::codegen {

struct LoopRegisterDemand {
  // 32-bit registers a thread holds in the loop at its busiest; 0: the
  // kernel has no loop whose body only loads and computes registers.
  int registers = 0;
  const ir::Operation* loop = nullptr;
};

// The largest demand over the kernel's loops whose bodies only load and
// compute registers (ir::isRegisterOnlyLoop), which the lowering unrolls
// four times: the carried values, four trips' loaded values (each element
// in a register of its own, two for 64-bit ones, as the loads deliver them)
// and the registers of addresses, masks and indices beside them.
LoopRegisterDemand loopOfLoadsRegisterDemand(const ir::Function& fn, const layout::LayoutAssignment& layouts);

// A loop of dots on SIMD-group matrices holds C, its loads of the next
// trip, the results of dots it starts from zero and the operands it reads
// from before the loop in registers. Left to itself, ptxas gave fused
// attention in 64x64 blocks of 4 warps 168-171 registers a thread (8 warps
// a multiprocessor), too few warps to hide the tile loads and products
// behind each other. The CUDA target asks for kMatrixLoopWarps warps where
// the loop's demand, as ptxas allocates it (kMatrixLoopAllocation times the
// count below), exceeds what that many warps leave a thread: a minimum
// where ptxas would not exceed it raised its allocation instead (96 -> 111
// registers at 32x32). Not where the carried values alone take more than
// kMatrixLoopCarriedLimit registers (a 128x128 accumulator over 4 warps:
// the minimum would spill it). docs/codegen.md, "Registers for loops of
// dots".
inline constexpr int kMatrixLoopWarps = 12;
inline constexpr int kMatrixLoopCarriedLimit = 64;
inline constexpr double kMatrixLoopAllocation = 1.3;

// Registers a thread the first loop holding a dot on matrices keeps at
// once: its carried values (not tensors of pointers, which are a base and
// offsets), its loaded values, the results of its dots that start from
// zero, the dots' operands from before the loop (16-bit elements two to a
// register), and 24 beside them. 0: no such loop or it carries too much.
struct MatrixLoopDemand {
  int registers = 0;
  int carried = 0;
  const ir::Operation* loop = nullptr;
};
MatrixLoopDemand matrixDotLoopRegisterDemand(const ir::Function& fn, const layout::LayoutAssignment& layouts);

}  // namespace tmetal::codegen
