#include "tmetal/ir/float_bits.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace tmetal::ir {

FloatFormat floatFormat(ScalarKind kind) {
  using S = FloatFormat::Specials;
  switch (kind) {
    case ScalarKind::F16: return {5, 10, 15};
    case ScalarKind::BF16: return {8, 7, 127};
    case ScalarKind::F32: return {8, 23, 127};
    case ScalarKind::F8E4M3FN: return {4, 3, 7, S::NanOnly};
    case ScalarKind::F8E5M2: return {5, 2, 15};
    case ScalarKind::F8E4M3FNUZ: return {4, 3, 8, S::NegativeZeroIsNan};
    case ScalarKind::F8E5M2FNUZ: return {5, 2, 16, S::NegativeZeroIsNan};
    case ScalarKind::F8E4M3B11FNUZ: return {4, 3, 11, S::NegativeZeroIsNan};
    default: return {11, 52, 1023};
  }
}

uint64_t FloatFormat::mantissaMask() const { return (uint64_t{1} << mantissaBits) - 1; }
uint64_t FloatFormat::maxExponentField() const { return (uint64_t{1} << exponentBits) - 1; }
uint64_t FloatFormat::signBit() const { return uint64_t{1} << (exponentBits + mantissaBits); }

uint64_t FloatFormat::maxFiniteCode() const {
  switch (specials) {
    case Specials::Ieee: return ((maxExponentField() - 1) << mantissaBits) | mantissaMask();
    case Specials::NanOnly: return (maxExponentField() << mantissaBits) | (mantissaMask() - 1);
    case Specials::NegativeZeroIsNan: return (maxExponentField() << mantissaBits) | mantissaMask();
  }
  return 0;
}

uint64_t FloatFormat::nanCode(bool negative) const {
  const uint64_t sign = negative ? signBit() : 0;
  switch (specials) {
    case Specials::Ieee: return sign | (maxExponentField() << mantissaBits) | (uint64_t{1} << (mantissaBits - 1));
    case Specials::NanOnly: return sign | (maxExponentField() << mantissaBits) | mantissaMask();
    case Specials::NegativeZeroIsNan: return signBit();
  }
  return 0;
}

