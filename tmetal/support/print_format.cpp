#include "tmetal/support/print_format.h"

#include <cinttypes>
#include <cstdio>

namespace tmetal {

namespace {
int digits(int64_t v) {
  int n = 1;
  while (v >= 10) {
    v /= 10;
    ++n;
  }
  return n;
}
}  // namespace

std::vector<int64_t> unflattenIndex(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 0) continue;
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

std::string formatIndex(const std::vector<int64_t>& index) {
  std::string s = "[";
  for (size_t d = 0; d < index.size(); ++d) s += (d ? ", " : "") + std::to_string(index[d]);
  return s + "]";
}

std::string formatPrintedInteger(uint64_t bits, const PrintedType& type, bool hex) {
  const uint64_t mask = type.bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << type.bits) - 1;
  char text[32];
  if (type.isPointer) {
    std::snprintf(text, sizeof text, "0x%" PRIx64, bits);
  } else if (hex) {
    const int width = type.bits <= 8 ? 2 : type.bits / 4;
    std::snprintf(text, sizeof text, "0x%0*" PRIx64, width, bits & mask);
  } else if (type.isSigned && type.bits > 1) {
    // Sign-extend from the type's width.
    const uint64_t sign = uint64_t{1} << (type.bits - 1);
    const int64_t value = type.bits >= 64 ? static_cast<int64_t>(bits)
                                          : static_cast<int64_t>(((bits & mask) ^ sign)) - static_cast<int64_t>(sign);
    std::snprintf(text, sizeof text, "%" PRId64, value);
  } else {
    std::snprintf(text, sizeof text, "%" PRIu64, bits & mask);
  }
  return text;
}

std::string formatPrintedFloat(double value) {
  char text[400];
  std::snprintf(text, sizeof text, "%f", value);
  return text;
}

std::string formatPrintLine(const std::array<int64_t, 3>& programId, const std::string& prefix, int operand,
                            int numOperands, const std::vector<int64_t>& index, const std::vector<int64_t>& shape,
                            const std::string& value) {
  std::string line = "pid (" + std::to_string(programId[0]) + ", " + std::to_string(programId[1]) + ", " +
                     std::to_string(programId[2]) + ")";
  if (operand < 0) return line + prefix;
  line += " idx (";
  for (size_t d = 0; d < index.size(); ++d) {
    char text[32];
    std::snprintf(text, sizeof text, "%*" PRId64, digits(d < shape.size() ? shape[d] - 1 : 0), index[d]);
    line += (d ? ", " : "") + std::string(text);
  }
  line += ")" + prefix;
  if (numOperands > 1) line += "(operand " + std::to_string(operand) + ") ";
  return line + value;
}

}  // namespace tmetal
