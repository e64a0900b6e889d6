// Sizes of the element and scalar types named in kernel metadata (Triton's
// spelling: "f32", "bf16", "i1", "f8E4M3FN", ...), for checking arguments.
#pragma once

#include <string>

namespace tmetal::runtime::emulator {

// Bytes of one value of `dtype` in a buffer or a scalar argument; 0 when the
// dtype is unknown. i1 is one byte, as Triton stores booleans.
int dtypeBytes(const std::string& dtype);

}  // namespace tmetal::runtime::emulator