namespace {

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

// What a magnitude beyond the largest finite value becomes: the largest
// finite value when saturating or rounding toward zero (a finite value),
// else infinity, or NaN in formats without one.
uint64_t overflowCode(FloatFormat f, uint64_t sign, FloatRounding rounding, bool saturate, bool infinite) {
  if (saturate || (rounding == FloatRounding::TowardZero && !infinite)) return sign | f.maxFiniteCode();
  if (f.specials == FloatFormat::Specials::Ieee) return sign | (f.maxExponentField() << f.mantissaBits);
  return f.nanCode(sign != 0);
}

// Rounds a double to a narrower binary format.
uint64_t narrow(double value, FloatFormat f, FloatRounding rounding, bool saturate) {
  const uint64_t bits = doubleBits(value);
  const bool ieee = f.specials == FloatFormat::Specials::Ieee;
  const uint64_t sign = (bits >> 63) ? f.signBit() : 0;
  const int exponentField = static_cast<int>((bits >> 52) & 0x7ff);
  const uint64_t mantissa = bits & ((uint64_t{1} << 52) - 1);
  if (exponentField == 0x7ff) {
    if (mantissa == 0) return overflowCode(f, sign, rounding, saturate, true);
    // 8-bit floats have no room for payloads: one NaN per sign, as
    // conversion instructions give.
    if (!ieee || f.exponentBits + f.mantissaBits < 8) return f.nanCode(sign != 0);
    // Keep the top of the payload; a payload that would vanish becomes quiet.
    uint64_t payload = mantissa >> (52 - f.mantissaBits);
    if (payload == 0) payload = uint64_t{1} << (f.mantissaBits - 1);
    return sign | (f.maxExponentField() << f.mantissaBits) | payload;
  }
  // FNUZ formats have no negative zero: a result of zero is +0.
  const uint64_t zero = f.specials == FloatFormat::Specials::NegativeZeroIsNan ? 0 : sign;
  // Zeros and double subnormals are far below the smallest narrow subnormal.
  if (exponentField == 0) return zero;
  const int exponent = exponentField - 1023;
  const uint64_t significand = (uint64_t{1} << 52) | mantissa;
  int shift = 52 - f.mantissaBits;
  int biased = exponent + f.bias;
  if (biased < 1) {  // subnormal: the smallest normal's quantum
    shift += 1 - biased;
    biased = 1;
  }
  if (shift > 54) return zero;  // rounds to zero either way
  uint64_t kept = significand >> shift;
  const uint64_t rest = significand & ((uint64_t{1} << shift) - 1);
  const uint64_t half = uint64_t{1} << (shift - 1);
  if (rounding == FloatRounding::NearestEven && (rest > half || (rest == half && (kept & 1)))) ++kept;
  // `kept` holds the implicit one for normal numbers; adding it to the
  // field below the smallest normal's makes carries (into the next
  // exponent, or from subnormal into normal) come out right.
  const uint64_t code = (static_cast<uint64_t>(biased - 1) << f.mantissaBits) + kept;
  if (code == 0) return zero;
  if (code > f.maxFiniteCode()) return overflowCode(f, sign, rounding, saturate, false);
  return sign | code;
}

double widen(uint64_t bits, FloatFormat f) {
  const int total = f.exponentBits + f.mantissaBits;
  const bool negative = (bits >> total) & 1;
  const uint64_t exponentField = (bits >> f.mantissaBits) & f.maxExponentField();
  const uint64_t mantissa = bits & f.mantissaMask();
  switch (f.specials) {
    case FloatFormat::Specials::Ieee:
      if (exponentField == f.maxExponentField()) {
        uint64_t out = (uint64_t{negative} << 63) | (uint64_t{0x7ff} << 52) | (mantissa << (52 - f.mantissaBits));
        return bitsToDouble(out);
      }
      break;
    case FloatFormat::Specials::NanOnly:
      if (exponentField == f.maxExponentField() && mantissa == f.mantissaMask())
        return negative ? -std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::quiet_NaN();
      break;
    case FloatFormat::Specials::NegativeZeroIsNan:
      if ((bits & ((uint64_t{1} << (total + 1)) - 1)) == f.signBit()) return std::numeric_limits<double>::quiet_NaN();
      break;
  }
  double magnitude =
      exponentField == 0
          ? std::ldexp(static_cast<double>(mantissa), 1 - f.bias - f.mantissaBits)
          : std::ldexp(static_cast<double>(mantissa | (uint64_t{1} << f.mantissaBits)),
                       static_cast<int>(exponentField) - f.bias - f.mantissaBits);
  return negative ? -magnitude : magnitude;
}

}  // namespace

uint64_t floatToBits(double value, ScalarKind kind, FloatRounding rounding, bool saturate) {
  if (kind == ScalarKind::F64) return doubleBits(value);
  return narrow(value, floatFormat(kind), rounding, saturate);
}

double floatFromBits(uint64_t bits, ScalarKind kind) {
  if (kind == ScalarKind::F64) return bitsToDouble(bits);
  return widen(bits, floatFormat(kind));
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
    case ScalarKind::F64: return 2 + 53 * 59 / 196;
    default: return 2 + (floatFormat(kind).mantissaBits + 1) * 59 / 196;
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
  const int width = kind == ScalarKind::F64 ? 64 : floatFormat(kind).exponentBits + floatFormat(kind).mantissaBits + 1;
  std::string out = "0x";
  for (int shift = width - 4; shift >= 0; shift -= 4) out += kHex[(bits >> shift) & 15];
  return out;
}

}  // namespace tmetal::ir
