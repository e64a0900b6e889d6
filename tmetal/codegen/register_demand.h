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

}  // namespace tmetal::codegen
