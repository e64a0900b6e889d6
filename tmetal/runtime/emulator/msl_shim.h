// The Metal Shading Language, as far as tmetal's emitter uses it, implemented
// in C++20 so that clang can compile emitted MSL for the CPU emulator.
//
// A kernel object is one translation unit: this header, the MSL source (with
// the runtime's small rewrite, see msl_source_rewrite.h), then the generated
// trampoline. `#include <metal_stdlib>` in the MSL resolves to this header.
// docs/emulator.md lists what is supported and what an emitter must avoid.
//
// Deliberately absent: the C library's math declarations (<cmath>, <cstdlib>).
// MSL has no erf, no double-precision math and no global C functions, so a
// kernel that calls them must fail here as it would fail on a Mac. Math goes
// through clang builtins (__builtin_expf, ...) instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

#include "tmetal/runtime/emulator/emulator_abi.h"

#define __METAL_VERSION__ 310
#define METAL_FUNC inline

typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned char uchar;
typedef unsigned long ulong;

// ---------------------------------------------------------------------------
// 16-bit floating point: half (IEEE binary16) and bfloat (bfloat16).
// Conversions round to nearest, ties to even. Arithmetic on two 16-bit values
// is done in float and rounded once: float carries more than 2p+2 bits for
// both formats, so the result is the correctly rounded 16-bit result.

namespace tmetal_emu {

// Rounds `x` to a binary format with kMantissaBits stored mantissa bits and
// kExponentBits exponent bits (half: 10/5, bfloat: 7/8), ties to even,
// overflowing to infinity, keeping NaNs quiet. Returns the format's bits.
template <int kMantissaBits, int kExponentBits>
constexpr uint16_t roundToSmallFloat(double x) {
  constexpr int kBias = (1 << (kExponentBits - 1)) - 1;
  constexpr int kMinExponent = 1 - kBias;
  constexpr uint32_t kInfinityBits = ((1u << kExponentBits) - 1) << kMantissaBits;
  const uint64_t bits = __builtin_bit_cast(uint64_t, x);
  const uint32_t sign = uint32_t(bits >> 63) << 15;
  const int biasedExponent = int((bits >> 52) & 0x7ff);
  const uint64_t fraction = bits & ((uint64_t(1) << 52) - 1);
  if (biasedExponent == 0x7ff) {
    if (fraction == 0) return uint16_t(sign | kInfinityBits);
    return uint16_t(sign | kInfinityBits | (1u << (kMantissaBits - 1)) | uint32_t(fraction >> (52 - kMantissaBits)));
  }
  if (biasedExponent == 0) return uint16_t(sign);  // zero, or a double subnormal: far below either format
  const int exponent = biasedExponent - 1023;
  if (exponent + kBias >= (1 << kExponentBits) - 1) return uint16_t(sign | kInfinityBits);
  const uint64_t significand = (uint64_t(1) << 52) | fraction;
  const int quantumExponent = exponent < kMinExponent ? kMinExponent : exponent;
  const int shift = quantumExponent - exponent + 52 - kMantissaBits;
  uint64_t rounded = 0;
  if (shift < 60) {
    rounded = significand >> shift;
    const uint64_t remainder = significand & ((uint64_t(1) << shift) - 1);
    const uint64_t halfway = uint64_t(1) << (shift - 1);
    if (remainder > halfway || (remainder == halfway && (rounded & 1))) ++rounded;
  }
  // A carry out of the mantissa moves into the exponent field, as it should.
  uint64_t magnitude = exponent < kMinExponent
                           ? rounded
                           : (uint64_t(exponent + kBias - 1) << kMantissaBits) + rounded;
  if (magnitude > kInfinityBits) magnitude = kInfinityBits;
  return uint16_t(sign | uint32_t(magnitude));
}

constexpr float halfBitsToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  const uint32_t exponent = (h >> 10) & 0x1f;
  const uint32_t mantissa = h & 0x3ff;
  if (exponent == 0) {
    const float magnitude = float(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return __builtin_bit_cast(float, sign | 0x7f800000u | (mantissa << 13));
  return __builtin_bit_cast(float, sign | ((exponent + 112) << 23) | (mantissa << 13));
}

constexpr float bfloatBitsToFloat(uint16_t b) { return __builtin_bit_cast(float, uint32_t(b) << 16); }

}  // namespace tmetal_emu

struct half {
  uint16_t tmetal_bits;

  half() = default;
  constexpr half(float f) : tmetal_bits(tmetal_emu::roundToSmallFloat<10, 5>(f)) {}
  constexpr half(double d) : tmetal_bits(tmetal_emu::roundToSmallFloat<10, 5>(d)) {}
  template <class I>
    requires std::is_integral_v<I>
  constexpr half(I i) : half(double(i)) {}
  constexpr operator float() const { return tmetal_emu::halfBitsToFloat(tmetal_bits); }
  static constexpr half fromBits(uint16_t bits) {
    half h{};
    h.tmetal_bits = bits;
    return h;
  }
};

struct bfloat {
  uint16_t tmetal_bits;

  bfloat() = default;
  constexpr bfloat(float f) : tmetal_bits(tmetal_emu::roundToSmallFloat<7, 8>(f)) {}
  constexpr bfloat(double d) : tmetal_bits(tmetal_emu::roundToSmallFloat<7, 8>(d)) {}
  template <class I>
    requires std::is_integral_v<I>
  constexpr bfloat(I i) : bfloat(double(i)) {}
  constexpr operator float() const { return tmetal_emu::bfloatBitsToFloat(tmetal_bits); }
  static constexpr bfloat fromBits(uint16_t bits) {
    bfloat b{};
    b.tmetal_bits = bits;
    return b;
  }
};

typedef bfloat bfloat16_t;

namespace tmetal_emu {

template <class T>
inline constexpr bool is_small_float_v = std::is_same_v<T, half> || std::is_same_v<T, bfloat>;
template <class T>
inline constexpr bool is_scalar_v = std::is_arithmetic_v<T> || is_small_float_v<T>;

// A 16-bit float with itself or with a built-in arithmetic type.
template <class A, class B>
concept SmallFloatOperands = (is_small_float_v<A> && (std::is_same_v<A, B> || std::is_arithmetic_v<B>)) ||
                             (std::is_arithmetic_v<A> && is_small_float_v<B>);

// As in MSL: half op half and half op int stay half; half op float is float.
template <class A, class B>
using small_float_result_t =
    std::conditional_t<std::is_floating_point_v<A> || std::is_floating_point_v<B>, float,
                       std::conditional_t<is_small_float_v<A>, A, B>>;

template <class T>
constexpr auto widen(T v) {
  if constexpr (is_small_float_v<T>)
    return float(v);
  else
    return v;
}

}  // namespace tmetal_emu

#define TMETAL_SMALL_FLOAT_ARITHMETIC(op)                                                      \
  template <class A, class B>                                                                  \
    requires tmetal_emu::SmallFloatOperands<A, B>                                              \
  constexpr tmetal_emu::small_float_result_t<A, B> operator op(A a, B b) {                     \
    return tmetal_emu::small_float_result_t<A, B>(tmetal_emu::widen(a) op tmetal_emu::widen(b)); \
  }                                                                                            \
  template <class A, class B>                                                                  \
    requires(tmetal_emu::is_small_float_v<A> && tmetal_emu::SmallFloatOperands<A, B>)          \
  constexpr A& operator op##=(A & a, B b) {                                                    \
    a = A(tmetal_emu::widen(a) op tmetal_emu::widen(b));                                       \
    return a;                                                                                  \
  }
TMETAL_SMALL_FLOAT_ARITHMETIC(+)
TMETAL_SMALL_FLOAT_ARITHMETIC(-)
TMETAL_SMALL_FLOAT_ARITHMETIC(*)
TMETAL_SMALL_FLOAT_ARITHMETIC(/)
#undef TMETAL_SMALL_FLOAT_ARITHMETIC

#define TMETAL_SMALL_FLOAT_COMPARISON(op)                                   \
  template <class A, class B>                                               \
    requires tmetal_emu::SmallFloatOperands<A, B>                           \
  constexpr bool operator op(A a, B b) {                                    \
    return tmetal_emu::widen(a) op tmetal_emu::widen(b);                    \
  }
TMETAL_SMALL_FLOAT_COMPARISON(==)
TMETAL_SMALL_FLOAT_COMPARISON(!=)
TMETAL_SMALL_FLOAT_COMPARISON(<)
TMETAL_SMALL_FLOAT_COMPARISON(<=)
TMETAL_SMALL_FLOAT_COMPARISON(>)
TMETAL_SMALL_FLOAT_COMPARISON(>=)
#undef TMETAL_SMALL_FLOAT_COMPARISON

constexpr half operator-(half a) { return half::fromBits(uint16_t(a.tmetal_bits ^ 0x8000)); }
constexpr half operator+(half a) { return a; }
constexpr bfloat operator-(bfloat a) { return bfloat::fromBits(uint16_t(a.tmetal_bits ^ 0x8000)); }
constexpr bfloat operator+(bfloat a) { return a; }

template <class F>
  requires tmetal_emu::is_small_float_v<F>
constexpr F& operator++(F& a) {
  a = F(float(a) + 1.0f);
  return a;
}
template <class F>
  requires tmetal_emu::is_small_float_v<F>
constexpr F& operator--(F& a) {
  a = F(float(a) - 1.0f);
  return a;
}
template <class F>
  requires tmetal_emu::is_small_float_v<F>
constexpr F operator++(F& a, int) {
  F old = a;
  ++a;
  return old;
}
template <class F>
  requires tmetal_emu::is_small_float_v<F>
constexpr F operator--(F& a, int) {
  F old = a;
  --a;
  return old;
}

