// The CUDA C++ dialect of the C-like emitter. It exists to measure tmetal's
// layouts and reduction strategies on a real GPU (NVIDIA), not as a product:
// the kernel is lowered exactly as for Metal (same layouts, same SIMD-group
// and threadgroup-memory steps), and only the spelling differs:
//   SIMD group         -> warp (32 lanes): __shfl_*_sync shuffles, reductions
//                         by __reduce_*_sync where the hardware has them for
//                         the type, by a shuffle-xor butterfly otherwise
//   threadgroup memory -> __shared__ arrays; threadgroup_barrier -> __syncthreads()
//   device T* buffers  -> plain T* parameters; scalars by value (not constant T&)
//   builtins           -> blockIdx / gridDim / threadIdx (not parameters)
//   half, bfloat       -> __half, __nv_bfloat16 (cuda_fp16.h, cuda_bf16.h)
//   metal::precise     -> CUDA's IEEE math (expf, ...; compile without -use_fast_math)
//   atomic_*_explicit  -> atomicAdd, atomicMax, atomicCAS, ... (relaxed, as in Metal)
// Helpers the spellings rely on (tmetal_* functions, vector types of 16-bit
// floats, the MSL-style short type names the lowering uses such as `uint`)
// are defined in filePrologue().
#pragma once

#include "tmetal/codegen/c_emitter.h"

namespace tmetal::codegen {

class CudaDialect : public CEmitter {
 public:
  // `threadsPerThreadgroup` becomes the kernel's __launch_bounds__, which
  // lets the compiler budget registers for the block size actually launched.
  // minThreadgroupsPerCore > 0 becomes __launch_bounds__'s minimum blocks
  // per multiprocessor (CompileOptions).
  explicit CudaDialect(int threadsPerThreadgroup, int minThreadgroupsPerCore = 0)
      : threadsPerThreadgroup_(threadsPerThreadgroup), minThreadgroupsPerCore_(minThreadgroupsPerCore) {}

  // The minimum blocks per multiprocessor that let ptxas give each thread
  // `registersPerThread` registers, or 0 where full occupancy already does
  // (then no minimum is declared). Told no minimum, ptxas held the float16
  // row sum of the layout benchmark to 31 registers and gave its four
  // 16-byte loads of a group of trips the same registers two by two, so the
  // third load waited for the first's data; allowed the registers, all four
  // issued first (docs/codegen.md, "Registers for loops of loads"). The
  // minimum is also a ceiling: asking for fewer registers than a kernel uses
  // spills them, so the figure errs high.
  static int threadgroupsForRegisters(int registersPerThread, int threadsPerThreadgroup);
  // The registers a thread may have with `threadgroups` blocks of
  // `threadsPerThreadgroup` threads on a multiprocessor (at most 255).
  static int registersPerThreadAt(int threadgroups, int threadsPerThreadgroup);

  std::string targetName() const override { return "cuda"; }
  std::string filePrologue() const override;
  std::string helperQualifier() const override { return "static __device__ __forceinline__"; }
  std::string kernelSignature(const std::string& name, const std::vector<KernelParamDecl>& params,
                              const std::vector<Builtin>& builtins) const override;
  // The metadata keeps the MSL attribute names (kernel_abi.h): they say which
  // builtins the kernel reads. In CUDA they are not parameters.
  std::string builtinAttribute(Builtin b) const override;
  std::string builtinType(Builtin b) const override;
  std::string builtinName(Builtin b) const override;
  std::string programIdExpr(int axis) const override;
  std::string numProgramsExpr(int axis) const override;
  std::vector<std::string> reservedNames() const override;

  std::string scalarType(ir::ScalarKind k) const override;
  std::string vectorType(ir::ScalarKind k, int width) const override;
  std::string addressSpace(AddressSpace space) const override;
  std::string pointerType(const ir::Type& pointee, AddressSpace space) const override;
  std::string referenceParam(const std::string& type, const std::string& name) const override;

