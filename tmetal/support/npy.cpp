#include "tmetal/support/npy.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>

#include "tmetal/support/diagnostic.h"

namespace tmetal {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLength = 6;

[[noreturn]] void fail(const std::string& filename, const std::string& message) {
  throw CompileError(SourcePos{filename, 0, 0}, message);
}

// Reads the header, a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// Only the three keys NumPy writes are accepted.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& filename) : text_(text), filename_(filename) {}

  void parse(std::string& descr, bool& fortranOrder, std::vector<int64_t>& shape) {
    bool haveDescr = false, haveOrder = false, haveShape = false;
    expect('{');
    skipSpace();
    while (peek() != '}') {
      std::string key = parseString();
      expect(':');
      if (key == "descr") {
        skipSpace();
        if (peek() != '\'' && peek() != '"') fail(filename_, "npy header: 'descr' is not a simple dtype string (structured arrays are not supported)");
        descr = parseString();
        haveDescr = true;
      } else if (key == "fortran_order") {
        fortranOrder = parseBool();
        haveOrder = true;
      } else if (key == "shape") {
        shape = parseShape();
        haveShape = true;
      } else {
        fail(filename_, "npy header: unexpected key '" + key + "'");
      }
      skipSpace();
      if (peek() == ',') ++pos_;
      skipSpace();
    }
    ++pos_;
    skipSpace();
    if (pos_ != text_.size()) fail(filename_, "npy header: unexpected text after the dictionary");
    if (!haveDescr || !haveOrder || !haveShape)
      fail(filename_, "npy header: missing one of 'descr', 'fortran_order', 'shape'");
  }

 private:
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char peek() {
    if (pos_ >= text_.size()) fail(filename_, "npy header ends early");
    return text_[pos_];
  }
  void expect(char c) {
    skipSpace();
    if (peek() != c) fail(filename_, std::string("npy header: expected '") + c + "' at offset " + std::to_string(pos_));
    ++pos_;
  }
  std::string parseString() {
    skipSpace();
    char quote = peek();
    if (quote != '\'' && quote != '"') fail(filename_, "npy header: expected a string at offset " + std::to_string(pos_));
    size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string::npos) fail(filename_, "npy header: unterminated string");
    std::string s = text_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return s;
  }
  bool parseBool() {
    skipSpace();
    if (text_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (text_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    fail(filename_, "npy header: 'fortran_order' must be True or False");
  }
  std::vector<int64_t> parseShape() {
    expect('(');
    std::vector<int64_t> shape;
    skipSpace();
    while (peek() != ')') {
      if (!std::isdigit(static_cast<unsigned char>(peek()))) fail(filename_, "npy header: bad shape entry at offset " + std::to_string(pos_));
      int64_t v = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        if (v > (INT64_MAX - 9) / 10) fail(filename_, "npy header: shape entry too large");
        v = v * 10 + (text_[pos_++] - '0');
      }
      shape.push_back(v);
      skipSpace();
      if (peek() == ',') ++pos_;
      else if (peek() != ')') fail(filename_, "npy header: expected ',' or ')' in shape");
      skipSpace();
    }
    ++pos_;
    return shape;
  }

  const std::string& text_;
  const std::string& filename_;
  size_t pos_ = 0;
};

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

// The byte-order prefix NumPy writes for a dtype: '|' for one-byte types.
std::string descrOf(const std::string& dtype) { return (dtype.back() == '1' ? "|" : "<") + dtype; }

}  // namespace

bool isSupportedNpyDtype(const std::string& dtype) {
  static const char* const kDtypes[] = {"b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8"};
  for (const char* d : kDtypes)
    if (dtype == d) return true;
  return false;
}

int NpyArray::itemSize() const { return dtype.size() == 2 ? dtype[1] - '0' : 0; }

int64_t NpyArray::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

