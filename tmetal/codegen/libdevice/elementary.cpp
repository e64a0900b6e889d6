// Elementary functions MSL has no built-in for. Exact ones work on the bits
// (nextafter, logb, ilogb) or with exact float steps (remainder: fmod by 2y,
// then Sterbenz-exact subtractions). The norms scale their operands by a
// power of two so that no square overflows or underflows, and sum the squares
// with fma. cbrt and rcbrt take log2/exp2's estimate through one Newton step;
// expm1 and log1p use Kahan's correction ((e^x - 1) * x / log(e^x), and
// log(1 + x) * x / ((1 + x) - 1)), which cancels the rounding error of the
// 1 + x or e^x they start from.
// pow needs log(x) to more than float precision (y * log(x) reaches 104,
// where float's rounding would cost a hundred ulps): log(x) is carried as a
// sum of two floats (e * ln 2 with ln 2 split so that e * its upper part is
// exact, plus log(m) = 2 atanh((m - 1) / (m + 1)) whose leading term keeps
// its division's residual), multiplied by y with fma's exact error, and
// exp(hi + lo) is exp(hi) * (1 + lo).
#include "tmetal/codegen/libdevice/libdevice_helpers.h"

namespace tmetal::codegen {

const std::vector<LibdeviceHelper>& elementaryHelpers() {
  static const std::vector<LibdeviceHelper> helpers = {
      {"tmetal_ilogbf", {}, R"(@helper int tmetal_ilogbf(float x) {
  uint bits = @as_uint(x) & 0x7fffffffu;
  if (bits == 0u || bits > 0x7f800000u) return int(-2147483647 - 1);
  if (bits == 0x7f800000u) return 2147483647;
  if (bits >= 0x00800000u) return int(bits >> 23) - 127;
  return -118 - int(@clz(bits));  // subnormal: the leading one's position
}
)"},
      {"tmetal_logbf", {"tmetal_ilogbf"}, R"(@helper float tmetal_logbf(float x) {
  if (x != x) return x;
  if (x == 0.0f) return -@inf;
  if (@fabs(x) == @inf) return @inf;
  return float(tmetal_ilogbf(x));
}
)"},
      {"tmetal_nextafterf", {}, R"(@helper float tmetal_nextafterf(float x, float y) {
  if (x != x || y != y) return x + y;
  if (x == y) return y;  // nextafter(0, -0) is -0
  if (x == 0.0f) return @as_float(y > 0.0f ? 1u : 0x80000001u);
  uint bits = @as_uint(x);
  bool awayFromZero = (y > x) == (x > 0.0f);
  return @as_float(awayFromZero ? bits + 1u : bits - 1u);
}
)"},
      {"tmetal_remainderf", {}, R"(@helper float tmetal_remainderf(float x, float y) {
  if (x != x || y != y || y == 0.0f || @fabs(x) == @inf) return @nan;
  float ay = @fabs(y);
  if (ay == @inf) return x;
  // fmod is exact; the quotient's parity is whether another y fits.
  float s = @fabs(@fmod(x, 2.0f * ay));  // 2y may overflow to inf: fmod then gives x
  bool odd = false;
  if (s >= ay) {
    s -= ay;  // exact: ay <= s < 2ay
    odd = true;
  }
  if (2.0f * s > ay || (2.0f * s == ay && odd)) s -= ay;  // exact: ay/2 <= s < ay
  return (@as_uint(x) >> 31) != 0u ? -s : s;  // a zero remainder has x's sign
}
)"},
      {"tmetal_scaled_norm", {"tmetal_ilogbf"}, R"(@helper float tmetal_scaled_norm(float a, float b, float c, float d, bool reciprocal) {
  // sqrt(a^2 + b^2 + c^2 + d^2) or its reciprocal, with the operands scaled
  // by the largest one's power of two so that no square overflows or is lost.
  a = @fabs(a); b = @fabs(b); c = @fabs(c); d = @fabs(d);
  if (a == @inf || b == @inf || c == @inf || d == @inf) return reciprocal ? 0.0f : @inf;
  if (a != a || b != b || c != c || d != d) return @nan;
  float m = @fmax(@fmax(a, b), @fmax(c, d));
  if (m == 0.0f) return reciprocal ? @inf : 0.0f;
  int k = tmetal_ilogbf(m);
  a = @ldexp(a, -k); b = @ldexp(b, -k); c = @ldexp(c, -k); d = @ldexp(d, -k);
  float sum = @fma(a, a, @fma(b, b, @fma(c, c, d * d)));
  return reciprocal ? @ldexp(@rsqrt(sum), -k) : @ldexp(@sqrt(sum), k);
}
)"},
      {"tmetal_hypotf", {"tmetal_scaled_norm"},
       "@helper float tmetal_hypotf(float x, float y) { return tmetal_scaled_norm(x, y, 0.0f, 0.0f, false); }\n"},
      {"tmetal_rhypotf", {"tmetal_scaled_norm"},
       "@helper float tmetal_rhypotf(float x, float y) { return tmetal_scaled_norm(x, y, 0.0f, 0.0f, true); }\n"},
      {"tmetal_norm3df", {"tmetal_scaled_norm"},
       "@helper float tmetal_norm3df(float a, float b, float c) { return tmetal_scaled_norm(a, b, c, 0.0f, false); }\n"},
      {"tmetal_rnorm3df", {"tmetal_scaled_norm"},
       "@helper float tmetal_rnorm3df(float a, float b, float c) { return tmetal_scaled_norm(a, b, c, 0.0f, true); }\n"},
      {"tmetal_norm4df", {"tmetal_scaled_norm"},
       "@helper float tmetal_norm4df(float a, float b, float c, float d) { return tmetal_scaled_norm(a, b, c, d, false); }\n"},
      {"tmetal_rnorm4df", {"tmetal_scaled_norm"},
       "@helper float tmetal_rnorm4df(float a, float b, float c, float d) { return tmetal_scaled_norm(a, b, c, d, true); }\n"},
      {"tmetal_cbrtf", {}, R"(@helper float tmetal_cbrtf(float x) {
  if (x == 0.0f || x != x || @fabs(x) == @inf) return x;
  float ax = @fabs(x), scale = 1.0f;
  if (ax < 0x1p-100f) {  // subnormals: log2 may flush them; 2^150 is a cube
    ax = @ldexp(ax, 150);
    scale = 0x1p-50f;
  }
  float y = @exp2(@log2(ax) * (1.0f / 3.0f));
  y = y + (ax / (y * y) - y) * (1.0f / 3.0f);  // Newton: y^3 = ax
  return @copysign(y * scale, x);
}
)"},
      {"tmetal_rcbrtf", {}, R"(@helper float tmetal_rcbrtf(float x) {
  if (x != x) return x;
  if (x == 0.0f) return @copysign(@inf, x);
  if (@fabs(x) == @inf) return @copysign(0.0f, x);
  float ax = @fabs(x), scale = 1.0f;
  if (ax < 0x1p-100f) {
    ax = @ldexp(ax, 150);
    scale = 0x1p50f;
  } else if (ax > 0x1p100f) {  // y^3 would underflow in the Newton step
    ax = @ldexp(ax, -150);
    scale = 0x1p-50f;
  }
  float y = @exp2(@log2(ax) * (-1.0f / 3.0f));
  float y3 = y * y * y;
  y = y + y * @fma(-ax, y3, 1.0f) * (1.0f / 3.0f);  // Newton: ax * y^3 = 1
  return @copysign(y * scale, x);
}
)"},
      {"tmetal_expm1f", {}, R"(@helper float tmetal_expm1f(float x) {
  if (x != x || x == @inf) return x;
  float u = @exp(x);
  if (u == 1.0f) return x;  // also keeps -0
  float um1 = u - 1.0f;
  if (um1 == -1.0f) return -1.0f;
  if (u == @inf) return @inf;
  return um1 * (x / @log(u));
}
)"},
      {"tmetal_log1pf", {}, R"(@helper float tmetal_log1pf(float x) {
  if (x != x || x == @inf) return x;
  float u = 1.0f + x;
  if (u == 1.0f) return x;  // also keeps -0
  if (u == 0.0f) return -@inf;
  return @log(u) * (x / (u - 1.0f));
}
)"},
      {"tmetal_powf", {"tmetal_ilogbf"}, R"(@helper float tmetal_powf(float x, float y) {
  // C99's special cases first (Annex F.9.4.4).
  if (y == 0.0f || x == 1.0f) return 1.0f;
  if (x != x || y != y) return x + y;
  bool yInteger = @trunc(y) == y;
  bool yOdd = yInteger && @fabs(y) < 16777216.0f && @fabs(@fmod(y, 2.0f)) == 1.0f;
  float ax = @fabs(x);
  if (@fabs(y) == @inf) {
    if (ax == 1.0f) return 1.0f;
    return (ax < 1.0f) == (y > 0.0f) ? 0.0f : @inf;
  }
  if (ax == @inf || x == 0.0f) {
    // x^y is 0 or infinite; odd integer powers keep x's sign.
    bool infinite = (ax == @inf) == (y > 0.0f);
    float magnitude = infinite ? @inf : 0.0f;
    return yOdd ? @copysign(magnitude, x) : magnitude;
  }
  if (x < 0.0f && !yInteger) return @nan;
  // log(ax) = e ln2 + log(m), m in [sqrt(1/2), sqrt(2)).
  int e = tmetal_ilogbf(ax);
  float m = @ldexp(ax, -e);
  if (m > 1.41421356f) {
    m *= 0.5f;
    e += 1;
  }
  float f = m - 1.0f;  // exact
  float d = 2.0f + f;
  float dLow = (2.0f - d) + f;  // d + dLow = 2 + f exactly
  float s = f / d;
  float sLow = (@fma(-s, d, f) - s * dLow) / d;  // s + sLow = f / (2 + f) to twice float's precision
  float s2 = s * s;
  // 2 atanh(s) = 2s + 2s^3 (1/3 + s^2/5 + ...): the tail is small, float will do.
  float tail = 2.0f * s * s2 *
               (0.333333333f + s2 * (0.2f + s2 * (0.142857143f + s2 * (0.111111111f + s2 * (0.0909090909f +
                                                                                              s2 * 0.0769230769f)))));
  // ln2 = 0.693145752 (16 bits, so that e times it is exact) + 1.42860677e-6.
  float eHigh = float(e) * 0.693145751953125f;
  float eLow = float(e) * 1.4286068203094172e-6f;
  // hi + lo = eHigh + 2s + (eLow + 2 sLow + tail), summed without losing 2s's bits.
  float hi = eHigh + 2.0f * s;
  float lo = (eHigh - hi) + 2.0f * s;  // exact: |eHigh| >= |2s| or eHigh == 0
  if (@fabs(2.0f * s) > @fabs(eHigh)) lo = (2.0f * s - hi) + eHigh;
  lo += eLow + 2.0f * sLow + tail;
  float logHigh = hi + lo;
  float logLow = lo - (logHigh - hi);
  // y log(ax) as a sum of two floats.
  float p = y * logHigh;
  float pLow = @fma(y, logHigh, -p) + y * logLow;
  float result;
  if (p > 88.8f) {
    result = @inf;
  } else if (p < -104.0f) {
    result = 0.0f;
  } else {
    result = @exp(p);
    if (result != @inf) result = @fma(result, pLow, result);  // inf * pLow + inf would be NaN
  }
  return (x < 0.0f && yOdd) ? -result : result;
}
)"},
      {"tmetal_powif", {"tmetal_powf"},
       "@helper float tmetal_powif(float x, int n) { return tmetal_powf(x, float(n)); }  // as CUDA's powif\n"},
  };
  return helpers;
}

}  // namespace tmetal::codegen
