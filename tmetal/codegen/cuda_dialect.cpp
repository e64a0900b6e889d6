#include "tmetal/codegen/cuda_dialect.h"

#include <algorithm>
#include <cstdint>
#include <set>

#include "tmetal/codegen/msl_dialect.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::codegen {

using ir::ScalarKind;

namespace {

// Every lane of the warp takes part: the lowering only calls SIMD-group
// functions in uniform control flow, as Metal requires too.
constexpr const char* kFullWarp = "0xffffffffu";

const char* axisName(int axis) { return axis == 0 ? "x" : axis == 1 ? "y" : "z"; }

}  // namespace

std::string CudaDialect::filePrologue() const {
  return R"(#include <cuda_fp16.h>
#include <cuda_bf16.h>

// The short type names the shared lowering spells (as MSL has them).
typedef signed char schar;
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
static_assert(sizeof(long) == 8, "tmetal's i64 is long: CUDA on an LP64 host is assumed");

#define TMETAL_INFINITY __int_as_float(0x7f800000)
#define TMETAL_NAN __int_as_float(0x7fc00000)

// float division at Metal's precision class rather than IEEE's correctly
// rounded one (MSL: within 2.5 ulp): div.full.f32, within 2 ulp over the
// full range, the instruction Triton's own NVIDIA backend emits for it.
__device__ __forceinline__ float tmetal_fdiv(float a, float b) {
  float r;
  asm("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}

// tl.sqrt, Triton's fast square root (metal::fast::sqrt in MSL):
// sqrt.approx.f32, one hardware instruction, as Triton's NVIDIA backend
// emits; without .ftz, so that denormal inputs keep their roots.
__device__ __forceinline__ float tmetal_fast_sqrt(float x) {
  float r;
  asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// MSL's sincos: sin(x) returned, cos(x) written, one range reduction.
__device__ __forceinline__ float tmetal_sincos(float x, float& c) {
  float s;
  sincosf(x, &s, &c);
  return s;
}
__device__ __forceinline__ float tmetal_fast_sincos(float x, float& c) {
  float s;
  __sincosf(x, &s, &c);
  return s;
}

// Vectors of 8- and 16-bit elements, aligned to their size as CUDA's own
// vector types are. CUDA has no four-element half vectors, and its char4 or
// short2 cannot be built as `char4(a, b, c, d)`, the way the lowering packs
// the components of a 16-byte access (as MSL spells it).
template <typename T>
struct alignas(2 * sizeof(T)) tmetal_vec2 {
  T x, y;
  tmetal_vec2() = default;
  __device__ tmetal_vec2(T x_, T y_) : x(x_), y(y_) {}
};
template <typename T>
struct alignas(4 * sizeof(T)) tmetal_vec4 {
  T x, y, z, w;
  tmetal_vec4() = default;
  __device__ tmetal_vec4(T x_, T y_, T z_, T w_) : x(x_), y(y_), z(z_), w(w_) {}
};
typedef tmetal_vec2<schar> tmetal_char2;
typedef tmetal_vec4<schar> tmetal_char4;
typedef tmetal_vec2<uchar> tmetal_uchar2;
typedef tmetal_vec4<uchar> tmetal_uchar4;
typedef tmetal_vec2<short> tmetal_short2;
typedef tmetal_vec4<short> tmetal_short4;
typedef tmetal_vec2<__half> tmetal_half2;
typedef tmetal_vec4<__half> tmetal_half4;
typedef tmetal_vec2<__nv_bfloat16> tmetal_bfloat2;
typedef tmetal_vec4<__nv_bfloat16> tmetal_bfloat4;

// Reinterprets the bits of a value as another type of the same size.
template <typename To, typename From>
__device__ __forceinline__ To tmetal_bitcast(From x) {
  static_assert(sizeof(To) == sizeof(From), "a bitcast keeps the size");
  To y;
  memcpy(&y, &x, sizeof(To));
  return y;
}

// The address of a vector load under a mask, computed before the mask test.
// Left to itself NVIDIA's compiler computes it, kernel parameter included,
// under the mask's predicate, so that straight-line code (a vector add)
// reads its pointer only once the mask is known; Triton's PTX computes it
// first. Opaque to the compiler, it stays a global address (LDG). Not in
// loops: there the address is known well before the load anyway.
template <typename T>
__device__ __forceinline__ const T* tmetal_address_first(const void* p) {
  size_t g = __cvta_generic_to_global(p);
  asm volatile("" : "+l"(g));
  return reinterpret_cast<const T*>(__cvta_global_to_generic(g));
}

// The low bits of a 64-bit integer, for a test of whether it is a multiple
// of a power of two (Collatz's `x % 2 == 0`). NVVM widens a 32-bit test back
// to 64 bits and compares (x & 1) with 1, which ptxas does not fold: a LOP3
// and two ISETPs a trip where Triton's PTX, comparing with 0, gets one LOP3
// setting the predicate. Opaque to NVVM, the result is compared with 0.
template <unsigned Mask>
__device__ __forceinline__ unsigned tmetal_low_bits(long long x) {
  unsigned bits;
  asm("{ .reg .b32 lo; cvt.u32.u64 lo, %1; and.b32 %0, lo, %2; }" : "=r"(bits) : "l"(x), "n"(Mask));
  return bits;
}

// The 64-bit product of two extended 32-bit integers in one multiply, as
// Triton's PTX has it. NVVM moves the extensions into the branches that
// define their operands (a masked load's) and then multiplies in full 64
// bits: three multiplies and an add an element.
__device__ __forceinline__ long tmetal_mul_wide(int a, int b) {
  long product;
  asm("mul.wide.s32 %0, %1, %2;" : "=l"(product) : "r"(a), "r"(b));
  return product;
}
__device__ __forceinline__ long tmetal_mul_wide_unsigned(int a, int b) {
  long product;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(product) : "r"(a), "r"(b));
  return product;
}

// A load under a condition, as a predicated PTX load rather than a branch.
// NVIDIA's compiler turns `c ? *p : other` into a branch around each load,
// and its scheduler then interleaves the loads with their consumers (a
// column reduction of 16 masked loads per loop trip waited for the first
// loads' data before issuing the later ones); predicated loads in
// straight-line code all issue first, as in Triton's own PTX. Volatile,
// with a memory clobber: the compiler keeps it in order with the kernel's
// stores.
template <typename T> struct tmetal_same { typedef T type; };
template <typename T>
__device__ __forceinline__ T tmetal_load_if(const T* p, bool c, typename tmetal_same<T>::type other) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "1-, 2-, 4- or 8-byte elements");
  size_t g = __cvta_generic_to_global(p);
  int on = c;
  if constexpr (sizeof(T) == 8) {
    unsigned long long r = tmetal_bitcast<unsigned long long>(other);
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %2, 0; @q ld.global.b64 %0, [%1]; }" : "+l"(r) : "l"(g), "r"(on) : "memory");
    return tmetal_bitcast<T>(r);
  } else if constexpr (sizeof(T) == 4) {
    unsigned r = tmetal_bitcast<unsigned>(other);
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %2, 0; @q ld.global.b32 %0, [%1]; }" : "+r"(r) : "l"(g), "r"(on) : "memory");
    return tmetal_bitcast<T>(r);
  } else if constexpr (sizeof(T) == 2) {
    unsigned short r = tmetal_bitcast<unsigned short>(other);
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %2, 0; @q ld.global.b16 %0, [%1]; }" : "+h"(r) : "l"(g), "r"(on) : "memory");
    return tmetal_bitcast<T>(r);
  } else {
    unsigned r = tmetal_bitcast<unsigned char>(other);
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %2, 0; @q ld.global.u8 %0, [%1]; }" : "+r"(r) : "l"(g), "r"(on) : "memory");
    return tmetal_bitcast<T>(static_cast<unsigned char>(r));
  }
}