namespace std {
template <>
struct numeric_limits<half> {
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = 11;
  static constexpr half min() { return half::fromBits(0x0400); }
  static constexpr half max() { return half::fromBits(0x7bff); }
  static constexpr half lowest() { return half::fromBits(0xfbff); }
  static constexpr half epsilon() { return half::fromBits(0x1400); }
  static constexpr half infinity() { return half::fromBits(0x7c00); }
  static constexpr half quiet_NaN() { return half::fromBits(0x7e00); }
  static constexpr half denorm_min() { return half::fromBits(0x0001); }
};
template <>
struct numeric_limits<bfloat> {
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = 8;
  static constexpr bfloat min() { return bfloat::fromBits(0x0080); }
  static constexpr bfloat max() { return bfloat::fromBits(0x7f7f); }
  static constexpr bfloat lowest() { return bfloat::fromBits(0xff7f); }
  static constexpr bfloat epsilon() { return bfloat::fromBits(0x3c00); }
  static constexpr bfloat infinity() { return bfloat::fromBits(0x7f80); }
  static constexpr bfloat quiet_NaN() { return bfloat::fromBits(0x7fc0); }
  static constexpr bfloat denorm_min() { return bfloat::fromBits(0x0001); }
};
}  // namespace std

// ---------------------------------------------------------------------------
// Vectors: vec<T, N> for N = 2, 3, 4, laid out as MSL lays them out (a 3-vector
// takes the size and alignment of a 4-vector). Components are real members
// (v.x is a T lvalue); multi-component swizzles (v.xy, v.zw, v.xyzw, v.bgra)
// are views that convert to a vector and accept a vector assignment.

namespace tmetal_emu {

template <class T, int N>
struct vec;

template <class T, int N, int... I>
struct swizzle {
  T e[N];  // the vector's storage, shared through the union in vec_storage

  using vector_type = vec<T, int(sizeof...(I))>;
  operator vector_type() const { return vector_type(e[I]...); }
  swizzle& operator=(const vector_type& v) {
    int k = 0;
    ((e[I] = v.e[k++]), ...);
    return *this;
  }
};

#define TMETAL_SWIZZLE(name, ...) swizzle<T, N, __VA_ARGS__> name;

template <class T, int N>
struct vec_storage;

template <class T>
struct alignas(2 * sizeof(T)) vec_storage<T, 2> {
  static constexpr int N = 2;
  union {
    T e[2];
    struct {
      T x, y;
    };
    struct {
      T r, g;
    };
    TMETAL_SWIZZLE(xx, 0, 0) TMETAL_SWIZZLE(xy, 0, 1) TMETAL_SWIZZLE(yx, 1, 0) TMETAL_SWIZZLE(yy, 1, 1) TMETAL_SWIZZLE(rr, 0, 0)
    TMETAL_SWIZZLE(rg, 0, 1) TMETAL_SWIZZLE(gr, 1, 0) TMETAL_SWIZZLE(gg, 1, 1)
  };
};

template <class T>
struct alignas(4 * sizeof(T)) vec_storage<T, 3> {
  static constexpr int N = 3;
  union {
    T e[3];
    struct {
      T x, y, z;
    };
    struct {
      T r, g, b;
    };
    TMETAL_SWIZZLE(xx, 0, 0) TMETAL_SWIZZLE(xy, 0, 1) TMETAL_SWIZZLE(xz, 0, 2) TMETAL_SWIZZLE(yx, 1, 0) TMETAL_SWIZZLE(yy, 1, 1)
    TMETAL_SWIZZLE(yz, 1, 2) TMETAL_SWIZZLE(zx, 2, 0) TMETAL_SWIZZLE(zy, 2, 1) TMETAL_SWIZZLE(zz, 2, 2) TMETAL_SWIZZLE(xyz, 0, 1, 2)
    TMETAL_SWIZZLE(xzy, 0, 2, 1) TMETAL_SWIZZLE(yxz, 1, 0, 2) TMETAL_SWIZZLE(yzx, 1, 2, 0) TMETAL_SWIZZLE(zxy, 2, 0, 1) TMETAL_SWIZZLE(zyx, 2, 1, 0)
    TMETAL_SWIZZLE(rr, 0, 0) TMETAL_SWIZZLE(rg, 0, 1) TMETAL_SWIZZLE(rb, 0, 2) TMETAL_SWIZZLE(gr, 1, 0) TMETAL_SWIZZLE(gg, 1, 1)
    TMETAL_SWIZZLE(gb, 1, 2) TMETAL_SWIZZLE(br, 2, 0) TMETAL_SWIZZLE(bg, 2, 1) TMETAL_SWIZZLE(bb, 2, 2) TMETAL_SWIZZLE(rgb, 0, 1, 2)
    TMETAL_SWIZZLE(rbg, 0, 2, 1) TMETAL_SWIZZLE(grb, 1, 0, 2) TMETAL_SWIZZLE(gbr, 1, 2, 0) TMETAL_SWIZZLE(brg, 2, 0, 1) TMETAL_SWIZZLE(bgr, 2, 1, 0)
  };
};

template <class T>
struct alignas(4 * sizeof(T)) vec_storage<T, 4> {
  static constexpr int N = 4;
  union {
    T e[4];
    struct {
      T x, y, z, w;
    };
    struct {
      T r, g, b, a;
    };
    TMETAL_SWIZZLE(xx, 0, 0) TMETAL_SWIZZLE(xy, 0, 1) TMETAL_SWIZZLE(xz, 0, 2) TMETAL_SWIZZLE(xw, 0, 3)
    TMETAL_SWIZZLE(yx, 1, 0) TMETAL_SWIZZLE(yy, 1, 1) TMETAL_SWIZZLE(yz, 1, 2) TMETAL_SWIZZLE(yw, 1, 3)
    TMETAL_SWIZZLE(zx, 2, 0) TMETAL_SWIZZLE(zy, 2, 1) TMETAL_SWIZZLE(zz, 2, 2) TMETAL_SWIZZLE(zw, 2, 3)
    TMETAL_SWIZZLE(wx, 3, 0) TMETAL_SWIZZLE(wy, 3, 1) TMETAL_SWIZZLE(wz, 3, 2) TMETAL_SWIZZLE(ww, 3, 3)
    TMETAL_SWIZZLE(xyz, 0, 1, 2) TMETAL_SWIZZLE(xyw, 0, 1, 3) TMETAL_SWIZZLE(xzy, 0, 2, 1) TMETAL_SWIZZLE(xzw, 0, 2, 3)
    TMETAL_SWIZZLE(xwy, 0, 3, 1) TMETAL_SWIZZLE(xwz, 0, 3, 2) TMETAL_SWIZZLE(yxz, 1, 0, 2) TMETAL_SWIZZLE(yxw, 1, 0, 3)
    TMETAL_SWIZZLE(yzx, 1, 2, 0) TMETAL_SWIZZLE(yzw, 1, 2, 3) TMETAL_SWIZZLE(ywx, 1, 3, 0) TMETAL_SWIZZLE(ywz, 1, 3, 2)
    TMETAL_SWIZZLE(zxy, 2, 0, 1) TMETAL_SWIZZLE(zxw, 2, 0, 3) TMETAL_SWIZZLE(zyx, 2, 1, 0) TMETAL_SWIZZLE(zyw, 2, 1, 3)
    TMETAL_SWIZZLE(zwx, 2, 3, 0) TMETAL_SWIZZLE(zwy, 2, 3, 1) TMETAL_SWIZZLE(wxy, 3, 0, 1) TMETAL_SWIZZLE(wxz, 3, 0, 2)
    TMETAL_SWIZZLE(wyx, 3, 1, 0) TMETAL_SWIZZLE(wyz, 3, 1, 2) TMETAL_SWIZZLE(wzx, 3, 2, 0) TMETAL_SWIZZLE(wzy, 3, 2, 1)
    TMETAL_SWIZZLE(xyzw, 0, 1, 2, 3) TMETAL_SWIZZLE(xywz, 0, 1, 3, 2) TMETAL_SWIZZLE(xzyw, 0, 2, 1, 3) TMETAL_SWIZZLE(xzwy, 0, 2, 3, 1)
    TMETAL_SWIZZLE(xwyz, 0, 3, 1, 2) TMETAL_SWIZZLE(xwzy, 0, 3, 2, 1) TMETAL_SWIZZLE(yxzw, 1, 0, 2, 3) TMETAL_SWIZZLE(yxwz, 1, 0, 3, 2)
    TMETAL_SWIZZLE(yzxw, 1, 2, 0, 3) TMETAL_SWIZZLE(yzwx, 1, 2, 3, 0) TMETAL_SWIZZLE(ywxz, 1, 3, 0, 2) TMETAL_SWIZZLE(ywzx, 1, 3, 2, 0)
    TMETAL_SWIZZLE(zxyw, 2, 0, 1, 3) TMETAL_SWIZZLE(zxwy, 2, 0, 3, 1) TMETAL_SWIZZLE(zyxw, 2, 1, 0, 3) TMETAL_SWIZZLE(zywx, 2, 1, 3, 0)
    TMETAL_SWIZZLE(zwxy, 2, 3, 0, 1) TMETAL_SWIZZLE(zwyx, 2, 3, 1, 0) TMETAL_SWIZZLE(wxyz, 3, 0, 1, 2) TMETAL_SWIZZLE(wxzy, 3, 0, 2, 1)
    TMETAL_SWIZZLE(wyxz, 3, 1, 0, 2) TMETAL_SWIZZLE(wyzx, 3, 1, 2, 0) TMETAL_SWIZZLE(wzxy, 3, 2, 0, 1) TMETAL_SWIZZLE(wzyx, 3, 2, 1, 0)
    TMETAL_SWIZZLE(rr, 0, 0) TMETAL_SWIZZLE(rg, 0, 1) TMETAL_SWIZZLE(rb, 0, 2) TMETAL_SWIZZLE(ra, 0, 3)
    TMETAL_SWIZZLE(gr, 1, 0) TMETAL_SWIZZLE(gg, 1, 1) TMETAL_SWIZZLE(gb, 1, 2) TMETAL_SWIZZLE(ga, 1, 3)
    TMETAL_SWIZZLE(br, 2, 0) TMETAL_SWIZZLE(bg, 2, 1) TMETAL_SWIZZLE(bb, 2, 2) TMETAL_SWIZZLE(ba, 2, 3)
    TMETAL_SWIZZLE(ar, 3, 0) TMETAL_SWIZZLE(ag, 3, 1) TMETAL_SWIZZLE(ab, 3, 2) TMETAL_SWIZZLE(aa, 3, 3)
    TMETAL_SWIZZLE(rgb, 0, 1, 2) TMETAL_SWIZZLE(rga, 0, 1, 3) TMETAL_SWIZZLE(rbg, 0, 2, 1) TMETAL_SWIZZLE(rba, 0, 2, 3)
    TMETAL_SWIZZLE(rag, 0, 3, 1) TMETAL_SWIZZLE(rab, 0, 3, 2) TMETAL_SWIZZLE(grb, 1, 0, 2) TMETAL_SWIZZLE(gra, 1, 0, 3)
    TMETAL_SWIZZLE(gbr, 1, 2, 0) TMETAL_SWIZZLE(gba, 1, 2, 3) TMETAL_SWIZZLE(gar, 1, 3, 0) TMETAL_SWIZZLE(gab, 1, 3, 2)
    TMETAL_SWIZZLE(brg, 2, 0, 1) TMETAL_SWIZZLE(bra, 2, 0, 3) TMETAL_SWIZZLE(bgr, 2, 1, 0) TMETAL_SWIZZLE(bga, 2, 1, 3)
    TMETAL_SWIZZLE(bar, 2, 3, 0) TMETAL_SWIZZLE(bag, 2, 3, 1) TMETAL_SWIZZLE(arg, 3, 0, 1) TMETAL_SWIZZLE(arb, 3, 0, 2)
    TMETAL_SWIZZLE(agr, 3, 1, 0) TMETAL_SWIZZLE(agb, 3, 1, 2) TMETAL_SWIZZLE(abr, 3, 2, 0) TMETAL_SWIZZLE(abg, 3, 2, 1)
    TMETAL_SWIZZLE(rgba, 0, 1, 2, 3) TMETAL_SWIZZLE(rgab, 0, 1, 3, 2) TMETAL_SWIZZLE(rbga, 0, 2, 1, 3) TMETAL_SWIZZLE(rbag, 0, 2, 3, 1)
    TMETAL_SWIZZLE(ragb, 0, 3, 1, 2) TMETAL_SWIZZLE(rabg, 0, 3, 2, 1) TMETAL_SWIZZLE(grba, 1, 0, 2, 3) TMETAL_SWIZZLE(grab, 1, 0, 3, 2)
    TMETAL_SWIZZLE(gbra, 1, 2, 0, 3) TMETAL_SWIZZLE(gbar, 1, 2, 3, 0) TMETAL_SWIZZLE(garb, 1, 3, 0, 2) TMETAL_SWIZZLE(gabr, 1, 3, 2, 0)
    TMETAL_SWIZZLE(brga, 2, 0, 1, 3) TMETAL_SWIZZLE(brag, 2, 0, 3, 1) TMETAL_SWIZZLE(bgra, 2, 1, 0, 3) TMETAL_SWIZZLE(bgar, 2, 1, 3, 0)
    TMETAL_SWIZZLE(barg, 2, 3, 0, 1) TMETAL_SWIZZLE(bagr, 2, 3, 1, 0) TMETAL_SWIZZLE(argb, 3, 0, 1, 2) TMETAL_SWIZZLE(arbg, 3, 0, 2, 1)
    TMETAL_SWIZZLE(agrb, 3, 1, 0, 2) TMETAL_SWIZZLE(agbr, 3, 1, 2, 0) TMETAL_SWIZZLE(abrg, 3, 2, 0, 1) TMETAL_SWIZZLE(abgr, 3, 2, 1, 0)
  };
};

#undef TMETAL_SWIZZLE

template <class T>
struct is_vec : std::false_type {};
template <class T, int N>
struct is_vec<vec<T, N>> : std::true_type {};
template <class T>
inline constexpr bool is_vec_v = is_vec<std::remove_cvref_t<T>>::value;

template <class T>
struct is_swizzle : std::false_type {};
template <class T, int N, int... I>
struct is_swizzle<swizzle<T, N, I...>> : std::true_type {};
template <class T>
inline constexpr bool is_swizzle_v = is_swizzle<std::remove_cvref_t<T>>::value;

// Number of vector components a constructor argument contributes.
template <class T>
struct component_count : std::integral_constant<int, 1> {};
template <class T, int N>
struct component_count<vec<T, N>> : std::integral_constant<int, N> {};
template <class T, int N, int... I>
struct component_count<swizzle<T, N, I...>> : std::integral_constant<int, int(sizeof...(I))> {};
template <class T>
inline constexpr int component_count_v = component_count<std::remove_cvref_t<T>>::value;

template <class T, int N>
struct vec : vec_storage<T, N> {
  using value_type = T;

