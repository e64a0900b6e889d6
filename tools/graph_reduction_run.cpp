#include "tools/graph_reduction_run.h"

#include <map>

#include "tmetal/ir/verifier.h"

namespace tmetal::tools {

using graph::StageBuffer;
using interp::HostBuffer;
using interp::KernelArg;

ReductionRunBuffers runReductionKernels(const graph::ReductionKernels& kernels, const std::vector<uint8_t>& input,
                                        const DeviceRunner& device, DeviceOptions options) {
  // The buffers every stage draws from; a stage's arguments borrow them and
  // hand them back after it ran.
  std::map<StageBuffer, HostBuffer> buffers;
  auto make = [&](StageBuffer role, ir::ScalarKind kind, std::vector<uint8_t> bytes) {
    buffers[role] = HostBuffer{graph::stageBufferName(role), kind, std::move(bytes)};
  };
  make(StageBuffer::Input, kernels.inputKind, input);
  make(StageBuffer::PartialValues, kernels.partialKind,
       std::vector<uint8_t>(kernels.partialElements * graph::scalarBytes(kernels.partialKind)));
  bool indices = false;
  for (const graph::StageKernel& stage : kernels.stages)
    for (StageBuffer role : stage.buffers) indices = indices || role == StageBuffer::PartialIndices;
  make(StageBuffer::PartialIndices, ir::ScalarKind::I32, std::vector<uint8_t>(indices ? kernels.partialElements * 4 : 0));
  make(StageBuffer::Output, kernels.outputKind,
       std::vector<uint8_t>(kernels.outputElements * graph::scalarBytes(kernels.outputKind)));

  options.codegen.layout = "coalesced";  // the policy every reduction plan is made for
  for (const graph::StageKernel& stage : kernels.stages) {
    ir::verify(*stage.module);
    std::vector<KernelArg> args;
    for (StageBuffer role : stage.buffers) args.push_back(KernelArg::fromBuffer(std::move(buffers[role])));
    for (const graph::StageScalar& s : stage.scalars)
      args.push_back(ir::isFloatKind(s.kind) ? KernelArg::fromFloat(s.floatValue) : KernelArg::fromInt(s.intValue));
    options.codegen.numWarps = stage.numWarps;
    options.codegen.minThreadgroupsPerCore = stage.minThreadgroupsPerCore;
    device(*stage.module, *stage.module->kernel(), args, Grid{stage.threadgroups, 1, 1}, options);
    for (size_t i = 0; i < stage.buffers.size(); ++i) buffers[stage.buffers[i]] = std::move(args[i].buffer);
  }
  return ReductionRunBuffers{std::move(buffers[StageBuffer::Output].bytes),
                             std::move(buffers[StageBuffer::PartialValues].bytes),
                             std::move(buffers[StageBuffer::PartialIndices].bytes)};
}

}  // namespace tmetal::tools