// An element store under a condition, as a predicated PTX store rather
// than a branch around it, where a thread makes several in a row outside
// loops. A branch per store cuts the kernel into blocks, and NVIDIA's
// scheduler then finishes each element's value before the store that closes
// its block: SwiGLU's eight exp-and-reciprocal chains ran one after another
// where, as predicated stores in one block (Triton's PTX), their
// special-function instructions overlap. Vector stores keep the branch
// (predicated, the large streaming kernels ran 1% slower).
template <typename T>
__device__ __forceinline__ void tmetal_store_if(T* p, bool c, typename tmetal_same<T>::type x) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "1-, 2-, 4- or 8-byte elements");
  size_t g = __cvta_generic_to_global(p);
  int on = c;
  if constexpr (sizeof(T) == 8) {
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %0, 0; @q st.global.b64 [%1], %2; }"
                 :: "r"(on), "l"(g), "l"(tmetal_bitcast<unsigned long long>(x)) : "memory");
  } else if constexpr (sizeof(T) == 4) {
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %0, 0; @q st.global.b32 [%1], %2; }"
                 :: "r"(on), "l"(g), "r"(tmetal_bitcast<unsigned>(x)) : "memory");
  } else if constexpr (sizeof(T) == 2) {
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %0, 0; @q st.global.b16 [%1], %2; }"
                 :: "r"(on), "l"(g), "h"(tmetal_bitcast<unsigned short>(x)) : "memory");
  } else {
    unsigned byte = tmetal_bitcast<unsigned char>(x);
    asm volatile("{ .reg .pred q; setp.ne.b32 q, %0, 0; @q st.global.u8 [%1], %2; }"
                 :: "r"(on), "l"(g), "r"(byte) : "memory");
  }
}

__device__ __forceinline__ bool tmetal_isnan(float x) { return isnan(x); }
__device__ __forceinline__ bool tmetal_isnan(double x) { return isnan(x); }
__device__ __forceinline__ bool tmetal_isnan(__half x) { return __hisnan(x); }
__device__ __forceinline__ bool tmetal_isnan(__nv_bfloat16 x) { return __hisnan(x); }

// Integer min/max as MSL's min/max: the arguments' own type.
template <typename T>
__device__ __forceinline__ T tmetal_max(T a, T b) { return a > b ? a : b; }
template <typename T>
__device__ __forceinline__ T tmetal_min(T a, T b) { return a < b ? a : b; }
// Float min/max as MSL's fmin/fmax (IEEE maxNum: a NaN loses to a number).
// 16-bit floats use the native half/bfloat16 min/max (one instruction on
// sm_80 and later) rather than a round trip through float, which costs three
// conversions per element and made 16-bit max reductions conversion-bound.
__device__ __forceinline__ float tmetal_fmax(float a, float b) { return fmaxf(a, b); }
__device__ __forceinline__ float tmetal_fmin(float a, float b) { return fminf(a, b); }
__device__ __forceinline__ double tmetal_fmax(double a, double b) { return fmax(a, b); }
__device__ __forceinline__ double tmetal_fmin(double a, double b) { return fmin(a, b); }
__device__ __forceinline__ __half tmetal_fmax(__half a, __half b) { return __hmax(a, b); }
__device__ __forceinline__ __half tmetal_fmin(__half a, __half b) { return __hmin(a, b); }
__device__ __forceinline__ __nv_bfloat16 tmetal_fmax(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmax(a, b); }
__device__ __forceinline__ __nv_bfloat16 tmetal_fmin(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmin(a, b); }

// The high half of an unsigned product (MSL's mulhi).
__device__ __forceinline__ uint mulhi(uint a, uint b) { return __umulhi(a, b); }
__device__ __forceinline__ ulong mulhi(ulong a, ulong b) { return __umul64hi(a, b); }