  vec() = default;

  // A scalar converts to a vector by broadcast, as in MSL.
  template <class U>
    requires is_scalar_v<U>
  vec(U s) {
    for (int i = 0; i < N; ++i) this->e[i] = T(s);
  }

  // float4(a, b, c, d), float4(v.xy, 0.0f, 1.0f), float4(lo, hi), ...
  template <class A, class B, class... R>
    requires(component_count_v<A> + component_count_v<B> + (0 + ... + component_count_v<R>) == N)
  vec(const A& a, const B& b, const R&... rest) {
    int k = 0;
    put(k, a);
    put(k, b);
    (put(k, rest), ...);
  }

  // Element type conversion is explicit, as in MSL: float4(some_half4).
  template <class U>
    requires(!std::is_same_v<U, T>)
  explicit vec(const vec<U, N>& other) {
    for (int i = 0; i < N; ++i) this->e[i] = T(other.e[i]);
  }

  T& operator[](int i) { return this->e[i]; }
  const T& operator[](int i) const { return this->e[i]; }

 private:
  template <class X>
  void put(int& k, const X& x) {
    if constexpr (is_vec_v<X>) {
      for (int j = 0; j < component_count_v<X>; ++j) this->e[k++] = T(x.e[j]);
    } else if constexpr (is_swizzle_v<X>) {
      put(k, typename X::vector_type(x));
    } else {
      this->e[k++] = T(x);
    }
  }
};

// A vector or a swizzle view as a vector; anything else unchanged.
template <class X>
auto as_vec(const X& x) {
  if constexpr (is_swizzle_v<X>)
    return typename X::vector_type(x);
  else
    return x;
}

template <class X>
using value_t = decltype(as_vec(std::declval<const X&>()));

#define TMETAL_VEC_BINARY(op, R)                                                               \
  template <class T, int N>                                                                    \
  vec<R, N> operator op(const vec<T, N>& a, const vec<T, N>& b) {                              \
    vec<R, N> out;                                                                             \
    for (int i = 0; i < N; ++i) out.e[i] = R(a.e[i] op b.e[i]);                                \
    return out;                                                                                \
  }                                                                                            \
  template <class T, int N, class U>                                                           \
    requires is_scalar_v<U>                                                                    \
  vec<R, N> operator op(const vec<T, N>& a, U b) {                                             \
    return a op vec<T, N>(b);                                                                  \
  }                                                                                            \
  template <class T, int N, class U>                                                           \
    requires is_scalar_v<U>                                                                    \
  vec<R, N> operator op(U a, const vec<T, N>& b) {                                             \
    return vec<T, N>(a) op b;                                                                  \
  }                                                                                            \
  template <class A, class B>                                                                  \
    requires(is_swizzle_v<A> || is_swizzle_v<B>)                                               \
  auto operator op(const A& a, const B& b) {                                                   \
    return as_vec(a) op as_vec(b);                                                             \
  }

#define TMETAL_VEC_ARITHMETIC(op)                     \
  TMETAL_VEC_BINARY(op, T)                            \
  template <class T, int N, class X>                  \
  vec<T, N>& operator op##=(vec<T, N> & a, const X & b) { \
    a = a op b;                                       \
    return a;                                         \
  }
TMETAL_VEC_ARITHMETIC(+)
TMETAL_VEC_ARITHMETIC(-)
TMETAL_VEC_ARITHMETIC(*)
TMETAL_VEC_ARITHMETIC(/)
TMETAL_VEC_ARITHMETIC(%)
TMETAL_VEC_ARITHMETIC(&)
TMETAL_VEC_ARITHMETIC(|)
TMETAL_VEC_ARITHMETIC(^)
TMETAL_VEC_ARITHMETIC(<<)
TMETAL_VEC_ARITHMETIC(>>)
TMETAL_VEC_BINARY(==, bool)
TMETAL_VEC_BINARY(!=, bool)
TMETAL_VEC_BINARY(<, bool)
TMETAL_VEC_BINARY(<=, bool)
TMETAL_VEC_BINARY(>, bool)
TMETAL_VEC_BINARY(>=, bool)
TMETAL_VEC_BINARY(&&, bool)
TMETAL_VEC_BINARY(||, bool)
#undef TMETAL_VEC_ARITHMETIC
#undef TMETAL_VEC_BINARY

template <class T, int N>
vec<T, N> operator-(const vec<T, N>& a) {
  vec<T, N> out;
  for (int i = 0; i < N; ++i) out.e[i] = T(-a.e[i]);
  return out;
}
template <class T, int N>
vec<T, N> operator+(const vec<T, N>& a) {
  return a;
}
template <class T, int N>
vec<T, N> operator~(const vec<T, N>& a) {
  vec<T, N> out;
  for (int i = 0; i < N; ++i) out.e[i] = T(~a.e[i]);
  return out;
}
template <class T, int N>
vec<bool, N> operator!(const vec<T, N>& a) {
  vec<bool, N> out;
  for (int i = 0; i < N; ++i) out.e[i] = !a.e[i];
  return out;
}
template <class X>
  requires is_swizzle_v<X>
auto operator-(const X& a) {
  return -as_vec(a);
}

// Applies a scalar function to each component; scalars pass straight through.
template <class F, class X>
auto map1(F f, const X& x) {
  if constexpr (is_vec_v<X> || is_swizzle_v<X>) {
    auto v = as_vec(x);
    using R = decltype(f(v.e[0]));
    constexpr int N = component_count_v<X>;
    vec<R, N> out;
    for (int i = 0; i < N; ++i) out.e[i] = f(v.e[i]);
    return out;
  } else {
    return f(x);
  }
}

// Component of x at i, broadcasting a scalar.
template <class X>
auto component(const X& x, int i) {
  if constexpr (is_vec_v<X>)
    return x.e[i];
  else
    return x;
}

template <class X, class Y>
inline constexpr int common_components_v =
    component_count_v<X> > component_count_v<Y> ? component_count_v<X> : component_count_v<Y>;

