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

// The buffers after a run: the result (kernels.outputElements elements of
// kernels.outputKind) and, for two-stage plans, the partials between them.
struct ReductionRunBuffers {
  std::vector<uint8_t> output;
  std::vector<uint8_t> partialValues;   // kernels.partialKind
  std::vector<uint8_t> partialIndices;  // int32, arg-reductions only
};

// Runs the stages of `kernels` on `device`, in order. Each stage is
// verified, then compiled (devices that compile) under the COALESCED policy
// with the stage's num_warps; `options` gives the rest (hardware, sanitize).
ReductionRunBuffers runReductionKernels(const graph::ReductionKernels& kernels, const std::vector<uint8_t>& input,
                                        const DeviceRunner& device, DeviceOptions options);

}  // namespace tmetal::tools