// Warp reductions (MSL's simd_sum, simd_max, ...): every lane gets the
// result. Integers use the sm_80 reduction instructions; other types a
// shuffle-xor butterfly, in which both partners of a step compute the same
// sum (addition commutes), so every lane ends with the same bits.
#define TMETAL_BUTTERFLY(T, NAME, COMBINE)                           \
  __device__ __forceinline__ T NAME(T x) {                    \
    for (int m = 16; m >= 1; m /= 2) {                               \
      T y = __shfl_xor_sync(0xffffffffu, x, m);                      \
      x = COMBINE;                                                   \
    }                                                                \
    return x;                                                        \
  }
TMETAL_BUTTERFLY(float, tmetal_simd_sum, x + y)
TMETAL_BUTTERFLY(float, tmetal_simd_product, x * y)
TMETAL_BUTTERFLY(float, tmetal_simd_max, fmaxf(x, y))
TMETAL_BUTTERFLY(float, tmetal_simd_min, fminf(x, y))
TMETAL_BUTTERFLY(__half, tmetal_simd_sum, x + y)
TMETAL_BUTTERFLY(__half, tmetal_simd_product, x * y)
TMETAL_BUTTERFLY(__half, tmetal_simd_max, tmetal_fmax(x, y))
TMETAL_BUTTERFLY(__half, tmetal_simd_min, tmetal_fmin(x, y))
TMETAL_BUTTERFLY(int, tmetal_simd_product, x * y)
#if __CUDA_ARCH__ >= 800
__device__ __forceinline__ int tmetal_simd_sum(int x) { return __reduce_add_sync(0xffffffffu, x); }
__device__ __forceinline__ int tmetal_simd_max(int x) { return __reduce_max_sync(0xffffffffu, x); }
__device__ __forceinline__ int tmetal_simd_min(int x) { return __reduce_min_sync(0xffffffffu, x); }
__device__ __forceinline__ int tmetal_simd_and(int x) { return int(__reduce_and_sync(0xffffffffu, uint(x))); }
__device__ __forceinline__ int tmetal_simd_or(int x) { return int(__reduce_or_sync(0xffffffffu, uint(x))); }
__device__ __forceinline__ int tmetal_simd_xor(int x) { return int(__reduce_xor_sync(0xffffffffu, uint(x))); }
#else
TMETAL_BUTTERFLY(int, tmetal_simd_sum, x + y)
TMETAL_BUTTERFLY(int, tmetal_simd_max, tmetal_max(x, y))
TMETAL_BUTTERFLY(int, tmetal_simd_min, tmetal_min(x, y))
TMETAL_BUTTERFLY(int, tmetal_simd_and, x & y)
TMETAL_BUTTERFLY(int, tmetal_simd_or, x | y)
TMETAL_BUTTERFLY(int, tmetal_simd_xor, x ^ y)
#endif
#undef TMETAL_BUTTERFLY

// Warp prefix sums and products (MSL's simd_prefix_inclusive_sum, ...):
// Hillis-Steele over the lanes; the exclusive form is the inclusive one of
// the lane before, with the identity in lane 0. Threadgroups are
// one-dimensional, so the lane is threadIdx.x % 32.
template <typename T, typename Combine>
__device__ __forceinline__ T tmetal_simd_prefix_inclusive(T x, Combine combine) {
  const uint lane = threadIdx.x % 32u;
  for (uint d = 1; d < 32u; d *= 2) {
    T y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= d) x = combine(y, x);
  }
  return x;
}
template <typename T, typename Combine>
__device__ __forceinline__ T tmetal_simd_prefix_exclusive(T x, Combine combine, T identity) {
  T inclusive = tmetal_simd_prefix_inclusive(x, combine);
  T before = __shfl_up_sync(0xffffffffu, inclusive, 1);
  return threadIdx.x % 32u == 0 ? identity : before;
}
struct tmetal_add { template <typename T> __device__ T operator()(T a, T b) const { return a + b; } };
struct tmetal_mul { template <typename T> __device__ T operator()(T a, T b) const { return a * b; } };
template <typename T>
__device__ __forceinline__ T tmetal_simd_prefix_inclusive_sum(T x) { return tmetal_simd_prefix_inclusive(x, tmetal_add()); }
template <typename T>
__device__ __forceinline__ T tmetal_simd_prefix_inclusive_product(T x) { return tmetal_simd_prefix_inclusive(x, tmetal_mul()); }
template <typename T>
__device__ __forceinline__ T tmetal_simd_prefix_exclusive_sum(T x) { return tmetal_simd_prefix_exclusive(x, tmetal_add(), T(0)); }
template <typename T>
__device__ __forceinline__ T tmetal_simd_prefix_exclusive_product(T x) { return tmetal_simd_prefix_exclusive(x, tmetal_mul(), T(1)); }
)";
}

std::string CudaDialect::builtinAttribute(Builtin b) const {
  switch (b) {
    case Builtin::ProgramId: return "threadgroup_position_in_grid";
    case Builtin::NumPrograms: return "threadgroups_per_grid";
    case Builtin::ThreadIndex: return "thread_index_in_threadgroup";
    case Builtin::LaneIndex: return "thread_index_in_simdgroup";
    case Builtin::SimdGroupIndex: return "simdgroup_index_in_threadgroup";
  }
  return "?";
}

std::string CudaDialect::builtinType(Builtin b) const {
  return b == Builtin::ProgramId || b == Builtin::NumPrograms ? "uint3" : "uint";
}

// Threadgroups are one-dimensional (blockDim = (threads, 1, 1)), so the
// thread index is threadIdx.x and lanes and warps follow from it.
std::string CudaDialect::builtinName(Builtin b) const {
  switch (b) {
    case Builtin::ProgramId: return "blockIdx";
    case Builtin::NumPrograms: return "gridDim";
    case Builtin::ThreadIndex: return "threadIdx.x";
    case Builtin::LaneIndex: return "(threadIdx.x % 32u)";
    case Builtin::SimdGroupIndex: return "(threadIdx.x / 32u)";
  }
  return "?";
}

