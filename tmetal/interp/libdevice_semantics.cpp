#include "tmetal/interp/libdevice_semantics.h"

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>

#include "tmetal/interp/scalar_semantics.h"

namespace tmetal::interp {

using ir::LibdeviceFn;

namespace {

enum class Rounding { Nearest, TowardZero, Down, Up };

int fenvMode(Rounding r) {
  switch (r) {
    case Rounding::Nearest: return FE_TONEAREST;
    case Rounding::TowardZero: return FE_TOWARDZERO;
    case Rounding::Down: return FE_DOWNWARD;
    case Rounding::Up: return FE_UPWARD;
  }
  return FE_TONEAREST;
}

// Runs `compute` with the FPU rounding in mode `r` (this file is compiled
// with -frounding-math, so the operations happen at run time, in that mode).
template <class F>
auto inRounding(Rounding r, F compute) {
  const int saved = std::fegetround();
  std::fesetround(fenvMode(r));
  auto result = compute();
  std::fesetround(saved);
  return result;
}

float f32(const Element& e) { return static_cast<float>(e.f); }
int32_t i32(const Element& e) { return static_cast<int32_t>(e.i); }
uint32_t u32(const Element& e) { return static_cast<uint32_t>(e.i); }
int64_t i64(const Element& e) { return e.i; }
uint64_t u64(const Element& e) { return static_cast<uint64_t>(e.i); }

Element ofFloat(double v) {
  Element e;
  e.f = static_cast<float>(v);
  return e;
}
Element ofInt(int64_t v) {
  Element e;
  e.i = v;
  return e;
}
Element ofI32(uint64_t bits) { return ofInt(wrapInt(bits, 32)); }

double roundIn(double v, Rounding r) {
  switch (r) {
    case Rounding::Nearest: return std::nearbyint(v);
    case Rounding::TowardZero: return std::trunc(v);
    case Rounding::Down: return std::floor(v);
    case Rounding::Up: return std::ceil(v);
  }
  return v;
}

// A float rounded to an integer in mode `r`, saturated to the range of the
// integer type (NaN -> 0): the GPUs' conversion instructions.
int64_t toInteger(float x, Rounding r, int width, bool isSigned) { return floatToInt(roundIn(x, r), width, isSigned); }

float integerToFloat(long double v, Rounding r) {
  return inRounding(r, [&] {
    volatile long double wide = v;  // exact: 64 significand bits
    return static_cast<float>(wide);
  });
}

// Inverse of erfc on (0, 2) by Newton's method in long double from a guess.
long double erfcInverse(long double y) {
  if (y <= 0) return std::numeric_limits<long double>::infinity();
  if (y >= 2) return -std::numeric_limits<long double>::infinity();
  if (y == 1) return 0;
  const bool lower = y > 1;
  const long double t = lower ? 2 - y : y;  // erfc(x) = t with x > 0
  long double x = std::sqrt(-std::log(t / 2));
  if (t > 0.5L) x = (1 - t) * 0.886226925452758L;
  for (int i = 0; i < 100; ++i) {
    const long double f = std::erfc(x) - t;
    const long double derivative = -2 / std::sqrt(std::numbers::pi_v<long double>) * std::exp(-x * x);
    const long double step = f / derivative;
    x -= step;
    if (std::fabs(step) <= std::fabs(x) * 1e-19L) break;
  }
  return lower ? -x : x;
}

// Inverse of erf on (-1, 1): through erfc near +-1, Newton on erf itself
// elsewhere (1 - y would lose a small y's digits).
long double erfInverse(long double y) {
  if (std::fabs(y) > 0.5L) return std::copysign(erfcInverse(1 - std::fabs(y)), y);
  long double x = y * std::sqrt(std::numbers::pi_v<long double>) / 2;
  for (int i = 0; i < 100; ++i) {
    const long double step = (std::erf(x) - y) / (2 / std::sqrt(std::numbers::pi_v<long double>) * std::exp(-x * x));
    x -= step;
    if (std::fabs(step) <= std::fabs(x) * 1e-19L) break;
  }
  return x;
}

long double erfcScaled(long double x) {
  if (x < 50) return std::exp(x * x) * std::erfc(x);
  // The asymptotic series, its terms falling fast this far out.
  long double sum = 1, term = 1;
  for (int n = 1; n < 8; ++n) {
    term *= -(2 * n - 1) / (2 * x * x);
    sum += term;
  }
  return sum / (x * std::sqrt(std::numbers::pi_v<long double>));
}

// sin(pi x) and cos(pi x) with the argument reduced exactly first.
double sinPi(float x) {
  if (std::isinf(x) || std::isnan(x)) return std::nan("");
  const double r = std::fmod(static_cast<double>(x), 2.0);  // exact
  if (r == std::trunc(r)) return std::copysign(0.0, x);
  return std::sin(std::numbers::pi * r);
}
double cosPi(float x) {
  if (std::isinf(x) || std::isnan(x)) return std::nan("");
  const double r = std::fabs(std::fmod(static_cast<double>(x), 2.0));
  if (r == 0.5 || r == 1.5) return 0.0;
  return std::cos(std::numbers::pi * r);
}

double besselJ(int n, float xf) {
  if (std::isnan(xf) || n < 0) return std::nan("");
  const double x = std::fabs(static_cast<double>(xf));
  if (std::isinf(x)) return 0.0;
  const double v = std::cyl_bessel_j(static_cast<double>(n), x);
  return (xf < 0 && n % 2) ? -v : v;
}
double besselY(int n, float xf) {
  if (std::isnan(xf) || xf < 0 || n < 0) return std::nan("");
  if (xf == 0) return -std::numeric_limits<double>::infinity();
  if (std::isinf(xf)) return 0.0;
  const double v = std::cyl_neumann(static_cast<double>(n), static_cast<double>(xf));
  return std::isnan(v) ? -std::numeric_limits<double>::infinity() : v;  // underflowed argument: -inf as y_n(0)
}
double besselI(int n, float xf) {
  if (std::isnan(xf)) return xf;
  const double x = std::fabs(static_cast<double>(xf));
  if (x > 100) return (xf < 0 && n % 2) ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  const double v = std::cyl_bessel_i(static_cast<double>(n), x);
  return (xf < 0 && n % 2) ? -v : v;
}

int32_t ilogb32(float x) {
  if (x == 0 || std::isnan(x)) return std::numeric_limits<int32_t>::min();
  if (std::isinf(x)) return std::numeric_limits<int32_t>::max();
  return std::ilogb(x);
}

// a * 2^24-bit-wide operands, as __mul24: the low 24 bits of each operand,
// signed, and the low 32 bits of their product.
uint32_t mul24(uint32_t a, uint32_t b, bool isSigned) {
  int64_t x = a & 0xffffff, y = b & 0xffffff;
  if (isSigned) {
    x = x >= 0x800000 ? x - 0x1000000 : x;
    y = y >= 0x800000 ? y - 0x1000000 : y;
  }
  return static_cast<uint32_t>(static_cast<uint64_t>(x * y));
}

uint32_t bytePerm(uint32_t x, uint32_t y, uint32_t s) {
  const uint64_t bytes = (static_cast<uint64_t>(y) << 32) | x;
  uint32_t r = 0;
  for (int n = 0; n < 4; ++n) r |= static_cast<uint32_t>((bytes >> (8 * ((s >> (4 * n)) & 7))) & 0xff) << (8 * n);
  return r;
}

uint32_t reverseBits32(uint32_t v) {
  uint32_t r = 0;
  for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
  return r;
}

int32_t ffs64(uint64_t v) { return v == 0 ? 0 : std::countr_zero(v) + 1; }

// 1/sqrt(x) rounded once to the nearest float. The double 1/sqrt is within
// an ulp of it; the float whose midpoints (2Y+1) * 2^(f-1) enclose the exact
// value is found in 128-bit integers: (2Y+1)^2 * m * 2^(2f-2+e) against 1
// for x = m * 2^e, never equal (the product is no power of two).
double rsqrtRoundedOnce(double xd) {
  const float x = static_cast<float>(xd);
  if (x == 0.0f) return 1.0 / xd;
  if (!(x > 0.0f)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(x)) return 0.0;
  int exponent = 0;
  const float fraction = std::frexp(x, &exponent);
  const auto m = static_cast<uint64_t>(std::ldexp(fraction, 24));
  const int e = exponent - 24;
  auto belowUpperMidpoint = [&](uint32_t bits) {
    const unsigned __int128 odd = 2 * uint64_t((bits & 0x007fffffu) | 0x00800000u) + 1;
    const int f = static_cast<int>(bits >> 23) - 150;
    unsigned __int128 product = odd * odd * m;
    int length = 0;
    for (; product != 0; product >>= 1) ++length;
    return length - 1 + 2 * f - 2 + e >= 0;
  };
  auto bits = std::bit_cast<uint32_t>(static_cast<float>(1.0 / std::sqrt(xd)));
  while (!belowUpperMidpoint(bits)) ++bits;
  while (belowUpperMidpoint(bits - 1)) --bits;
  return std::bit_cast<float>(bits);
}

using Fn = std::function<Element(const Element*)>;

Fn unaryFloat(double (*f)(double)) {
  return [f](const Element* e) { return ofFloat(f(static_cast<double>(f32(e[0])))); };
}
Fn binaryFloat(double (*f)(double, double)) {
  return [f](const Element* e) { return ofFloat(f(f32(e[0]), f32(e[1]))); };
}
template <class Op>
Fn directed(Rounding r, Op op) {
  return [r, op](const Element* e) {
    return ofFloat(inRounding(r, [&] {
      volatile float a = f32(e[0]), b = f32(e[1]);
      volatile float result = op(a, b);
      return static_cast<float>(result);
    }));
  };
}
Fn directedUnary(Rounding r, float (*op)(float)) {
  return [r, op](const Element* e) {
    return ofFloat(inRounding(r, [&] {
      volatile float a = f32(e[0]);
      volatile float result = op(a);
      return static_cast<float>(result);
    }));
  };
}
Fn directedFma(Rounding r) {
  return [r](const Element* e) {
    return ofFloat(inRounding(r, [&] {
      volatile float a = f32(e[0]), b = f32(e[1]), c = f32(e[2]);
      volatile float result = std::fma(static_cast<float>(a), static_cast<float>(b), static_cast<float>(c));
      return static_cast<float>(result);
    }));
  };
}
Fn floatToIntegral(Rounding r, int width, bool isSigned) {
  return [=](const Element* e) { return ofInt(toInteger(f32(e[0]), r, width, isSigned)); };
}
Fn intToFloat(Rounding r, bool isSigned, int width) {
  return [=](const Element* e) {
    const long double v = isSigned ? static_cast<long double>(e[0].i)
                                   : static_cast<long double>(unsignedInt(e[0].i, width));
    return ofFloat(integerToFloat(v, r));
  };
}

float addF(float a, float b) { return a + b; }
float subF(float a, float b) { return a - b; }
float mulF(float a, float b) { return a * b; }
float divF(float a, float b) { return a / b; }
float rcpF(float a) { return 1.0f / a; }
float sqrtF(float a) { return std::sqrt(a); }

}  // namespace

std::function<Element(const Element* operands)> libdeviceSemantics(const ir::LibdeviceFunction& f) {
  const double inf = std::numeric_limits<double>::infinity();
  switch (f.fn) {
    // ---- integers
    case LibdeviceFn::Clz: return [](const Element* e) { return ofInt(std::countl_zero(u32(e[0]))); };
    case LibdeviceFn::Clzll: return [](const Element* e) { return ofInt(std::countl_zero(u64(e[0]))); };
    case LibdeviceFn::Popc: return [](const Element* e) { return ofInt(std::popcount(u32(e[0]))); };
    case LibdeviceFn::Popcll: return [](const Element* e) { return ofInt(std::popcount(u64(e[0]))); };
    case LibdeviceFn::BytePerm:
      return [](const Element* e) { return ofI32(bytePerm(u32(e[0]), u32(e[1]), u32(e[2]))); };
    case LibdeviceFn::Mulhi:
      return [](const Element* e) { return ofI32(static_cast<uint64_t>((int64_t{i32(e[0])} * i32(e[1])) >> 32)); };
    case LibdeviceFn::Umulhi:
      return [](const Element* e) { return ofI32((uint64_t{u32(e[0])} * u32(e[1])) >> 32); };
    case LibdeviceFn::Mul64hi:
      return [](const Element* e) {
        return ofInt(static_cast<int64_t>((static_cast<__int128>(i64(e[0])) * i64(e[1])) >> 64));
      };
    case LibdeviceFn::Umul64hi:
      return [](const Element* e) {
        return ofInt(static_cast<int64_t>((static_cast<unsigned __int128>(u64(e[0])) * u64(e[1])) >> 64));
      };
    case LibdeviceFn::Mul24: return [](const Element* e) { return ofI32(mul24(u32(e[0]), u32(e[1]), true)); };
    case LibdeviceFn::Umul24: return [](const Element* e) { return ofI32(mul24(u32(e[0]), u32(e[1]), false)); };
    case LibdeviceFn::Brev: return [](const Element* e) { return ofI32(reverseBits32(u32(e[0]))); };
    case LibdeviceFn::Brevll:
      return [](const Element* e) {
        const uint64_t v = u64(e[0]);
        return ofInt(static_cast<int64_t>((uint64_t{reverseBits32(static_cast<uint32_t>(v))} << 32) |
                                          reverseBits32(static_cast<uint32_t>(v >> 32))));
      };
    case LibdeviceFn::Sad:
      return [](const Element* e) {
        const int64_t d = int64_t{i32(e[0])} - i32(e[1]);
        return ofI32(static_cast<uint64_t>(d < 0 ? -d : d) + u32(e[2]));
      };
    case LibdeviceFn::Usad:
      return [](const Element* e) {
        const uint32_t a = u32(e[0]), b = u32(e[1]);
        return ofI32(uint64_t{a > b ? a - b : b - a} + u32(e[2]));
      };
    case LibdeviceFn::Abs: return [](const Element* e) { return ofI32(static_cast<uint64_t>(std::abs(int64_t{i32(e[0])}))); };
    case LibdeviceFn::Llabs:
      return [](const Element* e) { return ofInt(static_cast<int64_t>(e[0].i < 0 ? 0 - u64(e[0]) : u64(e[0]))); };
    case LibdeviceFn::Hadd:
      return [](const Element* e) { return ofInt((int64_t{i32(e[0])} + i32(e[1])) >> 1); };
    case LibdeviceFn::Uhadd:
      return [](const Element* e) { return ofI32((uint64_t{u32(e[0])} + u32(e[1])) >> 1); };
    case LibdeviceFn::Rhadd:
      return [](const Element* e) { return ofInt((int64_t{i32(e[0])} + i32(e[1]) + 1) >> 1); };
    case LibdeviceFn::Urhadd:
      return [](const Element* e) { return ofI32((uint64_t{u32(e[0])} + u32(e[1]) + 1) >> 1); };
    case LibdeviceFn::Ffs: return [](const Element* e) { return ofInt(ffs64(u32(e[0]))); };
    case LibdeviceFn::Ffsll: return [](const Element* e) { return ofInt(ffs64(u64(e[0]))); };

    // ---- float: rounding, classification, bits
    case LibdeviceFn::Fabsf: return unaryFloat([](double x) { return std::fabs(x); });
    case LibdeviceFn::Floorf: return unaryFloat([](double x) { return std::floor(x); });
    case LibdeviceFn::Ceilf: return unaryFloat([](double x) { return std::ceil(x); });
    case LibdeviceFn::Truncf: return unaryFloat([](double x) { return std::trunc(x); });
    case LibdeviceFn::Rintf:
    case LibdeviceFn::Nearbyintf: return unaryFloat([](double x) { return std::nearbyint(x); });
    case LibdeviceFn::Roundf: return unaryFloat([](double x) { return std::round(x); });
    case LibdeviceFn::Llrintf: return floatToIntegral(Rounding::Nearest, 64, true);
    case LibdeviceFn::Llroundf:
      return [](const Element* e) { return ofInt(floatToInt(std::round(f32(e[0])), 64, true)); };
    case LibdeviceFn::Saturatef:
      return unaryFloat([](double x) { return std::isnan(x) ? 0.0 : std::fmin(std::fmax(x, 0.0), 1.0); });
    case LibdeviceFn::Isnanf: return [](const Element* e) { return ofInt(std::isnan(f32(e[0])) ? 1 : 0); };
    case LibdeviceFn::Isinff: return [](const Element* e) { return ofInt(std::isinf(f32(e[0])) ? 1 : 0); };
    case LibdeviceFn::Finitef: return [](const Element* e) { return ofInt(std::isfinite(f32(e[0])) ? 1 : 0); };
    case LibdeviceFn::Signbitf: return [](const Element* e) { return ofInt(std::signbit(f32(e[0])) ? 1 : 0); };
    case LibdeviceFn::Copysignf: return binaryFloat([](double x, double y) { return std::copysign(x, y); });
    case LibdeviceFn::Nextafterf:
      return [](const Element* e) { return ofFloat(std::nextafter(f32(e[0]), f32(e[1]))); };
    case LibdeviceFn::IntAsFloat:
    case LibdeviceFn::UintAsFloat:
      return [](const Element* e) { return ofFloat(std::bit_cast<float>(u32(e[0]))); };
    case LibdeviceFn::FloatAsInt:
    case LibdeviceFn::FloatAsUint:
      return [](const Element* e) { return ofI32(std::bit_cast<uint32_t>(f32(e[0]))); };
    case LibdeviceFn::Ilogbf: return [](const Element* e) { return ofInt(ilogb32(f32(e[0]))); };
    case LibdeviceFn::Logbf: return [](const Element* e) { return ofFloat(std::logb(f32(e[0]))); };
    case LibdeviceFn::Ldexpf:
    case LibdeviceFn::Scalbnf:
      return [](const Element* e) { return ofFloat(std::ldexp(f32(e[0]), i32(e[1]))); };
    case LibdeviceFn::Fmodf: return [](const Element* e) { return ofFloat(std::fmod(f32(e[0]), f32(e[1]))); };
    case LibdeviceFn::Remainderf:
      return [](const Element* e) { return ofFloat(std::remainder(f32(e[0]), f32(e[1]))); };
    case LibdeviceFn::Fdimf: return [](const Element* e) { return ofFloat(std::fdim(f32(e[0]), f32(e[1]))); };

    // ---- arithmetic in a rounding mode
    case LibdeviceFn::FaddRn: return directed(Rounding::Nearest, addF);
    case LibdeviceFn::FaddRz: return directed(Rounding::TowardZero, addF);
    case LibdeviceFn::FaddRd: return directed(Rounding::Down, addF);
    case LibdeviceFn::FaddRu: return directed(Rounding::Up, addF);
    case LibdeviceFn::FsubRn: return directed(Rounding::Nearest, subF);
    case LibdeviceFn::FsubRz: return directed(Rounding::TowardZero, subF);
    case LibdeviceFn::FsubRd: return directed(Rounding::Down, subF);
    case LibdeviceFn::FsubRu: return directed(Rounding::Up, subF);
    case LibdeviceFn::FmulRn: return directed(Rounding::Nearest, mulF);
    case LibdeviceFn::FmulRz: return directed(Rounding::TowardZero, mulF);
    case LibdeviceFn::FmulRd: return directed(Rounding::Down, mulF);
    case LibdeviceFn::FmulRu: return directed(Rounding::Up, mulF);
    case LibdeviceFn::FdivRn: return directed(Rounding::Nearest, divF);
    case LibdeviceFn::FdivRz: return directed(Rounding::TowardZero, divF);
    case LibdeviceFn::FdivRd: return directed(Rounding::Down, divF);
    case LibdeviceFn::FdivRu: return directed(Rounding::Up, divF);
    case LibdeviceFn::FastFdividef: return directed(Rounding::Nearest, divF);
    case LibdeviceFn::FrcpRn: return directedUnary(Rounding::Nearest, rcpF);
    case LibdeviceFn::FrcpRz: return directedUnary(Rounding::TowardZero, rcpF);
    case LibdeviceFn::FrcpRd: return directedUnary(Rounding::Down, rcpF);
    case LibdeviceFn::FrcpRu: return directedUnary(Rounding::Up, rcpF);
    case LibdeviceFn::Sqrtf:
    case LibdeviceFn::FsqrtRn: return directedUnary(Rounding::Nearest, sqrtF);
    case LibdeviceFn::FsqrtRz: return directedUnary(Rounding::TowardZero, sqrtF);
    case LibdeviceFn::FsqrtRd: return directedUnary(Rounding::Down, sqrtF);
    case LibdeviceFn::FsqrtRu: return directedUnary(Rounding::Up, sqrtF);
    case LibdeviceFn::Rsqrtf:
    case LibdeviceFn::FrsqrtRn: return unaryFloat(rsqrtRoundedOnce);
    case LibdeviceFn::Fmaf:
    case LibdeviceFn::FmafRn: return directedFma(Rounding::Nearest);
    case LibdeviceFn::FmafRz: return directedFma(Rounding::TowardZero);
    case LibdeviceFn::FmafRd: return directedFma(Rounding::Down);
    case LibdeviceFn::FmafRu: return directedFma(Rounding::Up);

    // ---- conversions
    case LibdeviceFn::Float2intRn: return floatToIntegral(Rounding::Nearest, 32, true);
    case LibdeviceFn::Float2intRz: return floatToIntegral(Rounding::TowardZero, 32, true);
    case LibdeviceFn::Float2intRd: return floatToIntegral(Rounding::Down, 32, true);
    case LibdeviceFn::Float2intRu: return floatToIntegral(Rounding::Up, 32, true);
    case LibdeviceFn::Float2uintRn: return floatToIntegral(Rounding::Nearest, 32, false);
    case LibdeviceFn::Float2uintRz: return floatToIntegral(Rounding::TowardZero, 32, false);
    case LibdeviceFn::Float2uintRd: return floatToIntegral(Rounding::Down, 32, false);
    case LibdeviceFn::Float2uintRu: return floatToIntegral(Rounding::Up, 32, false);
    case LibdeviceFn::Float2llRn: return floatToIntegral(Rounding::Nearest, 64, true);
    case LibdeviceFn::Float2llRz: return floatToIntegral(Rounding::TowardZero, 64, true);
    case LibdeviceFn::Float2llRd: return floatToIntegral(Rounding::Down, 64, true);
    case LibdeviceFn::Float2llRu: return floatToIntegral(Rounding::Up, 64, true);
    case LibdeviceFn::Float2ullRn: return floatToIntegral(Rounding::Nearest, 64, false);
    case LibdeviceFn::Float2ullRz: return floatToIntegral(Rounding::TowardZero, 64, false);
    case LibdeviceFn::Float2ullRd: return floatToIntegral(Rounding::Down, 64, false);
    case LibdeviceFn::Float2ullRu: return floatToIntegral(Rounding::Up, 64, false);
    case LibdeviceFn::Int2floatRn: return intToFloat(Rounding::Nearest, true, 32);
    case LibdeviceFn::Int2floatRz: return intToFloat(Rounding::TowardZero, true, 32);
    case LibdeviceFn::Int2floatRd: return intToFloat(Rounding::Down, true, 32);
    case LibdeviceFn::Int2floatRu: return intToFloat(Rounding::Up, true, 32);
    case LibdeviceFn::Uint2floatRn: return intToFloat(Rounding::Nearest, false, 32);
    case LibdeviceFn::Uint2floatRz: return intToFloat(Rounding::TowardZero, false, 32);
    case LibdeviceFn::Uint2floatRd: return intToFloat(Rounding::Down, false, 32);
    case LibdeviceFn::Uint2floatRu: return intToFloat(Rounding::Up, false, 32);
    case LibdeviceFn::Ll2floatRn: return intToFloat(Rounding::Nearest, true, 64);
    case LibdeviceFn::Ll2floatRz: return intToFloat(Rounding::TowardZero, true, 64);
    case LibdeviceFn::Ll2floatRd: return intToFloat(Rounding::Down, true, 64);
    case LibdeviceFn::Ll2floatRu: return intToFloat(Rounding::Up, true, 64);
    case LibdeviceFn::Ull2floatRn: return intToFloat(Rounding::Nearest, false, 64);
    case LibdeviceFn::Ull2floatRz: return intToFloat(Rounding::TowardZero, false, 64);
    case LibdeviceFn::Ull2floatRd: return intToFloat(Rounding::Down, false, 64);
    case LibdeviceFn::Ull2floatRu: return intToFloat(Rounding::Up, false, 64);

    // ---- elementary functions (the fast_ ones: their exact values)
    case LibdeviceFn::Expf:
    case LibdeviceFn::FastExpf: return unaryFloat([](double x) { return std::exp(x); });
    case LibdeviceFn::Exp2f: return unaryFloat([](double x) { return std::exp2(x); });
    case LibdeviceFn::Exp10f:
    case LibdeviceFn::FastExp10f: return unaryFloat([](double x) { return static_cast<double>(std::pow(10.0L, x)); });
    case LibdeviceFn::Expm1f: return unaryFloat([](double x) { return std::expm1(x); });
    case LibdeviceFn::Logf:
    case LibdeviceFn::FastLogf: return unaryFloat([](double x) { return std::log(x); });
    case LibdeviceFn::Log2f:
    case LibdeviceFn::FastLog2f: return unaryFloat([](double x) { return std::log2(x); });
    case LibdeviceFn::Log10f:
    case LibdeviceFn::FastLog10f: return unaryFloat([](double x) { return std::log10(x); });
    case LibdeviceFn::Log1pf: return unaryFloat([](double x) { return std::log1p(x); });
    case LibdeviceFn::Powf:
    case LibdeviceFn::FastPowf: return binaryFloat([](double x, double y) { return std::pow(x, y); });
    case LibdeviceFn::Powif:
      return [](const Element* e) { return ofFloat(std::pow(static_cast<double>(f32(e[0])), double(i32(e[1])))); };
    case LibdeviceFn::Cbrtf: return unaryFloat([](double x) { return std::cbrt(x); });
    case LibdeviceFn::Rcbrtf: return unaryFloat([](double x) { return 1.0 / std::cbrt(x); });
    case LibdeviceFn::Hypotf: return binaryFloat([](double x, double y) { return std::hypot(x, y); });
    case LibdeviceFn::Rhypotf: return binaryFloat([](double x, double y) { return 1.0 / std::hypot(x, y); });
    case LibdeviceFn::Norm3df:
    case LibdeviceFn::Rnorm3df:
    case LibdeviceFn::Norm4df:
    case LibdeviceFn::Rnorm4df: {
      // As hypot: an infinite operand wins over a NaN.
      const bool reciprocal = f.fn == LibdeviceFn::Rnorm3df || f.fn == LibdeviceFn::Rnorm4df;
      const size_t count = f.arguments.size();
      return [reciprocal, count, inf](const Element* e) {
        double sum = 0;
        bool infinite = false, nan = false;
        for (size_t i = 0; i < count; ++i) {
          const double v = f32(e[i]);
          infinite |= std::isinf(v);
          nan |= std::isnan(v);
          sum += v * v;  // float squares neither overflow nor lose bits in double
        }
        const double n = infinite ? inf : nan ? std::nan("") : std::sqrt(sum);
        return ofFloat(reciprocal ? 1.0 / n : n);
      };
    }
    case LibdeviceFn::Sinf:
    case LibdeviceFn::FastSinf: return unaryFloat([](double x) { return std::sin(x); });
    case LibdeviceFn::Cosf:
    case LibdeviceFn::FastCosf: return unaryFloat([](double x) { return std::cos(x); });
    case LibdeviceFn::Tanf:
    case LibdeviceFn::FastTanf: return unaryFloat([](double x) { return std::tan(x); });
    case LibdeviceFn::Sinpif: return [](const Element* e) { return ofFloat(sinPi(f32(e[0]))); };
    case LibdeviceFn::Cospif: return [](const Element* e) { return ofFloat(cosPi(f32(e[0]))); };
    case LibdeviceFn::Asinf: return unaryFloat([](double x) { return std::asin(x); });
    case LibdeviceFn::Acosf: return unaryFloat([](double x) { return std::acos(x); });
    case LibdeviceFn::Atanf: return unaryFloat([](double x) { return std::atan(x); });
    case LibdeviceFn::Atan2f: return binaryFloat([](double y, double x) { return std::atan2(y, x); });
    case LibdeviceFn::Sinhf: return unaryFloat([](double x) { return std::sinh(x); });
    case LibdeviceFn::Coshf: return unaryFloat([](double x) { return std::cosh(x); });
    case LibdeviceFn::Tanhf: return unaryFloat([](double x) { return std::tanh(x); });
    case LibdeviceFn::Asinhf: return unaryFloat([](double x) { return std::asinh(x); });
    case LibdeviceFn::Acoshf: return unaryFloat([](double x) { return std::acosh(x); });
    case LibdeviceFn::Atanhf: return unaryFloat([](double x) { return std::atanh(x); });

    // ---- special functions
    case LibdeviceFn::Erff: return unaryFloat([](double x) { return std::erf(x); });
    case LibdeviceFn::Erfcf: return unaryFloat([](double x) { return std::erfc(x); });
    case LibdeviceFn::Erfcxf:
      return unaryFloat([](double x) { return std::isnan(x) ? x : static_cast<double>(erfcScaled(x)); });
    case LibdeviceFn::Erfinvf:
      return unaryFloat([](double y) {
        if (std::isnan(y) || std::fabs(y) > 1) return std::nan("");
        if (std::fabs(y) == 1) return std::copysign(HUGE_VAL, y);
        return static_cast<double>(erfInverse(y));
      });
    case LibdeviceFn::Erfcinvf:
      return unaryFloat([](double y) {
        return std::isnan(y) || y < 0 || y > 2 ? std::nan("") : static_cast<double>(erfcInverse(y));
      });
    case LibdeviceFn::Normcdff:
      return unaryFloat([](double x) { return std::erfc(-x / std::numbers::sqrt2) / 2; });
    case LibdeviceFn::Normcdfinvf:
      return unaryFloat([](double p) {
        return std::isnan(p) || p < 0 || p > 1 ? std::nan("")
                                               : static_cast<double>(-std::numbers::sqrt2_v<long double> * erfcInverse(2.0L * p));
      });
    case LibdeviceFn::Lgammaf: return unaryFloat([](double x) { return std::lgamma(x); });
    case LibdeviceFn::Tgammaf: return unaryFloat([](double x) { return std::tgamma(x); });
    case LibdeviceFn::J0f: return [](const Element* e) { return ofFloat(besselJ(0, f32(e[0]))); };
    case LibdeviceFn::J1f: return [](const Element* e) { return ofFloat(besselJ(1, f32(e[0]))); };
    case LibdeviceFn::Jnf: return [](const Element* e) { return ofFloat(besselJ(i32(e[0]), f32(e[1]))); };
    case LibdeviceFn::Y0f: return [](const Element* e) { return ofFloat(besselY(0, f32(e[0]))); };
    case LibdeviceFn::Y1f: return [](const Element* e) { return ofFloat(besselY(1, f32(e[0]))); };
    case LibdeviceFn::Ynf: return [](const Element* e) { return ofFloat(besselY(i32(e[0]), f32(e[1]))); };
    case LibdeviceFn::CylBesselI0f: return [](const Element* e) { return ofFloat(besselI(0, f32(e[0]))); };
    case LibdeviceFn::CylBesselI1f: return [](const Element* e) { return ofFloat(besselI(1, f32(e[0]))); };
  }
  return nullptr;
}

}  // namespace tmetal::interp
