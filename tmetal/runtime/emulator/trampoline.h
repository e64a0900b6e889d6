// The C++ that joins a compiled kernel to the launcher: from the metadata
// alone (kernel_abi.h), it checks at compile time that the kernel's
// parameters are what the metadata says (count, pointer or scalar, element
// size), and defines the shared object's two entry points (emulator_abi.h),
// which pass argument slots and builtin values to the kernel in the
// declared order.
#pragma once

#include <string>

#include "tmetal/codegen/kernel_abi.h"

namespace tmetal::runtime::emulator {

// Throws CompileError on metadata the emulator cannot launch: a kernel name
// that is not an identifier, an unknown dtype or builtin, a builtin type other
// than uint/ushort with 1 to 3 components.
std::string generateTrampoline(const codegen::KernelMetadata& metadata);

}  // namespace tmetal::runtime::emulator
