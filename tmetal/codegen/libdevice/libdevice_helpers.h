// The bodies of libdevice functions that Metal has no built-in for (Bessel
// functions, lgamma, erfinv, directed rounding, ...), written once in the C
// subset that MSL and CUDA C++ share, and emitted for whichever target is
// compiled. CUDA has most of them natively, but using the same text there is
// the point: the CUDA validation mode then checks the code Metal will run.
//
// The text is plain C with a few markers that each dialect spells its own way:
//   @helper         the qualifier of a helper function ("static inline" in MSL,
//                   "static __device__ __forceinline__" in CUDA)
//   @exp( @exp2( @exp10( @log( @log2( @log10( @sqrt( @rsqrt( @sin( @cos( @tan(
//   @sinh( @cosh( @tanh( @asin( @acos( @atan( @atan2( @asinh( @acosh( @atanh(
//   @sinpi( @cospi( @pow( @fabs( @floor( @ceil( @trunc( @rint( @round(
//   @fma( @copysign( @fmin( @fmax( @ldexp( @fmod( @fdim(
//                   the target's float math function (metal::precise::exp,
//                   expf, ...); every argument and result is a float (ldexp:
//                   float, int)
//   @fast_exp( ... @fast_divide(   the hardware approximation (metal::fast::exp, __expf)
//   @clz( @popcount( @reverse_bits( @mulhi( @umulhi(   32-bit integer instructions
//   @add_rn( @sub_rn( @mul_rn(   a float operation the compiler must not fuse
//   @as_float(e)    the float whose bits are the uint e
//   @as_uint(e)     the bits of the float e, as a uint
//   @inf @nan       float infinity and a quiet NaN
// Types are float, int and uint (32 bits each), long and ulong (64);
// literals carry the f suffix (MSL has no double). NaN tests are written
// `x != x`. Each dialect spells the markers in CEmitter::libdeviceMarker.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tmetal::codegen {

class CEmitter;

struct LibdeviceHelper {
  std::string_view name;               // the function the text defines
  std::vector<std::string_view> uses;  // other helpers it calls
  std::string_view text;
};

// Every helper, from the files of this folder.
const std::vector<LibdeviceHelper>& libdeviceHelpers();
const LibdeviceHelper* findLibdeviceHelper(std::string_view name);

// `text` with its markers spelled for `dialect`.
std::string spellLibdeviceText(std::string_view text, const CEmitter& dialect);

// The groups, one per file of this folder.
const std::vector<LibdeviceHelper>& integerHelpers();        // integer.cpp
const std::vector<LibdeviceHelper>& besselHelpers();         // bessel.cpp
const std::vector<LibdeviceHelper>& gammaErfHelpers();       // gamma_erf.cpp
const std::vector<LibdeviceHelper>& elementaryHelpers();     // elementary.cpp
const std::vector<LibdeviceHelper>& roundingHelpers();       // rounding.cpp

}  // namespace tmetal::codegen
