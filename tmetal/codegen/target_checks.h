// What a kernel must satisfy before it is lowered for a GPU: the profile's
// threadgroup size limit and the element types the hardware has (no f64 on
// Apple GPUs; bfloat only where MSL 3.1 is available). Threadgroup memory is
// checked as the lowering allocates it (threadgroup_memory.h).
#pragma once

#include "tmetal/hw/hardware_profile.h"
#include "tmetal/ir/module.h"

namespace tmetal::codegen {

// Throws CompileError naming the function (thread count) or the first op or
// argument with an unsupported type, with the user's source position.
void checkKernelFitsTarget(const ir::Function& fn, const hw::HardwareProfile& profile, int numWarps);

}  // namespace tmetal::codegen
