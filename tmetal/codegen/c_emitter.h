// The C-like emitter: how per-thread code is spelled. The lowering decides
// what each thread computes (registers, shuffles, barriers, threadgroup
// memory) in target-independent terms and asks this class for the spelling.
// What is plain C++ (arithmetic, literals, conversions, control flow) lives
// here; everything that differs by target is a virtual hook that a dialect
// overrides (MslDialect for Metal, CudaDialect for CUDA), in the manner of
// Halide's CodeGen_C / CodeGen_Metal_Dev and TVM's codegen_c / codegen_metal.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tmetal/ir/type.h"

namespace tmetal::codegen {

enum class AddressSpace { Device, Threadgroup, Constant, Thread };

// Combining operations the SIMD hardware may provide.
enum class SimdOp { Sum, Product, Max, Min, And, Or, Xor };
// "sum", "product", ...: the suffix of MSL's simd_<op> functions.
const char* simdOpName(SimdOp op);

// Elementwise math with a target-specific spelling.
// FastSqrt is Triton's tl.sqrt (math.sqrt), which it documents as a fast
// square root; Sqrt is tl.sqrt_rn (tt.precise_sqrt), correctly rounded.
enum class MathFn { Exp, Exp2, Log, Log2, Sqrt, FastSqrt, Rsqrt, Sin, Cos, Tanh, Erf, Floor, Ceil, AbsF, Fma, Div };

// Read-modify-write atomics (tt.atomic_rmw's atomic_rmw_op).
enum class AtomicOp { Add, FAdd, And, Or, Xor, Max, Min, UMax, UMin, Exch };

// Builtin per-thread values a kernel may read.
// The operand an 8x8 SIMD-group matrix tile is in d = a * b + c.
enum class MatrixRole { A, B, Accumulator };

enum class Builtin { ProgramId, NumPrograms, ThreadIndex, LaneIndex, SimdGroupIndex };

struct KernelParamDecl {
  std::string name;
  ir::Type type;  // pointer or scalar
  int binding = 0;
};

class CEmitter {
 public:
  virtual ~CEmitter() = default;

  // ---- identity and file structure -------------------------------------
  virtual std::string targetName() const = 0;  // "metal"
  virtual std::string filePrologue() const = 0;  // includes and namespaces
  // Qualifiers of a helper function defined before the kernel.
  virtual std::string helperQualifier() const = 0;
  // The kernel's opening line(s), up to but excluding " {".
  virtual std::string kernelSignature(const std::string& name, const std::vector<KernelParamDecl>& params,
                                      const std::vector<Builtin>& builtins) const = 0;
  // The attribute names of the builtins, as kernel_abi.h lists them, and
  // their type ("uint3" / "uint").
  virtual std::string builtinAttribute(Builtin b) const = 0;
  virtual std::string builtinType(Builtin b) const = 0;
  // The name the kernel body uses for a builtin's value.
  virtual std::string builtinName(Builtin b) const;
  // tt.get_program_id / tt.get_num_programs along axis 0..2, as an int.
  virtual std::string programIdExpr(int axis) const;
  virtual std::string numProgramsExpr(int axis) const;
  // Identifiers of the target (builtin variables, library and helper
  // names) that emitted values must not take: the lowering renames values
  // so named.
  virtual std::vector<std::string> reservedNames() const { return {}; }

  // ---- types -------------------------------------------------------------
  virtual std::string scalarType(ir::ScalarKind k) const;
  // The unsigned integer type of the same width ("uint" for i32).
  virtual std::string unsignedType(ir::ScalarKind k) const;
  virtual std::string vectorType(ir::ScalarKind k, int width) const = 0;
  virtual std::string addressSpace(AddressSpace space) const = 0;
  // "device float*" for a global pointer to f32.
  virtual std::string pointerType(const ir::Type& pointee, AddressSpace space) const;
  // Any scalar or pointer type of the kernel IR.
  std::string typeName(const ir::Type& t) const;
  // The type a pointer to this element type points at in memory (i1 lives
  // in memory as one byte).
  virtual std::string memoryElementType(const ir::Type& pointee) const;
  // A by-reference out-parameter of a helper function.
  virtual std::string referenceParam(const std::string& type, const std::string& name) const = 0;

