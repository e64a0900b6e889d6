#include "tmetal/graph/host_elements.h"

#include <cstring>

#include "tmetal/graph/combiner.h"
#include "tmetal/ir/float_bits.h"

namespace tmetal::graph {

namespace {

uint64_t readBits(const std::vector<uint8_t>& bytes, ir::ScalarKind kind, int64_t i) {
  const int size = scalarBytes(kind);
  uint64_t bits = 0;
  std::memcpy(&bits, bytes.data() + i * size, size);  // little-endian hosts
  return bits;
}

}  // namespace

int64_t readIntElement(const std::vector<uint8_t>& bytes, ir::ScalarKind kind, int64_t i) {
  const int width = kind == ir::ScalarKind::I1 ? 8 : ir::scalarBits(kind);
  uint64_t bits = readBits(bytes, kind, i);
  if (width < 64 && (bits >> (width - 1)) & 1) bits |= ~uint64_t{0} << width;  // sign-extend
  return static_cast<int64_t>(bits);
}

double readElement(const std::vector<uint8_t>& bytes, ir::ScalarKind kind, int64_t i) {
  if (ir::isFloatKind(kind)) return ir::floatFromBits(readBits(bytes, kind, i), kind);
  return static_cast<double>(readIntElement(bytes, kind, i));
}

void writeElement(std::vector<uint8_t>& bytes, ir::ScalarKind kind, int64_t i, double value) {
  const int size = scalarBytes(kind);
  const uint64_t bits = ir::isFloatKind(kind) ? ir::floatToBits(value, kind)
                                              : static_cast<uint64_t>(static_cast<int64_t>(value));
  std::memcpy(bytes.data() + i * size, &bits, size);
}

}  // namespace tmetal::graph
