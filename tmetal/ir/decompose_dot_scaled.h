// tt.dot_scaled (tl.dot_scaled: microscaling "MX" matmuls) multiplies A and
// B whose elements come in blocks of 32 along K that share one power-of-two
// scale (e8m0: 2^(s - 127); s = 0xFF is NaN). Apple GPUs have no such
// instruction, so the op becomes ordinary ops before anything else sees it,
// as Triton decomposes it for GPUs without native support:
//
//   each operand is widened to the compute type (bf16, or f16 when either
//   operand is fp16): e4m3/e5m2 by tt.fp_to_fp (exact), e2m1 (two per byte
//   along K, the low nibble first) by integer ops on its bits, and for A a
//   tt.join + reshape that puts the pairs next to each other;
//   each element of the operand gathers its block's scale, which becomes
//   2^(s - 127) in the compute type (s = 0 gives 0, as Triton's own
//   reference does; s = 0xFF NaN unless fastMath) and multiplies it;
//   then one tt.dot of the two, accumulating in f32; with an e2m1 B, two:
//   of the elements at even k (B's low nibbles) and at odd k, A split into
//   its even and odd elements of K.
#pragma once

#include <memory>

#include "tmetal/ir/module.h"

namespace tmetal::ir {

// The operands of a tt.dot_scaled; the scales are null where absent.
struct DotScaledOperands {
  Value* a = nullptr;
  Value* aScale = nullptr;
  Value* b = nullptr;
  Value* bScale = nullptr;
  Value* acc = nullptr;
};
DotScaledOperands dotScaledOperands(const Operation& op);

bool hasDotScaled(const Function& fn);

// A copy of `kernel` with every tt.dot_scaled replaced as above.
std::unique_ptr<Function> decomposeDotScaled(const Function& kernel);

}  // namespace tmetal::ir