  std::string infinity() const override { return "TMETAL_INFINITY"; }
  std::string quietNan() const override { return "TMETAL_NAN"; }
  std::string convert(const std::string& expr, const std::string& toType) const override;
  std::string bitcast(const std::string& expr, const std::string& toType) const override;
  std::string isNan(const std::string& expr) const override { return "tmetal_isnan(" + expr + ")"; }

  bool mathNeedsFloat(ir::ScalarKind k) const override;
  std::string mathCall(MathFn fn, const std::vector<std::string>& args, ir::ScalarKind k, bool fast) const override;
  std::string sinCos(const std::string& x, const std::string& cosine, bool fast) const override;
  std::string maskedLoad(const std::string& ptr, const std::string& cond, const std::string& other) const override;
  std::string maskedStore(const std::string& ptr, const std::string& value, const std::string& cond,
                          bool oneOfSeveral) const override;
  std::string lowBits(const std::string& x, uint64_t mask, ir::ScalarKind k) const override;
  std::string wideMultiply(const std::string& a, const std::string& b, bool isSigned) const override;
  std::string maskedVectorLoad(const std::string& var, const std::string& ptr, const std::string& vectorTypeName,
                               const std::string& cond, bool inLoop) const override;
  std::string floatDivide(const std::string& a, const std::string& b, ir::ScalarKind k) const override;
  std::string minMax(bool isMax, const std::string& a, const std::string& b, bool isFloat) const override;
  std::string mathHelpers(const std::vector<MathFn>& used) const override { return ""; }  // CUDA has erff
  std::string libdeviceMarker(std::string_view marker) const override;

  std::string threadgroupArray(const std::string& elementType, const std::string& name, int64_t count) const override;
  std::string threadgroupAlias(const std::string& elementType, const std::string& name,
                               const std::string& host) const override;
  std::string threadgroupAtomicAdd(const std::string& ptr, const std::string& value) const override {
    return "atomicAdd(" + ptr + ", " + value + ")";
  }
  std::string barrier() const override { return "__syncthreads();"; }
  std::string deviceMemoryBarrier() const override { return "__syncthreads();"; }
  // PTX's release and acquire fences (PTX ISA 8.6, CUDA 12.8): ptxas makes
  // them what it makes of Triton's own atom.acq_rel, a MEMBAR.ALL.GPU before
  // the atomic and an L1 invalidation after. __threadfence() is sequentially
  // consistent, a MEMBAR.SC.GPU on each side, and the one after waits for the
  // atomic's round trip before the thread may exit.
  std::string releaseFence() const override { return "asm volatile(\"fence.release.gpu;\" ::: \"memory\");"; }
  std::string acquireFence() const override { return "asm volatile(\"fence.acquire.gpu;\" ::: \"memory\");"; }
  std::string loopUnrollHint(int count) const override { return "#pragma unroll " + std::to_string(count); }
  std::string fullUnrollHint() const override { return "#pragma unroll"; }
  std::string vectorLoad(const std::string& ptr, const std::string& vectorTypeName, AddressSpace space) const override;
  std::string vectorStore(const std::string& ptr, const std::string& vectorTypeName, AddressSpace space,
                          const std::vector<std::string>& components) const override;
  std::string vectorOf(const std::string& vectorTypeName, const std::vector<std::string>& components) const override;
  std::string vectorElement(const std::string& vec, int k) const override;

  bool hasSimdReduce(SimdOp op, ir::ScalarKind k) const override;
  std::string simdReduce(SimdOp op, const std::string& x, ir::ScalarKind k) const override;
  bool hasSimdPrefix(SimdOp op, ir::ScalarKind k) const override;
  std::string simdPrefix(SimdOp op, const std::string& x, bool inclusive) const override;
  std::string simdShuffleXor(const std::string& x, ir::ScalarKind k, const std::string& mask) const override;
  std::string simdShuffleUp(const std::string& x, ir::ScalarKind k, const std::string& delta) const override;
  std::string simdShuffleDown(const std::string& x, ir::ScalarKind k, const std::string& delta) const override;
  std::string simdBroadcast(const std::string& x, ir::ScalarKind k, const std::string& lane) const override;