template <class F, class X, class Y>
auto map2(F f, const X& xs, const Y& ys) {
  auto x = as_vec(xs);
  auto y = as_vec(ys);
  using VX = decltype(x);
  using VY = decltype(y);
  if constexpr (is_vec_v<VX> || is_vec_v<VY>) {
    constexpr int N = common_components_v<VX, VY>;
    using R = decltype(f(component(x, 0), component(y, 0)));
    vec<R, N> out;
    for (int i = 0; i < N; ++i) out.e[i] = f(component(x, i), component(y, i));
    return out;
  } else {
    return f(x, y);
  }
}

template <class F, class X, class Y, class Z>
auto map3(F f, const X& xs, const Y& ys, const Z& zs) {
  auto x = as_vec(xs);
  auto y = as_vec(ys);
  auto z = as_vec(zs);
  using VX = decltype(x);
  using VY = decltype(y);
  using VZ = decltype(z);
  if constexpr (is_vec_v<VX> || is_vec_v<VY> || is_vec_v<VZ>) {
    constexpr int N = common_components_v<VX, VY> > component_count_v<VZ> ? common_components_v<VX, VY>
                                                                          : component_count_v<VZ>;
    using R = decltype(f(component(x, 0), component(y, 0), component(z, 0)));
    vec<R, N> out;
    for (int i = 0; i < N; ++i) out.e[i] = f(component(x, i), component(y, i), component(z, i));
    return out;
  } else {
    return f(x, y, z);
  }
}

template <class X>
inline constexpr bool is_math_operand_v = is_scalar_v<std::remove_cvref_t<X>> || is_vec_v<X> || is_swizzle_v<X>;

}  // namespace tmetal_emu

#define TMETAL_VECTOR_TYPES(T)              \
  typedef tmetal_emu::vec<T, 2> T##2;       \
  typedef tmetal_emu::vec<T, 3> T##3;       \
  typedef tmetal_emu::vec<T, 4> T##4;
TMETAL_VECTOR_TYPES(float)
TMETAL_VECTOR_TYPES(half)
TMETAL_VECTOR_TYPES(bfloat)
TMETAL_VECTOR_TYPES(int)
TMETAL_VECTOR_TYPES(uint)
TMETAL_VECTOR_TYPES(short)
TMETAL_VECTOR_TYPES(ushort)
TMETAL_VECTOR_TYPES(char)
TMETAL_VECTOR_TYPES(uchar)
TMETAL_VECTOR_TYPES(long)
TMETAL_VECTOR_TYPES(ulong)
TMETAL_VECTOR_TYPES(bool)
#undef TMETAL_VECTOR_TYPES

// ---------------------------------------------------------------------------
// metal:: math. Every function is the precise version; metal::fast:: and
// metal::precise:: name the same functions. Half and bfloat are computed in
// float and rounded once.

namespace tmetal_emu {
// sin(pi x), cos(pi x): the argument reduced exactly (fmod by 2) first, so
// that whole and half-whole x give exact zeros and ones.
inline float sinpi(float x) {
  if (__builtin_isinf(x) || x != x) return __builtin_nanf("");
  const double r = __builtin_fmod(double(x), 2.0);
  if (r == __builtin_trunc(r)) return __builtin_copysignf(0.0f, x);
  return float(__builtin_sin(3.14159265358979323846 * r));
}
inline float cospi(float x) {
  if (__builtin_isinf(x) || x != x) return __builtin_nanf("");
  const double r = __builtin_fabs(__builtin_fmod(double(x), 2.0));
  if (r == 0.5 || r == 1.5) return 0.0f;
  return float(__builtin_cos(3.14159265358979323846 * r));
}
}  // namespace tmetal_emu

