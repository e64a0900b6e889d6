#include "tmetal/codegen/msl_dialect.h"

#include <algorithm>
#include <set>

#include "tmetal/support/diagnostic.h"

namespace tmetal::codegen {

using ir::ScalarKind;

std::string MslDialect::filePrologue() const { return "#include <metal_stdlib>\nusing namespace metal;\n"; }

std::string MslDialect::builtinAttribute(Builtin b) const {
  switch (b) {
    case Builtin::ProgramId: return "threadgroup_position_in_grid";
    case Builtin::NumPrograms: return "threadgroups_per_grid";
    case Builtin::ThreadIndex: return "thread_index_in_threadgroup";
    case Builtin::LaneIndex: return "thread_index_in_simdgroup";
    case Builtin::SimdGroupIndex: return "simdgroup_index_in_threadgroup";
  }
  return "?";
}

// Everything the emitted MSL names besides the kernel's own values: a value
// called `ceil` would hide metal::ceil.
std::vector<std::string> MslDialect::reservedNames() const {
  return {"abs", "as_type", "atomic_compare_exchange_weak_explicit", "atomic_exchange_explicit",
          "atomic_fetch_add_explicit", "atomic_fetch_and_explicit", "atomic_fetch_max_explicit",
          "atomic_fetch_min_explicit", "atomic_fetch_or_explicit", "atomic_fetch_xor_explicit", "atomic_float",
          "atomic_int", "atomic_uint", "ceil", "clamp", "copysign", "cos", "divide", "exp", "exp2", "fabs", "fast",
          "floor", "fma", "fmax", "fmin", "fmod", "INFINITY", "isnan", "log", "log2", "max", "mem_flags",
          "memory_order_relaxed", "metal", "min", "mulhi", "NAN", "precise", "reinterpret_cast", "rsqrt",
          "simd_and", "simd_broadcast", "simd_max", "simd_min", "simd_or", "simd_prefix_exclusive_product",
          "simd_prefix_exclusive_sum", "simd_prefix_inclusive_product", "simd_prefix_inclusive_sum",
          "simd_product", "simd_shuffle", "simd_shuffle_down", "simd_shuffle_up", "simd_shuffle_xor", "simd_sum",
          "simd_xor", "sin", "sqrt", "tanh", "threadgroup_barrier", "tmetal_atomic_cas", "tmetal_atomic_cas_float",
          "tmetal_atomic_cas16", "atomic_load_explicit", "atomic_thread_fence", "memory_order_seq_cst",
          "tmetal_erf", "bool", "char", "short", "int", "long", "half", "bfloat", "float", "uchar", "ushort",
          "uint", "ulong", "float2", "float3", "float4", "half2", "half4", "int2", "int4", "uint2", "uint4",
          "bfloat2", "bfloat4", "char4", "short4", "long4", "vec", "packed_float4"};
}

std::string MslDialect::builtinType(Builtin b) const {
  return b == Builtin::ProgramId || b == Builtin::NumPrograms ? "uint3" : "uint";
}

std::string MslDialect::kernelSignature(const std::string& name, const std::vector<KernelParamDecl>& params,
                                        const std::vector<Builtin>& builtins) const {
  std::string head = "kernel void " + name + "(";
  std::string pad(head.size(), ' ');
  std::vector<std::string> parts;
  for (const KernelParamDecl& p : params) {
    std::string decl = p.type.isPointer() ? pointerType(p.type.pointee(), AddressSpace::Device) + " " + p.name
                                          : "constant " + scalarType(p.type.scalarKind()) + "& " + p.name;
    parts.push_back(decl + " [[buffer(" + std::to_string(p.binding) + ")]]");
  }
  for (Builtin b : builtins) parts.push_back(builtinType(b) + " " + builtinName(b) + " [[" + builtinAttribute(b) + "]]");
  std::string out = threadsPerThreadgroup_ > 0
                        ? "[[max_total_threads_per_threadgroup(" + std::to_string(threadsPerThreadgroup_) + ")]]\n" + head
                        : head;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ",\n" + pad : "") + parts[i];
  return out + ")";
}

std::string MslDialect::vectorType(ScalarKind k, int width) const {
  return scalarType(k) + std::to_string(width);
}

std::string MslDialect::addressSpace(AddressSpace space) const {
  switch (space) {
    case AddressSpace::Device: return "device";
    case AddressSpace::Threadgroup: return "threadgroup";
    case AddressSpace::Constant: return "constant";
    case AddressSpace::Thread: return "thread";
  }
  return "?";
}

