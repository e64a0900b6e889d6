// How elements of each type sit in host memory (little-endian, i1 as one
// byte holding 0 or 1) and as raw bit patterns (for bitcasts and the
// compare of atomic_cas).
#pragma once

#include <cstdint>

#include "tmetal/interp/runtime_value.h"

namespace tmetal::interp {

// Bytes one element of scalar type `type` occupies in memory.
int storageBytes(const ir::Type& type);

// The bit pattern of an element of scalar type `type`, zero-extended.
uint64_t elementBits(const Element& element, const ir::Type& type);
// The element whose bit pattern (low bits of `bits`) is given.
Element elementFromBits(uint64_t bits, const ir::Type& type);

Element readElement(const uint8_t* memory, const ir::Type& type);
void writeElement(uint8_t* memory, const Element& element, const ir::Type& type);

}  // namespace tmetal::interp