namespace metal {

using tmetal_emu::vec;
using std::numeric_limits;

#define TMETAL_FLOAT_FUNCTION_1(name, body)                                      \
  inline float name(float x) { return body; }                                  \
  inline half name(half x) { return half(name(float(x))); }                    \
  inline bfloat name(bfloat x) { return bfloat(name(float(x))); }              \
  template <class X>                                                           \
    requires(tmetal_emu::is_vec_v<X> || tmetal_emu::is_swizzle_v<X>)           \
  auto name(const X& x) {                                                      \
    return tmetal_emu::map1([](auto c) { return name(c); }, x);                \
  }
TMETAL_FLOAT_FUNCTION_1(exp, __builtin_expf(x))
TMETAL_FLOAT_FUNCTION_1(exp2, __builtin_exp2f(x))
TMETAL_FLOAT_FUNCTION_1(exp10, __builtin_powf(10.0f, x))
TMETAL_FLOAT_FUNCTION_1(log, __builtin_logf(x))
TMETAL_FLOAT_FUNCTION_1(log2, __builtin_log2f(x))
TMETAL_FLOAT_FUNCTION_1(log10, __builtin_log10f(x))
TMETAL_FLOAT_FUNCTION_1(sqrt, __builtin_sqrtf(x))
TMETAL_FLOAT_FUNCTION_1(rsqrt, 1.0f / __builtin_sqrtf(x))
TMETAL_FLOAT_FUNCTION_1(sin, __builtin_sinf(x))
TMETAL_FLOAT_FUNCTION_1(cos, __builtin_cosf(x))
TMETAL_FLOAT_FUNCTION_1(tan, __builtin_tanf(x))
TMETAL_FLOAT_FUNCTION_1(asin, __builtin_asinf(x))
TMETAL_FLOAT_FUNCTION_1(acos, __builtin_acosf(x))
TMETAL_FLOAT_FUNCTION_1(atan, __builtin_atanf(x))
TMETAL_FLOAT_FUNCTION_1(sinh, __builtin_sinhf(x))
TMETAL_FLOAT_FUNCTION_1(cosh, __builtin_coshf(x))
TMETAL_FLOAT_FUNCTION_1(tanh, __builtin_tanhf(x))
TMETAL_FLOAT_FUNCTION_1(asinh, __builtin_asinhf(x))
TMETAL_FLOAT_FUNCTION_1(acosh, __builtin_acoshf(x))
TMETAL_FLOAT_FUNCTION_1(atanh, __builtin_atanhf(x))
TMETAL_FLOAT_FUNCTION_1(fabs, __builtin_fabsf(x))
TMETAL_FLOAT_FUNCTION_1(floor, __builtin_floorf(x))
TMETAL_FLOAT_FUNCTION_1(ceil, __builtin_ceilf(x))
TMETAL_FLOAT_FUNCTION_1(trunc, __builtin_truncf(x))
TMETAL_FLOAT_FUNCTION_1(round, __builtin_roundf(x))
TMETAL_FLOAT_FUNCTION_1(rint, __builtin_rintf(x))
TMETAL_FLOAT_FUNCTION_1(sinpi, tmetal_emu::sinpi(x))
TMETAL_FLOAT_FUNCTION_1(cospi, tmetal_emu::cospi(x))
TMETAL_FLOAT_FUNCTION_1(fract, __builtin_fminf(x - __builtin_floorf(x), 0x1.fffffep-1f))
TMETAL_FLOAT_FUNCTION_1(saturate, __builtin_fminf(__builtin_fmaxf(x, 0.0f), 1.0f))
TMETAL_FLOAT_FUNCTION_1(sign, x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : x == x ? 0.0f * x : 0.0f)
#undef TMETAL_FLOAT_FUNCTION_1

#define TMETAL_FLOAT_FUNCTION_2(name, body)                                                  \
  inline float name(float x, float y) { return body; }                                      \
  inline half name(half x, half y) { return half(name(float(x), float(y))); }               \
  inline bfloat name(bfloat x, bfloat y) { return bfloat(name(float(x), float(y))); }       \
  template <class X, class Y>                                                              \
    requires((tmetal_emu::is_vec_v<X> || tmetal_emu::is_swizzle_v<X> || tmetal_emu::is_vec_v<Y> || \
              tmetal_emu::is_swizzle_v<Y>) &&                                              \
             tmetal_emu::is_math_operand_v<X> && tmetal_emu::is_math_operand_v<Y>)          \
  auto name(const X& x, const Y& y) {                                                      \
    return tmetal_emu::map2([](auto a, auto b) { return name(a, b); }, x, y);              \
  }
TMETAL_FLOAT_FUNCTION_2(fmax, __builtin_fmaxf(x, y))
TMETAL_FLOAT_FUNCTION_2(fmin, __builtin_fminf(x, y))
TMETAL_FLOAT_FUNCTION_2(pow, __builtin_powf(x, y))
TMETAL_FLOAT_FUNCTION_2(powr, __builtin_powf(x, y))
TMETAL_FLOAT_FUNCTION_2(atan2, __builtin_atan2f(x, y))
TMETAL_FLOAT_FUNCTION_2(copysign, __builtin_copysignf(x, y))
TMETAL_FLOAT_FUNCTION_2(fmod, __builtin_fmodf(x, y))
TMETAL_FLOAT_FUNCTION_2(fdim, __builtin_fdimf(x, y))
TMETAL_FLOAT_FUNCTION_2(step, x < y ? 1.0f : 0.0f)
TMETAL_FLOAT_FUNCTION_2(divide, x / y)
#undef TMETAL_FLOAT_FUNCTION_2

inline float fma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
inline half fma(half a, half b, half c) { return half(double(float(a)) * double(float(b)) + double(float(c))); }
inline bfloat fma(bfloat a, bfloat b, bfloat c) { return bfloat(__builtin_fmaf(float(a), float(b), float(c))); }
template <class X, class Y, class Z>
  requires(tmetal_emu::is_vec_v<X> || tmetal_emu::is_swizzle_v<X>)
auto fma(const X& a, const Y& b, const Z& c) {
  return tmetal_emu::map3([](auto x, auto y, auto z) { return fma(x, y, z); }, a, b, c);
}

template <class X, class Y, class Z>
auto mix(const X& x, const Y& y, const Z& a) {
  return x + (y - x) * a;
}

inline float sincos(float x, float& cosine) {
  cosine = __builtin_cosf(x);
  return __builtin_sinf(x);
}

// max/min for floating types are fmax/fmin (a NaN operand yields the other
// operand); for integers, the usual comparison.
template <class T>
  requires tmetal_emu::is_scalar_v<T>
constexpr T max(T a, T b) {
  if constexpr (std::is_floating_point_v<T> || tmetal_emu::is_small_float_v<T>)
    return T(__builtin_fmaxf(float(a), float(b)));
  else
    return a < b ? b : a;
}
template <class T>
  requires tmetal_emu::is_scalar_v<T>
constexpr T min(T a, T b) {
  if constexpr (std::is_floating_point_v<T> || tmetal_emu::is_small_float_v<T>)
    return T(__builtin_fminf(float(a), float(b)));
  else
    return b < a ? b : a;
}
template <class X, class Y>
  requires((tmetal_emu::is_vec_v<X> || tmetal_emu::is_swizzle_v<X> || tmetal_emu::is_vec_v<Y> ||
            tmetal_emu::is_swizzle_v<Y>) &&
           tmetal_emu::is_math_operand_v<X> && tmetal_emu::is_math_operand_v<Y>)
auto max(const X& x, const Y& y) {
  return tmetal_emu::map2([](auto a, auto b) { return max<decltype(a)>(a, b); }, x, y);
}
template <class X, class Y>
  requires((tmetal_emu::is_vec_v<X> || tmetal_emu::is_swizzle_v<X> || tmetal_emu::is_vec_v<Y> ||
            tmetal_emu::is_swizzle_v<Y>) &&
           tmetal_emu::is_math_operand_v<X> && tmetal_emu::is_math_operand_v<Y>)
auto min(const X& x, const Y& y) {
  return tmetal_emu::map2([](auto a, auto b) { return min<decltype(a)>(a, b); }, x, y);
}
template <class X, class Y, class Z>
auto clamp(const X& x, const Y& lo, const Z& hi) {
  return min(max(x, lo), hi);
}
template <class X, class Y, class Z>
auto max3(const X& x, const Y& y, const Z& z) {
  return max(max(x, y), z);
}
template <class X, class Y, class Z>
auto min3(const X& x, const Y& y, const Z& z) {
  return min(min(x, y), z);
}
template <class X, class Y, class Z>
auto median3(const X& x, const Y& y, const Z& z) {
  return max(min(x, y), min(max(x, y), z));
}

inline float ldexp(float x, int e) { return __builtin_ldexpf(x, e); }

inline float abs(float x) { return __builtin_fabsf(x); }
inline half abs(half x) { return half::fromBits(uint16_t(x.tmetal_bits & 0x7fff)); }
inline bfloat abs(bfloat x) { return bfloat::fromBits(uint16_t(x.tmetal_bits & 0x7fff)); }
template <class T>
  requires std::is_integral_v<T>
constexpr T abs(T x) {
  if constexpr (std::is_signed_v<T>)
    return T(x < 0 ? -x : x);
  else
    return x;
}
template <class X>
  requires(tmetal_emu::is_vec_v<X> || tmetal_emu::is_swizzle_v<X>)
auto abs(const X& x) {
  return tmetal_emu::map1([](auto c) { return abs(c); }, x);
}
template <class T>
  requires std::is_integral_v<T>
constexpr std::make_unsigned_t<T> absdiff(T a, T b) {
  return a > b ? std::make_unsigned_t<T>(a) - std::make_unsigned_t<T>(b)
               : std::make_unsigned_t<T>(b) - std::make_unsigned_t<T>(a);
}

template <class T>
  requires tmetal_emu::is_scalar_v<T>
constexpr bool isnan(T x) {
  return float(x) != float(x);
}
template <class T>
  requires tmetal_emu::is_scalar_v<T>
constexpr bool isinf(T x) {
  return __builtin_isinf(float(x));
}
template <class T>
  requires tmetal_emu::is_scalar_v<T>
constexpr bool isfinite(T x) {
  return __builtin_isfinite(float(x));
}
template <class T>
  requires tmetal_emu::is_scalar_v<T>
constexpr bool signbit(T x) {
  return __builtin_signbit(float(x));
}
#define TMETAL_VECTOR_PREDICATE(name)                                \
  template <class X>                                                 \
    requires(tmetal_emu::is_vec_v<X> || tmetal_emu::is_swizzle_v<X>) \
  auto name(const X& x) {                                            \
    return tmetal_emu::map1([](auto c) { return name(c); }, x);      \
  }
TMETAL_VECTOR_PREDICATE(isnan)
TMETAL_VECTOR_PREDICATE(isinf)
TMETAL_VECTOR_PREDICATE(isfinite)
TMETAL_VECTOR_PREDICATE(signbit)
#undef TMETAL_VECTOR_PREDICATE

// select(a, b, c): c ? b : a, per component.
template <class A, class B>
auto select(const A& a, const B& b, bool c) {
  return c ? tmetal_emu::as_vec(b) : tmetal_emu::as_vec(a);
}
template <class A, class B, int N>
auto select(const A& a, const B& b, const vec<bool, N>& c) {
  return tmetal_emu::map3([](auto x, auto y, bool z) { return z ? y : x; }, a, b, c);
}

constexpr bool all(bool b) { return b; }
constexpr bool any(bool b) { return b; }
template <int N>
bool all(const vec<bool, N>& v) {
  for (int i = 0; i < N; ++i)
    if (!v.e[i]) return false;
  return true;
}
template <int N>
bool any(const vec<bool, N>& v) {
  for (int i = 0; i < N; ++i)
    if (v.e[i]) return true;
  return false;
}

template <class X, class Y>
  requires((tmetal_emu::is_vec_v<X> || tmetal_emu::is_swizzle_v<X>) &&
           (tmetal_emu::is_vec_v<Y> || tmetal_emu::is_swizzle_v<Y>))
auto dot(const X& x, const Y& y) {
  const auto products = tmetal_emu::as_vec(x) * tmetal_emu::as_vec(y);
  auto sum = products.e[0];
  for (int i = 1; i < tmetal_emu::component_count_v<decltype(products)>; ++i) sum = sum + products.e[i];
  return sum;
}

template <class T>
  requires std::is_integral_v<T>
constexpr T popcount(T x) {
  return T(__builtin_popcountll(static_cast<unsigned long long>(static_cast<std::make_unsigned_t<T>>(x))));
}
template <class T>
  requires std::is_integral_v<T>
constexpr T clz(T x) {
  using U = std::make_unsigned_t<T>;
  const U u = U(x);
  return u == 0 ? T(sizeof(T) * 8) : T(__builtin_clzll(u) - (64 - int(sizeof(T) * 8)));
}
template <class T>
  requires std::is_integral_v<T>
constexpr T ctz(T x) {
  using U = std::make_unsigned_t<T>;
  const U u = U(x);
  return u == 0 ? T(sizeof(T) * 8) : T(__builtin_ctzll(u));
}
template <class T>
  requires std::is_integral_v<T>
constexpr T reverse_bits(T x) {
  using U = std::make_unsigned_t<T>;
  U u = U(x), r = 0;
  for (int i = 0; i < int(sizeof(T) * 8); ++i) r = U((r << 1) | ((u >> i) & 1u));
  return T(r);
}
template <class T>
  requires(std::is_integral_v<T> && sizeof(T) <= 4)
constexpr T mulhi(T a, T b) {
  using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  return T((Wide(a) * Wide(b)) >> (sizeof(T) * 8));
}
template <class T>
  requires(std::is_integral_v<T> && sizeof(T) == 8)
constexpr T mulhi(T a, T b) {
  using Wide = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
  return T((Wide(a) * Wide(b)) >> 64);
}

template <class To, class From>
To as_type(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "as_type<T>(x) needs T and x of the same size");
  return __builtin_bit_cast(To, from);
}

namespace fast {
using namespace ::metal;
}
namespace precise {
using namespace ::metal;
}

}  // namespace metal

// Guarded: host code that includes <cmath> first (the shim's own tests) has some of these.
#ifndef MAXFLOAT
#define MAXFLOAT 0x1.fffffep+127f
#endif
#ifndef HUGE_VALF
#define HUGE_VALF __builtin_huge_valf()
#endif
#ifndef INFINITY
#define INFINITY __builtin_inff()
#endif
#ifndef NAN
#define NAN __builtin_nanf("")
#endif
#ifndef FLT_MAX
#define FLT_MAX 0x1.fffffep+127f
#endif
#ifndef FLT_MIN
#define FLT_MIN 0x1p-126f
#endif
#ifndef FLT_EPSILON
#define FLT_EPSILON 0x1p-23f
#endif
#ifndef HALF_MAX
#define HALF_MAX (::half::fromBits(0x7bff))
#endif
#ifndef HALF_MIN
#define HALF_MIN (::half::fromBits(0x0400))
#endif
#ifndef HALF_EPSILON
#define HALF_EPSILON (::half::fromBits(0x1400))
#endif
#ifndef MAXHALF
#define MAXHALF HALF_MAX
#endif
#ifndef M_E_F
#define M_E_F 2.71828182845904523536028747135266250f
#endif
#ifndef M_LOG2E_F
#define M_LOG2E_F 1.44269504088896340735992468100189214f
#endif
#ifndef M_LOG10E_F
#define M_LOG10E_F 0.434294481903251827651128918916605082f
#endif
#ifndef M_LN2_F
#define M_LN2_F 0.693147180559945309417232121458176568f
#endif
#ifndef M_LN10_F
#define M_LN10_F 2.30258509299404568401799145468436421f
#endif
#ifndef M_PI_F
#define M_PI_F 3.14159265358979323846264338327950288f
#endif
#ifndef M_PI_2_F
#define M_PI_2_F 1.57079632679489661923132169163975144f
#endif
#ifndef M_PI_4_F
#define M_PI_4_F 0.785398163397448309615660845819875721f
#endif
#ifndef M_1_PI_F
#define M_1_PI_F 0.318309886183790671537767526745028724f
#endif
#ifndef M_2_PI_F
#define M_2_PI_F 0.636619772367581343075535053490057448f
#endif
#ifndef M_2_SQRTPI_F
#define M_2_SQRTPI_F 1.12837916709551257389615890312154517f
#endif
#ifndef M_SQRT2_F
#define M_SQRT2_F 1.41421356237309504880168872420969808f
#endif
#ifndef M_SQRT1_2_F
#define M_SQRT1_2_F 0.707106781186547524400844362104849039f
#endif
#ifndef INT_MAX
#define INT_MAX 2147483647
#endif
#ifndef INT_MIN
#define INT_MIN (-2147483647 - 1)
#endif
#ifndef UINT_MAX
#define UINT_MAX 4294967295u
#endif

