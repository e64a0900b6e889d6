// Bessel functions. Three regimes for J0, J1, Y0, Y1 (x > 0):
//  - x < 1: their power series (DLMF 10.2.2, 10.8.1; the Y series carry
//    harmonic numbers), a handful of terms;
//  - 1 <= x < 25: Miller's backward recurrence J_(k-1) = (2k/x) J_k - J_(k+1)
//    from k = x + 20, normalized by 1 = J0 + 2 (J2 + J4 + ...); Y0 and Y1
//    come from the same J_k through Neumann's series (DLMF 10.8.3 and its
//    derivative), so all four keep an absolute accuracy near 1e-7 where they
//    cross zero;
//  - x >= 25: Hankel's asymptotic expansion (DLMF 10.17.3), with cos(x - pi/4)
//    written as (cos x + sin x) / sqrt(2) so that no rounded multiple of pi
//    enters the argument.
// jn and yn recur from order 0 and 1 (forward where that is stable: always
// for Y, above the order for J; else Miller's recurrence from above n).
// I0 and I1 are their positive series below 20 and the asymptotic expansion
// of e^x / sqrt(2 pi x) above, e^x taken in two halves so that it does not
// overflow before the result does.
#include "tmetal/codegen/libdevice/libdevice_helpers.h"

namespace tmetal::codegen {

const std::vector<LibdeviceHelper>& besselHelpers() {
  static const std::vector<LibdeviceHelper> helpers = {
      {"tmetal_bessel01", {}, R"(@helper float tmetal_bessel01(float x, int which) {
  // x > 0, finite. which: 0 J0, 1 J1, 2 Y0, 3 Y1.
  if (x >= 25.0f) {
    float r = 1.0f / x, r2 = r * r;
    float s = @sin(x), c = @cos(x);
    float k = @rsqrt(3.14159265f * x);
    if (which == 0 || which == 2) {
      float p = 1.0f - r2 * (0.0703125f - r2 * (0.112152099609375f - r2 * 0.5725014209747314f));
      float q = r * (-0.125f + r2 * (0.0732421875f - r2 * (0.22710800170898438f - r2 * 1.7277275025844574f)));
      return which == 0 ? k * (p * (c + s) - q * (s - c)) : k * (p * (s - c) + q * (c + s));
    }
    float p = 1.0f + r2 * (0.1171875f - r2 * (0.144195556640625f - r2 * 0.6765925884246826f));
    float q = r * (0.375f - r2 * (0.1025390625f - r2 * (0.2775764465332031f - r2 * 1.993531733751297f)));
    return which == 1 ? k * (p * (s - c) + q * (s + c)) : k * (q * (s - c) - p * (s + c));
  }
  float logTerm = @log(x) - 0.115931516f;  // log(x/2) + Euler's gamma (x/2 would underflow for the smallest x)
  if (x < 1.0f) {
    float q = 0.25f * x * x;
    float j0 = 0.0f, j1 = 0.0f, y0 = 0.0f, y1 = 0.0f;
    float t = 1.0f, u = 1.0f, harmonic = 0.0f;
    for (int k = 0; k < 10; ++k) {
      if (k > 0) {
        t *= -q / float(k * k);
        u *= -q / float(k * (k + 1));
        harmonic += 1.0f / float(k);
        y0 -= harmonic * t;
      }
      j0 += t;
      j1 += u;
      // psi(k + 1) + psi(k + 2) = 2 H_k + 1/(k + 1) - 2 gamma
      y1 += u * (2.0f * harmonic + 1.0f / float(k + 1) - 1.15443133f);
    }
    j1 *= 0.5f * x;
    if (which == 0) return j0;
    if (which == 1) return j1;
    if (which == 2) return 0.636619772f * (logTerm * j0 + y0);
    return -0.636619772f / x + 0.636619772f * (logTerm - 0.577215665f) * j1 - 0.318309886f * 0.5f * x * y1;
  }
  int top = int(x) + 20;
  top += top & 1;  // even
  float next = 0.0f, j = 1e-30f, norm = 0.0f, y0sum = 0.0f, y1sum = 0.0f, j0 = 0.0f, j1 = 0.0f;
  for (int m = top; m >= 0; --m) {
    // j is J_m (unnormalized).
    if (m == 0) j0 = j;
    if (m == 1) j1 = j;
    if ((m & 1) == 0) {
      if (m >= 2) {
        norm += 2.0f * j;
        float term = j / float(m / 2);
        y0sum += ((m / 2) & 1) != 0 ? -term : term;
      } else {
        norm += j;
      }
    } else {
      float weight = 2.0f / float(m + 1) + (m >= 3 ? 2.0f / float(m - 1) : 0.0f);
      y1sum += (((m + 1) / 2) & 1) != 0 ? -weight * j : weight * j;
    }
    if (m > 0) {
      float previous = 2.0f * float(m) / x * j - next;
      next = j;
      j = previous;
    }
  }
  j0 /= norm;
  j1 /= norm;
  if (which == 0) return j0;
  if (which == 1) return j1;
  if (which == 2) return 0.636619772f * logTerm * j0 - 1.27323954f * y0sum / norm;
  return -0.636619772f * (j0 / x - logTerm * j1) + 0.636619772f * y1sum / norm;
}
)"},
      {"tmetal_j0f", {"tmetal_bessel01"}, R"(@helper float tmetal_j0f(float x) {
  if (x != x) return x;
  float ax = @fabs(x);
  if (ax == @inf) return 0.0f;
  return ax == 0.0f ? 1.0f : tmetal_bessel01(ax, 0);
}
)"},
      {"tmetal_j1f", {"tmetal_bessel01"}, R"(@helper float tmetal_j1f(float x) {
  if (x != x || x == 0.0f) return x;
  float ax = @fabs(x);
  if (ax == @inf) return @copysign(0.0f, x);
  return @copysign(1.0f, x) * tmetal_bessel01(ax, 1);
}
)"},
      {"tmetal_y0f", {"tmetal_bessel01"}, R"(@helper float tmetal_y0f(float x) {
  if (x != x || x < 0.0f) return @nan;
  if (x == 0.0f) return -@inf;
  return x == @inf ? 0.0f : tmetal_bessel01(x, 2);
}
)"},
      {"tmetal_y1f", {"tmetal_bessel01"}, R"(@helper float tmetal_y1f(float x) {
  if (x != x || x < 0.0f) return @nan;
  if (x == 0.0f) return -@inf;
  return x == @inf ? 0.0f : tmetal_bessel01(x, 3);
}
)"},
      {"tmetal_jnf", {"tmetal_bessel01", "tmetal_j0f", "tmetal_j1f"}, R"(@helper float tmetal_jnf(int n, float x) {
  if (n < 0 || x != x) return @nan;
  if (n == 0) return tmetal_j0f(x);
  if (n == 1) return tmetal_j1f(x);
  float ax = @fabs(x);
  if (ax == 0.0f || ax == @inf) return 0.0f;
  float sign = (n & 1) != 0 && x < 0.0f ? -1.0f : 1.0f;
  if (ax < 1e-5f) {
    // (x/2)^n / n!: the series' first term, to float precision this small.
    float t = 1.0f;
    for (int k = 1; k <= n && t != 0.0f; ++k) t *= 0.5f * ax / float(k);
    return sign * t;
  }
  if (ax > float(n)) {
    // Forward from J0 and J1: stable while the order stays below x.
    float previous = tmetal_bessel01(ax, 0), current = tmetal_bessel01(ax, 1);
    for (int k = 1; k < n; ++k) {
      float following = 2.0f * float(k) / ax * current - previous;
      previous = current;
      current = following;
    }
    return sign * current;
  }
  // Miller: backward from well above n, normalized by J0 + 2 (J2 + J4 + ...),
  // rescaled when the unnormalized values grow large; J_n underflows to 0
  // past a few hundred (n is capped there).
  if (n > 400) return 0.0f;
  int top = n + 20 + int(@sqrt(40.0f * float(n)));
  top += top & 1;
  float next = 0.0f, j = 1e-30f, norm = 0.0f, jn = 0.0f;
  for (int m = top; m >= 0; --m) {
    if (m == n) jn = j;
    norm += (m & 1) != 0 ? 0.0f : (m == 0 ? j : 2.0f * j);
    if (m > 0) {
      float previous = 2.0f * float(m) / ax * j - next;
      next = j;
      j = previous;
      if (@fabs(j) > 1e30f) {
        j *= 1e-30f;
        next *= 1e-30f;
        norm *= 1e-30f;
        jn *= 1e-30f;
      }
    }
  }
  return sign * (jn / norm);
}
)"},
      {"tmetal_ynf", {"tmetal_bessel01", "tmetal_y0f", "tmetal_y1f"}, R"(@helper float tmetal_ynf(int n, float x) {
  if (n < 0 || x != x || x < 0.0f) return @nan;
  if (n == 0) return tmetal_y0f(x);
  if (n == 1) return tmetal_y1f(x);
  if (x == 0.0f) return -@inf;
  if (x == @inf) return 0.0f;
  // Forward: Y grows with the order, so the recurrence is stable.
  float previous = tmetal_bessel01(x, 2), current = tmetal_bessel01(x, 3);
  for (int k = 1; k < n && current != -@inf; ++k) {
    float following = 2.0f * float(k) / x * current - previous;
    previous = current;
    current = following;
  }
  return current;
}
)"},
      {"tmetal_bessel_i", {}, R"(@helper float tmetal_bessel_i(float x, int order) {
  // I0 (order 0) or I1 (order 1) of x >= 0.
  if (x > 100.0f) return @inf;  // both overflow from 91.9 on
  if (x < 20.0f) {
    float q = 0.25f * x * x, t = 1.0f, sum = 1.0f;
    for (int k = 1; k < 60 && t > 1e-9f * sum; ++k) {
      t *= q / float(k * (k + order));
      sum += t;
    }
    return order == 0 ? sum : 0.5f * x * sum;
  }
  float r = 1.0f / x;
  float series = order == 0
      ? 1.0f + r * (0.125f + r * (0.0703125f + r * (0.0732421875f + r * (0.112152099609375f +
                                                                      r * (0.22710800170898438f + r * 0.5725014209747314f)))))
      : 1.0f - r * (0.375f + r * (0.1171875f + r * (0.1025390625f + r * (0.144195556640625f +
                                                                     r * (0.2775764465332031f + r * 0.6765925884246826f)))));
  float half = @exp(0.5f * x);
  return half * (half * @rsqrt(6.28318531f * x) * series);
}
)"},
      {"tmetal_cyl_bessel_i0f", {"tmetal_bessel_i"}, R"(@helper float tmetal_cyl_bessel_i0f(float x) {
  if (x != x) return x;
  return tmetal_bessel_i(@fabs(x), 0);
}
)"},
      {"tmetal_cyl_bessel_i1f", {"tmetal_bessel_i"}, R"(@helper float tmetal_cyl_bessel_i1f(float x) {
  if (x != x || x == 0.0f) return x;
  return @copysign(tmetal_bessel_i(@fabs(x), 1), x);
}
)"},
  };
  return helpers;
}

}  // namespace tmetal::codegen
