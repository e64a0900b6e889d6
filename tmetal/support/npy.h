// NumPy .npy files (format versions 1.0, 2.0 and 3.0): little-endian,
// C-order arrays of the plain dtypes b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8.
// The array is kept as raw bytes; callers interpret them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tmetal {

struct NpyArray {
  std::string dtype;           // kind and size without byte order: "f4", "u2", "b1"
  std::vector<int64_t> shape;  // empty for a 0-d array
  std::vector<uint8_t> data;   // C order, little-endian

  // Bytes per element (the digit of dtype).
  int itemSize() const;
  int64_t numElements() const;
};

// Whether `dtype` is one of the supported dtypes listed above.
bool isSupportedNpyDtype(const std::string& dtype);

// Parses the contents of a .npy file. Throws CompileError naming `filename`
// for anything malformed or unsupported.
NpyArray parseNpy(const std::vector<uint8_t>& bytes, const std::string& filename);
NpyArray readNpy(const std::string& path);

// Encodes as version 1.0 (2.0 if the header needs it), header padded to a
// multiple of 64 bytes as NumPy writes it. Throws CompileError for an
// unsupported dtype or data of the wrong size.
std::vector<uint8_t> encodeNpy(const NpyArray& array);
void writeNpy(const std::string& path, const NpyArray& array);

}  // namespace tmetal
