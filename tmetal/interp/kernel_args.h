// What a kernel runs on: host buffers for pointer arguments and numbers for
// scalar arguments. Shared by every device that `tmetal run` can use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tmetal/ir/type.h"

namespace tmetal::interp {

// Memory behind one pointer argument. Accesses through the pointer are
// interpreted with the pointer's element type; `elementKind` records what the
// host put there and is only used to describe the buffer in messages.
struct HostBuffer {
  std::string name;  // the kernel argument's name (or position) for messages
  ir::ScalarKind elementKind = ir::ScalarKind::F32;
  std::vector<uint8_t> bytes;
};

struct KernelArg {
  enum class Kind { Buffer, Int, Float };

  static KernelArg fromBuffer(HostBuffer buffer);
  static KernelArg fromInt(int64_t value);
  static KernelArg fromFloat(double value);

  Kind kind = Kind::Int;
  HostBuffer buffer;      // Kind::Buffer; the device writes results back into it
  int64_t intValue = 0;   // Kind::Int: wrapped to the argument's integer width
  double floatValue = 0;  // Kind::Float: rounded to the argument's float type
};

}  // namespace tmetal::interp