  // ---- literals and conversions -------------------------------------------
  virtual std::string intLiteral(int64_t v, ir::ScalarKind k) const;
  virtual std::string floatLiteral(double v, ir::ScalarKind k) const;
  virtual std::string boolLiteral(bool v) const;
  virtual std::string infinity() const = 0;
  virtual std::string quietNan() const = 0;
  // A value conversion (C++ functional cast by default).
  virtual std::string convert(const std::string& expr, const std::string& toType) const;
  // Reinterprets the bits of a value of one scalar type as another.
  virtual std::string bitcast(const std::string& expr, const std::string& toType) const = 0;
  // A pointer to other elements at the same address (both dialects are C++).
  std::string pointerCast(const std::string& expr, const std::string& toPointerType) const;
  virtual std::string isNan(const std::string& expr) const = 0;

  // ---- math ----------------------------------------------------------------
  // True if half/bfloat math must be computed in float and rounded back.
  virtual bool mathNeedsFloat(ir::ScalarKind k) const = 0;
  // A math function on operands of kind k (f32 unless mathNeedsFloat said
  // otherwise). `fast` asks for the fast variant where the target has one.
  virtual std::string mathCall(MathFn fn, const std::vector<std::string>& args, ir::ScalarKind k, bool fast) const = 0;
  virtual std::string minMax(bool isMax, const std::string& a, const std::string& b, bool isFloat) const = 0;
  // sin(x) of a float, writing cos(x) to the float lvalue `cosine`: one range
  // reduction for the two.
  virtual std::string sinCos(const std::string& x, const std::string& cosine, bool fast) const = 0;
  // a / b for arith.divf of kind k: the `/` operator by default (Metal's
  // float division is within 2.5 ulp, not correctly rounded).
  virtual std::string floatDivide(const std::string& a, const std::string& b, ir::ScalarKind k) const;
  // Helper functions the math spellings rely on (erf for MSL); emitted once
  // before the kernel when used.
  virtual std::string mathHelpers(const std::vector<MathFn>& used) const = 0;
  // The spelling of a marker of the libdevice helpers' text
  // (codegen/libdevice/libdevice_helpers.h): "exp" -> the target's float exp;
  // empty for a marker the dialect does not know.
  virtual std::string libdeviceMarker(std::string_view marker) const;

