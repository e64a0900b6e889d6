// The Metal Shading Language dialect of the C-like emitter: address spaces,
// [[attribute]] bindings, simd_* SIMD-group functions, threadgroup_barrier,
// metal::precise math, atomic_* functions, half and bfloat (MSL 3.1).
#pragma once

#include "tmetal/codegen/c_emitter.h"

namespace tmetal::codegen {

// The SIMD-group reductions and prefix functions Metal provides for a type.
// The CUDA dialect answers with these too, so that both targets make the
// same lowering decisions (a butterfly where Metal has no simd_ function).
bool metalHasSimdReduce(SimdOp op, ir::ScalarKind k);
bool metalHasSimdPrefix(SimdOp op, ir::ScalarKind k);
// The device atomics Metal provides for a type (32-bit integers, and float
// add/exchange); the CUDA dialect accepts the same set.
bool metalHasAtomic(AtomicOp op, ir::ScalarKind k);

class MslDialect : public CEmitter {
 public:
  // `threadsPerThreadgroup` > 0 becomes the kernel's
  // [[max_total_threads_per_threadgroup]], the counterpart of CUDA's
  // __launch_bounds__: Metal's compiler then budgets registers for that
  // threadgroup size. Without it, the size a pipeline takes is whatever
  // Metal computes for the kernel (MTLComputePipelineState's
  // maxTotalThreadsPerThreadgroup), which Apple documents may be below the
  // device's maximum, and so below the threadgroups tmetal dispatches.
  explicit MslDialect(int threadsPerThreadgroup = 0) : threadsPerThreadgroup_(threadsPerThreadgroup) {}

  std::string targetName() const override { return "metal"; }
  std::string filePrologue() const override;
  std::string helperQualifier() const override { return "static inline"; }
  std::string kernelSignature(const std::string& name, const std::vector<KernelParamDecl>& params,
                              const std::vector<Builtin>& builtins) const override;
  std::string builtinAttribute(Builtin b) const override;
  std::vector<std::string> reservedNames() const override;
  std::string builtinType(Builtin b) const override;

  std::string vectorType(ir::ScalarKind k, int width) const override;
  std::string addressSpace(AddressSpace space) const override;
  std::string referenceParam(const std::string& type, const std::string& name) const override;

  std::string infinity() const override { return "INFINITY"; }
  std::string quietNan() const override { return "NAN"; }
  std::string bitcast(const std::string& expr, const std::string& toType) const override;
  std::string isNan(const std::string& expr) const override { return "isnan(" + expr + ")"; }

  bool mathNeedsFloat(ir::ScalarKind k) const override;
  std::string mathCall(MathFn fn, const std::vector<std::string>& args, ir::ScalarKind k, bool fast) const override;
  std::string sinCos(const std::string& x, const std::string& cosine, bool fast) const override;
  std::string minMax(bool isMax, const std::string& a, const std::string& b, bool isFloat) const override;
  std::string mathHelpers(const std::vector<MathFn>& used) const override;
  std::string libdeviceMarker(std::string_view marker) const override;

  std::string threadgroupArray(const std::string& elementType, const std::string& name, int64_t count) const override;
  std::string threadgroupAlias(const std::string& elementType, const std::string& name,
                               const std::string& host) const override;
  std::string threadgroupAtomicAdd(const std::string& ptr, const std::string& value) const override {
    return "atomic_fetch_add_explicit(reinterpret_cast<threadgroup atomic_int*>(" + ptr + "), " + value +
           ", memory_order_relaxed)";
  }
  std::string barrier() const override { return "threadgroup_barrier(mem_flags::mem_threadgroup);"; }
  // MSL 3.2 (macOS 15); device scope is the default. Metal's thread fences
  // take memory_order_seq_cst, stronger than either side needs.
  std::string releaseFence() const override {
    return "atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst);";
  }
  std::string acquireFence() const override { return releaseFence(); }
  std::string deviceMemoryBarrier() const override {
    return "threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);";
  }
  // Apple's Metal compiler is clang, which takes clang's loop pragmas.
  std::string loopUnrollHint(int count) const override {
    return "#pragma clang loop unroll_count(" + std::to_string(count) + ")";
  }
  std::string fullUnrollHint() const override { return "#pragma clang loop unroll(full)"; }
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

  std::string matrixType(ir::ScalarKind k) const override;
  std::string matrixZero(ir::ScalarKind k) const override;
  std::string matrixLoad(const std::string& m, const std::string& ptr, int64_t stride, bool transpose,
                         MatrixRole role) const override;
  std::string matrixStore(const std::string& m, const std::string& ptr, int64_t stride) const override;
  std::string matrixMultiplyAccumulate(const std::string& d, const std::string& a, const std::string& b,
                                       const std::string& c) const override {
    return "simdgroup_multiply_accumulate(" + d + ", " + a + ", " + b + ", " + c + ");";
  }
  std::string matrixToRegisters(const std::string& m, const std::string& x0, const std::string& x1) const override;
  std::string matrixFromRegisters(const std::string& m, const std::string& x0, const std::string& x1,
                                  ir::ScalarKind k) const override;
  std::string matrixHelpers() const override;

  bool hasAtomic(AtomicOp op, ir::ScalarKind k) const override;
  std::string atomicRmw(AtomicOp op, const std::string& ptr, const std::string& value, ir::ScalarKind k) const override;
  std::string atomicCas(const std::string& ptr, const std::string& expected, const std::string& desired,
                        ir::ScalarKind k) const override;
  std::string atomicHelpers() const override;

 private:
  // Any simd_shuffle* function on a value of kind k: types MSL does not
  // shuffle directly travel as an integer of the same width.
  std::string shuffle(const std::string& fn, const std::string& x, ir::ScalarKind k, const std::string& arg) const;

  int threadsPerThreadgroup_;
};

}  // namespace tmetal::codegen