std::string CudaDialect::programIdExpr(int axis) const { return std::string("int(blockIdx.") + axisName(axis) + ")"; }

std::string CudaDialect::numProgramsExpr(int axis) const { return std::string("int(gridDim.") + axisName(axis) + ")"; }

std::vector<std::string> CudaDialect::reservedNames() const {
  // CUDA's builtin variables and the names filePrologue() defines or relies
  // on, which a value named after a Triton variable must not shadow.
  return {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "schar", "uchar", "ushort", "uint", "ulong",
          "memcpy", "tmetal_fdiv", "tmetal_fast_sqrt", "tmetal_sincos", "tmetal_fast_sincos", "isnan", "mulhi", "fmaxf", "fminf", "fmax", "fmin", "expf", "exp2f", "logf", "log2f", "sqrtf",
          "rsqrtf", "sinf", "cosf", "tanhf", "erff", "floorf", "ceilf", "fabsf", "fmaf", "fmod", "exp2", "log2",
          "sqrt", "rsqrt", "tanh", "erf", "floor", "ceil", "fabs", "fma", "atomicAdd", "atomicMax", "atomicMin",
          "atomicAnd", "atomicOr", "atomicXor", "atomicExch", "atomicCAS", "tmetal_atomic_cas16", "float2", "float4",
          "int2", "int4", "longlong2", "double2"};
}

namespace {
// Every NVIDIA GPU from Maxwell (sm_50) to Blackwell has 64K 32-bit
// registers per multiprocessor, allocated to a thread in steps of 8, at most
// 255 a thread; sm_80 and sm_90 hold 2048 threads in at most 32 blocks.
constexpr int kRegistersPerMultiprocessor = 65536;
constexpr int kResidentThreads = 2048;
constexpr int kResidentBlocks = 32;
constexpr int kAllocationStep = 8;
constexpr int kMaxRegistersPerThread = 255;
}  // namespace

int CudaDialect::registersPerThreadAt(int threadgroups, int threadsPerThreadgroup) {
  if (threadgroups <= 0 || threadsPerThreadgroup <= 0) return kMaxRegistersPerThread;
  const int fit = kRegistersPerMultiprocessor / (threadgroups * threadsPerThreadgroup);
  return std::min(kMaxRegistersPerThread, fit / kAllocationStep * kAllocationStep);
}

int CudaDialect::threadgroupsForRegisters(int registersPerThread, int threadsPerThreadgroup) {
  if (registersPerThread <= 0 || threadsPerThreadgroup <= 0) return 0;
  const int perThread = (registersPerThread + kAllocationStep - 1) / kAllocationStep * kAllocationStep;
  const int fullOccupancy = std::min(kResidentBlocks, kResidentThreads / threadsPerThreadgroup);
  if (fullOccupancy > 0 && int64_t(perThread) * threadsPerThreadgroup * fullOccupancy <= kRegistersPerMultiprocessor)
    return 0;
  return std::max(1, kRegistersPerMultiprocessor / (perThread * threadsPerThreadgroup));
}

std::string CudaDialect::kernelSignature(const std::string& name, const std::vector<KernelParamDecl>& params,
                                         const std::vector<Builtin>&) const {
  std::string bounds = std::to_string(threadsPerThreadgroup_);
  if (minThreadgroupsPerCore_ > 0) bounds += ", " + std::to_string(minThreadgroupsPerCore_);
  std::string head = "extern \"C\" __global__ void __launch_bounds__(" + bounds + ") " + name + "(";
  std::string pad(head.size(), ' ');
  std::string out = head;
  for (size_t i = 0; i < params.size(); ++i) {
    const KernelParamDecl& p = params[i];
    // No __restrict__: Triton callers may pass one buffer as two arguments
    // (in-place updates), and the kernel cannot know.
    std::string decl = p.type.isPointer() ? pointerType(p.type.pointee(), AddressSpace::Device) + " " + p.name
                                          : scalarType(p.type.scalarKind()) + " " + p.name;
    out += (i ? ",\n" + pad : "") + decl;
  }
  return out + ")";
}

std::string CudaDialect::scalarType(ScalarKind k) const {
  switch (k) {
    case ScalarKind::I8: return "schar";  // plain char's signedness depends on the host
    case ScalarKind::F16: return "__half";
    case ScalarKind::BF16: return "__nv_bfloat16";
    default: return CEmitter::scalarType(k);
  }
}

std::string CudaDialect::vectorType(ScalarKind k, int width) const {
  std::string w = std::to_string(width);
  switch (k) {
    case ScalarKind::F32: return "float" + w;
    case ScalarKind::I32: return "int" + w;
    case ScalarKind::I16: return "tmetal_short" + w;
    case ScalarKind::I8: return "tmetal_char" + w;
    case ScalarKind::I64: return "longlong" + w;
    case ScalarKind::F64: return "double" + w;
    case ScalarKind::F16: return "tmetal_half" + w;
    case ScalarKind::BF16: return "tmetal_bfloat" + w;
    case ScalarKind::F8E4M3FN:
    case ScalarKind::F8E5M2:
    case ScalarKind::F8E4M3FNUZ:
    case ScalarKind::F8E5M2FNUZ:
    case ScalarKind::F8E4M3B11FNUZ: return "tmetal_uchar" + w;  // the bits
    case ScalarKind::I1: break;
  }
  throw CompileError("internal error: no CUDA vector type of " + std::string(ir::scalarName(k)));
}

std::string CudaDialect::addressSpace(AddressSpace space) const {
  // CUDA pointers are generic; __shared__ qualifies declarations only.
  (void)space;
  return "";
}

std::string CudaDialect::pointerType(const ir::Type& pointee, AddressSpace) const {
  return memoryElementType(pointee) + "*";
}

std::string CudaDialect::referenceParam(const std::string& type, const std::string& name) const {
  return type + "& " + name;
}

