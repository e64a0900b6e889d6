// .npy reading and writing: byte-identical to NumPy's own files, all three
// format versions read, malformed files rejected with the file named.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tmetal/support/diagnostic.h"
#include "tmetal/support/npy.h"

using namespace tmetal;

namespace {

std::vector<uint8_t> bytesOf(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

// A file as NumPy 2 writes np.arange(3, dtype='<i2') with np.save.
std::vector<uint8_t> numpyArange3() {
  std::string dict = "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }";
  std::string header = dict + std::string(118 - 1 - dict.size(), ' ') + "\n";
  std::string file = std::string("\x93NUMPY\x01\x00", 8) + std::string("\x76\x00", 2) + header;
  file += std::string("\x00\x00\x01\x00\x02\x00", 6);
  return bytesOf(file);
}

// A file with the given version and header dict, followed by `data`.
std::vector<uint8_t> npyFile(int major, const std::string& dict, const std::string& data) {
  std::string header = dict + "\n";
  std::string file = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
  size_t n = header.size();
  file += static_cast<char>(n & 0xFF);
  file += static_cast<char>(n >> 8);
  if (major >= 2) file += std::string(2, '\0');
  return bytesOf(file + header + data);
}

std::string parseError(const std::vector<uint8_t>& bytes) {
  try {
    parseNpy(bytes, "in.npy");
  } catch (const CompileError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST(SupportNpy, ReadsWhatNumPyWrites) {
  NpyArray a = parseNpy(numpyArange3(), "a.npy");
  EXPECT_EQ(a.dtype, "i2");
  EXPECT_EQ(a.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(a.data, (std::vector<uint8_t>{0, 0, 1, 0, 2, 0}));
  EXPECT_EQ(a.itemSize(), 2);
}

TEST(SupportNpy, WritesExactlyWhatNumPyWrites) {
  NpyArray a{"i2", {3}, {0, 0, 1, 0, 2, 0}};
  EXPECT_EQ(encodeNpy(a), numpyArange3());
}

TEST(SupportNpy, RoundTripsEveryDtypeAndShape) {
  for (const char* dtype : {"b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8"}) {
    for (const std::vector<int64_t>& shape : {std::vector<int64_t>{}, {5}, {2, 3}, {2, 1, 4}, {0, 7}}) {
      NpyArray a{dtype, shape, {}};
      for (int64_t i = 0; i < a.numElements() * a.itemSize(); ++i) a.data.push_back(static_cast<uint8_t>(i * 7 + 1));
      std::vector<uint8_t> bytes = encodeNpy(a);
      size_t headerEnd = bytes.size() - a.data.size();
      EXPECT_EQ(headerEnd % 64, 0u) << dtype;
      NpyArray back = parseNpy(bytes, "round.npy");
      EXPECT_EQ(back.dtype, a.dtype);
      EXPECT_EQ(back.shape, a.shape);
      EXPECT_EQ(back.data, a.data);
    }
  }
}

TEST(SupportNpy, ReadsVersionsTwoAndThree) {
  for (int major : {2, 3}) {
    NpyArray a = parseNpy(npyFile(major, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string("\x00\x00\x80\x3F", 4)), "v.npy");
    EXPECT_EQ(a.dtype, "f4");
    EXPECT_EQ(a.data, (std::vector<uint8_t>{0, 0, 0x80, 0x3F}));
  }
}

TEST(SupportNpy, FilesOnDisk) {
  std::string path = ::testing::TempDir() + "tmetal_npy_test.npy";
  NpyArray a{"u1", {2, 2}, {1, 2, 3, 4}};
  writeNpy(path, a);
  NpyArray back = readNpy(path);
  EXPECT_EQ(back.data, a.data);
  std::remove(path.c_str());
  try {
    readNpy(path);
    FAIL() << "reading a missing file must fail";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": error: cannot open file");
  }
}

TEST(SupportNpy, MalformedFilesAreRejectedNamingTheFile) {
  const std::string ok = "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }";
  const std::string eightBytes(8, '\0');
  EXPECT_EQ(parseError(bytesOf("PK\x03\x04 not npy")), "in.npy: error: not a NumPy .npy file (bad magic string)");
  EXPECT_EQ(parseError(npyFile(4, ok, eightBytes)), "in.npy: error: unsupported .npy format version 4.0");
  EXPECT_EQ(parseError(npyFile(1, ok, std::string(7, '\0'))),
            "in.npy: error: has 7 bytes of data, dtype '<i4' and shape (2,) need 8");
  EXPECT_EQ(parseError(npyFile(1, ok, std::string(9, '\0'))),
            "in.npy: error: has 9 bytes of data, dtype '<i4' and shape (2,) need 8");
  EXPECT_EQ(parseError(npyFile(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", eightBytes)),
            "in.npy: error: unsupported dtype '<c8'");
  EXPECT_EQ(parseError(npyFile(1, "{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }", eightBytes)),
            "in.npy: error: big-endian arrays are not supported (dtype '>i4')");
  EXPECT_EQ(parseError(npyFile(1, "{'descr': '<i4', 'fortran_order': True, 'shape': (2,), }", eightBytes)),
            "in.npy: error: Fortran-order arrays are not supported; save a C-contiguous array");
  EXPECT_EQ(parseError(npyFile(1, "{'descr': '<i4', 'shape': (2,), }", eightBytes)),
            "in.npy: error: npy header: missing one of 'descr', 'fortran_order', 'shape'");
  EXPECT_EQ(parseError(npyFile(1, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (2,), }", eightBytes)),
            "in.npy: error: npy header: 'descr' is not a simple dtype string (structured arrays are not supported)");
  EXPECT_EQ(parseError(npyFile(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, x), }", eightBytes)),
            "in.npy: error: npy header: bad shape entry at offset 54");
  EXPECT_EQ(parseError(npyFile(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,)", eightBytes)),
            "in.npy: error: npy header ends early");
  std::vector<uint8_t> truncated = numpyArange3();
  truncated.resize(40);
  EXPECT_EQ(parseError(truncated), "in.npy: error: truncated .npy header");
}
