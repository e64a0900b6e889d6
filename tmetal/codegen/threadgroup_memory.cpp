#include "tmetal/codegen/threadgroup_memory.h"

namespace tmetal::codegen {

const ThreadgroupBuffer& ThreadgroupMemory::allocate(const ir::Operation& op, const std::string& name,
                                                     const std::string& elementType, int elementBytes, int64_t count,
                                                     const std::string& purpose) {
  int64_t bytes = (count * elementBytes + 15) / 16 * 16;
  if (total_ + bytes > limit_)
    op.fail("needs " + std::to_string(bytes) + " bytes of threadgroup memory (" + std::to_string(total_ + bytes) +
            " in total), more than the " + std::to_string(limit_) + " bytes a threadgroup has on " + hardware_);
  total_ += bytes;
  buffers_.push_back({name, elementType, count, bytes, purpose});
  return buffers_.back();
}

}  // namespace tmetal::codegen
