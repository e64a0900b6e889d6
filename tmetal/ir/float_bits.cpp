#include "tmetal/ir/float_bits.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tmetal::ir {

namespace {

struct FloatFormat {
  int exponentBits;
  int mantissaBits;
};

FloatFormat formatOf(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::F16: return {5, 10};
    case ScalarKind::BF16: return {8, 7};
    case ScalarKind::F32: return {8, 23};
    default: return {11, 52};
  }
}

uint64_t doubleBits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

double bitsToDouble(uint64_t b) {
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// Rounds a double to a narrower IEEE binary format, to nearest even.
uint64_t narrow(double value, FloatFormat f) {
  const uint64_t bits = doubleBits(value);
  const uint64_t sign = (bits >> 63) << (f.exponentBits + f.mantissaBits);
  const int exponentField = static_cast<int>((bits >> 52) & 0x7ff);
  const uint64_t mantissa = bits & ((uint64_t{1} << 52) - 1);
  const int maxField = (1 << f.exponentBits) - 1;
  const uint64_t infinity = static_cast<uint64_t>(maxField) << f.mantissaBits;
  if (exponentField == 0x7ff) {
    if (mantissa == 0) return sign | infinity;
    // Keep the top of the payload; a payload that would vanish becomes quiet.
    uint64_t payload = mantissa >> (52 - f.mantissaBits);
    if (payload == 0) payload = uint64_t{1} << (f.mantissaBits - 1);
    return sign | infinity | payload;
  }
  // Zeros and double subnormals are far below the smallest narrow subnormal.
  if (exponentField == 0) return sign;
  const int bias = (1 << (f.exponentBits - 1)) - 1;
  int exponent = exponentField - 1023;
  const uint64_t significand = (uint64_t{1} << 52) | mantissa;
  int shift = 52 - f.mantissaBits;
  const bool subnormal = exponent < 1 - bias;
  if (subnormal) shift += (1 - bias) - exponent;
  if (shift > 54) return sign;  // rounds to zero
  uint64_t kept = significand >> shift;
  const uint64_t rest = significand & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) ++kept;
  if (subnormal) return sign | kept;  // a carry into bit mantissaBits makes the smallest normal
  if (kept == (uint64_t{1} << (f.mantissaBits + 1))) {
    kept >>= 1;
    ++exponent;
  }
  if (exponent > bias) return sign | infinity;
  const uint64_t field = static_cast<uint64_t>(exponent + bias) << f.mantissaBits;
  return sign | field | (kept & ((uint64_t{1} << f.mantissaBits) - 1));
}

double widen(uint64_t bits, FloatFormat f) {
  const int total = f.exponentBits + f.mantissaBits;
  const bool negative = (bits >> total) & 1;
  const int exponentField = static_cast<int>((bits >> f.mantissaBits) & ((uint64_t{1} << f.exponentBits) - 1));
  const uint64_t mantissa = bits & ((uint64_t{1} << f.mantissaBits) - 1);
  const int maxField = (1 << f.exponentBits) - 1;
  const int bias = (1 << (f.exponentBits - 1)) - 1;
  if (exponentField == maxField) {
    uint64_t out = (uint64_t{negative} << 63) | (uint64_t{0x7ff} << 52) | (mantissa << (52 - f.mantissaBits));
    return bitsToDouble(out);
  }
  double magnitude = exponentField == 0 ? std::ldexp(static_cast<double>(mantissa), 1 - bias - f.mantissaBits)
                                        : std::ldexp(static_cast<double>(mantissa | (uint64_t{1} << f.mantissaBits)),
                                                     exponentField - bias - f.mantissaBits);
  return negative ? -magnitude : magnitude;
}

}  // namespace

uint64_t floatToBits(double value, ScalarKind kind) {
  if (kind == ScalarKind::F64) return doubleBits(value);
  return narrow(value, formatOf(kind));
}

double floatFromBits(uint64_t bits, ScalarKind kind) {
  if (kind == ScalarKind::F64) return bitsToDouble(bits);
  return widen(bits, formatOf(kind));
}

double roundToFloat(double value, ScalarKind kind) { return floatFromBits(floatToBits(value, kind), kind); }

