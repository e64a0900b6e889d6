// Error and gamma functions. erf below 1 is its Taylor series (no
// cancellation there); from 1 on, erfc is exp(-x^2) times erfcx, and erfcx
// is the continued fraction 1 / (sqrt(pi) (x + (1/2)/(x + 1/(x + ...))))
// evaluated from its tail, which needs no exponential and cannot overflow;
// exp(-x^2) carries x^2's rounding error (fma) so that the tail keeps its
// relative accuracy. The inverses refine Winitzki's closed-form estimate by
// Newton steps on erf or, near +-1, on erfc. lgamma is a Taylor series around
// 1, 1.5 or 2 (the coefficients are zeta values and polygamma values of the
// mathematics, to float precision) after the recurrence Gamma(x + 1) =
// x Gamma(x) brings x there, Stirling's series from 8 on, and reflection for
// negative x; tgamma is Stirling's formula in product form (no exp of a large
// logarithm, whose rounding would be multiplied) after the recurrence.
#include "tmetal/codegen/libdevice/libdevice_helpers.h"

namespace tmetal::codegen {

const std::vector<LibdeviceHelper>& gammaErfHelpers() {
  static const std::vector<LibdeviceHelper> helpers = {
      {"tmetal_erf_series", {}, R"(@helper float tmetal_erf_series(float x) {
  // |x| < 1: 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)).
  float x2 = x * x, term = x, sum = x;
  for (int n = 1; n < 14; ++n) {
    term *= -x2 / float(n);
    sum += term / float(2 * n + 1);
  }
  return 1.12837917f * sum;
}
)"},
      {"tmetal_exp_minus_square", {}, R"(@helper float tmetal_exp_minus_square(float x) {
  float h = x * x;
  float l = @fma(x, x, -h);  // x^2 = h + l exactly
  return @exp(-h) * (1.0f - l);
}
)"},
      {"tmetal_exp_square", {}, R"(@helper float tmetal_exp_square(float x) {
  float h = x * x;
  float l = @fma(x, x, -h);
  return @exp(h) * (1.0f + l);
}
)"},
      {"tmetal_erfcx_positive", {"tmetal_erf_series", "tmetal_exp_square"},
       R"(@helper float tmetal_erfcx_positive(float x) {
  // exp(x^2) erfc(x) for x >= 0. Below 0.55, 1 - erf(x) loses little; above,
  // the continued fraction needs fewer terms the larger x is (to within an
  // ulp: 150 at 0.55, 100 at 0.75, 60 at 1, 24 at 2).
  if (x < 0.55f) return tmetal_exp_square(x) * (1.0f - tmetal_erf_series(x));
  int terms = x < 0.75f ? 150 : (x < 1.0f ? 100 : (x < 2.0f ? 60 : 24));
  float t = x;
  for (int n = terms; n >= 1; --n) t = x + 0.5f * float(n) / t;
  return 0.564189584f / t;
}
)"},
      {"tmetal_erff", {"tmetal_erf_series", "tmetal_erfcx_positive", "tmetal_exp_minus_square"},
       R"(@helper float tmetal_erff(float x) {
  if (x != x) return x;
  float ax = @fabs(x);
  if (ax < 0.55f) return tmetal_erf_series(x);
  if (ax >= 4.0f) return @copysign(1.0f, x);
  return @copysign(1.0f - tmetal_exp_minus_square(ax) * tmetal_erfcx_positive(ax), x);  // erfc < 0.44: little lost
}
)"},
      {"tmetal_erfc_positive", {"tmetal_erf_series", "tmetal_erfcx_positive", "tmetal_exp_minus_square"},
       R"(@helper float tmetal_erfc_positive(float x) {
  if (x < 0.55f) return 1.0f - tmetal_erf_series(x);
  if (x > 10.1f) return 0.0f;
  return tmetal_exp_minus_square(x) * tmetal_erfcx_positive(x);
}
)"},
      {"tmetal_erfcf", {"tmetal_erfc_positive"}, R"(@helper float tmetal_erfcf(float x) {
  if (x != x) return x;
  return x >= 0.0f ? tmetal_erfc_positive(x) : 2.0f - tmetal_erfc_positive(-x);
}
)"},
      {"tmetal_erfcxf", {"tmetal_erfcx_positive", "tmetal_exp_square"}, R"(@helper float tmetal_erfcxf(float x) {
  if (x != x) return x;
  if (x >= 0.0f) return x == @inf ? 0.0f : tmetal_erfcx_positive(x);
  if (x < -9.4f) return @inf;  // 2 exp(x^2) overflows
  return 2.0f * tmetal_exp_square(x) - tmetal_erfcx_positive(-x);
}
)"},
      {"tmetal_erfinv_estimate", {}, R"(@helper float tmetal_erfinv_estimate(float w) {
  // Winitzki's closed form (a = 0.147) for erf(x) = y, given w = log(1 - y^2).
  float t = 4.33074653f + 0.5f * w;  // 2 / (pi a) + w / 2
  return @sqrt(@sqrt(t * t - w * 6.80272109f) - t);
}
)"},
      {"tmetal_erfcinv_positive",
       {"tmetal_erfinv_estimate", "tmetal_erfcx_positive", "tmetal_exp_square", "tmetal_erf_series", "tmetal_erff"},
       R"(@helper float tmetal_erfcinv_positive(float y) {
  // The x >= 0 with erfc(x) = y, for 0 < y <= 1.
  float x = tmetal_erfinv_estimate(@log(y * (2.0f - y)));
  // Subnormal y: scale it and exp(x^2) by 2^64 (x^2 reaches 96 there).
  bool tiny = y < 0x1p-100f;
  float scaledY = tiny ? y * 0x1p64f : y;
  for (int i = 0; i < 3; ++i) {
    if (y > 0.5f) {
      // erf(x) = 1 - y, 1 - y exact: Newton on erf.
      x += 0.886226925f * tmetal_exp_square(x) * ((1.0f - y) - tmetal_erff(x));
    } else {
      float e = tiny ? @exp(x * x - 44.3614196f) : tmetal_exp_square(x);
      // erfc(x) - y = exp(-x^2) (erfcx(x) - y exp(x^2)); erfc' = -2/sqrt(pi) exp(-x^2).
      x += 0.886226925f * (tmetal_erfcx_positive(x) - scaledY * e) * (tiny ? 0x1p64f : 1.0f) /
           (tiny ? 0x1p64f : 1.0f);
    }
  }
  return x;
}
)"},
      {"tmetal_erfinvf", {"tmetal_erfcinv_positive", "tmetal_erfinv_estimate", "tmetal_exp_square", "tmetal_erff"},
       R"(@helper float tmetal_erfinvf(float y) {
  if (y != y || @fabs(y) > 1.0f) return @nan;
  if (y == 0.0f) return y;
  float ay = @fabs(y);
  if (ay == 1.0f) return @copysign(@inf, y);
  if (ay > 0.5f) return @copysign(tmetal_erfcinv_positive(1.0f - ay), y);  // 1 - ay exact
  if (ay < 0x1p-60f) return y * 0.886226925f;  // sqrt(pi)/2 y: the next term is y^3 smaller
  // Newton on erf itself, which keeps tiny y's relative precision.
  float x = tmetal_erfinv_estimate(@log((1.0f - ay) * (1.0f + ay)));
  for (int i = 0; i < 3; ++i) x += 0.886226925f * tmetal_exp_square(x) * (ay - tmetal_erff(x));
  return @copysign(x, y);
}
)"},
      {"tmetal_erfcinvf", {"tmetal_erfcinv_positive"}, R"(@helper float tmetal_erfcinvf(float y) {
  if (y != y || y < 0.0f || y > 2.0f) return @nan;
  if (y == 0.0f) return @inf;
  if (y == 2.0f) return -@inf;
  return y <= 1.0f ? tmetal_erfcinv_positive(y) : -tmetal_erfcinv_positive(2.0f - y);  // 2 - y exact
}
)"},
      {"tmetal_normcdff", {"tmetal_erfc_positive", "tmetal_exp_minus_square", "tmetal_erfcx_positive"},
       R"(@helper float tmetal_normcdff(float x) {
  if (x != x) return x;
  // The lower tail: erfc(h + l) / 2 with h + l = |x| / sqrt(2) to twice
  // float's precision, erfc(h + l) = exp(-h^2) (erfcx(h) - 2 l / sqrt(pi)).
  float ax = @fabs(x);
  float h = ax * 0.707106769f;
  float l = @fma(ax, 0.707106769f, -h) + ax * 1.21016175e-8f;
  float lower = h < 0.55f ? 0.5f * tmetal_erfc_positive(h) - 0.564189584f * l * tmetal_exp_minus_square(h)
                         : (h > 10.1f ? 0.0f : 0.5f * tmetal_exp_minus_square(h) * (tmetal_erfcx_positive(h) - 1.12837917f * l));
  return x <= 0.0f ? lower : 1.0f - lower;
}
)"},
      {"tmetal_normcdfinvf", {"tmetal_erfcinvf"}, R"(@helper float tmetal_normcdfinvf(float p) {
  if (p != p || p < 0.0f || p > 1.0f) return @nan;
  return -1.41421356f * tmetal_erfcinvf(2.0f * p);
}
)"},
      {"tmetal_lgamma_near", {}, R"(@helper float tmetal_lgamma_near(float x) {
  // lgamma for x in [0.75, 2.25): Taylor series around 1, 1.5 or 2, |z| <= 1/4.
  if (x < 1.25f) {
    float z = x - 1.0f;
    float s = -6.666870588e-02f;
    s = s * z + 7.143294630e-02f; s = s * z - 7.693251641e-02f; s = s * z + 8.335384055e-02f;
    s = s * z - 9.095401715e-02f; s = s * z + 1.000994575e-01f; s = s * z - 1.113342659e-01f;
    s = s * z + 1.255096695e-01f; s = s * z - 1.440498968e-01f; s = s * z + 1.695571770e-01f;
    s = s * z - 2.073855510e-01f; s = s * z + 2.705808084e-01f; s = s * z - 4.006856344e-01f;
    s = s * z + 8.224670334e-01f; s = s * z - 5.772156649e-01f;
    return s * z;
  }
  if (x < 1.75f) {
    float z = x - 1.5f;
    float s = -1.523159381e-04f;
    s = s * z + 2.448711905e-04f; s = s * z - 3.957715396e-04f; s = s * z + 6.437029830e-04f;
    s = s * z - 1.054915694e-03f; s = s * z + 1.745035576e-03f; s = s * z - 2.920970459e-03f;
    s = s * z + 4.965728809e-03f; s = s * z - 8.622603929e-03f; s = s * z + 1.543548417e-02f;
    s = s * z - 2.895208189e-02f; s = s * z + 5.871212642e-02f; s = s * z - 1.381327740e-01f;
    s = s * z + 4.674011003e-01f; s = s * z + 3.648997398e-02f;
    return s * z - 1.207822376e-01f;
  }
  float z = x - 2.0f;
  float s = -2.039215754e-06f;
  s = s * z + 4.374866790e-06f; s = s * z - 9.439488275e-06f; s = s * z + 2.050721278e-05f;
  s = s * z - 4.492623674e-05f; s = s * z + 9.945751278e-05f; s = s * z - 2.231547585e-04f;
  s = s * z + 5.096695247e-04f; s = s * z - 1.192753912e-03f; s = s * z + 2.890510331e-03f;
  s = s * z - 7.385551029e-03f; s = s * z + 2.058080843e-02f; s = s * z - 6.735230105e-02f;
  s = s * z + 3.224670334e-01f; s = s * z + 4.227843351e-01f;
  return s * z;
}
)"},
      {"tmetal_lgamma_positive", {"tmetal_lgamma_near"}, R"(@helper float tmetal_lgamma_positive(float x) {
  if (x >= 8.0f) {
    // Stirling: (x - 1/2)(log x - 1) - 1/2 + log(2 pi)/2 + 1/(12x) - 1/(360x^3) + 1/(1260x^5) - 1/(1680x^7).
    float r = 1.0f / x, r2 = r * r;
    float series = r * (0.0833333333f - r2 * (0.00277777778f - r2 * (0.000793650794f - r2 * 0.000595238095f)));
    return (x - 0.5f) * (@log(x) - 1.0f) + (0.418938533f + series);
  }
  if (x < 0.75f) {
    // lgamma(x) = lgamma(x + 1) - log(x); near 0 the series around 1 takes z = x exactly.
    float near = x < 0.25f ? tmetal_lgamma_near(1.0f + x) : tmetal_lgamma_near(x + 1.0f);
    if (x < 0.25f) {
      float s = -6.666870588e-02f;
      s = s * x + 7.143294630e-02f; s = s * x - 7.693251641e-02f; s = s * x + 8.335384055e-02f;
      s = s * x - 9.095401715e-02f; s = s * x + 1.000994575e-01f; s = s * x - 1.113342659e-01f;
      s = s * x + 1.255096695e-01f; s = s * x - 1.440498968e-01f; s = s * x + 1.695571770e-01f;
      s = s * x - 2.073855510e-01f; s = s * x + 2.705808084e-01f; s = s * x - 4.006856344e-01f;
      s = s * x + 8.224670334e-01f; s = s * x - 5.772156649e-01f;
      near = s * x;
    }
    return near - @log(x);
  }
  // Down to [1.25, 2.25) by Gamma(x) = (x - 1) Gamma(x - 1): exact steps.
  float product = 1.0f;
  while (x >= 2.25f) {
    x -= 1.0f;
    product *= x;
  }
  return @log(product) + tmetal_lgamma_near(x);
}
)"},
      {"tmetal_lgammaf", {"tmetal_lgamma_positive"}, R"(@helper float tmetal_lgammaf(float x) {
  if (x != x) return x;
  float ax = @fabs(x);
  if (ax == @inf || x == 0.0f) return @inf;
  if (x > 0.0f) return tmetal_lgamma_positive(x);
  if (@trunc(x) == x) return @inf;  // the poles
  // Reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x), with Gamma(1 - x) as
  // y Gamma(y) for y = -x, exact (1 - x would round).
  float y = -x;
  return 1.14472989f - (@log(@fabs(@sinpi(x))) + @log(y)) - tmetal_lgamma_positive(y);
}
)"},
      {"tmetal_gamma_positive", {"tmetal_powf", "tmetal_lgamma_near"}, R"(@helper float tmetal_gamma_positive(float x) {
  // Gamma(x) for 0 < x <= 35.05. Below 8: into [1, 2) by the recurrence (exact
  // steps, a product of at most seven factors), where Gamma is exp of lgamma's
  // series, a small number; from 8 on: sqrt(2 pi / x) (x / e)^x exp(series),
  // with the power as x^(x/2) twice and exp(-x) of an exact argument.
  if (x < 8.0f) {
    if (x < 1.0f) return @exp(tmetal_lgamma_near(x + 1.0f)) / x;
    float product = 1.0f;
    while (x >= 2.0f) {
      x -= 1.0f;
      product *= x;
    }
    return product * @exp(tmetal_lgamma_near(x));
  }
  float r = 1.0f / x, r2 = r * r;
  float series = r * (0.0833333333f - r2 * (0.00277777778f - r2 * (0.000793650794f - r2 * 0.000595238095f)));
  float half = tmetal_powf(x, 0.5f * x);
  return @sqrt(6.28318531f / x) * half * (half * @exp(-x)) * @exp(series);
}
)"},
      {"tmetal_tgammaf", {"tmetal_gamma_positive", "tmetal_lgamma_near"}, R"(@helper float tmetal_tgammaf(float x) {
  if (x != x) return x;
  if (x == 0.0f) return @copysign(@inf, x);
  if (x == @inf) return @inf;
  if (x == -@inf || (x < 0.0f && @trunc(x) == x)) return @nan;
  if (x > 35.05f) return @inf;
  if (x > 0.0f) return tmetal_gamma_positive(x);
  // Reflection: Gamma(x) = pi / (sin(pi x) Gamma(1 - x)). Where Gamma(1 - x)
  // overflows, its factors above 35 divide one by one (the result is near
  // float's smallest numbers there); past 1 - x = 50 it is below them all.
  // Gamma(1 - x) is taken as y Gamma(y) with y = -x, exact (1 - x would round).
  float y = -x;
  float r = 3.14159265f / @sinpi(x);
  if (y < 1.0f) return r / @exp(tmetal_lgamma_near(1.0f + y));  // Gamma(1 + y), 1 + y in [1, 2)
  r /= y;
  if (y > 50.0f) return @copysign(0.0f, r);
  while (y > 35.0f) {
    y -= 1.0f;
    r /= y;
  }
  return r / tmetal_gamma_positive(y);
}
)"},
  };
  return helpers;
}

}  // namespace tmetal::codegen