NpyArray parseNpy(const std::vector<uint8_t>& bytes, const std::string& filename) {
  if (bytes.size() < kMagicLength + 2 || std::memcmp(bytes.data(), kMagic, kMagicLength) != 0)
    fail(filename, "not a NumPy .npy file (bad magic string)");
  int major = bytes[6];
  size_t lengthBytes = major == 1 ? 2 : (major == 2 || major == 3) ? 4 : 0;
  if (lengthBytes == 0) fail(filename, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(bytes[7]));
  size_t headerStart = 8 + lengthBytes;
  if (bytes.size() < headerStart) fail(filename, "truncated .npy header");
  size_t headerLength = 0;
  for (size_t b = 0; b < lengthBytes; ++b) headerLength |= static_cast<size_t>(bytes[8 + b]) << (8 * b);
  if (bytes.size() - headerStart < headerLength) fail(filename, "truncated .npy header");
  std::string header(bytes.begin() + headerStart, bytes.begin() + headerStart + headerLength);

  std::string descr;
  bool fortranOrder = false;
  NpyArray array;
  HeaderParser(header, filename).parse(descr, fortranOrder, array.shape);
  if (fortranOrder) fail(filename, "Fortran-order arrays are not supported; save a C-contiguous array");
  if (descr.size() != 3) fail(filename, "unsupported dtype '" + descr + "'");
  char order = descr[0];
  array.dtype = descr.substr(1);
  if (!isSupportedNpyDtype(array.dtype)) fail(filename, "unsupported dtype '" + descr + "'");
  if (order == '>' && array.itemSize() > 1) fail(filename, "big-endian arrays are not supported (dtype '" + descr + "')");
  if (order != '<' && order != '|' && order != '=' && order != '>') fail(filename, "unsupported dtype '" + descr + "'");

  size_t dataStart = headerStart + headerLength;
  size_t have = bytes.size() - dataStart;
  int64_t elements = 1;
  for (int64_t d : array.shape) {
    if (d != 0 && elements > INT64_MAX / d) fail(filename, "shape " + shapeText(array.shape) + " is too large");
    elements *= d;
  }
  if (elements > static_cast<int64_t>(have)) fail(filename, "has " + std::to_string(have) + " bytes of data, shape " + shapeText(array.shape) + " needs more");
  size_t want = static_cast<size_t>(elements) * array.itemSize();
  if (have != want)
    fail(filename, "has " + std::to_string(have) + " bytes of data, dtype '" + descr + "' and shape " +
                       shapeText(array.shape) + " need " + std::to_string(want));
  array.data.assign(bytes.begin() + dataStart, bytes.end());
  return array;
}

NpyArray readNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open file");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parseNpy(bytes, path);
}

std::vector<uint8_t> encodeNpy(const NpyArray& array) {
  if (!isSupportedNpyDtype(array.dtype)) throw CompileError("cannot write .npy with unsupported dtype '" + array.dtype + "'");
  if (static_cast<int64_t>(array.data.size()) != array.numElements() * array.itemSize())
    throw CompileError("cannot write .npy: " + std::to_string(array.data.size()) + " bytes of data for dtype '" +
                       array.dtype + "' and shape " + shapeText(array.shape));
  std::string dict = "{'descr': '" + descrOf(array.dtype) + "', 'fortran_order': False, 'shape': " + shapeText(array.shape) + ", }";
  // Like NumPy: room for the first dimension to grow to 21 digits in place,
  // then spaces so that the data starts at a multiple of 64 bytes.
  if (!array.shape.empty()) dict += std::string(21 - std::to_string(array.shape[0]).size(), ' ');
  size_t headerLength = dict.size() + 1;  // with the final newline
  // Version 1.0 stores the header length in 2 bytes; longer headers need 2.0.
  int major = headerLength + 64 > 65535 ? 2 : 1;
  size_t prefix = major == 1 ? 10 : 12;
  size_t padding = 64 - (prefix + headerLength) % 64;
  std::string header = dict + std::string(padding, ' ') + "\n";

  std::vector<uint8_t> out(kMagic, kMagic + kMagicLength);
  out.push_back(static_cast<uint8_t>(major));
  out.push_back(0);
  for (size_t b = 0; b < prefix - 8; ++b) out.push_back(static_cast<uint8_t>(header.size() >> (8 * b)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), array.data.begin(), array.data.end());
  return out;
}

void writeNpy(const std::string& path, const NpyArray& array) {
  std::vector<uint8_t> bytes = encodeNpy(array);
  std::ofstream out(path, std::ios::binary);
  if (!out) fail(path, "cannot open file for writing");
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) fail(path, "cannot write file");
}

}  // namespace tmetal