// ---------------------------------------------------------------------------
// Atomics. Threadgroups run in parallel on OS threads, so these are real
// hardware atomics (sequentially consistent whatever order is asked for;
// MSL only offers memory_order_relaxed, which this strengthens).

namespace metal {

enum memory_order {
  memory_order_relaxed,
  memory_order_acquire,
  memory_order_release,
  memory_order_acq_rel,
  memory_order_seq_cst
};

enum class thread_scope { thread_scope_thread, thread_scope_simdgroup, thread_scope_threadgroup, thread_scope_device };

template <class T>
struct atomic {
  T tmetal_value;  // no member functions: MSL atomics are used only through the free functions below
};

typedef atomic<int> atomic_int;
typedef atomic<uint> atomic_uint;
typedef atomic<bool> atomic_bool;
typedef atomic<float> atomic_float;
typedef atomic<ulong> atomic_ulong;
typedef atomic<long> atomic_long;

template <class T>
void atomic_store_explicit(volatile atomic<T>* object, std::type_identity_t<T> desired, memory_order) {
  __atomic_store(&object->tmetal_value, &desired, __ATOMIC_SEQ_CST);
}
template <class T>
T atomic_load_explicit(const volatile atomic<T>* object, memory_order) {
  T value;
  __atomic_load(&object->tmetal_value, &value, __ATOMIC_SEQ_CST);
  return value;
}
template <class T>
T atomic_exchange_explicit(volatile atomic<T>* object, std::type_identity_t<T> desired, memory_order) {
  T previous;
  __atomic_exchange(&object->tmetal_value, &desired, &previous, __ATOMIC_SEQ_CST);
  return previous;
}
template <class T>
bool atomic_compare_exchange_weak_explicit(volatile atomic<T>* object, T* expected, std::type_identity_t<T> desired,
                                           memory_order, memory_order) {
  return __atomic_compare_exchange(&object->tmetal_value, expected, &desired, false, __ATOMIC_SEQ_CST,
                                   __ATOMIC_SEQ_CST);
}
template <class T>
bool atomic_compare_exchange_strong_explicit(volatile atomic<T>* object, T* expected,
                                             std::type_identity_t<T> desired, memory_order, memory_order) {
  return __atomic_compare_exchange(&object->tmetal_value, expected, &desired, false, __ATOMIC_SEQ_CST,
                                   __ATOMIC_SEQ_CST);
}

}  // namespace metal

namespace tmetal_emu {
// Read-modify-write through compare-and-swap, for float and for min/max.
template <class T, class F>
T atomicUpdate(volatile T* target, F update) {
  T expected;
  __atomic_load(target, &expected, __ATOMIC_SEQ_CST);
  for (;;) {
    T desired = update(expected);
    if (__atomic_compare_exchange(target, &expected, &desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
      return expected;
  }
}
}  // namespace tmetal_emu

namespace metal {

#define TMETAL_ATOMIC_FETCH(name, op, builtin)                                                              \
  template <class T>                                                                                       \
  T atomic_fetch_##name##_explicit(volatile atomic<T>* object, std::type_identity_t<T> operand, memory_order) { \
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)                                       \
      return builtin(&object->tmetal_value, operand, __ATOMIC_SEQ_CST);                                     \
    else                                                                                                   \
      return tmetal_emu::atomicUpdate(&object->tmetal_value, [&](T v) { return T(op); });                   \
  }
TMETAL_ATOMIC_FETCH(add, v + operand, __atomic_fetch_add)
TMETAL_ATOMIC_FETCH(sub, v - operand, __atomic_fetch_sub)
TMETAL_ATOMIC_FETCH(and, v & operand, __atomic_fetch_and)
TMETAL_ATOMIC_FETCH(or, v | operand, __atomic_fetch_or)
TMETAL_ATOMIC_FETCH(xor, v ^ operand, __atomic_fetch_xor)
#undef TMETAL_ATOMIC_FETCH

template <class T>
T atomic_fetch_max_explicit(volatile atomic<T>* object, std::type_identity_t<T> operand, memory_order) {
  return tmetal_emu::atomicUpdate(&object->tmetal_value, [&](T v) { return max(v, operand); });
}
template <class T>
T atomic_fetch_min_explicit(volatile atomic<T>* object, std::type_identity_t<T> operand, memory_order) {
  return tmetal_emu::atomicUpdate(&object->tmetal_value, [&](T v) { return min(v, operand); });
}

// ---------------------------------------------------------------------------
// Barriers. The host scheduler returns from the hook once every thread of
// the threadgroup (threadgroup_barrier) or every lane of the SIMD group
// (simdgroup_barrier) has arrived, and reports divergence instead of hanging.

enum class mem_flags : uint {
  mem_none = 0,
  mem_device = 1,
  mem_threadgroup = 2,
  mem_texture = 4,
  mem_threadgroup_imageblock = 8,
  mem_object_data = 16,
};
constexpr mem_flags operator|(mem_flags a, mem_flags b) { return mem_flags(uint(a) | uint(b)); }
constexpr mem_flags operator&(mem_flags a, mem_flags b) { return mem_flags(uint(a) & uint(b)); }

inline void atomic_thread_fence(mem_flags, memory_order, thread_scope = thread_scope::thread_scope_device) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

}  // namespace metal

namespace tmetal_emu {

// Set by tmetal_emulator_bind right after the host loads the kernel object.
inline const tmetal_emu_abi::Hooks* g_hooks = nullptr;

inline const tmetal_emu_abi::Hooks& hooks() {
  if (g_hooks == nullptr) __builtin_trap();  // the shim used outside the emulator's launcher
  return *g_hooks;
}

// Builds a combine error message without <cstdio>.
struct ErrorText {
  char* out;
  uint32_t length = 0;
  ErrorText& operator<<(const char* s) {
    while (*s && length + 1 < tmetal_emu_abi::kCollectiveErrorBytes) out[length++] = *s++;
    out[length] = 0;
    return *this;
  }
  ErrorText& operator<<(uint64_t v) {
    char digits[24];
    int n = 0;
    do {
      digits[n++] = char('0' + v % 10);
      v /= 10;
    } while (v);
    char text[24];
    for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
    text[n] = 0;
    return *this << static_cast<const char*>(text);
  }
};

// What one lane hands to a collective: its value and an integer operand
// (shuffle source lane, xor mask, delta).
template <class T>
struct Deposit {
  T value;
  uint32_t operand;
};

template <class T, class R, tmetal_emu_abi::CollectiveCombine Combine>
R collective(const char* op, int line, int site, const T& value, uint32_t operand) {
  static_assert(sizeof(Deposit<T>) <= tmetal_emu_abi::kMaxCollectiveDepositBytes &&
                    sizeof(R) <= tmetal_emu_abi::kMaxCollectiveResultBytes,
                "value too large for a SIMD-group function");
  static_assert(std::is_trivially_copyable_v<T>, "SIMD-group functions exchange plain values only");
  Deposit<T> deposit;
  __builtin_memset(&deposit, 0, sizeof deposit);
  deposit.value = value;
  deposit.operand = operand;
  R result;
  const tmetal_emu_abi::CollectiveCall call{op, line, site, &deposit, uint32_t(sizeof deposit), &result,
                                            uint32_t(sizeof(R)), Combine};
  hooks().collective(&call);
  return result;
}

struct SumOp {
  template <class T>
  static T apply(const T& a, const T& b) { return T(a + b); }
  template <class T>
  static T identity() { return T(0); }
};
struct ProductOp {
  template <class T>
  static T apply(const T& a, const T& b) { return T(a * b); }
  template <class T>
  static T identity() { return T(1); }
};
struct MinOp {
  template <class T>
  static T apply(const T& a, const T& b) { return T(metal::min(a, b)); }
};
struct MaxOp {
  template <class T>
  static T apply(const T& a, const T& b) { return T(metal::max(a, b)); }
};
struct AndOp {
  template <class T>
  static T apply(const T& a, const T& b) { return T(a & b); }
};
struct OrOp {
  template <class T>
  static T apply(const T& a, const T& b) { return T(a | b); }
};
struct XorOp {
  template <class T>
  static T apply(const T& a, const T& b) { return T(a ^ b); }
};

// Reductions combine lanes in order 0, 1, 2, ... and give every lane the result.
template <class T, class Op>
int combineReduce(const void* deposits, void* results, uint32_t lanes, uint32_t, char*) {
  const auto* in = static_cast<const Deposit<T>*>(deposits);
  auto* out = static_cast<T*>(results);
  T acc = in[0].value;
  for (uint32_t lane = 1; lane < lanes; ++lane) acc = Op::apply(acc, in[lane].value);
  for (uint32_t lane = 0; lane < lanes; ++lane) out[lane] = acc;
  return 0;
}

template <class T, class Op, bool kInclusive>
int combineScan(const void* deposits, void* results, uint32_t lanes, uint32_t, char*) {
  const auto* in = static_cast<const Deposit<T>*>(deposits);
  auto* out = static_cast<T*>(results);
  T acc = Op::template identity<T>();
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    if (kInclusive) {
      acc = Op::apply(acc, in[lane].value);
      out[lane] = acc;
    } else {
      out[lane] = acc;
      acc = Op::apply(acc, in[lane].value);
    }
  }
  return 0;
}

// Where each shuffle flavour reads from. kKeepOwn: the lane keeps its value
// (MSL: "the lower delta lanes are unchanged" for simd_shuffle_up).
constexpr int64_t kKeepOwn = -1;
struct ShuffleFrom {
  static int64_t source(uint32_t lane, uint32_t operand, uint32_t) { return operand; }
};
struct ShuffleXor {
  static int64_t source(uint32_t lane, uint32_t operand, uint32_t) { return lane ^ operand; }
};
struct ShuffleUp {
  static int64_t source(uint32_t lane, uint32_t operand, uint32_t) {
    return operand > lane ? kKeepOwn : int64_t(lane) - operand;
  }
};
struct ShuffleDown {
  static int64_t source(uint32_t lane, uint32_t operand, uint32_t width) {
    return uint64_t(lane) + operand >= width ? kKeepOwn : int64_t(lane) + operand;
  }
};
struct RotateUp {
  static int64_t source(uint32_t lane, uint32_t operand, uint32_t width) {
    return (int64_t(lane) + width - operand % width) % width;
  }
};
struct RotateDown {
  static int64_t source(uint32_t lane, uint32_t operand, uint32_t width) { return (uint64_t(lane) + operand) % width; }
};
struct FirstLane {
  static int64_t source(uint32_t, uint32_t, uint32_t) { return 0; }
};