std::string CudaDialect::convert(const std::string& expr, const std::string& toType) const {
  return toType + "(" + expr + ")";
}

std::string CudaDialect::bitcast(const std::string& expr, const std::string& toType) const {
  return "tmetal_bitcast<" + toType + ">(" + expr + ")";
}

bool CudaDialect::mathNeedsFloat(ScalarKind k) const { return k == ScalarKind::F16 || k == ScalarKind::BF16; }

std::string CudaDialect::mathCall(MathFn fn, const std::vector<std::string>& args, ScalarKind k, bool fast) const {
  auto call = [&](const std::string& f) {
    std::string s = f + "(";
    for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
    return s + ")";
  };
  if (k == ScalarKind::F64) {
    switch (fn) {
      case MathFn::Exp: return call("exp");
      case MathFn::Exp2: return call("exp2");
      case MathFn::Log: return call("log");
      case MathFn::Log2: return call("log2");
      case MathFn::Sqrt:
      case MathFn::FastSqrt: return call("sqrt");  // Triton's float64 square root is correctly rounded too
      case MathFn::Rsqrt: return call("rsqrt");
      case MathFn::Sin: return call("sin");
      case MathFn::Cos: return call("cos");
      case MathFn::Tanh: return call("tanh");
      case MathFn::Erf: return call("erf");
      case MathFn::Floor: return call("floor");
      case MathFn::Ceil: return call("ceil");
      case MathFn::AbsF: return call("fabs");
      case MathFn::Fma: return call("fma");
      case MathFn::Div: return call("__ddiv_rn");
    }
  }
  // Precise: CUDA's expf & co. are within a few ulps (sqrtf and division
  // correctly rounded without -use_fast_math), as metal::precise is. Fast:
  // the hardware approximations, as metal::fast.
  switch (fn) {
    case MathFn::Exp: return call(fast ? "__expf" : "expf");
    case MathFn::Exp2: return call("exp2f");
    case MathFn::Log: return call(fast ? "__logf" : "logf");
    case MathFn::Log2: return call(fast ? "__log2f" : "log2f");
    case MathFn::Sqrt: return call("sqrtf");
    case MathFn::FastSqrt: return call("tmetal_fast_sqrt");
    case MathFn::Rsqrt: return call("rsqrtf");
    case MathFn::Sin: return call(fast ? "__sinf" : "sinf");
    case MathFn::Cos: return call(fast ? "__cosf" : "cosf");
    case MathFn::Tanh: return call("tanhf");
    case MathFn::Erf: return call("erff");
    case MathFn::Floor: return call("floorf");
    case MathFn::Ceil: return call("ceilf");
    case MathFn::AbsF: return call("fabsf");
    case MathFn::Fma: return call("fmaf");
    case MathFn::Div: return call(fast ? "__fdividef" : "__fdiv_rn");
  }
  return "?";
}

std::string CudaDialect::sinCos(const std::string& x, const std::string& cosine, bool fast) const {
  return std::string(fast ? "tmetal_fast_sincos(" : "tmetal_sincos(") + x + ", " + cosine + ")";
}

std::string CudaDialect::maskedVectorLoad(const std::string& var, const std::string& ptr,
                                          const std::string& vectorTypeName, const std::string& cond,
                                          bool inLoop) const {
  if (inLoop) return CEmitter::maskedVectorLoad(var, ptr, vectorTypeName, cond, inLoop);
  return "{ const " + vectorTypeName + "* " + var + "_at = tmetal_address_first<" + vectorTypeName + ">(" + ptr +
         "); if (" + cond + ") " + var + " = *" + var + "_at; }";
}

std::string CudaDialect::maskedStore(const std::string& ptr, const std::string& value, const std::string& cond,
                                     bool oneOfSeveral) const {
  if (!oneOfSeveral) return CEmitter::maskedStore(ptr, value, cond, oneOfSeveral);
  return "tmetal_store_if(" + ptr + ", " + cond + ", " + value + ");";
}

std::string CudaDialect::lowBits(const std::string& x, uint64_t mask, ir::ScalarKind k) const {
  if (ir::scalarBits(k) != 64 || mask > 0xffffffffu) return CEmitter::lowBits(x, mask, k);
  return "tmetal_low_bits<" + std::to_string(mask) + "u>(" + x + ")";
}

std::string CudaDialect::wideMultiply(const std::string& a, const std::string& b, bool isSigned) const {
  return std::string(isSigned ? "tmetal_mul_wide(" : "tmetal_mul_wide_unsigned(") + a + ", " + b + ")";
}

std::string CudaDialect::maskedLoad(const std::string& ptr, const std::string& cond, const std::string& other) const {
  return "tmetal_load_if(" + ptr + ", " + cond + ", " + other + ")";
}

std::string CudaDialect::floatDivide(const std::string& a, const std::string& b, ir::ScalarKind k) const {
  if (k != ir::ScalarKind::F32) return a + " / " + b;
  return "tmetal_fdiv(" + a + ", " + b + ")";
}

std::string CudaDialect::minMax(bool isMax, const std::string& a, const std::string& b, bool isFloat) const {
  return std::string(isFloat ? (isMax ? "tmetal_fmax" : "tmetal_fmin") : (isMax ? "tmetal_max" : "tmetal_min")) + "(" +
         a + ", " + b + ")";
}

std::string CudaDialect::threadgroupArray(const std::string& elementType, const std::string& name,
                                          int64_t count) const {
  // 16-byte aligned, for vector accesses and the matrix loads, whose tiles
  // start a multiple of 8 elements in (c_emitter.h).
  return "__shared__ __align__(16) " + elementType + " " + name + "[" + std::to_string(count) + "];";
}

std::string CudaDialect::threadgroupAlias(const std::string& elementType, const std::string& name,
                                          const std::string& host) const {
  return elementType + "* " + name + " = reinterpret_cast<" + elementType + "*>(" + host + ");";
}

