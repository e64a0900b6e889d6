// The 64-bit bit operations and byte_perm: both targets have the 32-bit
// instructions (clz, popcount, reverse_bits), so the 64-bit ones work on the
// two halves; mulhi of 64-bit numbers is the schoolbook product of 32-bit
// halves, because MSL's 64-bit mulhi is not available on every Apple GPU.
#include "tmetal/codegen/libdevice/libdevice_helpers.h"

namespace tmetal::codegen {

const std::vector<LibdeviceHelper>& integerHelpers() {
  static const std::vector<LibdeviceHelper> helpers = {
      {"tmetal_clzll", {}, R"(@helper int tmetal_clzll(long x) {
  uint hi = uint(ulong(x) >> 32);
  return hi != 0u ? int(@clz(hi)) : 32 + int(@clz(uint(ulong(x))));
}
)"},
      {"tmetal_ffsll", {}, R"(@helper int tmetal_ffsll(long x) {
  // The lowest set bit's position, one-based: popcount of the ones below it.
  uint lo = uint(ulong(x));
  uint hi = uint(ulong(x) >> 32);
  if (lo != 0u) return int(@popcount((lo & (0u - lo)) - 1u)) + 1;
  if (hi != 0u) return int(@popcount((hi & (0u - hi)) - 1u)) + 33;
  return 0;
}
)"},
      {"tmetal_brevll", {}, R"(@helper long tmetal_brevll(long x) {
  ulong lo = ulong(@reverse_bits(uint(ulong(x))));
  ulong hi = ulong(@reverse_bits(uint(ulong(x) >> 32)));
  return long((lo << 32) | hi);
}
)"},
      {"tmetal_byte_perm", {}, R"(@helper int tmetal_byte_perm(int x, int y, int s) {
  // Byte n of the result is byte (s >> 4n) & 7 of the eight bytes y:x.
  ulong bytes = (ulong(uint(y)) << 32) | ulong(uint(x));
  uint selector = uint(s);
  uint result = 0u;
  for (uint n = 0u; n < 4u; ++n) {
    uint index = (selector >> (4u * n)) & 7u;
    result |= uint((bytes >> (8u * index)) & 0xffu) << (8u * n);
  }
  return int(result);
}
)"},
      {"tmetal_umul64hi", {}, R"(@helper ulong tmetal_umul64hi(ulong a, ulong b) {
  ulong a0 = a & 0xffffffffu, a1 = a >> 32;
  ulong b0 = b & 0xffffffffu, b1 = b >> 32;
  ulong low = a0 * b0;
  ulong cross0 = a0 * b1;
  ulong cross1 = a1 * b0;
  ulong middle = (low >> 32) + (cross0 & 0xffffffffu) + (cross1 & 0xffffffffu);
  return a1 * b1 + (cross0 >> 32) + (cross1 >> 32) + (middle >> 32);
}
)"},
      {"tmetal_mul64hi", {"tmetal_umul64hi"}, R"(@helper long tmetal_mul64hi(long a, long b) {
  // The signed high half from the unsigned one: a negative operand adds
  // 2^64 to its value, so the product's high half gains the other operand.
  ulong high = tmetal_umul64hi(ulong(a), ulong(b));
  if (a < 0) high -= ulong(b);
  if (b < 0) high -= ulong(a);
  return long(high);
}
)"},
  };
  return helpers;
}

}  // namespace tmetal::codegen