template <class T, class Source>
int combineShuffle(const void* deposits, void* results, uint32_t lanes, uint32_t width, char* error) {
  const auto* in = static_cast<const Deposit<T>*>(deposits);
  auto* out = static_cast<T*>(results);
  for (uint32_t lane = 0; lane < lanes; ++lane) {
    const int64_t source = Source::source(lane, in[lane].operand, width);
    if (source == kKeepOwn) {
      out[lane] = in[lane].value;
    } else if (source < 0 || uint64_t(source) >= lanes) {
      ErrorText text{error};
      text << "lane " << uint64_t(lane) << " reads lane " << uint64_t(source) << ", which does not exist (the SIMD group has "
           << uint64_t(lanes) << " lanes)";
      return 1;
    } else {
      out[lane] = in[source].value;
    }
  }
  return 0;
}

template <bool kAll>
int combineVote(const void* deposits, void* results, uint32_t lanes, uint32_t, char*) {
  const auto* in = static_cast<const Deposit<bool>*>(deposits);
  auto* out = static_cast<bool*>(results);
  bool verdict = kAll;
  for (uint32_t lane = 0; lane < lanes; ++lane) verdict = kAll ? (verdict && in[lane].value) : (verdict || in[lane].value);
  for (uint32_t lane = 0; lane < lanes; ++lane) out[lane] = verdict;
  return 0;
}

inline int combineIsFirst(const void*, void* results, uint32_t lanes, uint32_t, char*) {
  auto* out = static_cast<bool*>(results);
  for (uint32_t lane = 0; lane < lanes; ++lane) out[lane] = lane == 0;
  return 0;
}

inline int combineNothing(const void*, void*, uint32_t, uint32_t, char*) { return 0; }

}  // namespace tmetal_emu

namespace metal {

// The lanes' votes of simd_ballot; bit i is lane i.
struct simd_vote {
  using vote_t = ulong;
  vote_t tmetal_bits = 0;
  vote_t tmetal_lanes = 0;  // lanes that exist in the SIMD group

  constexpr simd_vote() = default;
  constexpr explicit simd_vote(vote_t bits) : tmetal_bits(bits), tmetal_lanes(~vote_t(0)) {}
  constexpr explicit operator vote_t() const { return tmetal_bits; }
  constexpr bool all() const { return (tmetal_bits & tmetal_lanes) == tmetal_lanes; }
  constexpr bool any() const { return tmetal_bits != 0; }
};

}  // namespace metal

namespace tmetal_emu {
inline int combineBallot(const void* deposits, void* results, uint32_t lanes, uint32_t, char*) {
  const auto* in = static_cast<const Deposit<bool>*>(deposits);
  auto* out = static_cast<metal::simd_vote*>(results);
  metal::simd_vote vote;
  vote.tmetal_lanes = lanes >= 64 ? ~0ul : (1ul << lanes) - 1;
  for (uint32_t lane = 0; lane < lanes; ++lane)
    if (in[lane].value) vote.tmetal_bits |= 1ul << lane;
  for (uint32_t lane = 0; lane < lanes; ++lane) out[lane] = vote;
  return 0;
}
}  // namespace tmetal_emu

namespace metal {

// Each MSL SIMD-group function below is reached through a macro (end of this
// header) that adds the call's source line and a unique call-site id.
#define TMETAL_SIMD_REDUCTION(name, op)                                                                \
  template <class X>                                                                                   \
  tmetal_emu::value_t<X> tmetal_##name(int line, int site, const X& x) {                               \
    using T = tmetal_emu::value_t<X>;                                                                  \
    return tmetal_emu::collective<T, T, &tmetal_emu::combineReduce<T, op>>(#name, line, site, T(x), 0); \
  }
TMETAL_SIMD_REDUCTION(simd_sum, tmetal_emu::SumOp)
TMETAL_SIMD_REDUCTION(simd_product, tmetal_emu::ProductOp)
TMETAL_SIMD_REDUCTION(simd_min, tmetal_emu::MinOp)
TMETAL_SIMD_REDUCTION(simd_max, tmetal_emu::MaxOp)
TMETAL_SIMD_REDUCTION(simd_and, tmetal_emu::AndOp)
TMETAL_SIMD_REDUCTION(simd_or, tmetal_emu::OrOp)
TMETAL_SIMD_REDUCTION(simd_xor, tmetal_emu::XorOp)
#undef TMETAL_SIMD_REDUCTION

#define TMETAL_SIMD_SCAN(name, op, inclusive)                                                                \
  template <class X>                                                                                         \
  tmetal_emu::value_t<X> tmetal_##name(int line, int site, const X& x) {                                     \
    using T = tmetal_emu::value_t<X>;                                                                        \
    return tmetal_emu::collective<T, T, &tmetal_emu::combineScan<T, op, inclusive>>(#name, line, site, T(x), 0); \
  }
TMETAL_SIMD_SCAN(simd_prefix_inclusive_sum, tmetal_emu::SumOp, true)
TMETAL_SIMD_SCAN(simd_prefix_exclusive_sum, tmetal_emu::SumOp, false)
TMETAL_SIMD_SCAN(simd_prefix_inclusive_product, tmetal_emu::ProductOp, true)
TMETAL_SIMD_SCAN(simd_prefix_exclusive_product, tmetal_emu::ProductOp, false)
#undef TMETAL_SIMD_SCAN

#define TMETAL_SIMD_SHUFFLE(name, source)                                                                       \
  template <class X>                                                                                            \
  tmetal_emu::value_t<X> tmetal_##name(int line, int site, const X& x, uint operand) {                          \
    using T = tmetal_emu::value_t<X>;                                                                           \
    return tmetal_emu::collective<T, T, &tmetal_emu::combineShuffle<T, source>>(#name, line, site, T(x), operand); \
  }
TMETAL_SIMD_SHUFFLE(simd_shuffle, tmetal_emu::ShuffleFrom)
TMETAL_SIMD_SHUFFLE(simd_broadcast, tmetal_emu::ShuffleFrom)
TMETAL_SIMD_SHUFFLE(simd_shuffle_xor, tmetal_emu::ShuffleXor)
TMETAL_SIMD_SHUFFLE(simd_shuffle_up, tmetal_emu::ShuffleUp)
TMETAL_SIMD_SHUFFLE(simd_shuffle_down, tmetal_emu::ShuffleDown)
TMETAL_SIMD_SHUFFLE(simd_shuffle_rotate_up, tmetal_emu::RotateUp)
TMETAL_SIMD_SHUFFLE(simd_shuffle_rotate_down, tmetal_emu::RotateDown)
#undef TMETAL_SIMD_SHUFFLE

template <class X>
tmetal_emu::value_t<X> tmetal_simd_broadcast_first(int line, int site, const X& x) {
  using T = tmetal_emu::value_t<X>;
  return tmetal_emu::collective<T, T, &tmetal_emu::combineShuffle<T, tmetal_emu::FirstLane>>(
      "simd_broadcast_first", line, site, T(x), 0);
}

inline bool tmetal_simd_all(int line, int site, bool b) {
  return tmetal_emu::collective<bool, bool, &tmetal_emu::combineVote<true>>("simd_all", line, site, b, 0);
}
inline bool tmetal_simd_any(int line, int site, bool b) {
  return tmetal_emu::collective<bool, bool, &tmetal_emu::combineVote<false>>("simd_any", line, site, b, 0);
}
inline simd_vote tmetal_simd_ballot(int line, int site, bool b) {
  return tmetal_emu::collective<bool, simd_vote, &tmetal_emu::combineBallot>("simd_ballot", line, site, b, 0);
}
inline bool tmetal_simd_is_first(int line, int site) {
  return tmetal_emu::collective<bool, bool, &tmetal_emu::combineIsFirst>("simd_is_first", line, site, false, 0);
}

inline void tmetal_simdgroup_barrier(int line, int site, mem_flags flags) {
  if ((flags & mem_flags::mem_device) != mem_flags::mem_none) __atomic_thread_fence(__ATOMIC_SEQ_CST);
  tmetal_emu::collective<bool, bool, &tmetal_emu::combineNothing>("simdgroup_barrier", line, site, false, 0);
}

inline void tmetal_threadgroup_barrier(int line, int site, mem_flags flags) {
  if ((flags & mem_flags::mem_device) != mem_flags::mem_none) __atomic_thread_fence(__ATOMIC_SEQ_CST);
  tmetal_emu::hooks().threadgroupBarrier(line, site);
}

// ---------------------------------------------------------------------------
// SIMD-group matrices (8x8 tiles shared by a SIMD group), distributed over
// the lanes as on Apple GPUs: lane l holds two elements of row
// (l & 16) / 4 + (l & 7) / 2, columns (l & 8) / 2 + (l & 1) * 2 and the one
// after, which thread_elements() names. The MSL specification leaves this
// mapping to the implementation; it is the one MLX's and llama.cpp's Metal
// kernels read and write tiles through, and what the emulator checks tmetal's
// use of it against (unverified here on Apple hardware). Loads, stores and
// products are SIMD-group collectives: a lane that skips one is reported as
// divergence, as the hardware requires every lane to take part.

template <class T, int Cols, int Rows>
struct simdgroup_matrix {
  static_assert(Cols == 8 && Rows == 8, "SIMD-group matrices are 8x8");
  vec<T, 2> tmetal_pair;
  vec<T, 2>& thread_elements() { return tmetal_pair; }
  const vec<T, 2>& thread_elements() const { return tmetal_pair; }
};
typedef simdgroup_matrix<half, 8, 8> simdgroup_half8x8;
typedef simdgroup_matrix<float, 8, 8> simdgroup_float8x8;
typedef simdgroup_matrix<bfloat, 8, 8> simdgroup_bfloat8x8;

}  // namespace metal