std::string CudaDialect::vectorLoad(const std::string& ptr, const std::string& vectorTypeName, AddressSpace) const {
  return "*reinterpret_cast<const " + vectorTypeName + "*>(" + ptr + ")";
}

std::string CudaDialect::vectorStore(const std::string& ptr, const std::string& vectorTypeName, AddressSpace,
                                     const std::vector<std::string>& components) const {
  return "*reinterpret_cast<" + vectorTypeName + "*>(" + ptr + ") = " + vectorOf(vectorTypeName, components) + ";";
}

std::string CudaDialect::vectorOf(const std::string& vectorTypeName, const std::vector<std::string>& components) const {
  std::string v = vectorTypeName + "{";
  for (size_t i = 0; i < components.size(); ++i) v += (i ? ", " : "") + components[i];
  return v + "}";
}

std::string CudaDialect::vectorElement(const std::string& vec, int k) const {
  static const char* names[] = {"x", "y", "z", "w"};
  if (k < 4) return vec + "." + names[k];
  throw CompileError("internal error: CUDA vectors have at most four components");
}

bool CudaDialect::hasSimdReduce(SimdOp op, ScalarKind k) const { return metalHasSimdReduce(op, k); }

std::string CudaDialect::simdReduce(SimdOp op, const std::string& x, ScalarKind k) const {
  if (k == ScalarKind::I1)
    return std::string(op == SimdOp::And ? "(__all_sync(" : "(__any_sync(") + kFullWarp + ", " + x + ") != 0)";
  return std::string("tmetal_simd_") + simdOpName(op) + "(" + x + ")";
}

bool CudaDialect::hasSimdPrefix(SimdOp op, ScalarKind k) const { return metalHasSimdPrefix(op, k); }

std::string CudaDialect::simdPrefix(SimdOp op, const std::string& x, bool inclusive) const {
  return std::string("tmetal_simd_prefix_") + (inclusive ? "inclusive_" : "exclusive_") + simdOpName(op) + "(" + x +
         ")";
}

std::string CudaDialect::shuffle(const std::string& fn, const std::string& x, ScalarKind k,
                                 const std::string& arg) const {
  std::string call = [&] {
    switch (k) {
      case ScalarKind::I1:
      case ScalarKind::I8:
      case ScalarKind::I16: return fn + "(" + kFullWarp + ", int(" + x + "), " + arg + ")";
      default: return fn + "(" + kFullWarp + ", " + x + ", " + arg + ")";
    }
  }();
  switch (k) {
    case ScalarKind::I1: return "(" + call + " != 0)";
    case ScalarKind::I8:
    case ScalarKind::I16: return scalarType(k) + "(" + call + ")";
    default: return call;
  }
}

std::string CudaDialect::simdShuffleXor(const std::string& x, ScalarKind k, const std::string& mask) const {
  return shuffle("__shfl_xor_sync", x, k, mask);
}

std::string CudaDialect::simdShuffleUp(const std::string& x, ScalarKind k, const std::string& delta) const {
  return shuffle("__shfl_up_sync", x, k, delta);
}

std::string CudaDialect::simdShuffleDown(const std::string& x, ScalarKind k, const std::string& delta) const {
  return shuffle("__shfl_down_sync", x, k, delta);
}

std::string CudaDialect::simdBroadcast(const std::string& x, ScalarKind k, const std::string& lane) const {
  return shuffle("__shfl_sync", x, k, lane);
}

// Metal's set (CUDA has more, e.g. 64-bit adds): a kernel the CUDA target
// accepts must be one the Metal target accepts, and lowered the same way.
bool CudaDialect::hasAtomic(AtomicOp op, ScalarKind k) const { return metalHasAtomic(op, k); }

std::string CudaDialect::atomicRmw(AtomicOp op, const std::string& ptr, const std::string& value, ScalarKind k) const {
  // CUDA's atomic* functions are relaxed and device-scoped, as the
  // memory_order_relaxed device atomics of the Metal dialect.
  (void)k;
  switch (op) {
    case AtomicOp::Add:
    case AtomicOp::FAdd: return "atomicAdd(" + ptr + ", " + value + ")";
    case AtomicOp::And: return "atomicAnd(" + ptr + ", " + value + ")";
    case AtomicOp::Or: return "atomicOr(" + ptr + ", " + value + ")";
    case AtomicOp::Xor: return "atomicXor(" + ptr + ", " + value + ")";
    case AtomicOp::Max: return "atomicMax(" + ptr + ", " + value + ")";
    case AtomicOp::Min: return "atomicMin(" + ptr + ", " + value + ")";
    case AtomicOp::UMax: return "int(atomicMax(reinterpret_cast<uint*>(" + ptr + "), uint(" + value + ")))";
    case AtomicOp::UMin: return "int(atomicMin(reinterpret_cast<uint*>(" + ptr + "), uint(" + value + ")))";
    case AtomicOp::Exch: return "atomicExch(" + ptr + ", " + value + ")";
  }
  return "?";
}

std::string CudaDialect::atomicCas(const std::string& ptr, const std::string& expected, const std::string& desired,
                                   ScalarKind k) const {
  if (k == ScalarKind::F32) return "tmetal_atomic_cas_float(" + ptr + ", " + expected + ", " + desired + ")";
  if (k == ScalarKind::F16 || k == ScalarKind::BF16)
    return bitcast("tmetal_atomic_cas16(" + pointerCast(ptr, "ushort*") + ", " + bitcast(expected, "ushort") + ", " +
                       bitcast(desired, "ushort") + ")",
                   scalarType(k));
  return "atomicCAS(" + ptr + ", " + expected + ", " + desired + ")";
}