namespace {

// The significant decimal digits of |value| (exact, no trailing zeros) and
// the power of ten of the last one: |value| = digits * 10^exponent.
struct Decimal {
  std::string digits;
  int exponent = 0;
};

Decimal exactDecimal(double value) {
  // 780 digits after the point hold every double exactly.
  char text[900];
  std::snprintf(text, sizeof text, "%.780e", std::fabs(value));
  std::string mantissa = std::string(1, text[0]) + std::string(text + 2, 780);
  const char* e = std::strchr(text, 'e');
  int scientificExponent = std::atoi(e + 1);
  size_t last = mantissa.find_last_not_of('0');
  mantissa.resize(last == std::string::npos ? 1 : last + 1);
  return {mantissa, scientificExponent - static_cast<int>(mantissa.size()) + 1};
}

// Keeps `precision` significant digits; a first dropped digit of 5 or more
// rounds up (as LLVM's APFloat::toString does).
void roundDigits(Decimal& d, size_t precision) {
  if (d.digits.size() <= precision) return;
  const bool up = d.digits[precision] >= '5';
  d.exponent += static_cast<int>(d.digits.size() - precision);
  d.digits.resize(precision);
  if (up) {
    size_t i = d.digits.size();
    while (i > 0 && d.digits[i - 1] == '9') d.digits[--i] = '0';
    if (i == 0) {
      d.digits.insert(d.digits.begin(), '1');
      d.digits.pop_back();
      ++d.exponent;
    } else {
      ++d.digits[i - 1];
    }
  }
  size_t last = d.digits.find_last_not_of('0');
  d.exponent += static_cast<int>(d.digits.size() - (last + 1));
  d.digits.resize(last + 1);
}

// LLVM's APFloat::toString(precision, maxPadding, truncateZero) for a
// finite value: MLIR prints float attributes with it, so following it
// exactly makes printed TTIR match Triton's text.
std::string apfloatText(double value, unsigned precision, unsigned maxPadding, bool truncateZero) {
  std::string out = std::signbit(value) ? "-" : "";
  if (value == 0) {
    if (maxPadding != 0) return out + "0";
    if (truncateZero) return out + "0.0E+0";
    return out + "0.0" + std::string(precision > 1 ? precision - 1 : 0, '0') + "e+00";
  }
  Decimal d = exactDecimal(value);
  roundDigits(d, precision);
  const int n = static_cast<int>(d.digits.size());
  int exp = d.exponent;
  bool scientific;
  if (maxPadding == 0) {
    scientific = true;
  } else if (exp >= 0) {
    scientific = exp > static_cast<int>(maxPadding) || n + exp > static_cast<int>(precision);
  } else {
    int msd = exp + n - 1;
    scientific = msd < 0 && -msd > static_cast<int>(maxPadding);
  }
  if (scientific) {
    exp += n - 1;
    out += d.digits[0];
    out += '.';
    if (n == 1 && truncateZero)
      out += '0';
    else
      out += d.digits.substr(1);
    if (!truncateZero && static_cast<int>(precision) > n - 1) out += std::string(precision - n + 1, '0');
    out += truncateZero ? 'E' : 'e';
    out += exp >= 0 ? '+' : '-';
    std::string e = std::to_string(exp < 0 ? -exp : exp);
    if (!truncateZero && e.size() < 2) e = "0" + e;
    return out + e;
  }
  if (exp >= 0) return out + d.digits + std::string(static_cast<size_t>(exp), '0');
  const int whole = exp + n;
  if (whole > 0) return out + d.digits.substr(0, whole) + "." + d.digits.substr(whole);
  return out + "0." + std::string(static_cast<size_t>(-whole), '0') + d.digits;
}

// Significant decimal digits that always give back the same value
// (LLVM: 2 + precision * 59 / 196).
unsigned roundTripDigits(ScalarKind kind) {
  switch (kind) {
    case ScalarKind::F16: return 2 + 11 * 59 / 196;
    case ScalarKind::BF16: return 2 + 8 * 59 / 196;
    case ScalarKind::F32: return 2 + 24 * 59 / 196;
    default: return 2 + 53 * 59 / 196;
  }
}

}  // namespace

std::string formatFloatLiteral(double value, ScalarKind kind) {
  if (!isFloatKind(kind)) kind = ScalarKind::F64;
  const uint64_t bits = floatToBits(value, kind);
  if (std::isfinite(value)) {
    // As MLIR: six digits in scientific form when that reads back exactly,
    // else the shortest form known to, if it has a decimal point.
    std::string text = apfloatText(value, 6, 0, false);
    if (floatToBits(std::strtod(text.c_str(), nullptr), kind) == bits) return text;
    text = apfloatText(value, roundTripDigits(kind), 3, true);
    if (text.find('.') != std::string::npos) return text;
  }
  static const char* const kHex = "0123456789ABCDEF";
  const int width = kind == ScalarKind::F64 ? 64 : formatOf(kind).exponentBits + formatOf(kind).mantissaBits + 1;
  std::string out = "0x";
  for (int shift = width - 4; shift >= 0; shift -= 4) out += kHex[(bits >> shift) & 15];
  return out;
}

}  // namespace tmetal::ir