  // ---- memory --------------------------------------------------------------
  virtual std::string threadgroupArray(const std::string& elementType, const std::string& name, int64_t count) const = 0;
  // `name`, a pointer to elements of `elementType` at the start of the
  // threadgroup array `host` (ThreadgroupMemory: a buffer reusing another's memory).
  virtual std::string threadgroupAlias(const std::string& elementType, const std::string& name,
                                       const std::string& host) const = 0;
  virtual std::string barrier() const = 0;  // a threadgroup-wide barrier with threadgroup-memory ordering
  // tl.debug_barrier: also orders device memory among the threadgroup's threads.
  virtual std::string deviceMemoryBarrier() const = 0;
  // Device-scope fences around a relaxed atomic, as C++ builds Triton's
  // memory orders from them: a release fence orders this thread's earlier
  // device-memory accesses before the atomic, an acquire fence its later
  // ones after it.
  virtual std::string releaseFence() const = 0;
  virtual std::string acquireFence() const = 0;
  // The line before a loop that asks the target's compiler to unroll it
  // `count` times (with a remainder for trip counts known only at run time).
  virtual std::string loopUnrollHint(int count) const = 0;
  // The line before a loop of a known trip count that asks for it unrolled whole.
  virtual std::string fullUnrollHint() const = 0;
  // A vector of `width` elements read from / written to `ptr` (aligned).
  virtual std::string vectorLoad(const std::string& ptr, const std::string& vectorTypeName, AddressSpace space) const = 0;
  virtual std::string vectorStore(const std::string& ptr, const std::string& vectorTypeName, AddressSpace space,
                                  const std::vector<std::string>& components) const = 0;
  // The element at `ptr` where `cond` holds, else `other` (`ptr` may be out
  // of bounds where it does not).
  virtual std::string maskedLoad(const std::string& ptr, const std::string& cond, const std::string& other) const;
  // `var = vector at ptr` where `cond` holds (a statement). `inLoop`: the
  // load is inside a loop.
  virtual std::string maskedVectorLoad(const std::string& var, const std::string& ptr,
                                       const std::string& vectorTypeName, const std::string& cond, bool inLoop) const;
  // `*ptr = value` where `cond` holds (a statement; `ptr` may be out of
  // bounds where it does not). `oneOfSeveral`: the thread makes several such
  // element stores outside loops, one after another.
  virtual std::string maskedStore(const std::string& ptr, const std::string& value, const std::string& cond,
                                  bool oneOfSeveral) const;
  // x & mask (mask one less than a power of two), for a remainder that is
  // only ever compared with zero: zero exactly where x % (mask + 1) is.
  virtual std::string lowBits(const std::string& x, uint64_t mask, ir::ScalarKind k) const;
  // The 64-bit product of two 32-bit integers, each sign- or zero-extended.
  virtual std::string wideMultiply(const std::string& a, const std::string& b, bool isSigned) const;
  // A vector value built from its components.
  virtual std::string vectorOf(const std::string& vectorTypeName, const std::vector<std::string>& components) const = 0;
  virtual std::string vectorElement(const std::string& vec, int k) const = 0;

  // ---- SIMD group -------------------------------------------------------------
  virtual bool hasSimdReduce(SimdOp op, ir::ScalarKind k) const = 0;
  virtual std::string simdReduce(SimdOp op, const std::string& x, ir::ScalarKind k) const = 0;
  virtual bool hasSimdPrefix(SimdOp op, ir::ScalarKind k) const = 0;
  virtual std::string simdPrefix(SimdOp op, const std::string& x, bool inclusive) const = 0;
  virtual std::string simdShuffleXor(const std::string& x, ir::ScalarKind k, const std::string& mask) const = 0;
  virtual std::string simdShuffleUp(const std::string& x, ir::ScalarKind k, const std::string& delta) const = 0;
  virtual std::string simdShuffleDown(const std::string& x, ir::ScalarKind k, const std::string& delta) const = 0;
  virtual std::string simdBroadcast(const std::string& x, ir::ScalarKind k, const std::string& lane) const = 0;