// A B tile's lanes hold the elements an A tile's lanes would hold of its
// transpose (matrixHelpers), so a B tile loads with `transpose` flipped.
std::string CudaDialect::matrixLoad(const std::string& m, const std::string& ptr, int64_t stride, bool transpose,
                                    MatrixRole role) const {
  const bool flipped = role == MatrixRole::B ? !transpose : transpose;
  return "tmetal_matrix_load(" + m + ", " + ptr + ", " + std::to_string(stride) + ", " + boolLiteral(flipped) + ");";
}

std::string CudaDialect::matrixLoadGroup(const std::vector<std::string>& tiles, const std::string& ptr,
                                         int64_t step1, int64_t step2, int64_t stride, bool transpose,
                                         MatrixRole role) const {
  if (tiles.size() != 4) return CEmitter::matrixLoadGroup(tiles, ptr, step1, step2, stride, transpose, role);
  const bool flipped = role == MatrixRole::B ? !transpose : transpose;
  return "tmetal_matrix_load4(" + tiles[0] + ", " + tiles[1] + ", " + tiles[2] + ", " + tiles[3] + ", " + ptr + ", " +
         std::to_string(step1) + ", " + std::to_string(step2) + ", " + std::to_string(stride) + ", " +
         boolLiteral(flipped) + ");";
}

std::string CudaDialect::matrixHelpers() const {
  return R"(// Metal's 8x8 SIMD-group matrices (simdgroup_half8x8, simdgroup_bfloat8x8,
// simdgroup_float8x8) on the warp's tensor cores. Lane 4g + t holds
// elements (g, 2t) and (g, 2t + 1) of an A or accumulator tile, and (2t, g)
// and (2t + 1, g) of a B tile: mma.sync's m16n8k8 operands, whose A rows
// 8-15 are left zero, so that each call is one 8x8x8 product as on Metal.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 750
#error "tt.dot on SIMD-group matrices uses mma.sync.m16n8k8 and ldmatrix: it needs sm_75 or newer"
#endif
struct tmetal_half8x8 { uint pair; };    // element 2t in the low half
struct tmetal_bfloat8x8 { uint pair; };  // the same for bfloat16 (products: sm_80 or newer)
struct tmetal_float8x8 { float x0, x1; };
// Tiles start a multiple of 8 elements into a 16-byte aligned array, rows a
// multiple of 8 apart (c_emitter.h): each row is 16 aligned bytes, as
// ldmatrix wants them (lanes 0-7 name the rows), and a lane's two elements
// of a float row are one 8-byte access. ldmatrix gives each lane the
// elements above, .trans those of the transpose (16-bit tiles of either type).
template <class Tile, class Element>
__device__ __forceinline__ void tmetal_matrix_load(Tile& m, const Element* p, int stride, bool transpose) {
  const uint row = uint(__cvta_generic_to_shared(p + threadIdx.x % 8u * stride));
  if (transpose)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(m.pair) : "r"(row) : "memory");
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(m.pair) : "r"(row) : "memory");
}
// Four tiles in one ldmatrix: tile j from p + (j & 1) * step1 + (j >> 1) *
// step2 (lanes 8j to 8j + 7 name its rows).
template <class Tile, class Element>
__device__ __forceinline__ void tmetal_matrix_load4(Tile& m0, Tile& m1, Tile& m2, Tile& m3, const Element* p,
                                                    int step1, int step2, int stride, bool transpose) {
  const uint lane = threadIdx.x % 32u, j = lane / 8u;
  const uint row = uint(__cvta_generic_to_shared(p + int(j & 1u) * step1 + int(j >> 1) * step2 +
                                                 int(lane % 8u) * stride));
  if (transpose)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(m0.pair), "=r"(m1.pair), "=r"(m2.pair), "=r"(m3.pair) : "r"(row) : "memory");
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(m0.pair), "=r"(m1.pair), "=r"(m2.pair), "=r"(m3.pair) : "r"(row) : "memory");
}
__device__ __forceinline__ void tmetal_matrix_load(tmetal_float8x8& m, const float* p, int stride, bool transpose) {
  const int lane = threadIdx.x % 32u, r = lane / 4, c = lane % 4 * 2;
  if (!transpose) {
    const float2 v = *reinterpret_cast<const float2*>(p + r * stride + c);
    m.x0 = v.x;
    m.x1 = v.y;
    return;
  }
  m.x0 = p[c * stride + r];
  m.x1 = p[(c + 1) * stride + r];
}
__device__ __forceinline__ void tmetal_matrix_store(const tmetal_float8x8& m, float* p, int stride) {
  const int lane = threadIdx.x % 32u, r = lane / 4, c = lane % 4 * 2;
  *reinterpret_cast<float2*>(p + r * stride + c) = make_float2(m.x0, m.x1);
}
// The products of 16-bit tiles of one type (PTX's name for it: f16, bf16):
// one tile; two tiles of A over one of B (all 16 rows of the instruction);
// that pair over two K tiles as well (a0k, a1k, bk: 8 further along K), as
// m16n8k16's A and B registers take them (sm_80; two m16n8k8 before it).
#define TMETAL_MATRIX_PRODUCTS(Tile, type)                                                                           \
  __device__ __forceinline__ void tmetal_matrix_mac(tmetal_float8x8& d, Tile a, Tile b, tmetal_float8x8 c) {         \
    float rows8to15[2];                                                                                              \
    asm("mma.sync.aligned.m16n8k8.row.col.f32." type "." type ".f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "              \
        "{%7, %8, %9, %10};"                                                                                         \
        : "=f"(d.x0), "=f"(d.x1), "=f"(rows8to15[0]), "=f"(rows8to15[1])                                             \
        : "r"(a.pair), "r"(0u), "r"(b.pair), "f"(c.x0), "f"(c.x1), "f"(0.0f), "f"(0.0f));                            \
  }                                                                                                                  \
  __device__ __forceinline__ void tmetal_matrix_mac2(tmetal_float8x8& d0, tmetal_float8x8& d1, Tile a0, Tile a1,     \
                                                     Tile b) {                                                       \
    asm("mma.sync.aligned.m16n8k8.row.col.f32." type "." type ".f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "              \
        "{%0, %1, %2, %3};"                                                                                          \
        : "+f"(d0.x0), "+f"(d0.x1), "+f"(d1.x0), "+f"(d1.x1)                                                         \
        : "r"(a0.pair), "r"(a1.pair), "r"(b.pair));                                                                  \
  }                                                                                                                  \
  __device__ __forceinline__ void tmetal_matrix_mac2_k16(tmetal_float8x8& d0, tmetal_float8x8& d1, Tile a0, Tile a1, \
                                                         Tile a0k, Tile a1k, Tile b, Tile bk) {                      \
    TMETAL_MATRIX_K16(type)                                                                                          \
  }                                                                                                                  \
  __device__ __forceinline__ void tmetal_matrix_mac_k16(tmetal_float8x8& d, Tile a, Tile ak, Tile b, Tile bk) {      \
    tmetal_float8x8 rows8to15 = {0.0f, 0.0f};                                                                        \
    Tile zero = {0u};                                                                                                \
    tmetal_matrix_mac2_k16(d, rows8to15, a, zero, ak, zero, b, bk);                                                  \
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define TMETAL_MATRIX_K16(type)          \
  tmetal_matrix_mac2(d0, d1, a0, a1, b); \
  tmetal_matrix_mac2(d0, d1, a0k, a1k, bk);
#else
#define TMETAL_MATRIX_K16(type)                                                                                  \
  asm("mma.sync.aligned.m16n8k16.row.col.f32." type "." type ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "         \
      "{%8, %9}, {%0, %1, %2, %3};"                                                                              \
      : "+f"(d0.x0), "+f"(d0.x1), "+f"(d1.x0), "+f"(d1.x1)                                                       \
      : "r"(a0.pair), "r"(a1.pair), "r"(a0k.pair), "r"(a1k.pair), "r"(b.pair), "r"(bk.pair));
#endif
TMETAL_MATRIX_PRODUCTS(tmetal_half8x8, "f16")
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
TMETAL_MATRIX_PRODUCTS(tmetal_bfloat8x8, "bf16")
#else
// What a bfloat16 product calls instead, so that its compile stops here.
#define TMETAL_NO_BFLOAT_PRODUCT(name) \
  template <class... A>                \
  __device__ void name(A&&...) { static_assert(sizeof...(A) == 0, "bfloat16 SIMD-group matrices need sm_80 or newer"); }
TMETAL_NO_BFLOAT_PRODUCT(tmetal_matrix_mac)
TMETAL_NO_BFLOAT_PRODUCT(tmetal_matrix_mac2)
TMETAL_NO_BFLOAT_PRODUCT(tmetal_matrix_mac2_k16)
TMETAL_NO_BFLOAT_PRODUCT(tmetal_matrix_mac_k16)
#undef TMETAL_NO_BFLOAT_PRODUCT
#endif
#undef TMETAL_MATRIX_PRODUCTS
#undef TMETAL_MATRIX_K16
)";
}

