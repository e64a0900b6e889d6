// The lines tt.print (`tl.device_print`, Python's `print` in a kernel)
// writes, in Triton's format on NVIDIA GPUs, so that output reads the same
// from the interpreter, the emulator, Metal and the CUDA validation mode:
//
//   pid (0, 0, 0) idx (  3) x: 3           one operand; prefix " x: "
//   pid (0, 0, 0) idx ( 3): (operand 1) 1  several operands; prefix ": "
//   pid (0, 0, 0) idx () x: 42             a scalar
//   pid (0, 0, 0) no arg                   no operand; prefix " no arg"
//
// Each index is padded to the digits of its dimension's largest index.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tmetal {

// The multi-index of flat element `flat` of a row-major shape.
std::vector<int64_t> unflattenIndex(int64_t flat, const std::vector<int64_t>& shape);
// "[3, 5]" for a multi-index, as error messages name elements.
std::string formatIndex(const std::vector<int64_t>& index);

// How a printed element is written: floats as printf's %f, pointers as
// 0x<hex>, integers in decimal (signed or not) or, with `hex`, as 0x and
// two hex digits per byte.
struct PrintedType {
  bool isFloat = false;
  bool isPointer = false;
  bool isSigned = true;
  int bits = 32;
};

// An integer or pointer of `type` whose bits are the low bits of `bits`.
std::string formatPrintedInteger(uint64_t bits, const PrintedType& type, bool hex);
std::string formatPrintedFloat(double value);

// One line without its newline. `index` is empty for a scalar operand;
// `operand` is -1 when the print has no operand; `numOperands` decides
// whether "(operand j) " is written.
std::string formatPrintLine(const std::array<int64_t, 3>& programId, const std::string& prefix, int operand,
                            int numOperands, const std::vector<int64_t>& index, const std::vector<int64_t>& shape,
                            const std::string& value);

}  // namespace tmetal
