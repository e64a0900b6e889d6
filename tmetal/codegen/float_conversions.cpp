#include "tmetal/codegen/float_conversions.h"

#include <cmath>

#include "tmetal/ir/float_bits.h"

namespace tmetal::codegen {

using ir::ScalarKind;

namespace {

std::string hex(uint64_t v) {
  static const char* const kDigits = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[v & 15]);
    v >>= 4;
  } while (v);
  return "0x" + out + "u";
}

}  // namespace

std::string FloatConversions::convert(const std::string& x, ScalarKind from, ScalarKind to, bool towardZero) {
  const std::string f32 = dialect_.scalarType(ScalarKind::F32);
  // Every value of f16, bf16 and the 8-bit floats is a float: go through it.
  std::string wide = x;
  if (ir::isFloat8Kind(from))
    wide = wideningHelper(from) + "(" + x + ")";
  else if (from != ScalarKind::F32)
    wide = dialect_.convert(x, f32);
  if (to == ScalarKind::F32) return wide;
  if (ir::isFloat8Kind(to)) return dialect_.convert(narrowingHelper(to, towardZero) + "(" + wide + ")", dialect_.scalarType(to));
  if (!towardZero) return dialect_.convert(wide, dialect_.scalarType(to));  // exact, or the target's rounding to nearest even
  const std::string bits = dialect_.convert(narrowingHelper(to, true) + "(" + wide + ")", dialect_.unsignedType(ScalarKind::I16));
  return dialect_.bitcast(bits, dialect_.scalarType(to));
}

std::string FloatConversions::helpers() const {
  std::string out;
  for (const auto& [name, text] : helpers_) out += text;
  return out;
}

// Rounds the float's significand to the target's mantissa in integer
// arithmetic: `kept` holds the implicit one of a normal number, so adding
// it to the exponent field below the smallest normal's makes carries (into
// the next exponent, from subnormal into normal) come out right; the code is
// then compared with the largest finite one.
std::string FloatConversions::narrowingHelper(ScalarKind to, bool towardZero) {
  const std::string name = std::string("tmetal_to_") + ir::scalarName(to) + (towardZero ? "_rtz" : "_rtne");
  if (helpers_.count(name)) return name;
  const ir::FloatFormat f = ir::floatFormat(to);
  const bool saturate = ir::isFloat8Kind(to);
  const bool fnuz = f.specials == ir::FloatFormat::Specials::NegativeZeroIsNan;
  const std::string u = dialect_.unsignedType(ScalarKind::I32);
  const int width = f.exponentBits + f.mantissaBits;
  const std::string maxFinite = hex(f.maxFiniteCode());
  const std::string infinity = hex(f.maxExponentField() << f.mantissaBits);
  // Beyond the largest finite value: saturated, or infinity (NaN where the
  // format has none); rounding toward zero keeps finite values finite.
  const std::string inf =
      saturate ? "sign | " + maxFinite
               : (f.specials == ir::FloatFormat::Specials::Ieee ? "sign | " + infinity : hex(f.nanCode(false)) + " | sign");
  const std::string finiteOverflow = towardZero ? "sign | " + maxFinite : inf;
  const std::string nan = f.specials == ir::FloatFormat::Specials::Ieee
                              ? "sign | " + infinity + " | " + hex(uint64_t{1} << (f.mantissaBits - 1))
                              : (fnuz ? hex(f.nanCode(false)) : "sign | " + hex(f.nanCode(false)));
  const std::string zero = fnuz ? "0u" : "sign";
  std::string s = dialect_.helperQualifier() + " " + u + " " + name + "(" + dialect_.scalarType(ScalarKind::F32) +
                  " x) {\n";
  s += "  " + u + " bits = " + dialect_.bitcast("x", u) + ";\n";
  s += "  " + u + " sign = (bits >> 31) << " + std::to_string(width) + ";\n";
  s += "  " + u + " magnitude = bits & 0x7fffffffu;\n";
  s += "  if (magnitude > 0x7f800000u) return " + nan + ";\n";
  s += "  if (magnitude == 0x7f800000u) return " + inf + ";\n";
  if (to == ScalarKind::BF16) {
    // Same exponent range: dropping the low half rounds toward zero.
    s += "  return bits >> 16;\n}\n";
    helpers_[name] = s;
    return name;
  }
  s += "  if (magnitude < 0x00800000u) return " + zero + ";  // float subnormals are below every subnormal here\n";
  s += "  int biased = int(magnitude >> 23) - 127 + " + std::to_string(f.bias) + ";\n";
  s += "  int shift = " + std::to_string(23 - f.mantissaBits) + ";\n";
  s += "  if (biased < 1) {\n    shift += 1 - biased;\n    biased = 1;\n  }\n";
  s += "  if (shift > 25) return " + zero + ";\n";
  s += "  " + u + " significand = (magnitude & 0x7fffffu) | 0x800000u;\n";
  s += "  " + u + " kept = significand >> shift;\n";
  if (!towardZero) {
    s += "  " + u + " rest = significand & ((1u << shift) - 1u);\n";
    s += "  " + u + " half = 1u << (shift - 1);\n";
    s += "  if (rest > half || (rest == half && (kept & 1u) != 0u)) kept += 1u;\n";
  }
  s += "  " + u + " code = (" + u + "(biased - 1) << " + std::to_string(f.mantissaBits) + ") + kept;\n";
  s += "  if (code > " + maxFinite + ") return " + finiteOverflow + ";\n";
  s += "  return code == 0u ? " + zero + " : (sign | code);\n}\n";
  helpers_[name] = s;
  return name;
}

