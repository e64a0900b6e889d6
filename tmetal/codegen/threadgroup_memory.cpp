#include "tmetal/codegen/threadgroup_memory.h"

#include <algorithm>

#include "tmetal/support/diagnostic.h"

namespace tmetal::codegen {

namespace {
bool isLoop(const ir::Operation& op) { return op.kind() == ir::OpKind::ScfFor || op.kind() == ir::OpKind::ScfWhile; }

// The loops `op` runs in, innermost first.
std::vector<const ir::Operation*> enclosingLoops(const ir::Operation& op) {
  std::vector<const ir::Operation*> loops;
  for (const ir::Operation* at = &op; at->parentBlock() && at->parentBlock()->parentOp();) {
    at = at->parentBlock()->parentOp();
    if (isLoop(*at)) loops.push_back(at);
  }
  return loops;
}
}  // namespace

const ThreadgroupBuffer& ThreadgroupMemory::allocate(const ir::Operation& op, const std::string& name,
                                                     const std::string& elementType, int elementBytes, int64_t count,
                                                     const std::string& purpose, bool insideLoop) {
  const int64_t bytes = roundedBytes(count, elementBytes);
  ThreadgroupBuffer buffer{name, elementType, count, bytes, purpose, "", &op, !insideLoop};
  if (const std::vector<const ir::Operation*> loops = enclosingLoops(op); !loops.empty())
    buffer.outermostLoop = loops.back();
  if (total_ + bytes <= limit_) {
    total_ += bytes;
    buffers_.push_back(std::move(buffer));
    return buffers_.back();
  }
  const ThreadgroupBuffer* host = lender(op, bytes);
  if (!host) {
    std::string held;
    for (const ThreadgroupBuffer& b : buffers_)
      if (b.sharesWith.empty()) held += std::string(held.empty() ? "" : "; ") + std::to_string(b.bytes) + " for " + b.purpose;
    throw ResourceLimitError(
        op.loc().userPos(),
        "'" + op.name() + "': needs " + std::to_string(bytes) + " bytes of threadgroup memory (" +
            std::to_string(total_ + bytes) + " in total), more than the " + std::to_string(limit_) +
            " bytes a threadgroup has on " + hardware_ +
            (held.empty()
                 ? std::string()
                 : "; no buffer of an earlier op that is done with it can lend it that much (held: " + held + ")"),
        "threadgroup memory", total_ + bytes, limit_);
  }
  buffer.sharesWith = host->name;
  buffer.bytes = 0;
  buffers_.push_back(std::move(buffer));
  return buffers_.back();
}

const ThreadgroupBuffer* ThreadgroupMemory::lender(const ir::Operation& op, int64_t bytes,
                                                   const ThreadgroupBuffer* taken) const {
  // Buffers of one op are live together until it is released: none may lend
  // its memory to `op` (nor may one buffer lend to two of `op`'s).
  auto lentTo = [&](const ThreadgroupBuffer& b) {
    for (const ThreadgroupBuffer& x : buffers_)
      if (x.op == &op && !x.released && (x.name == b.name || x.sharesWith == b.name)) return true;
    return false;
  };
  // A buffer whose op is in a loop that `op` is outside of has been read for
  // the last time (ops are lowered in program order).
  const std::vector<const ir::Operation*> loopsOfOp = enclosingLoops(op);
  auto doneWith = [&](const ThreadgroupBuffer& b) {
    if (b.outsideLoops) return true;
    return b.outermostLoop &&
           std::find(loopsOfOp.begin(), loopsOfOp.end(), b.outermostLoop) == loopsOfOp.end();
  };
  const ThreadgroupBuffer* host = nullptr;
  for (const ThreadgroupBuffer& b : buffers_) {
    // Every buffer is 16-byte aligned (both dialects' threadgroupArray), so
    // any may hold another's elements, whatever their widths.
    const bool usable = &b != taken && b.sharesWith.empty() && doneWith(b) && b.bytes >= bytes && !lentTo(b);
    if (usable && (!host || b.bytes < host->bytes)) host = &b;
  }
  return host;
}

void ThreadgroupMemory::release(const ir::Operation& op) {
  for (ThreadgroupBuffer& b : buffers_)
    if (b.op == &op) b.released = true;
}

bool ThreadgroupMemory::canHold(const ir::Operation& op, int64_t count, int elementBytes) const {
  const int64_t bytes = roundedBytes(count, elementBytes);
  return hasRoomFor(bytes) || lender(op, bytes) != nullptr;
}

bool ThreadgroupMemory::canHoldPair(const ir::Operation& op, int64_t countA, int elementBytesA, int64_t countB,
                                    int elementBytesB) const {
  // As allocate() would place them, A first.
  const int64_t a = roundedBytes(countA, elementBytesA), b = roundedBytes(countB, elementBytesB);
  if (hasRoomFor(a)) return hasRoomFor(a + b) || lender(op, b) != nullptr;
  const ThreadgroupBuffer* hostA = lender(op, a);
  return hostA && (hasRoomFor(b) || lender(op, b, hostA) != nullptr);
}

}  // namespace tmetal::codegen