  // ---- SIMD-group matrices: 8x8 tiles that a whole SIMD group holds --------
  // (tt.dot of 16-bit float inputs, lower_dot_matrix.cpp). Every lane of the
  // SIMD group makes each call with the same arguments.
  // The tile type of f16 or f32 elements.
  virtual std::string matrixType(ir::ScalarKind k) const = 0;
  // A tile of zeros, as an expression.
  virtual std::string matrixZero(ir::ScalarKind k) const = 0;
  // Loads tile `m` from threadgroup memory: element (r, c) of the tile is
  // ptr[r * stride + c], or ptr[c * stride + r] when `transpose`; `ptr`
  // lies a multiple of 8 elements into its threadgroup array, and `stride`
  // is a multiple of 8. `role` is
  // the operand the tile will be in matrixMultiplyAccumulate, for targets
  // whose lanes hold different elements for each role.
  virtual std::string matrixLoad(const std::string& m, const std::string& ptr, int64_t stride, bool transpose,
                                 MatrixRole role) const = 0;
  // Stores an accumulator tile: element (r, c) to ptr[r * stride + c].
  virtual std::string matrixStore(const std::string& m, const std::string& ptr, int64_t stride) const = 0;
  // A tile to and from registers laid out as layout::matrixAccumulatorLayout
  // gives them to this lane (lane 4g + t: elements (g, 2t) and (g, 2t + 1)):
  // `x0` and `x1` are lvalues for matrixToRegisters (f32 accumulators),
  // values of the tile's element type `k` for matrixFromRegisters (f32
  // accumulators; f16 and bf16 A tiles, whose lanes hold the same elements).
  // The lowering declares Builtin::LaneIndex for them.
  virtual std::string matrixToRegisters(const std::string& m, const std::string& x0, const std::string& x1) const = 0;
  virtual std::string matrixFromRegisters(const std::string& m, const std::string& x0, const std::string& x1,
                                          ir::ScalarKind k) const = 0;
  // d = a * b + c: f16 tiles a and b, f32 accumulators c and d.
  virtual std::string matrixMultiplyAccumulate(const std::string& d, const std::string& a, const std::string& b,
                                               const std::string& c) const = 0;
  // Whether the target's instruction multiplies 16 rows, so that two A
  // tiles over one B tile are one matrixMultiplyAccumulatePair.
  virtual bool pairsMatrixMultiplies() const { return false; }
  // d0 += a0 * b and d1 += a1 * b in one statement (pairsMatrixMultiplies).
  virtual std::string matrixMultiplyAccumulatePair(const std::string& d0, const std::string& d1,
                                                   const std::string& a0, const std::string& a1,
                                                   const std::string& b) const;
  // Tiles that one load statement takes (matrixLoadGroup), where the target
  // loads several at once.
  virtual int matrixLoadGroup() const { return 1; }
  // Loads tiles[j] as matrixLoad would from ptr + (j & 1) * step1 +
  // (j >> 1) * step2 (two steps, so that a group can hold the tiles of one
  // multiply's operand: two rows of A over two K tiles, say).
  virtual std::string matrixLoadGroup(const std::vector<std::string>& tiles, const std::string& ptr, int64_t step1,
                                      int64_t step2, int64_t stride, bool transpose, MatrixRole role) const;
  // Whether the target's instruction multiplies two tiles deep in K as
  // well, so that a pair over two K tiles is one
  // matrixMultiplyAccumulatePairAlongK (needs pairsMatrixMultiplies), and a
  // lone tile over two K tiles one matrixMultiplyAccumulateAlongK.
  virtual bool pairsMatrixMultipliesAlongK() const { return false; }
  // d += a * b + ak * bk in one statement: ak and bk are the tiles 8
  // further along K.
  virtual std::string matrixMultiplyAccumulateAlongK(const std::string& d, const std::string& a,
                                                     const std::string& ak, const std::string& b,
                                                     const std::string& bk) const;
  // d0 += a0 * b + a0k * bk and d1 += a1 * b + a1k * bk in one statement:
  // a0k, a1k and bk are the tiles 8 further along K.
  virtual std::string matrixMultiplyAccumulatePairAlongK(const std::string& d0, const std::string& d1,
                                                         const std::string& a0, const std::string& a1,
                                                         const std::string& a0k, const std::string& a1k,
                                                         const std::string& b, const std::string& bk) const;
  // Types and functions the tiles rely on, emitted once when used.
  virtual std::string matrixHelpers() const = 0;

  // ---- atomics ---------------------------------------------------------------
  // Whether the target has the operation natively for this element type
  // (the lowering falls back to a compare-and-swap loop otherwise).
  virtual bool hasAtomic(AtomicOp op, ir::ScalarKind k) const = 0;
  // An expression performing the atomic on *ptr and giving the old value.
  virtual std::string atomicRmw(AtomicOp op, const std::string& ptr, const std::string& value, ir::ScalarKind k) const = 0;
  // A compare-and-swap helper call: stores `desired` if *ptr == expected;
  // gives the old value. Integers of 32 bits and f32 (on the bits).
  virtual std::string atomicCas(const std::string& ptr, const std::string& expected, const std::string& desired,
                                ir::ScalarKind k) const = 0;
  // Helper functions the atomics rely on, emitted once when used.
  virtual std::string atomicHelpers() const = 0;
  // Adds `value` to the int at `ptr` in threadgroup memory, atomically.
  virtual std::string threadgroupAtomicAdd(const std::string& ptr, const std::string& value) const = 0;
};

}  // namespace tmetal::codegen