std::string FloatConversions::wideningHelper(ScalarKind from) {
  const std::string name = std::string("tmetal_from_") + ir::scalarName(from);
  if (helpers_.count(name)) return name;
  const ir::FloatFormat f = ir::floatFormat(from);
  const std::string u = dialect_.unsignedType(ScalarKind::I32);
  const std::string f32 = dialect_.scalarType(ScalarKind::F32);
  const int width = f.exponentBits + f.mantissaBits;
  const std::string m = std::to_string(f.mantissaBits);
  std::string s = dialect_.helperQualifier() + " " + f32 + " " + name + "(" + dialect_.scalarType(from) + " x) {\n";
  s += "  " + u + " bits = " + u + "(x);\n";
  s += "  " + u + " sign = (bits >> " + std::to_string(width) + ") << 31;\n";
  s += "  " + u + " exponent = (bits >> " + m + ") & " + hex(f.maxExponentField()) + ";\n";
  s += "  " + u + " mantissa = bits & " + hex(f.mantissaMask()) + ";\n";
  const std::string quietNan = dialect_.bitcast("sign | 0x7fc00000u", f32);
  switch (f.specials) {
    case ir::FloatFormat::Specials::Ieee:
      s += "  if (exponent == " + hex(f.maxExponentField()) + ") return " +
           dialect_.bitcast("sign | 0x7f800000u | (mantissa << " + std::to_string(23 - f.mantissaBits) + ")", f32) +
           ";\n";
      break;
    case ir::FloatFormat::Specials::NanOnly:
      s += "  if ((bits & " + hex(f.signBit() - 1) + ") == " + hex(f.signBit() - 1) + ") return " + quietNan + ";\n";
      break;
    case ir::FloatFormat::Specials::NegativeZeroIsNan:
      s += "  if (bits == " + hex(f.signBit()) + ") return " + dialect_.bitcast("0x7fc00000u", f32) + ";\n";
      break;
  }
  // Subnormals: mantissa * 2^(1 - bias - mantissa bits), exact in float.
  s += "  if (exponent == 0u) {\n";
  s += "    " + f32 + " magnitude = " + f32 + "(mantissa) * " +
       dialect_.floatLiteral(std::ldexp(1.0, 1 - f.bias - f.mantissaBits), ScalarKind::F32) + ";\n";
  s += "    return sign != 0u ? -magnitude : magnitude;\n  }\n";
  s += "  return " +
       dialect_.bitcast("sign | ((exponent + " + std::to_string(127 - f.bias) + "u) << 23) | (mantissa << " +
                            std::to_string(23 - f.mantissaBits) + ")",
                        f32) +
       ";\n}\n";
  helpers_[name] = s;
  return name;
}

}  // namespace tmetal::codegen