std::string MslDialect::referenceParam(const std::string& type, const std::string& name) const {
  return "thread " + type + "& " + name;
}

std::string MslDialect::bitcast(const std::string& expr, const std::string& toType) const {
  return "as_type<" + toType + ">(" + expr + ")";
}

bool MslDialect::mathNeedsFloat(ScalarKind k) const { return k != ScalarKind::F32; }

std::string MslDialect::mathCall(MathFn fn, const std::vector<std::string>& args, ScalarKind k, bool fast) const {
  // metal::precise is correctly rounded or within the documented ulps even
  // when the library is compiled with fast math; metal::fast is not.
  std::string ns = fast ? "fast::" : "precise::";
  auto call = [&](const std::string& f) {
    std::string s = f + "(";
    for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + args[i];
    return s + ")";
  };
  switch (fn) {
    case MathFn::Exp: return call(ns + "exp");
    case MathFn::Exp2: return call(ns + "exp2");
    case MathFn::Log: return call(ns + "log");
    case MathFn::Log2: return call(ns + "log2");
    case MathFn::Sqrt: return call(ns + "sqrt");
    case MathFn::FastSqrt: return call("fast::sqrt");
    case MathFn::Rsqrt: return call(ns + "rsqrt");
    case MathFn::Sin: return call(ns + "sin");
    case MathFn::Cos: return call(ns + "cos");
    case MathFn::Tanh: return call(ns + "tanh");
    case MathFn::Div: return call(ns + "divide");
    case MathFn::Erf: return call("tmetal_erf");  // MSL has no erf
    case MathFn::Floor: return call("floor");
    case MathFn::Ceil: return call("ceil");
    case MathFn::AbsF: return call("fabs");
    case MathFn::Fma: return call("fma");
  }
  return "?";
}

std::string MslDialect::sinCos(const std::string& x, const std::string& cosine, bool fast) const {
  return std::string(fast ? "fast::" : "precise::") + "sincos(" + x + ", " + cosine + ")";
}

std::string MslDialect::minMax(bool isMax, const std::string& a, const std::string& b, bool isFloat) const {
  return std::string(isFloat ? (isMax ? "fmax" : "fmin") : (isMax ? "max" : "min")) + "(" + a + ", " + b + ")";
}

std::string MslDialect::mathHelpers(const std::vector<MathFn>& used) const {
  if (std::find(used.begin(), used.end(), MathFn::Erf) == used.end()) return "";
  return R"(// erf in float to about 1e-7 absolute error (MSL has none): the Taylor
// series below 1, where it converges fast without cancelling; above, 1 - erfc
// with erfc from its continued fraction (summed from the tail), which keeps
// its relative precision, so that 1 + erf(x) stays accurate for x << 0.
static inline float tmetal_erf(float x) {
  float ax = fabs(x);
  if (ax < 1.0f) {
    float x2 = x * x;
    float term = x;
    float sum = x;
    for (int n = 1; n < 16; ++n) {
      term *= -x2 / float(n);
      sum += term / float(2 * n + 1);
    }
    return 1.1283791671f * sum;
  }
  float t = ax;
  for (int n = 60; n >= 1; --n) t = ax + 0.5f * float(n) / t;
  float x2 = ax * ax;
  float gaussian = precise::exp(-x2) * (1.0f - fma(ax, ax, -x2));  // exp(-x*x) with x*x's rounding error
  float erfc = gaussian / (1.7724538509f * t);
  return copysign(1.0f - erfc, x);
}
)";
}

std::string MslDialect::threadgroupArray(const std::string& elementType, const std::string& name, int64_t count) const {
  // 16-byte aligned, as the CUDA dialect's, for the vector stores of staged
  // dot operands (alignas, which the MSL specification allows on variables;
  // unverified on Metal).
  return "alignas(16) threadgroup " + elementType + " " + name + "[" + std::to_string(count) + "];";
}

std::string MslDialect::threadgroupAlias(const std::string& elementType, const std::string& name,
                                         const std::string& host) const {
  return "threadgroup " + elementType + "* " + name + " = reinterpret_cast<threadgroup " + elementType + "*>(" + host +
         ");";
}