  std::string matrixType(ir::ScalarKind k) const override {
    if (k == ir::ScalarKind::F16) return "tmetal_half8x8";
    return k == ir::ScalarKind::BF16 ? "tmetal_bfloat8x8" : "tmetal_float8x8";
  }
  std::string matrixZero(ir::ScalarKind k) const override { return matrixType(k) + "{}"; }
  std::string matrixLoad(const std::string& m, const std::string& ptr, int64_t stride, bool transpose,
                         MatrixRole role) const override;
  std::string matrixStore(const std::string& m, const std::string& ptr, int64_t stride) const override {
    return "tmetal_matrix_store(" + m + ", " + ptr + ", " + std::to_string(stride) + ");";
  }
  // mma.sync's accumulator registers are the layout's own.
  std::string matrixToRegisters(const std::string& m, const std::string& x0, const std::string& x1) const override {
    return x0 + " = " + m + ".x0; " + x1 + " = " + m + ".x1;";
  }
  std::string matrixFromRegisters(const std::string& m, const std::string& x0, const std::string& x1,
                                  ir::ScalarKind k) const override {
    if (k == ir::ScalarKind::F32) return m + " = tmetal_float8x8{" + x0 + ", " + x1 + "};";
    return m + ".pair = tmetal_bitcast<uint>(" + vectorType(k, 2) + "(" + x0 + ", " + x1 + "));";
  }
  std::string matrixMultiplyAccumulate(const std::string& d, const std::string& a, const std::string& b,
                                       const std::string& c) const override {
    return "tmetal_matrix_mac(" + d + ", " + a + ", " + b + ", " + c + ");";
  }
  bool pairsMatrixMultiplies() const override { return true; }
  std::string matrixMultiplyAccumulatePair(const std::string& d0, const std::string& d1, const std::string& a0,
                                           const std::string& a1, const std::string& b) const override {
    return "tmetal_matrix_mac2(" + d0 + ", " + d1 + ", " + a0 + ", " + a1 + ", " + b + ");";
  }
  // ldmatrix .x4 and mma m16n8k16: a quarter of the loads and half the
  // multiplies of x1 and m16n8k8 (2048^3 f16 on an H100: 119 -> 110 us,
  // bench/results/2026-11-27-h100-double-buffered-dots/).
  int matrixLoadGroup() const override { return 4; }
  std::string matrixLoadGroup(const std::vector<std::string>& tiles, const std::string& ptr, int64_t step1,
                              int64_t step2, int64_t stride, bool transpose, MatrixRole role) const override;
  bool pairsMatrixMultipliesAlongK() const override { return true; }
  std::string matrixMultiplyAccumulateAlongK(const std::string& d, const std::string& a, const std::string& ak,
                                             const std::string& b, const std::string& bk) const override {
    return "tmetal_matrix_mac_k16(" + d + ", " + a + ", " + ak + ", " + b + ", " + bk + ");";
  }
  std::string matrixMultiplyAccumulatePairAlongK(const std::string& d0, const std::string& d1, const std::string& a0,
                                                 const std::string& a1, const std::string& a0k,
                                                 const std::string& a1k, const std::string& b,
                                                 const std::string& bk) const override {
    return "tmetal_matrix_mac2_k16(" + d0 + ", " + d1 + ", " + a0 + ", " + a1 + ", " + a0k + ", " + a1k + ", " + b +
           ", " + bk + ");";
  }
  std::string matrixHelpers() const override;

  bool hasAtomic(AtomicOp op, ir::ScalarKind k) const override;
  std::string atomicRmw(AtomicOp op, const std::string& ptr, const std::string& value, ir::ScalarKind k) const override;
  std::string atomicCas(const std::string& ptr, const std::string& expected, const std::string& desired,
                        ir::ScalarKind k) const override;
  std::string atomicHelpers() const override;

 private:
  // Any __shfl_*_sync on a value of kind k: types CUDA does not shuffle
  // (bool, 8- and 16-bit integers) travel as an int.
  std::string shuffle(const std::string& fn, const std::string& x, ir::ScalarKind k, const std::string& arg) const;

  int threadsPerThreadgroup_;
  int minThreadgroupsPerCore_;
};

}  // namespace tmetal::codegen
