// Arithmetic in a named rounding mode. Metal cannot set the rounding mode of
// an operation, so these are software floating point: the exact result's
// significand in a 64-bit integer (a sum aligned with one bit below the
// last kept, a 48-bit product, a product plus an addend, a 41-bit quotient
// or a 32-bit square root, each with a sticky bit for what it cannot hold),
// rounded once by tmetal_round_float in the mode asked for. Slow next to the
// hardware's operations, and exact in every mode: the same code runs on both
// targets, bit for bit, and the tests hold it to the host FPU's directed
// roundings.
// Modes: 0 to nearest even, 1 toward zero, 2 down, 3 up.
#include <deque>
#include <string>

#include "tmetal/codegen/libdevice/libdevice_helpers.h"

namespace tmetal::codegen {

namespace {

// One helper per (operation, mode) pair: tmetal_<op>_<mode>(args) calls the
// mode-taking core.
LibdeviceHelper modeWrapper(std::string_view name, std::string_view core, std::string_view signature,
                            std::string_view call) {
  static std::deque<std::string> texts;  // owns the text the string_views point at (a deque: stable)
  texts.push_back("@helper " + std::string(signature) + " {\n  return " + std::string(call) + ";\n}\n");
  return {name, {core}, texts.back()};
}

std::vector<LibdeviceHelper> build() {
  std::vector<LibdeviceHelper> helpers = {
      {"tmetal_round_float", {"tmetal_clzll"}, R"(@helper float tmetal_round_float(uint sign, int exponent, ulong sig, int mode) {
  // sign * sig * 2^exponent, rounded to float in `mode`; sig's lowest bit is
  // sticky (set when anything nonzero lies below it), so it is never a tie.
  if (sig == 0ul) return @as_float(sign << 31);
  int lead = 63 - tmetal_clzll(long(sig));
  int e = lead + exponent;  // the unbiased exponent of the result
  ulong maxFinite = ulong(sign << 31) | 0x7f7ffffful;
  ulong infinity = ulong(sign << 31) | 0x7f800000ul;
  bool awayFromZero = (mode == 2 && sign != 0u) || (mode == 3 && sign == 0u);
  if (e > 127) return @as_float(uint(mode == 0 || awayFromZero ? infinity : maxFinite));
  // Bits of sig kept: 24 for normal results, fewer below 2^-126.
  int shift = lead - 23 + (e < -126 ? -126 - e : 0);
  ulong kept, rest = 0ul, half = 0ul;
  if (shift <= 0) {
    kept = sig << uint(-shift);
  } else if (shift < 64) {
    kept = sig >> uint(shift);
    rest = sig & ((1ul << uint(shift)) - 1ul);
    half = 1ul << uint(shift - 1);
  } else {
    kept = 0ul;
    rest = sig;
    half = shift == 64 ? 0x8000000000000000ul : 0xfffffffffffffffful;  // past 64: below any half
  }
  bool up = mode == 0 ? (rest > half || (rest == half && (kept & 1ul) != 0ul)) : (awayFromZero && rest != 0ul);
  if (up) kept += 1ul;
  // Normal: the biased exponent field plus the significand with its leading
  // one (which adds the last 1 to the field); a carry moves to the next
  // exponent by itself. Subnormal: the significand alone.
  ulong bits = e < -126 ? kept : (ulong(e + 126) << 23) + kept;
  if (bits >= 0x7f800000ul) return @as_float(uint(mode == 0 || awayFromZero ? infinity : maxFinite));
  return @as_float((sign << 31) | uint(bits));
}
)"},
      // A finite nonzero float as m * 2^e with m < 2^24 (the leading one of a
      // normal number included).
      {"tmetal_significand", {}, R"(@helper uint tmetal_significand(float x) {
  uint bits = @as_uint(x) & 0x7fffffffu;
  return bits >= 0x00800000u ? (bits & 0x007fffffu) | 0x00800000u : bits;
}
)"},
      {"tmetal_exponent", {}, R"(@helper int tmetal_exponent(float x) {
  uint bits = @as_uint(x) & 0x7fffffffu;
  return bits >= 0x00800000u ? int(bits >> 23) - 150 : -149;
}
)"},
      {"tmetal_add_in_mode", {"tmetal_round_float", "tmetal_significand", "tmetal_exponent"},
       R"(@helper float tmetal_add_in_mode(float a, float b, int mode) {
  if (a != a || b != b || @fabs(a) == @inf || @fabs(b) == @inf) return a + b;  // exact in every mode
  uint sa = @as_uint(a) >> 31, sb = @as_uint(b) >> 31;
  if (a == 0.0f && b == 0.0f) {
    // -0 only for -0 + -0, and rounding down for any sum of zeros but +0 + +0.
    bool negative = mode == 2 ? (sa | sb) != 0u : (sa & sb) != 0u;
    return negative ? -0.0f : 0.0f;
  }
  // a the larger in exponent: the other is aligned below it.
  if (tmetal_exponent(b) > tmetal_exponent(a) || (tmetal_exponent(b) == tmetal_exponent(a) &&
                                                  tmetal_significand(b) > tmetal_significand(a))) {
    float t = a; a = b; b = t;
    uint u = sa; sa = sb; sb = u;
  }
  int d = tmetal_exponent(a) - tmetal_exponent(b);
  ulong big = ulong(tmetal_significand(a)) << 38;
  ulong small = ulong(tmetal_significand(b)) << 37;
  ulong aligned = d < 64 ? small >> uint(d) : 0ul;
  ulong lost = (d < 64 ? (aligned << uint(d)) != small : small != 0ul) ? 1ul : 0ul;
  aligned = (aligned << 1) | lost;  // a half unit stands for whatever was lost: never a tie
  ulong sig = sa == sb ? big + aligned : big - aligned;
  if (sig == 0ul) return mode == 2 ? -0.0f : 0.0f;  // x + (-x)
  return tmetal_round_float(sa, tmetal_exponent(a) - 38, sig, mode);
}
)"},
      {"tmetal_mul_in_mode", {"tmetal_round_float", "tmetal_significand", "tmetal_exponent"},
       R"(@helper float tmetal_mul_in_mode(float a, float b, int mode) {
  if (a != a || b != b || @fabs(a) == @inf || @fabs(b) == @inf || a == 0.0f || b == 0.0f) return a * b;
  uint sign = (@as_uint(a) ^ @as_uint(b)) >> 31;
  ulong product = ulong(tmetal_significand(a)) * ulong(tmetal_significand(b));
  return tmetal_round_float(sign, tmetal_exponent(a) + tmetal_exponent(b), product, mode);
}
)"},
      // a * b + c rounded once: the 48-bit product and c's significand, each
      // moved up to bit 61, the smaller in exponent aligned below the larger
      // as in tmetal_add_in_mode. A product keeps at least 14 zero bits below
      // it and c 38, so an alignment by fewer loses nothing; past that, the
      // sum's leading bit stays at 60 or above, far above the sticky bit.
      {"tmetal_fma_in_mode", {"tmetal_round_float", "tmetal_significand", "tmetal_exponent", "tmetal_clzll",
                              "tmetal_add_in_mode", "tmetal_mul_in_mode"},
       R"(@helper float tmetal_fma_in_mode(float a, float b, float c, int mode) {
  // NaN or infinity, the same in every mode; a finite product is exact
  // beside an infinite c (a * b + c could overflow to the other infinity).
  bool productFinite = @fabs(a) < @inf && @fabs(b) < @inf;  // false for NaN too
  if (!productFinite) return a * b + c;
  if (!(@fabs(c) < @inf)) return c;
  if (a == 0.0f || b == 0.0f) return tmetal_add_in_mode(a * b, c, mode);  // a signed zero product
  if (c == 0.0f) return tmetal_mul_in_mode(a, b, mode);
  uint sp = (@as_uint(a) ^ @as_uint(b)) >> 31, sc = @as_uint(c) >> 31;
  ulong p = ulong(tmetal_significand(a)) * ulong(tmetal_significand(b));
  int ep = tmetal_exponent(a) + tmetal_exponent(b);
  ulong q = ulong(tmetal_significand(c));
  int eq = tmetal_exponent(c);
  int up = 61 - (63 - tmetal_clzll(long(p))), uq = 61 - (63 - tmetal_clzll(long(q)));
  p <<= uint(up);
  ep -= up;
  q <<= uint(uq);
  eq -= uq;
  if (eq > ep || (eq == ep && q > p)) {
    ulong t = p; p = q; q = t;
    int e = ep; ep = eq; eq = e;
    uint u = sp; sp = sc; sc = u;
  }
  int d = ep - eq;
  ulong small = q >> 1;  // q's lowest bit is zero: nothing lost
  ulong aligned = d < 64 ? small >> uint(d) : 0ul;
  ulong lost = (d < 64 ? (aligned << uint(d)) != small : small != 0ul) ? 1ul : 0ul;
  aligned = (aligned << 1) | lost;  // a half unit stands for whatever was lost: never a tie
  ulong sig = sp == sc ? p + aligned : p - aligned;
  if (sig == 0ul) return mode == 2 ? -0.0f : 0.0f;  // x + (-x)
  return tmetal_round_float(sp, ep, sig, mode);
}
)"},
      {"tmetal_normalized_significand", {"tmetal_clzll", "tmetal_significand"},
       R"(@helper uint tmetal_normalized_significand(float x) {
  // The significand moved up to 24 bits (subnormals too).
  uint m = tmetal_significand(x);
  return m << uint(tmetal_clzll(long(m)) - 40);
}
)"},
      {"tmetal_div_in_mode",
       {"tmetal_round_float", "tmetal_exponent", "tmetal_significand", "tmetal_normalized_significand", "tmetal_clzll"},
       R"(@helper float tmetal_div_in_mode(float a, float b, int mode) {
  if (a != a || b != b || @fabs(a) == @inf || @fabs(b) == @inf || a == 0.0f || b == 0.0f) return a / b;
  uint sign = (@as_uint(a) ^ @as_uint(b)) >> 31;
  ulong ma = ulong(tmetal_normalized_significand(a)), mb = ulong(tmetal_normalized_significand(b));
  int ea = tmetal_exponent(a) - (tmetal_clzll(long(tmetal_significand(a))) - 40);
  int eb = tmetal_exponent(b) - (tmetal_clzll(long(tmetal_significand(b))) - 40);
  ulong q = (ma << 40) / mb;  // 40 or 41 bits
  ulong sticky = (ma << 40) - q * mb != 0ul ? 1ul : 0ul;
  return tmetal_round_float(sign, ea - eb - 41, (q << 1) | sticky, mode);
}
)"},
      {"tmetal_sqrt_in_mode",
       {"tmetal_round_float", "tmetal_exponent", "tmetal_significand", "tmetal_normalized_significand", "tmetal_clzll"},
       R"(@helper float tmetal_sqrt_in_mode(float x, int mode) {
  if (x == 0.0f || x != x || x == @inf) return x;  // sqrt(-0) is -0
  if (x < 0.0f) return @nan;
  ulong m = ulong(tmetal_normalized_significand(x));
  int e = tmetal_exponent(x) - (tmetal_clzll(long(tmetal_significand(x))) - 40);
  if ((e & 1) != 0) {
    m <<= 1;
    e -= 1;
  }
  // The integer square root of m * 2^38 (31 or 32 bits), one bit at a time.
  ulong radicand = m << 38, root = 0ul, remainder = 0ul;
  for (int i = 31; i >= 0; --i) {
    remainder = (remainder << 2) | ((radicand >> uint(2 * i)) & 3ul);
    ulong trial = (root << 2) | 1ul;
    root <<= 1;
    if (remainder >= trial) {
      remainder -= trial;
      root |= 1ul;
    }
  }
  ulong sticky = remainder != 0ul ? 1ul : 0ul;
  return tmetal_round_float(0u, (e - 38) / 2 - 1, (root << 1) | sticky, mode);
}
)"},
      // Whether 1/sqrt(m * 2^e) lies below the midpoint between the positive
      // normal float `bits` (Y * 2^f) and the next float up, (2Y+1) * 2^(f-1):
      // whether (2Y+1)^2 * m * 2^(2f-2+e) > 1. The product, up to 74 bits, is
      // no power of two ((2Y+1)^2 is odd and above 1), so its bit length
      // decides; the bits above its lowest 25 fit in 64.
      {"tmetal_rsqrt_below_upper_midpoint", {"tmetal_clzll"},
       R"(@helper bool tmetal_rsqrt_below_upper_midpoint(uint bits, uint m, int e) {
  ulong odd = ulong((bits & 0x007fffffu) | 0x00800000u) * 2ul + 1ul;
  int f = int(bits >> 23) - 150;
  ulong p = odd * odd;
  ulong top = (p >> 25) * ulong(m) + (((p & 0x1fffffful) * ulong(m)) >> 25);
  int length = 64 - tmetal_clzll(long(top)) + 25;
  return length - 1 + 2 * f - 2 + e >= 0;
}
)"},
      // 1/sqrt(x) rounded once to nearest: the target's rsqrt of x's
      // significand (moved into [1, 4), so that no subnormal reaches it) as
      // an estimate within a few ulps, then the float whose two midpoints
      // enclose the exact value. The result is always a normal float.
      {"tmetal_frsqrt_rn",
       {"tmetal_rsqrt_below_upper_midpoint", "tmetal_significand", "tmetal_exponent",
        "tmetal_normalized_significand", "tmetal_clzll"},
       R"(@helper float tmetal_frsqrt_rn(float x) {
  if (x == 0.0f) return 1.0f / x;  // rsqrt(-0) is -inf
  if (!(x > 0.0f)) return @nan;
  if (x == @inf) return 0.0f;
  uint m = tmetal_significand(x);
  int e = tmetal_exponent(x);
  int k = e + 23 - (tmetal_clzll(long(m)) - 40);  // x = t * 2^k, t in [1, 2)
  float t = @as_float(0x3f800000u | (tmetal_normalized_significand(x) & 0x007fffffu));
  if ((k & 1) != 0) {
    t *= 2.0f;
    k -= 1;
  }
  uint bits = @as_uint(@ldexp(@rsqrt(t), -k / 2));
  for (int i = 0; i < 8; ++i) {
    if (!tmetal_rsqrt_below_upper_midpoint(bits, m, e))
      bits += 1u;
    else if (tmetal_rsqrt_below_upper_midpoint(bits - 1u, m, e))
      bits -= 1u;
    else
      break;
  }
  return @as_float(bits);
}
)"},
      {"tmetal_integer_to_float", {"tmetal_round_float"}, R"(@helper float tmetal_integer_to_float(uint sign, ulong magnitude, int mode) {
  // Whole numbers have nothing below their last bit: room for the sticky bit.
  if ((magnitude >> 63) != 0ul) return tmetal_round_float(sign, 0, (magnitude >> 1) | (magnitude & 1ul), mode) * 2.0f;
  return tmetal_round_float(sign, -1, magnitude << 1, mode);
}
)"},
  };
  const char* modes[] = {"rn", "rz", "rd", "ru"};
  for (int mode = 0; mode < 4; ++mode) {
    const std::string m = modes[mode], k = std::to_string(mode);
    auto add = [&](const std::string& name, const char* core, const std::string& signature, const std::string& call) {
      static std::deque<std::string> names;
      names.push_back(name);
      helpers.push_back(modeWrapper(names.back(), core, signature, call));
    };
    if (mode != 0) {
      add("tmetal_fadd_" + m, "tmetal_add_in_mode", "float tmetal_fadd_" + m + "(float a, float b)",
          "tmetal_add_in_mode(a, b, " + k + ")");
      add("tmetal_fsub_" + m, "tmetal_add_in_mode", "float tmetal_fsub_" + m + "(float a, float b)",
          "tmetal_add_in_mode(a, -b, " + k + ")");
      add("tmetal_fmul_" + m, "tmetal_mul_in_mode", "float tmetal_fmul_" + m + "(float a, float b)",
          "tmetal_mul_in_mode(a, b, " + k + ")");
      add("tmetal_fmaf_" + m, "tmetal_fma_in_mode", "float tmetal_fmaf_" + m + "(float a, float b, float c)",
          "tmetal_fma_in_mode(a, b, c, " + k + ")");
      add("tmetal_int2float_" + m, "tmetal_integer_to_float", "float tmetal_int2float_" + m + "(int x)",
          "tmetal_integer_to_float(x < 0 ? 1u : 0u, x < 0 ? 0ul - ulong(long(x)) : ulong(x), " + k + ")");
      add("tmetal_uint2float_" + m, "tmetal_integer_to_float", "float tmetal_uint2float_" + m + "(uint x)",
          "tmetal_integer_to_float(0u, ulong(x), " + k + ")");
      add("tmetal_ll2float_" + m, "tmetal_integer_to_float", "float tmetal_ll2float_" + m + "(long x)",
          "tmetal_integer_to_float(x < 0 ? 1u : 0u, x < 0 ? 0ul - ulong(x) : ulong(x), " + k + ")");
      add("tmetal_ull2float_" + m, "tmetal_integer_to_float", "float tmetal_ull2float_" + m + "(ulong x)",
          "tmetal_integer_to_float(0u, x, " + k + ")");
    }
    add("tmetal_fdiv_" + m, "tmetal_div_in_mode", "float tmetal_fdiv_" + m + "(float a, float b)",
        "tmetal_div_in_mode(a, b, " + k + ")");
    add("tmetal_frcp_" + m, "tmetal_div_in_mode", "float tmetal_frcp_" + m + "(float x)",
        "tmetal_div_in_mode(1.0f, x, " + k + ")");
    add("tmetal_fsqrt_" + m, "tmetal_sqrt_in_mode", "float tmetal_fsqrt_" + m + "(float x)",
        "tmetal_sqrt_in_mode(x, " + k + ")");
  }
  // To integers: round in float (exact), then saturate as the GPUs'
  // conversion instructions do; NaN converts to 0.
  const char* rounders[] = {"@rint", "@trunc", "@floor", "@ceil"};
  static std::deque<std::string> texts, names;
  struct Target {
    const char* suffix;
    const char* type;
    const char* low;
    const char* high;  // the first float beyond the range: 2^31, 2^32, 2^63, 2^64
    const char* lowest;
    const char* highest;
  };
  const Target targets[] = {
      {"int", "int", "-2147483648.0f", "2147483648.0f", "int(-2147483647 - 1)", "2147483647"},
      {"uint", "uint", "0.0f", "4294967296.0f", "0u", "4294967295u"},
      {"ll", "long", "-9223372036854775808.0f", "9223372036854775808.0f", "long(-9223372036854775807l - 1l)",
       "9223372036854775807l"},
      {"ull", "ulong", "0.0f", "18446744073709551616.0f", "0ul", "18446744073709551615ul"},
  };
  for (const Target& t : targets)
    for (int mode = 0; mode < 4; ++mode) {
      names.push_back(std::string("tmetal_float2") + t.suffix + "_" + modes[mode]);
      texts.push_back("@helper " + std::string(t.type) + " " + names.back() + "(float x) {\n  float r = " +
                      rounders[mode] + "(x);\n  if (r != r) return " + t.type + "(0);\n  if (r < " + t.low +
                      ") return " + t.lowest + ";\n  if (r >= " + t.high + ") return " + t.highest + ";\n  return " +
                      t.type + "(r);\n}\n");
      helpers.push_back({names.back(), {}, texts.back()});
    }
  return helpers;
}

}  // namespace

const std::vector<LibdeviceHelper>& roundingHelpers() {
  static const std::vector<LibdeviceHelper> helpers = build();
  return helpers;
}

}  // namespace tmetal::codegen