std::string MslDialect::vectorLoad(const std::string& ptr, const std::string& vectorTypeName,
                                   AddressSpace space) const {
  return "*reinterpret_cast<" + addressSpace(space) + " " + vectorTypeName + "*>(" + ptr + ")";
}

std::string MslDialect::vectorStore(const std::string& ptr, const std::string& vectorTypeName, AddressSpace space,
                                    const std::vector<std::string>& components) const {
  return "*reinterpret_cast<" + addressSpace(space) + " " + vectorTypeName + "*>(" + ptr +
         ") = " + vectorOf(vectorTypeName, components) + ";";
}

std::string MslDialect::vectorOf(const std::string& vectorTypeName, const std::vector<std::string>& components) const {
  std::string v = vectorTypeName + "(";
  for (size_t i = 0; i < components.size(); ++i) v += (i ? ", " : "") + components[i];
  return v + ")";
}

std::string MslDialect::vectorElement(const std::string& vec, int k) const {
  static const char* names[] = {"x", "y", "z", "w"};
  if (k < 4) return vec + "." + names[k];
  return vec + "[" + std::to_string(k) + "]";
}

bool metalHasSimdReduce(SimdOp op, ScalarKind k) {
  switch (op) {
    case SimdOp::Sum:
    case SimdOp::Product:
    case SimdOp::Max:
    case SimdOp::Min:
      return k == ScalarKind::F32 || k == ScalarKind::F16 || k == ScalarKind::I32;
    case SimdOp::And:
    case SimdOp::Or:
      // Booleans: simd_all and simd_any, one vote across the lanes.
      return k == ScalarKind::I32 || k == ScalarKind::I1;
    case SimdOp::Xor:
      return k == ScalarKind::I32;
  }
  return false;
}

bool MslDialect::hasSimdReduce(SimdOp op, ScalarKind k) const { return metalHasSimdReduce(op, k); }

std::string MslDialect::simdReduce(SimdOp op, const std::string& x, ScalarKind k) const {
  if (k == ScalarKind::I1) return std::string(op == SimdOp::And ? "simd_all(" : "simd_any(") + x + ")";
  return std::string("simd_") + simdOpName(op) + "(" + x + ")";
}

bool metalHasSimdPrefix(SimdOp op, ScalarKind k) {
  return (op == SimdOp::Sum || op == SimdOp::Product) &&
         (k == ScalarKind::F32 || k == ScalarKind::F16 || k == ScalarKind::I32);
}

bool MslDialect::hasSimdPrefix(SimdOp op, ScalarKind k) const { return metalHasSimdPrefix(op, k); }

std::string MslDialect::simdPrefix(SimdOp op, const std::string& x, bool inclusive) const {
  return std::string("simd_prefix_") + (inclusive ? "inclusive_" : "exclusive_") + simdOpName(op) + "(" + x + ")";
}

std::string MslDialect::shuffle(const std::string& fn, const std::string& x, ScalarKind k, const std::string& arg) const {
  switch (k) {
    case ScalarKind::I1: return "bool(" + fn + "(ushort(" + x + "), " + arg + "))";
    case ScalarKind::I8: return "char(" + fn + "(short(" + x + "), " + arg + "))";
    case ScalarKind::BF16: return "as_type<bfloat>(" + fn + "(as_type<ushort>(" + x + "), " + arg + "))";
    case ScalarKind::I64: return "as_type<long>(" + fn + "(as_type<uint2>(" + x + "), " + arg + "))";
    default: return fn + "(" + x + ", " + arg + ")";
  }
}

std::string MslDialect::simdShuffleXor(const std::string& x, ScalarKind k, const std::string& mask) const {
  return shuffle("simd_shuffle_xor", x, k, mask);
}

std::string MslDialect::simdShuffleUp(const std::string& x, ScalarKind k, const std::string& delta) const {
  return shuffle("simd_shuffle_up", x, k, delta);
}

std::string MslDialect::simdShuffleDown(const std::string& x, ScalarKind k, const std::string& delta) const {
  return shuffle("simd_shuffle_down", x, k, delta);
}

std::string MslDialect::simdBroadcast(const std::string& x, ScalarKind k, const std::string& lane) const {
  return shuffle("simd_shuffle", x, k, lane);
}

bool metalHasAtomic(AtomicOp op, ScalarKind k) {
  if (k == ScalarKind::I32) return op != AtomicOp::FAdd;
  if (k == ScalarKind::F32) return op == AtomicOp::FAdd || op == AtomicOp::Exch;
  return false;
}

