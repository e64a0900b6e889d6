// Runs the kernels of a reduction plan on a device, stage after stage: the
// input in, partials between the stages, the result out. Shared by
// `tmetal graph-run` and the tests, so both run exactly what the planner's
// kernels are.
#pragma once

#include <cstdint>
#include <vector>

#include "tmetal/graph/reduction_kernels.h"
#include "tools/run_devices.h"

namespace tmetal::tools {

// Runs every stage of `kernels` on `device` and returns the output buffer
// (kernels.outputElements elements of kernels.outputKind). Each stage is
// verified, then compiled (devices that compile) under the COALESCED policy
// with the stage's num_warps; `options` gives the rest (hardware, sanitize).
std::vector<uint8_t> runReductionKernels(const graph::ReductionKernels& kernels, const std::vector<uint8_t>& input,
                                         const DeviceRunner& device, DeviceOptions options);

}  // namespace tmetal::tools