std::string CudaDialect::atomicHelpers() const {
  return R"(// Floats compare and swap their bits, as Triton's cmpxchg does.
__device__ __forceinline__ float tmetal_atomic_cas_float(float* p, float expected, float desired) {
  return __int_as_float(atomicCAS(reinterpret_cast<int*>(p), __float_as_int(expected), __float_as_int(desired)));
}
// The Metal dialect's 16-bit compare-and-swap (Metal's device atomics are
// 32-bit), kept the same here so that the GPU runs what Metal would.
__device__ __forceinline__ ushort tmetal_atomic_cas16(ushort* p, ushort expected, ushort desired) {
  ulong address = reinterpret_cast<ulong>(p);
  uint* word = reinterpret_cast<uint*>(address & ~ulong(3));
  uint shift = uint(address & 2) * 8;
  uint old = *reinterpret_cast<volatile uint*>(word);
  while (true) {
    ushort seen = ushort(old >> shift);
    if (seen != expected) return seen;
    uint next = (old & ~(0xffffu << shift)) | (uint(desired) << shift);
    uint prior = atomicCAS(word, old, next);
    if (prior == old) return expected;
    old = prior;
  }
}
)";
}

}  // namespace tmetal::codegen

namespace tmetal::codegen {

std::string CudaDialect::libdeviceMarker(std::string_view marker) const {
  static const std::set<std::string_view> floatFunctions = {
      "exp",   "exp2",  "exp10", "log",   "log2",  "log10", "sqrt",  "rsqrt", "sin",      "cos",  "tan",
      "tanh",  "atan",  "asin",  "acos",  "atan2", "sinh",  "cosh",  "asinh", "acosh",    "atanh", "pow",
      "sinpi", "cospi", "fabs",  "floor", "ceil",  "trunc", "rint",  "round", "copysign", "fmin", "fmax",
      "ldexp", "fmod",  "fdim",  "fma"};
  if (floatFunctions.count(marker)) return std::string(marker) + "f";  // expf: never the double overload
  if (marker.starts_with("fast_")) {
    const std::string_view fn = marker.substr(5);
    if (fn == "divide") return "__fdividef";
    if (floatFunctions.count(fn)) return "__" + std::string(fn) + "f";  // __expf: the hardware approximation
  }
  if (marker == "clz") return "__clz";
  if (marker == "popcount") return "__popc";
  if (marker == "reverse_bits") return "__brev";
  if (marker == "mulhi") return "__mulhi";
  if (marker == "umulhi") return "__umulhi";
  if (marker == "as_float") return "tmetal_bitcast<float>";
  if (marker == "as_uint") return "tmetal_bitcast<uint>";
  if (marker == "add_rn") return "__fadd_rn";
  if (marker == "sub_rn") return "__fsub_rn";
  if (marker == "mul_rn") return "__fmul_rn";
  return CEmitter::libdeviceMarker(marker);
}

}  // namespace tmetal::codegen