bool MslDialect::hasAtomic(AtomicOp op, ScalarKind k) const { return metalHasAtomic(op, k); }

std::string MslDialect::atomicRmw(AtomicOp op, const std::string& ptr, const std::string& value, ScalarKind k) const {
  bool isUnsigned = op == AtomicOp::UMax || op == AtomicOp::UMin;
  std::string atomicType = k == ScalarKind::F32 ? "atomic_float" : isUnsigned ? "atomic_uint" : "atomic_int";
  std::string fn;
  switch (op) {
    case AtomicOp::Add:
    case AtomicOp::FAdd: fn = "atomic_fetch_add_explicit"; break;
    case AtomicOp::And: fn = "atomic_fetch_and_explicit"; break;
    case AtomicOp::Or: fn = "atomic_fetch_or_explicit"; break;
    case AtomicOp::Xor: fn = "atomic_fetch_xor_explicit"; break;
    case AtomicOp::Max:
    case AtomicOp::UMax: fn = "atomic_fetch_max_explicit"; break;
    case AtomicOp::Min:
    case AtomicOp::UMin: fn = "atomic_fetch_min_explicit"; break;
    case AtomicOp::Exch: fn = "atomic_exchange_explicit"; break;
  }
  std::string call = fn + "(reinterpret_cast<device " + atomicType + "*>(" + ptr + "), " +
                     (isUnsigned ? "uint(" + value + ")" : value) + ", memory_order_relaxed)";
  return isUnsigned ? "int(" + call + ")" : call;
}

std::string MslDialect::atomicCas(const std::string& ptr, const std::string& expected, const std::string& desired,
                                  ScalarKind k) const {
  if (k == ScalarKind::F32) return "tmetal_atomic_cas_float(" + ptr + ", " + expected + ", " + desired + ")";
  if (k == ScalarKind::F16 || k == ScalarKind::BF16)
    return bitcast("tmetal_atomic_cas16(" + pointerCast(ptr, "device ushort*") + ", " + bitcast(expected, "ushort") +
                       ", " + bitcast(desired, "ushort") + ")",
                   scalarType(k));
  return "tmetal_atomic_cas(" + ptr + ", " + expected + ", " + desired + ")";
}

std::string MslDialect::matrixType(ScalarKind k) const {
  if (k == ScalarKind::F16) return "simdgroup_half8x8";
  if (k == ScalarKind::BF16) return "simdgroup_bfloat8x8";  // MSL 3.1, as bfloat itself
  return "simdgroup_float8x8";
}

std::string MslDialect::matrixZero(ScalarKind k) const {
  return "make_filled_simdgroup_matrix<" + scalarType(k) + ", 8, 8>(" + floatLiteral(0, k) + ")";
}

// Every lane holds its share of a tile whatever its role, so `role` plays no
// part; the origin stays 0 because `ptr` already points at the tile.
std::string MslDialect::matrixLoad(const std::string& m, const std::string& ptr, int64_t stride, bool transpose,
                                   MatrixRole) const {
  return "simdgroup_load(" + m + ", " + ptr + ", " + std::to_string(stride) +
         (transpose ? ", ulong2(0, 0), true);" : ");");
}

std::string MslDialect::matrixStore(const std::string& m, const std::string& ptr, int64_t stride) const {
  return "simdgroup_store(" + m + ", " + ptr + ", " + std::to_string(stride) + ");";
}

std::string MslDialect::matrixToRegisters(const std::string& m, const std::string& x0, const std::string& x1) const {
  return "tmetal_matrix_to_registers(" + m + ", " + x0 + ", " + x1 + ", " + builtinName(Builtin::LaneIndex) + ");";
}

std::string MslDialect::matrixFromRegisters(const std::string& m, const std::string& x0, const std::string& x1,
                                            ScalarKind k) const {
  return "tmetal_matrix_from_registers(" + m + ", " + vectorType(k, 2) + "(" + x0 + ", " + x1 + "), " +
         builtinName(Builtin::LaneIndex) + ");";
}