namespace tmetal_emu {

// The row and first column of the two elements lane `lane` holds.
inline int matrixRow(uint32_t lane) { return int((lane & 16) / 4 + (lane & 7) / 2); }
inline int matrixColumn(uint32_t lane) { return int((lane & 8) / 2 + (lane & 1) * 2); }

inline int checkMatrixLanes(uint32_t lanes, char* error) {
  if (lanes == 32) return 0;
  ErrorText text{error};
  text << "a SIMD-group matrix needs 32 lanes; this SIMD group has " << uint64_t(lanes);
  return 1;
}

inline int combineMatrixLane(const void*, void* results, uint32_t lanes, uint32_t, char* error) {
  if (checkMatrixLanes(lanes, error)) return 1;
  for (uint32_t lane = 0; lane < lanes; ++lane) static_cast<uint32_t*>(results)[lane] = lane;
  return 0;
}

// This lane's index, from a collective named `op` (every lane must call it).
inline uint32_t matrixLane(const char* op, int line, int site) {
  return collective<bool, uint32_t, &combineMatrixLane>(op, line, site, false, 0);
}

// What each lane hands to a product: its elements of a, b and c.
template <class T, class A, class B>
struct MatrixProductShare {
  metal::vec<A, 2> a;
  metal::vec<B, 2> b;
  metal::vec<T, 2> c;
};

// d = a * b + c on the assembled tiles: each element summed in float from c
// in the order of K (products of 16-bit floats are exact in float), then
// rounded to d's type; each lane gets its elements of d.
template <class T, class A, class B>
int combineMatrixProduct(const void* deposits, void* results, uint32_t lanes, uint32_t, char* error) {
  if (checkMatrixLanes(lanes, error)) return 1;
  const auto* in = static_cast<const Deposit<MatrixProductShare<T, A, B>>*>(deposits);
  float a[8][8], b[8][8], c[8][8];
  for (uint32_t lane = 0; lane < lanes; ++lane)
    for (int e = 0; e < 2; ++e) {
      const int r = matrixRow(lane), col = matrixColumn(lane) + e;
      a[r][col] = float(in[lane].value.a[e]);
      b[r][col] = float(in[lane].value.b[e]);
      c[r][col] = float(in[lane].value.c[e]);
    }
  auto* out = static_cast<metal::vec<T, 2>*>(results);
  for (uint32_t lane = 0; lane < lanes; ++lane)
    for (int e = 0; e < 2; ++e) {
      const int r = matrixRow(lane), col = matrixColumn(lane) + e;
      float sum = c[r][col];
      for (int k = 0; k < 8; ++k) sum = __builtin_fmaf(a[r][k], b[k][col], sum);
      out[lane][e] = T(sum);
    }
  return 0;
}

}  // namespace tmetal_emu

namespace metal {

template <class T, int Cols, int Rows>
simdgroup_matrix<T, Cols, Rows> make_filled_simdgroup_matrix(std::type_identity_t<T> value) {
  simdgroup_matrix<T, Cols, Rows> m;
  m.tmetal_pair = vec<T, 2>(value);
  return m;
}

// Element (r, c) of the tile is the one at column c, row r of the memory
// matrix from matrix_origin (x: column, y: row), or at column r, row c when
// transposed.
template <class T, int Cols, int Rows>
void tmetal_simdgroup_load(int line, int site, simdgroup_matrix<T, Cols, Rows>& d, const T* src,
                           ulong elements_per_row = Cols, ulong2 matrix_origin = ulong2(0),
                           bool transpose_matrix = false) {
  const uint32_t lane = tmetal_emu::matrixLane("simdgroup_load", line, site);
  const T* origin = src + matrix_origin.y * elements_per_row + matrix_origin.x;
  const ulong r = ulong(tmetal_emu::matrixRow(lane));
  for (int e = 0; e < 2; ++e) {
    const ulong c = ulong(tmetal_emu::matrixColumn(lane) + e);
    d.tmetal_pair[e] = transpose_matrix ? origin[c * elements_per_row + r] : origin[r * elements_per_row + c];
  }
}

template <class T, int Cols, int Rows>
void tmetal_simdgroup_store(int line, int site, const simdgroup_matrix<T, Cols, Rows>& a, T* dst,
                            ulong elements_per_row = Cols, ulong2 matrix_origin = ulong2(0),
                            bool transpose_matrix = false) {
  const uint32_t lane = tmetal_emu::matrixLane("simdgroup_store", line, site);
  T* origin = dst + matrix_origin.y * elements_per_row + matrix_origin.x;
  const ulong r = ulong(tmetal_emu::matrixRow(lane));
  for (int e = 0; e < 2; ++e) {
    const ulong c = ulong(tmetal_emu::matrixColumn(lane) + e);
    (transpose_matrix ? origin[c * elements_per_row + r] : origin[r * elements_per_row + c]) = a.tmetal_pair[e];
  }
}

template <class T, class A, class B, int Cols, int Rows, int K>
void tmetal_simdgroup_multiply_accumulate(int line, int site, simdgroup_matrix<T, Cols, Rows>& d,
                                          const simdgroup_matrix<A, K, Rows>& a, const simdgroup_matrix<B, Cols, K>& b,
                                          const simdgroup_matrix<T, Cols, Rows>& c) {
  using Share = tmetal_emu::MatrixProductShare<T, A, B>;
  d.tmetal_pair = tmetal_emu::collective<Share, vec<T, 2>, &tmetal_emu::combineMatrixProduct<T, A, B>>(
      "simdgroup_multiply_accumulate", line, site, Share{a.tmetal_pair, b.tmetal_pair, c.tmetal_pair}, 0);
}

}  // namespace metal

// ---------------------------------------------------------------------------
// Used by the generated trampoline (trampoline.h): parameter checks against
// the metadata, and argument slots that convert to whatever the kernel declares.

namespace tmetal_emu {

struct NoParameter {};

template <int I, class... A>
struct nth_type {
  using type = NoParameter;
};
template <class H, class... R>
struct nth_type<0, H, R...> {
  using type = H;
};
template <int I, class H, class... R>
struct nth_type<I, H, R...> : nth_type<I - 1, R...> {};

template <class F>
struct kernel_signature;
template <class R, class... A>
struct kernel_signature<R (*)(A...)> {
  static constexpr int count = int(sizeof...(A));
  template <int I>
  using parameter = typename nth_type<I, A...>::type;
};

template <class F>
inline constexpr int parameter_count_v = kernel_signature<F>::count;
template <class F, int I>
using parameter_t = typename kernel_signature<F>::template parameter<I>;
template <class F, int I>
inline constexpr bool missing_parameter_v = std::is_same_v<parameter_t<F, I>, NoParameter>;
template <class F, int I>
inline constexpr bool is_pointer_parameter_v = std::is_pointer_v<parameter_t<F, I>>;

template <class P>
constexpr int pointee_bytes() {
  using T = std::remove_cv_t<std::remove_pointer_t<P>>;
  if constexpr (std::is_void_v<T>)
    return 0;
  else
    return int(sizeof(T));
}
template <class F, int I>
inline constexpr int pointee_bytes_v = pointee_bytes<parameter_t<F, I>>();
template <class F, int I>
inline constexpr int scalar_bytes_v = int(sizeof(std::remove_cvref_t<parameter_t<F, I>>));

// A buffer slot: converts to the kernel's `device T*` parameter.
struct AnyPointer {
  void* address;
  template <class T>
  operator T*() const {
    return static_cast<T*>(address);
  }
};

// A scalar slot: binds the kernel's `constant T&` (or by-value T) parameter.
struct AnyReference {
  void* address;
  template <class T>
  operator T&() const {
    return *static_cast<T*>(address);
  }
};

}  // namespace tmetal_emu

// ---------------------------------------------------------------------------
// MSL keywords and call-site macros. Left out when host code includes this
// header to test the types (they would clash with std::thread and friends).
#ifndef TMETAL_SHIM_NO_KEYWORD_MACROS

#define kernel
#define device
#define thread
#define constant const
// The runtime rewrites each `threadgroup` token (msl_source_rewrite.h): a
// variable declaration becomes one per OS thread, which is one per threadgroup
// because a threadgroup's fibers share an OS thread; in a pointer, reference or
// cast type it is only an address-space qualifier.
#define TMETAL_THREADGROUP_STORAGE static thread_local
#define TMETAL_THREADGROUP_ADDRESS_SPACE

#define TMETAL_CALL_SITE __LINE__, __COUNTER__
#define threadgroup_barrier(...) tmetal_threadgroup_barrier(TMETAL_CALL_SITE, __VA_ARGS__)
#define simdgroup_barrier(...) tmetal_simdgroup_barrier(TMETAL_CALL_SITE, __VA_ARGS__)
#define simdgroup_load(...) tmetal_simdgroup_load(TMETAL_CALL_SITE, __VA_ARGS__)
#define simdgroup_store(...) tmetal_simdgroup_store(TMETAL_CALL_SITE, __VA_ARGS__)
#define simdgroup_multiply_accumulate(...) tmetal_simdgroup_multiply_accumulate(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_sum(...) tmetal_simd_sum(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_product(...) tmetal_simd_product(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_min(...) tmetal_simd_min(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_max(...) tmetal_simd_max(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_and(...) tmetal_simd_and(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_or(...) tmetal_simd_or(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_xor(...) tmetal_simd_xor(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_prefix_inclusive_sum(...) tmetal_simd_prefix_inclusive_sum(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_prefix_exclusive_sum(...) tmetal_simd_prefix_exclusive_sum(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_prefix_inclusive_product(...) tmetal_simd_prefix_inclusive_product(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_prefix_exclusive_product(...) tmetal_simd_prefix_exclusive_product(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_shuffle(...) tmetal_simd_shuffle(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_shuffle_xor(...) tmetal_simd_shuffle_xor(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_shuffle_up(...) tmetal_simd_shuffle_up(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_shuffle_down(...) tmetal_simd_shuffle_down(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_shuffle_rotate_up(...) tmetal_simd_shuffle_rotate_up(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_shuffle_rotate_down(...) tmetal_simd_shuffle_rotate_down(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_broadcast(...) tmetal_simd_broadcast(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_broadcast_first(...) tmetal_simd_broadcast_first(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_all(...) tmetal_simd_all(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_any(...) tmetal_simd_any(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_ballot(...) tmetal_simd_ballot(TMETAL_CALL_SITE, __VA_ARGS__)
#define simd_is_first() tmetal_simd_is_first(TMETAL_CALL_SITE)

#endif  // TMETAL_SHIM_NO_KEYWORD_MACROS
