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
  int64_t bytes = 0;        // rounded up to 16; 0 for a buffer in another's memory
  std::string purpose;      // "reduction partials of ...", for the metadata
  std::string sharesWith;   // the buffer whose memory it reuses; empty for its own
  const ir::Operation* op = nullptr;  // the op it serves
  bool outsideLoops = false;          // its op runs once, in no loop
  // The outermost loop its op runs in (null outside loops): once that loop
  // is done, the buffer is never written again.
  const ir::Operation* outermostLoop = nullptr;
  bool released = false;  // its op's lowering is done (release())
};

// Every buffer serves one op: the op writes it, waits at a barrier, and reads
// it back before the lowering goes on to the next op. Buffers get memory of
// their own while the kernel's total fits the target's limit (the common
// case, which needs no more barriers than that). Past the limit a new buffer
// reuses the memory of an earlier op's buffer instead (or of its own op's,
// once that op is released: the conversions of its results), the smallest
// one that holds it (each is 16-byte aligned, so it may hold elements of any
// width) and whose op is never written again after the new buffer's op: an
// op that runs once, outside loops, or one in a loop that the new op is not
// in (that loop has run its last trip; the two loops of dots that Triton's
// fused-attention tutorial inlines one after the other). The lowering then
// puts a barrier before the new buffer's first write, which the earlier op's
// reads must have passed.
class ThreadgroupMemory {
 public:
  ThreadgroupMemory(int64_t limitBytes, std::string hardwareName)
      : limit_(limitBytes), hardware_(std::move(hardwareName)) {}

  // Records a buffer for `op` (`insideLoop`: `op` is in a loop body) and
  // returns it; `sharesWith` is set when it reuses another buffer's memory.
  // Throws a CompileError naming the op when neither fits.
  const ThreadgroupBuffer& allocate(const ir::Operation& op, const std::string& name, const std::string& elementType,
                                    int elementBytes, int64_t count, const std::string& purpose, bool insideLoop);

  // `op`'s lowering is done: it has read back every buffer it wrote, so
  // those may lend their memory to the buffers that come after, also to the
  // conversions of `op`'s own results to the other layouts their users want
  // (a dot's A and B to its C on the way to a transposed store).
  void release(const ir::Operation& op);

  // Whether buffers of `bytes` more (each rounded up to 16) still get memory
  // of their own.
  bool hasRoomFor(int64_t bytes) const { return total_ + bytes <= limit_; }
  // Whether allocate() would find room for one more buffer of `op`: memory of
  // its own, or an earlier buffer to lend it.
  bool canHold(const ir::Operation& op, int64_t count, int elementBytes) const;
  // Whether two more buffers of `op` (A, then B) would both find room.
  bool canHoldPair(const ir::Operation& op, int64_t countA, int elementBytesA, int64_t countB,
                   int elementBytesB) const;
  static int64_t roundedBytes(int64_t count, int elementBytes) { return (count * elementBytes + 15) / 16 * 16; }

  int64_t totalBytes() const { return total_; }
  const std::vector<ThreadgroupBuffer>& buffers() const { return buffers_; }

 private:
  // The smallest earlier buffer that may lend `op` its memory (other than
  // `taken`), or null.
  const ThreadgroupBuffer* lender(const ir::Operation& op, int64_t bytes,
                                  const ThreadgroupBuffer* taken = nullptr) const;

  int64_t limit_;
  std::string hardware_;
  int64_t total_ = 0;
  std::vector<ThreadgroupBuffer> buffers_;
};

}  // namespace tmetal::codegen