// <metal_stdlib> has the tiles; these move an accumulator tile's elements
// between Apple's lanes and the registers' (the lane mapping, MLX's too, is
// not in the MSL specification: see msl_shim.h; unverified on Apple GPUs).
std::string MslDialect::matrixHelpers() const {
  return R"(// Lane 4g + t of the registers holds elements (g, 2t) and (g, 2t + 1);
// thread_elements() of lane l holds those of row (l & 16) / 4 + (l & 7) / 2,
// columns (l & 8) / 2 + (l & 1) * 2 and the one after. One shuffle a tile.
static inline void tmetal_matrix_to_registers(thread simdgroup_float8x8& m, thread float& x0, thread float& x1,
                                              uint lane) {
  const ushort holder = ushort((lane & 16) | (lane & 2) << 2 | (lane & 12) >> 1 | (lane & 1));
  const float2 pair = simd_shuffle(m.thread_elements(), holder);
  x0 = pair.x;
  x1 = pair.y;
}
template <typename T>
static inline void tmetal_matrix_from_registers(thread simdgroup_matrix<T, 8, 8>& m, vec<T, 2> pair, uint lane) {
  const ushort holder = ushort((lane & 16) | (lane & 6) << 1 | (lane & 8) >> 2 | (lane & 1));
  m.thread_elements() = simd_shuffle(pair, holder);
}
)";
}

std::string MslDialect::atomicHelpers() const {
  return R"(// A strong compare-and-swap: retries the weak one while it fails spuriously.
static inline int tmetal_atomic_cas(device int* p, int expected, int desired) {
  int old = expected;
  while (!atomic_compare_exchange_weak_explicit(reinterpret_cast<device atomic_int*>(p), &old, desired,
                                                memory_order_relaxed, memory_order_relaxed)) {
    if (old != expected) break;
  }
  return old;
}
// Floats compare and swap their bits, as Triton's cmpxchg does.
static inline float tmetal_atomic_cas_float(device float* p, float expected, float desired) {
  int old = tmetal_atomic_cas(reinterpret_cast<device int*>(p), as_type<int>(expected), as_type<int>(desired));
  return as_type<float>(old);
}
// Metal's device atomics are 32-bit: a 16-bit compare-and-swap swaps the
// aligned word holding it, keeping the other half as it is.
static inline ushort tmetal_atomic_cas16(device ushort* p, ushort expected, ushort desired) {
  ulong address = reinterpret_cast<ulong>(p);
  device atomic_uint* word = reinterpret_cast<device atomic_uint*>(address & ~ulong(3));
  uint shift = uint(address & 2) * 8;
  uint old = atomic_load_explicit(word, memory_order_relaxed);
  while (true) {
    ushort seen = ushort(old >> shift);
    if (seen != expected) return seen;
    uint next = (old & ~(0xffffu << shift)) | (uint(desired) << shift);
    if (atomic_compare_exchange_weak_explicit(word, &old, next, memory_order_relaxed, memory_order_relaxed))
      return expected;
  }
}
)";
}

}  // namespace tmetal::codegen

namespace tmetal::codegen {

std::string MslDialect::libdeviceMarker(std::string_view marker) const {
  // metal::precise for the functions that have a fast variant, so that the
  // library's fast-math setting does not change libdevice's accuracy.
  static const std::set<std::string_view> precise = {
      "exp",  "exp2", "exp10", "log",  "log2",  "log10", "sqrt",  "rsqrt", "sin",   "cos",   "tan",  "tanh",
      "atan", "asin", "acos",  "atan2", "sinh", "cosh",  "asinh", "acosh", "atanh", "pow",   "sinpi", "cospi"};
  static const std::set<std::string_view> plain = {"fabs", "floor", "ceil", "trunc", "rint", "round", "fma", "copysign",
                                                   "fmin", "fmax", "ldexp", "fmod", "fdim", "clz", "popcount",
                                                   "reverse_bits", "mulhi"};
  if (precise.count(marker)) return "precise::" + std::string(marker);
  if (plain.count(marker)) return std::string(marker);
  if (marker.starts_with("fast_")) {
    const std::string_view fn = marker.substr(5);
    if (fn == "divide" || precise.count(fn)) return "fast::" + std::string(fn);
  }
  if (marker == "umulhi") return "mulhi";
  if (marker == "as_float") return "as_type<float>";
  if (marker == "as_uint") return "as_type<uint>";
  // Metal cannot forbid contracting a * b + c into a fused multiply-add
  // across an inlined function; these keep the rounded operation a call.
  if (marker == "add_rn" || marker == "sub_rn" || marker == "mul_rn") return "tmetal_f" + std::string(marker);
  return CEmitter::libdeviceMarker(marker);
}

}  // namespace tmetal::codegen
