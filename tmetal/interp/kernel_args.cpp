#include "tmetal/interp/kernel_args.h"

namespace tmetal::interp {

KernelArg KernelArg::fromBuffer(HostBuffer buffer) {
  KernelArg a;
  a.kind = Kind::Buffer;
  a.buffer = std::move(buffer);
  return a;
}

KernelArg KernelArg::fromInt(int64_t value) {
  KernelArg a;
  a.kind = Kind::Int;
  a.intValue = value;
  return a;
}

KernelArg KernelArg::fromFloat(double value) {
  KernelArg a;
  a.kind = Kind::Float;
  a.floatValue = value;
  return a;
}

}  // namespace tmetal::interp
