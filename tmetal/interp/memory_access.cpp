#include "tmetal/interp/memory_access.h"

#include <cstring>

#include "tmetal/interp/float_format.h"
#include "tmetal/interp/scalar_semantics.h"

namespace tmetal::interp {

int storageBytes(const ir::Type& type) {
  if (type.isPointer()) return 8;
  return type.bitWidth() == 1 ? 1 : type.bitWidth() / 8;
}

uint64_t elementBits(const Element& element, const ir::Type& type) {
  if (type.isFloat()) return floatToBits(element.f, type.scalarKind());
  return unsignedInt(element.i, type.bitWidth());
}

Element elementFromBits(uint64_t bits, const ir::Type& type) {
  Element e;
  if (type.isFloat())
    e.f = floatFromBits(bits, type.scalarKind());
  else
    e.i = wrapInt(bits, type.bitWidth());
  return e;
}

Element readElement(const uint8_t* memory, const ir::Type& type) {
  uint64_t bits = 0;
  int bytes = storageBytes(type);
  for (int b = 0; b < bytes; ++b) bits |= static_cast<uint64_t>(memory[b]) << (8 * b);
  if (type.bitWidth() == 1) bits = bits != 0;  // any nonzero byte reads as true
  return elementFromBits(bits, type);
}

void writeElement(uint8_t* memory, const Element& element, const ir::Type& type) {
  uint64_t bits = elementBits(element, type);
  int bytes = storageBytes(type);
  for (int b = 0; b < bytes; ++b) memory[b] = static_cast<uint8_t>(bits >> (8 * b));
}

}  // namespace tmetal::interp
