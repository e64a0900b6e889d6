// Float conversions that the targets have no instruction for, written as
// helper functions in the shared C-like dialect: to and from the 8-bit
// floats (which both targets keep as their bits), and rounding toward zero
// into f16 and bf16 (tt.fp_to_fp's `rounding = rtz`). The same integer code
// runs on Metal, on CUDA and in the emulator, so the three agree bit for bit
// with each other and with the interpreter (ir/float_bits.h).
#pragma once

#include <map>
#include <string>

#include "tmetal/codegen/c_emitter.h"

namespace tmetal::codegen {

class FloatConversions {
 public:
  explicit FloatConversions(const CEmitter& dialect) : dialect_(dialect) {}

  // `x` (a value of kind `from`) as kind `to`, rounded to nearest even or
  // toward zero; conversions to 8-bit floats saturate, as Triton's do.
  std::string convert(const std::string& x, ir::ScalarKind from, ir::ScalarKind to, bool towardZero);

  // The helper functions used so far, to be placed before the kernel.
  std::string helpers() const;

 private:
  // float -> bits of `to`; and bits of an 8-bit float -> float.
  std::string narrowingHelper(ir::ScalarKind to, bool towardZero);
  std::string wideningHelper(ir::ScalarKind from);

  const CEmitter& dialect_;
  std::map<std::string, std::string> helpers_;  // name -> definition
};

}  // namespace tmetal::codegen
