// Threadgroup memory of one kernel: every buffer the lowering declares
// (reduction partials, layout conversions, dot operands), checked against
// the target's limit as it is allocated, so that the op that goes over it is
// the one the error names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tmetal/ir/operation.h"

namespace tmetal::codegen {

struct ThreadgroupBuffer {
  std::string name;
  std::string elementType;  // as the emitter spells it
  int64_t count = 0;        // elements
  int64_t bytes = 0;        // rounded up to 16
  std::string purpose;      // "reduction partials of ...", for the metadata
};

class ThreadgroupMemory {
 public:
  ThreadgroupMemory(int64_t limitBytes, std::string hardwareName)
      : limit_(limitBytes), hardware_(std::move(hardwareName)) {}

  // Records a buffer for `op` and returns it. Throws a CompileError naming
  // the op when the kernel's total goes over the limit.
  const ThreadgroupBuffer& allocate(const ir::Operation& op, const std::string& name, const std::string& elementType,
                                    int elementBytes, int64_t count, const std::string& purpose);

  int64_t totalBytes() const { return total_; }
  const std::vector<ThreadgroupBuffer>& buffers() const { return buffers_; }

 private:
  int64_t limit_;
  std::string hardware_;
  int64_t total_ = 0;
  std::vector<ThreadgroupBuffer> buffers_;
};

}  // namespace tmetal::codegen
