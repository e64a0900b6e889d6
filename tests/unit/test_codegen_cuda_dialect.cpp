// The CUDA dialect's spellings: what the lowering asks of each hook, for
// every scalar kind, in a kernel that NVRTC must compile (so that a kind the
// suite does not happen to use cannot hide a spelling CUDA rejects), and the
// text of the spellings that matter for speed or semantics.
#include <gtest/gtest.h>

#include "tests/unit/cuda_test_support.h"
#include "tmetal/codegen/compile_kernel.h"
#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/codegen/cuda_dialect.h"
#include "tmetal/codegen/msl_dialect.h"
#include "tmetal/codegen/register_demand.h"
#include "tmetal/analysis/axis_info.h"
#include "tmetal/layout/layout_assignment.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal {
namespace {

using codegen::AddressSpace;
using codegen::AtomicOp;
using codegen::CudaDialect;
using codegen::MathFn;
using codegen::SimdOp;
using ir::ScalarKind;

const ScalarKind kAllKinds[] = {ScalarKind::I1,  ScalarKind::I8,   ScalarKind::I16, ScalarKind::I32, ScalarKind::I64,
                                ScalarKind::F16, ScalarKind::BF16, ScalarKind::F32, ScalarKind::F64};

bool isFloat(ScalarKind k) { return ir::isFloatKind(k); }

// A kernel that applies every hook to values of every kind it accepts.
std::string exerciseEveryHook(const CudaDialect& d) {
  std::string body;
  auto line = [&](const std::string& s) { body += "  " + s + "\n"; };
  auto var = [&](ScalarKind k) { return std::string("v_") + ir::scalarName(k); };
  for (ScalarKind k : kAllKinds) {
    std::string t = d.scalarType(k);
    std::string init = k == ScalarKind::I1 ? d.boolLiteral(true)
                       : isFloat(k)        ? d.floatLiteral(1.5, k)
                                           : d.intLiteral(-3, k);
    line(t + " " + var(k) + " = " + init + ";");
  }
  for (ScalarKind from : kAllKinds)
    for (ScalarKind to : kAllKinds) {
      if (to == ScalarKind::I1 && isFloat(from)) continue;  // the lowering compares with zero instead
      line(d.scalarType(to) + " c_" + ir::scalarName(from) + "_" + ir::scalarName(to) + " = " +
           d.convert(var(from), d.scalarType(to)) + ";");
    }
  for (ScalarKind k : kAllKinds) {
    if (k == ScalarKind::I1) continue;
    std::string t = d.scalarType(k), v = var(k);
    line(t + " mx_" + ir::scalarName(k) + " = " + d.minMax(true, v, v, isFloat(k)) + ";");
    line(t + " mn_" + ir::scalarName(k) + " = " + d.minMax(false, v, v, isFloat(k)) + ";");
    line(d.unsignedType(k) + " u_" + ir::scalarName(k) + " = " + d.convert(v, d.unsignedType(k)) + ";");
    if (isFloat(k)) {
      line("bool nan_" + std::string(ir::scalarName(k)) + " = " + d.isNan(v) + ";");
      line(t + " inf_" + ir::scalarName(k) + " = " + d.floatLiteral(1.0 / 0.0, k) + ";");
      line(t + " qnan_" + ir::scalarName(k) + " = " + d.floatLiteral(0.0 / 0.0, k) + ";");
    }
  }
  // Bitcasts between kinds of one width.
  line("int b0 = " + d.bitcast(var(ScalarKind::F32), "int") + ";");
  line("float b1 = " + d.bitcast(var(ScalarKind::I32), "float") + ";");
  line("short b2 = " + d.bitcast(var(ScalarKind::F16), "short") + ";");
  line("__nv_bfloat16 b3 = " + d.bitcast(var(ScalarKind::I16), d.scalarType(ScalarKind::BF16)) + ";");
  line("double b4 = " + d.bitcast(var(ScalarKind::I64), "double") + ";");
  // Math, precise and fast, in float and double.
  for (MathFn fn : {MathFn::Exp, MathFn::Exp2, MathFn::Log, MathFn::Log2, MathFn::Sqrt, MathFn::Rsqrt, MathFn::Sin,
                    MathFn::Cos, MathFn::Tanh, MathFn::Erf, MathFn::Floor, MathFn::Ceil, MathFn::AbsF, MathFn::Fma,
                    MathFn::Div}) {
    int arity = fn == MathFn::Fma ? 3 : fn == MathFn::Div ? 2 : 1;
    for (ScalarKind k : {ScalarKind::F32, ScalarKind::F64})
      for (bool fast : {false, true}) {
        std::vector<std::string> args(arity, var(k));
        line("acc_" + std::string(ir::scalarName(k)) + " += " + d.mathCall(fn, args, k, fast) + ";");
      }
  }
  // SIMD-group functions: shuffles for every kind, reductions and prefixes where the dialect has them.
  line("uint m = 4u;");
  for (ScalarKind k : kAllKinds) {
    std::string t = d.scalarType(k), v = var(k), n = ir::scalarName(k);
    line(t + " sx_" + n + " = " + d.simdShuffleXor(v, k, "m") + ";");
    line(t + " su_" + n + " = " + d.simdShuffleUp(v, k, "m") + ";");
    line(t + " sd_" + n + " = " + d.simdShuffleDown(v, k, "m") + ";");
    line(t + " sb_" + n + " = " + d.simdBroadcast(v, k, "(" + d.builtinName(codegen::Builtin::LaneIndex) + " ^ 1u)") +
         ";");
    for (SimdOp op : {SimdOp::Sum, SimdOp::Product, SimdOp::Max, SimdOp::Min, SimdOp::And, SimdOp::Or, SimdOp::Xor}) {
      if (d.hasSimdReduce(op, k)) line(v + " = " + d.simdReduce(op, v, k) + ";");
      if (d.hasSimdPrefix(op, k)) {
        line(v + " = " + d.simdPrefix(op, v, true) + ";");
        line(v + " = " + d.simdPrefix(op, v, false) + ";");
      }
    }
  }
  // Threadgroup memory and the barrier.
  body = "  " + d.threadgroupArray("float", "tg", 128) + "\n" + body;
  line("tg[" + d.builtinName(codegen::Builtin::ThreadIndex) + "] = v_f32;");
  line(d.barrier());
  for (int count : {2, 4}) {
    line(d.loopUnrollHint(count));
    line("for (int u = 0; u < v_i32; ++u) v_f32 += 1.0f;");
  }
  // Vector accesses of every kind and width the lowering uses (up to 16 bytes).
  for (ScalarKind k : kAllKinds) {
    if (k == ScalarKind::I1) continue;
    for (int width : {2, 4}) {
      if (ir::scalarBits(k) / 8 * width > 16) continue;
      std::string vt = d.vectorType(k, width), n = std::string(ir::scalarName(k)) + std::to_string(width);
      std::string p = "reinterpret_cast<" + d.scalarType(k) + "*>(raw)";
      line(vt + " ld_" + n + " = " + d.vectorLoad(p, vt, AddressSpace::Device) + ";");
      std::vector<std::string> parts;
      for (int c = 0; c < width; ++c) parts.push_back(d.vectorElement("ld_" + n, c));
      line(d.vectorStore(p, vt, AddressSpace::Device, parts));
    }
  }
  // Vector loads under a condition, outside a loop and in one.
  for (bool inLoop : {false, true})
    line("{ int4 vec = int4{0, 0, 0, 0}; " +
         d.maskedVectorLoad("vec", "reinterpret_cast<int*>(raw) + 4", "int4", "v_i32 > 0", inLoop) +
         " v_i32 += vec.w; }");
  // Element loads under a condition, of every kind the lowering loads that way.
  for (ScalarKind k : kAllKinds) {
    if (k == ScalarKind::I1) continue;
    std::string t = d.scalarType(k);
    line(t + " ml_" + ir::scalarName(k) + " = " +
         d.maskedLoad("reinterpret_cast<" + t + "*>(raw) + 3", "v_i32 > 0", var(k)) + ";");
  }
  // 16-byte accesses of 8- and 16-bit types travel as int4 whose components
  // the lowering packs as `char4(a, b, c, d)`, `half2(a, b)`, ... and reads
  // back through a bitcast.
  for (ScalarKind k : {ScalarKind::I8, ScalarKind::I16, ScalarKind::F16, ScalarKind::BF16}) {
    int per = 4 / (ir::scalarBits(k) / 8);
    std::string pack = d.vectorType(k, per) + "(";
    for (int c = 0; c < per; ++c) pack += (c ? ", " : "") + var(k);
    std::string n = ir::scalarName(k);
    line("int pk_" + n + " = " + d.bitcast(pack + ")", "int") + ";");
    line(var(k) + " = " + d.vectorElement(d.bitcast("pk_" + n, d.vectorType(k, per)), per - 1) + ";");
  }
  // Atomics the dialect has, and compare-and-swap.
  for (AtomicOp op : {AtomicOp::Add, AtomicOp::FAdd, AtomicOp::And, AtomicOp::Or, AtomicOp::Xor, AtomicOp::Max,
                      AtomicOp::Min, AtomicOp::UMax, AtomicOp::UMin, AtomicOp::Exch})
    for (ScalarKind k : {ScalarKind::I32, ScalarKind::F32}) {
      if (!d.hasAtomic(op, k)) continue;
      std::string p = k == ScalarKind::I32 ? "ip" : "fp";
      line(std::string(k == ScalarKind::I32 ? "v_i32" : "v_f32") + " = " + d.atomicRmw(op, p, var(k), k) + ";");
    }
  line("v_i32 = " + d.atomicCas("ip", "v_i32", "1", ScalarKind::I32) + ";");
  line("v_f32 = " + d.atomicCas("fp", "v_f32", "1.0f", ScalarKind::F32) + ";");
  line("int pid = " + d.programIdExpr(0) + " + " + d.programIdExpr(1) + " + " + d.programIdExpr(2) + " + " +
       d.numProgramsExpr(0) + " + " + d.numProgramsExpr(2) + ";");
  line("*ip = pid + int(" + d.builtinName(codegen::Builtin::SimdGroupIndex) + ");");
  line("acc_f32 = " + d.floatDivide("acc_f32", "3.0f", ScalarKind::F32) + ";");
  for (ScalarKind k : {ScalarKind::I32, ScalarKind::I64})
    for (uint64_t mask : {uint64_t{1}, uint64_t{7}, uint64_t{0xffffffffffff}})
      line("v_i32 += " + d.lowBits(var(k), mask, k) + " == 0;");
  line("*fp = acc_f32 + float(acc_f64) + tg[0];");

  ir::Type f32Ptr = ir::Type::pointer(ir::Type::f32());
  ir::Type i32Ptr = ir::Type::pointer(ir::Type::i32());
  ir::Type i8Ptr = ir::Type::pointer(ir::Type::i8());
  std::string signature = d.kernelSignature("every_hook", {{"fp", f32Ptr, 0}, {"ip", i32Ptr, 1}, {"raw", i8Ptr, 2}}, {});
  return d.filePrologue() + "\n" + d.atomicHelpers() + "\n" + signature + " {\n  float acc_f32 = 0.0f;\n" +
         "  double acc_f64 = 0.0;\n" + body + "}\n";
}

TEST(CudaDialect, EveryHookOnEveryKindCompilesWithNvrtc) {
  TMETAL_REQUIRE_NVRTC();
  CudaDialect dialect(128);
  std::string source = exerciseEveryHook(dialect);
  try {
    runtime::cuda::compileWithNvrtc(source, "every_hook.cu", {"sm_90", {}});
  } catch (const CompileError& e) {
    FAIL() << e.what() << "\n---- source ----\n" << source;
  }
}

TEST(CudaDialect, KernelSignatureTakesPointersAndScalarsByValue) {
  CudaDialect d(256);
  std::string s = d.kernelSignature("k",
                                    {{"x_ptr", ir::Type::pointer(ir::Type::f16()), 0},
                                     {"flags", ir::Type::pointer(ir::Type::i1()), 1},
                                     {"n", ir::Type::i32(), 2},
                                     {"alpha", ir::Type::bf16(), 3}},
                                    {codegen::Builtin::ProgramId, codegen::Builtin::ThreadIndex});
  std::string head = "extern \"C\" __global__ void __launch_bounds__(256) k(";
  std::string pad(head.size(), ' ');
  EXPECT_EQ(s, head + "__half* x_ptr,\n" + pad + "schar* flags,\n" + pad + "int n,\n" + pad + "__nv_bfloat16 alpha)");
}

TEST(CudaDialect, ThreadgroupsPerCoreBecomeMinimumBlocks) {
  EXPECT_EQ(CudaDialect(512, 2).kernelSignature("k", {}, {}), "extern \"C\" __global__ void __launch_bounds__(512, 2) k()");
  EXPECT_EQ(CudaDialect(512, 0).kernelSignature("k", {}, {}), "extern \"C\" __global__ void __launch_bounds__(512) k()");
}

TEST(CudaDialect, RegistersPerThreadBecomeMinimumBlocksOnlyBeyondFullOccupancy) {
  // 64K registers per multiprocessor, 2048 threads: 32 a thread at full
  // occupancy needs no minimum.
  EXPECT_EQ(CudaDialect::threadgroupsForRegisters(32, 128), 0);
  EXPECT_EQ(CudaDialect::threadgroupsForRegisters(16, 1024), 0);
  EXPECT_EQ(CudaDialect::threadgroupsForRegisters(0, 128), 0);
  // Beyond: as many blocks as the registers allow, rounded up to steps of 8.
  EXPECT_EQ(CudaDialect::threadgroupsForRegisters(33, 128), 12);  // 40 a thread
  EXPECT_EQ(CudaDialect::threadgroupsForRegisters(64, 128), 8);
  EXPECT_EQ(CudaDialect::threadgroupsForRegisters(72, 128), 7);
  EXPECT_EQ(CudaDialect::threadgroupsForRegisters(104, 128), 4);
  EXPECT_EQ(CudaDialect::threadgroupsForRegisters(64, 256), 4);
  // 32-thread blocks: at most 32 of them, so 64 registers a thread fit.
  EXPECT_EQ(CudaDialect::threadgroupsForRegisters(64, 32), 0);
  EXPECT_EQ(CudaDialect::threadgroupsForRegisters(100, 32), 19);  // 104 a thread
  // More than one block can have: still one block.
  EXPECT_EQ(CudaDialect::threadgroupsForRegisters(400, 1024), 1);
}

TEST(CudaDialect, MetalDeclaresTheThreadgroupSizeAsCudaDoes) {
  // __launch_bounds__(512)'s counterpart; Metal has no minimum per core.
  EXPECT_EQ(codegen::MslDialect(512).kernelSignature("k", {}, {}), "[[max_total_threads_per_threadgroup(512)]]\nkernel void k()");
  EXPECT_EQ(codegen::MslDialect().kernelSignature("k", {}, {}), "kernel void k()");
}

TEST(CudaDialect, TargetSpellings) {
  CudaDialect d(128);
  EXPECT_EQ(d.targetName(), "cuda");
  EXPECT_EQ(d.barrier(), "__syncthreads();");
  EXPECT_EQ(d.threadgroupArray("float", "buf", 64), "__shared__ __align__(16) float buf[64];");
  EXPECT_EQ(d.simdShuffleXor("x", ScalarKind::F32, "m"), "__shfl_xor_sync(0xffffffffu, x, m)");
  EXPECT_EQ(d.simdShuffleXor("b", ScalarKind::I1, "m"), "(__shfl_xor_sync(0xffffffffu, int(b), m) != 0)");
  EXPECT_EQ(d.simdReduce(SimdOp::Sum, "x", ScalarKind::F32), "tmetal_simd_sum(x)");
  EXPECT_EQ(d.simdReduce(SimdOp::Or, "b", ScalarKind::I1), "(__any_sync(0xffffffffu, b) != 0)");
  EXPECT_EQ(d.simdReduce(SimdOp::And, "b", ScalarKind::I1), "(__all_sync(0xffffffffu, b) != 0)");
  EXPECT_EQ(d.vectorType(ScalarKind::F32, 4), "float4");
  EXPECT_EQ(d.vectorLoad("p", "float4", AddressSpace::Device), "*reinterpret_cast<const float4*>(p)");
  EXPECT_EQ(d.mathCall(MathFn::Exp, {"x"}, ScalarKind::F32, false), "expf(x)");
  EXPECT_EQ(d.mathCall(MathFn::Exp, {"x"}, ScalarKind::F32, true), "__expf(x)");
  EXPECT_EQ(d.mathCall(MathFn::Erf, {"x"}, ScalarKind::F32, false), "erff(x)");
  // Float division at Metal's precision (div.full.f32), not IEEE's; the
  // correctly rounded tt.precise_divf keeps __fdiv_rn.
  EXPECT_EQ(d.floatDivide("a", "b", ScalarKind::F32), "tmetal_fdiv(a, b)");
  EXPECT_EQ(d.floatDivide("a", "b", ScalarKind::F16), "a / b");
  EXPECT_NE(d.filePrologue().find("div.full.f32"), std::string::npos);
  EXPECT_EQ(d.mathCall(MathFn::Div, {"a", "b"}, ScalarKind::F32, false), "__fdiv_rn(a, b)");
  EXPECT_EQ(codegen::MslDialect().floatDivide("a", "b", ScalarKind::F32), "a / b");
  EXPECT_EQ(d.atomicRmw(AtomicOp::Max, "p", "v", ScalarKind::I32), "atomicMax(p, v)");
  EXPECT_EQ(d.atomicRmw(AtomicOp::UMax, "p", "v", ScalarKind::I32), "int(atomicMax(reinterpret_cast<uint*>(p), uint(v)))");
  EXPECT_EQ(d.programIdExpr(1), "int(blockIdx.y)");
  EXPECT_EQ(d.numProgramsExpr(2), "int(gridDim.z)");
  EXPECT_EQ(d.scalarType(ScalarKind::F16), "__half");
  EXPECT_EQ(d.scalarType(ScalarKind::BF16), "__nv_bfloat16");
}

// The same 8x8 tile loads and products in wider CUDA instructions where
// they come in groups; Metal spells them one by one.
TEST(CudaDialect, TileLoadsAndProductsInGroups) {
  CudaDialect d(128);
  codegen::MslDialect msl;
  using codegen::MatrixRole;
  EXPECT_EQ(d.matrixLoadGroup(), 4);
  EXPECT_EQ(msl.matrixLoadGroup(), 1);
  EXPECT_EQ(d.matrixLoadGroup({"t[0]", "t[1]", "t[2]", "t[3]"}, "p", 320, 640, 40, false, MatrixRole::A),
            "tmetal_matrix_load4(t[0], t[1], t[2], t[3], p, 320, 640, 40, false);");
  // A B tile's lanes hold its transpose's A order (matrixLoad).
  EXPECT_EQ(d.matrixLoadGroup({"t[0]", "t[1]", "t[2]", "t[3]"}, "p", 576, 16, 72, false, MatrixRole::B),
            "tmetal_matrix_load4(t[0], t[1], t[2], t[3], p, 576, 16, 72, true);");
  // Tile j at p + (j & 1) * step1 + (j >> 1) * step2: two K tiles of two columns.
  EXPECT_EQ(msl.matrixLoadGroup({"t[0]", "t[1]", "t[2]", "t[3]"}, "p", 576, 16, 72, false, MatrixRole::B),
            "simdgroup_load(t[0], p, 72); simdgroup_load(t[1], p + 576, 72); simdgroup_load(t[2], p + 16, 72); "
            "simdgroup_load(t[3], p + 592, 72);");
  EXPECT_TRUE(d.pairsMatrixMultipliesAlongK());
  EXPECT_FALSE(msl.pairsMatrixMultipliesAlongK());
  EXPECT_EQ(d.matrixMultiplyAccumulatePairAlongK("c0", "c1", "a0", "a1", "a0k", "a1k", "b", "bk"),
            "tmetal_matrix_mac2_k16(c0, c1, a0, a1, a0k, a1k, b, bk);");
  EXPECT_EQ(d.matrixMultiplyAccumulateAlongK("c", "a", "ak", "b", "bk"), "tmetal_matrix_mac_k16(c, a, ak, b, bk);");
  EXPECT_EQ(msl.matrixMultiplyAccumulateAlongK("c", "a", "ak", "b", "bk"),
            "simdgroup_multiply_accumulate(c, a, b, c); simdgroup_multiply_accumulate(c, ak, bk, c);");
  EXPECT_NE(d.matrixHelpers().find("mma.sync.aligned.m16n8k16.row.col.f32.\" type \".\" type \".f32"),
            std::string::npos);
  // Two pairs on a target without the deeper instruction: K order kept.
  EXPECT_EQ(msl.matrixMultiplyAccumulatePairAlongK("c0", "c1", "a0", "a1", "a0k", "a1k", "b", "bk"),
            "simdgroup_multiply_accumulate(c0, a0, b, c0); simdgroup_multiply_accumulate(c1, a1, b, c1); "
            "simdgroup_multiply_accumulate(c0, a0k, bk, c0); simdgroup_multiply_accumulate(c1, a1k, bk, c1);");
}

TEST(CudaDialect, MaskedElementLoadsArePredicatedLoadsNotBranches) {
  // `c ? *p : other` becomes a branch around each load in NVIDIA's compiler,
  // which then interleaves the loads with their consumers; the helper is a
  // predicated PTX load. Metal keeps the conditional expression.
  CudaDialect cuda(128);
  codegen::MslDialect metal;
  EXPECT_EQ(cuda.maskedLoad("&x[i]", "m[r]", "0.0f"), "tmetal_load_if(&x[i], m[r], 0.0f)");
  EXPECT_EQ(metal.maskedLoad("&x[i]", "m[r]", "0.0f"), "m[r] ? x[i] : 0.0f");
  EXPECT_NE(cuda.filePrologue().find("@q ld.global.b32 %0, [%1];"), std::string::npos);

  auto module = cudatest::parseCase("col_reduce_loop");
  codegen::CompileOptions options;
  options.target = "cuda";
  std::string source = codegen::compileKernel(*module, options).source;
  EXPECT_NE(source.find("= tmetal_load_if(&x_ptr["), std::string::npos) << source;
  EXPECT_EQ(source.find("? x_ptr["), std::string::npos) << source;
}

TEST(CudaDialect, RemaindersTestedAgainstZeroAreLowBits) {
  // Collatz's `x % 2 == 0` on an i64: NVVM would widen a plain 32-bit test
  // back to 64 bits; the helper keeps it 32 bits wide. Masks past 32 bits,
  // and narrower types, are C's `&`; Metal's always are.
  CudaDialect cuda(128);
  codegen::MslDialect metal;
  EXPECT_EQ(cuda.lowBits("x", 1, ScalarKind::I64), "tmetal_low_bits<1u>(x)");
  EXPECT_EQ(cuda.lowBits("x", 0xffffffffffff, ScalarKind::I64), "(x & 281474976710655L)");
  EXPECT_EQ(cuda.lowBits("y", 7, ScalarKind::I32), "(y & 7)");
  EXPECT_EQ(metal.lowBits("x", 1, ScalarKind::I64), "(x & 1L)");

  auto module = cudatest::parseCase("while_collatz");
  codegen::CompileOptions options;
  options.target = "cuda";
  const std::string source = codegen::compileKernel(*module, options).source;
  EXPECT_NE(source.find("long t1 = tmetal_low_bits<1u>(peak);"), std::string::npos) << source;
  EXPECT_EQ(source.find(" % 2L"), std::string::npos) << source;
}

TEST(CudaDialect, ProductsOfExtended32BitIntegersAreOneWideMultiply) {
  // int_sum_i64 squares int32 values extended to int64. NVVM moves a plain
  // extension into the masked load's branches and multiplies in 64 bits;
  // mul.wide takes the 32-bit values. Metal multiplies the extended values
  // read from the 32-bit ones.
  CudaDialect cuda(128);
  codegen::MslDialect metal;
  EXPECT_EQ(cuda.wideMultiply("a", "b", true), "tmetal_mul_wide(a, b)");
  EXPECT_EQ(cuda.wideMultiply("a", "b", false), "tmetal_mul_wide_unsigned(a, b)");
  EXPECT_EQ(metal.wideMultiply("a", "b", true), "long(a) * long(b)");
  EXPECT_EQ(metal.wideMultiply("a", "b", false), "long(uint(a)) * long(uint(b))");

  auto module = cudatest::parseCase("int_sum_i64");
  codegen::CompileOptions options;
  options.target = "cuda";
  const std::string source = codegen::compileKernel(*module, options).source;
  EXPECT_NE(source.find("t[r] = tmetal_mul_wide(x_4[r], x_4[r]);"), std::string::npos) << source;
  EXPECT_NE(source.find("asm(\"mul.wide.s32 %0, %1, %2;\""), std::string::npos) << source;
  options.target = "metal";
  const std::string msl = codegen::compileKernel(*module, options).source;
  EXPECT_NE(msl.find("t[r] = long(x_4[r]) * long(x_4[r]);"), std::string::npos) << msl;
}

TEST(CudaDialect, MaskedVectorLoadsOutsideLoopsComputeTheirAddressFirst) {
  // NVIDIA's compiler would compute the address, kernel parameter included,
  // under the mask's predicate; the helper computes it before the test.
  CudaDialect cuda(128);
  codegen::MslDialect metal;
  EXPECT_EQ(cuda.maskedVectorLoad("vec", "&x[i]", "int4", "m[0]", false),
            "{ const int4* vec_at = tmetal_address_first<int4>(&x[i]); if (m[0]) vec = *vec_at; }");
  EXPECT_EQ(cuda.maskedVectorLoad("vec", "&x[i]", "int4", "m[0]", true),
            "if (m[0]) vec = *reinterpret_cast<const int4*>(&x[i]);");
  EXPECT_EQ(metal.maskedVectorLoad("vec", "&x[i]", "int4", "m[0]", false),
            "if (m[0]) vec = *reinterpret_cast<device int4*>(&x[i]);");

  codegen::CompileOptions options;
  options.target = "cuda";
  const std::string add = codegen::compileKernel(*cudatest::parseCase("vector_add_f16"), options).source;
  EXPECT_NE(add.find("{ const int4* vec_at = tmetal_address_first<int4>(&x_ptr[offsets_2[0]]); if (mask_3[0]) vec = "
                     "*vec_at; }"),
            std::string::npos)
      << add;
  const std::string rows = codegen::compileKernel(*cudatest::parseCase("row_sum_loop_f16"), options).source;
  EXPECT_EQ(rows.find("vec_at = tmetal_address_first<"), std::string::npos) << rows;
}

TEST(CudaDialect, SeveralMaskedElementStoresOutsideLoopsArePredicatedStores) {
  // A branch around each of a thread's masked stores split SwiGLU's kernel
  // into blocks, and NVIDIA's scheduler then ran its exp-and-reciprocal
  // chains one after another; predicated stores keep it one block. A single
  // store, stores in a loop and vector stores keep the branch (predicated,
  // the column reduction's one store left its loop 9% slower, and the large
  // streaming kernels' vectors cost 1%). Metal keeps the `if`.
  CudaDialect cuda(128);
  codegen::MslDialect metal;
  EXPECT_EQ(cuda.maskedStore("&out[i]", "x", "m[0]", true), "tmetal_store_if(&out[i], m[0], x);");
  EXPECT_EQ(cuda.maskedStore("&out[i]", "x", "m[0]", false), "if (m[0]) out[i] = x;");
  EXPECT_EQ(metal.maskedStore("&out[i]", "x", "m[0]", true), "if (m[0]) out[i] = x;");

  codegen::CompileOptions options;
  options.target = "cuda";
  const std::string silu = codegen::compileKernel(*cudatest::parseCase("silu_mul_f16"), options).source;
  EXPECT_NE(silu.find("for (int r = 0; r < 8; ++r) tmetal_store_if(&out_ptr[offsets_3[r]], mask_4[r], t0[r]);"),
            std::string::npos)
      << silu;
  EXPECT_EQ(silu.find("if (mask_4[r]) out_ptr"), std::string::npos) << silu;
  const std::string columns = codegen::compileKernel(*cudatest::parseCase("col_reduce_loop"), options).source;
  EXPECT_EQ(columns.find("tmetal_store_if(ptrs"), std::string::npos) << columns;
  EXPECT_NE(columns.find("if (L0_o0 == 0 && col_mask_4) *ptrs = total_6;"), std::string::npos) << columns;
  const std::string add = codegen::compileKernel(*cudatest::parseCase("vector_add_f16"), options).source;
  EXPECT_NE(add.find("if (mask_3[0]) *reinterpret_cast<int4*>(&out_ptr[offsets_2[0]]) = int4{"), std::string::npos)
      << add;
}

TEST(CudaDialect, AtomicsTakeTritonsOrderFromReleaseAndAcquireFences) {
  // A relaxed atomic between device-scope fences, as C++ builds memory
  // orders: release before, acquire after, each only where `sem` asks for
  // it. CUDA has PTX's one-sided fences; Metal's are sequentially consistent.
  const std::string acqRel = cudatest::readFile(cudatest::ttirDir() + "/atomic_max_rows.ttir");
  ASSERT_NE(acqRel.find("tt.atomic_rmw max, acq_rel, gpu"), std::string::npos);
  auto compile = [&](const std::string& sem, const std::string& target) {
    std::string text = acqRel;
    text.replace(text.find("max, acq_rel, gpu"), std::string("max, acq_rel, gpu").size(), "max, " + sem + ", gpu");
    auto module = frontend::parseTtir(text, "atomic_max_rows.ttir");
    codegen::CompileOptions options;
    options.target = target;
    return codegen::compileKernel(*module, options).source;
  };
  const std::string release = "asm volatile(\"fence.release.gpu;\" ::: \"memory\");";
  const std::string acquire = "asm volatile(\"fence.acquire.gpu;\" ::: \"memory\");";
  const std::string cuda = compile("acq_rel", "cuda");
  const size_t atomic = cuda.find("atomicMax(");
  ASSERT_NE(atomic, std::string::npos) << cuda;
  EXPECT_LT(cuda.find(release), atomic) << cuda;
  EXPECT_GT(cuda.find(acquire), atomic);
  EXPECT_EQ(cuda.find("__threadfence"), std::string::npos);
  const std::string released = compile("release", "cuda");
  EXPECT_NE(released.find(release), std::string::npos);
  EXPECT_EQ(released.find(acquire), std::string::npos);
  const std::string acquired = compile("acquire", "cuda");
  EXPECT_EQ(acquired.find(release), std::string::npos);
  EXPECT_NE(acquired.find(acquire), std::string::npos);
  const std::string relaxed = compile("relaxed", "cuda");
  EXPECT_EQ(relaxed.find("fence."), std::string::npos) << relaxed;
  const std::string metal = compile("acq_rel", "metal");
  size_t fences = 0;
  for (size_t at = metal.find("atomic_thread_fence(mem_flags::mem_device, memory_order_seq_cst);");
       at != std::string::npos; at = metal.find("atomic_thread_fence(mem_flags::mem_device", at + 1))
    ++fences;
  EXPECT_EQ(fences, 2u) << metal;
}

TEST(CudaDialect, LowersLikeMetal) {
  // The targets must make the same lowering decisions (so that what the
  // CUDA target measures is what Metal runs): the same SIMD reductions,
  // prefixes and native atomics.
  CudaDialect cuda(128);
  codegen::MslDialect metal;
  for (ScalarKind k : kAllKinds) {
    for (SimdOp op : {SimdOp::Sum, SimdOp::Product, SimdOp::Max, SimdOp::Min, SimdOp::And, SimdOp::Or, SimdOp::Xor}) {
      EXPECT_EQ(cuda.hasSimdReduce(op, k), metal.hasSimdReduce(op, k)) << ir::scalarName(k);
      EXPECT_EQ(cuda.hasSimdPrefix(op, k), metal.hasSimdPrefix(op, k)) << ir::scalarName(k);
    }
    for (AtomicOp op : {AtomicOp::Add, AtomicOp::FAdd, AtomicOp::And, AtomicOp::Or, AtomicOp::Xor, AtomicOp::Max,
                        AtomicOp::Min, AtomicOp::UMax, AtomicOp::UMin, AtomicOp::Exch})
      EXPECT_EQ(cuda.hasAtomic(op, k), metal.hasAtomic(op, k)) << ir::scalarName(k);
  }
}

TEST(CudaTarget, LoopsOfLoadsAskForTheRegistersOfFourTripsInFlight) {
  // row_sum_loop_f16: an 8x128 float32 accumulator (8 registers a thread)
  // and 8 halves loaded a trip: 8 + 4 * 8 + 24 = 64 registers, 8 blocks.
  auto module = cudatest::parseCase("row_sum_loop_f16");
  const ir::Function& kernel = *module->kernel();
  analysis::AxisInfoAnalysis axis(kernel);
  codegen::LoopRegisterDemand demand = codegen::loopOfLoadsRegisterDemand(
      kernel, layout::LayoutAssignment(kernel, axis, {layout::MemoryLayout::COALESCED, 4}));
  EXPECT_EQ(demand.registers, 64);
  ASSERT_NE(demand.loop, nullptr);
  EXPECT_EQ(demand.loop->kind(), ir::OpKind::ScfFor);
  codegen::CompileOptions options;
  options.target = "cuda";
  codegen::CompiledKernel cuda = codegen::compileKernel(*module, options);
  EXPECT_NE(cuda.source.find("__launch_bounds__(128, 8) " + cuda.metadata.kernelName), std::string::npos)
      << cuda.source;
  EXPECT_NE(cuda.source.find("// __launch_bounds__ minimum 8 blocks: the loop at tests/kernels/reductions.py:400:"),
            std::string::npos);
  // The caller's minimum wins, 0 (none) included, and Metal has no such hint.
  options.minThreadgroupsPerCore = 2;
  cuda = codegen::compileKernel(*module, options);
  EXPECT_NE(cuda.source.find("__launch_bounds__(128, 2) " + cuda.metadata.kernelName), std::string::npos);
  EXPECT_EQ(cuda.source.find("__launch_bounds__ minimum"), std::string::npos);
  options.minThreadgroupsPerCore = 0;
  cuda = codegen::compileKernel(*module, options);
  EXPECT_NE(cuda.source.find("__launch_bounds__(128) " + cuda.metadata.kernelName), std::string::npos);
  EXPECT_EQ(cuda.source.find("__launch_bounds__ minimum"), std::string::npos);
  options.target = "metal";
  options.minThreadgroupsPerCore.reset();
  codegen::CompiledKernel metal = codegen::compileKernel(*module, options);
  EXPECT_EQ(metal.source.find("minimum"), std::string::npos);
  // for_horner's loop loads one coefficient a trip into a one-register
  // accumulator and a scalar sum: 2 + 4 * 1 + 24 = 30 registers, which full
  // occupancy gives, so no minimum.
  auto horner = cudatest::parseCase("for_horner");
  analysis::AxisInfoAnalysis hornerAxis(*horner->kernel());
  layout::LayoutAssignment hornerLayouts(*horner->kernel(), hornerAxis, {layout::MemoryLayout::COALESCED, 4});
  EXPECT_EQ(codegen::loopOfLoadsRegisterDemand(*horner->kernel(), hornerLayouts).registers, 30);
  options.target = "cuda";
  cuda = codegen::compileKernel(*horner, options);
  EXPECT_NE(cuda.source.find("__launch_bounds__(128) " + cuda.metadata.kernelName), std::string::npos);
  // A kernel without loops wants nothing.
  auto add = cudatest::parseCase("vector_add_f32");
  analysis::AxisInfoAnalysis addAxis(*add->kernel());
  layout::LayoutAssignment addLayouts(*add->kernel(), addAxis, {layout::MemoryLayout::COALESCED, 4});
  EXPECT_EQ(codegen::loopOfLoadsRegisterDemand(*add->kernel(), addLayouts).registers, 0);
}

TEST(CudaTarget, LoopsOfDotsOnMatricesThatNeedManyRegistersAskForTwelveWarps) {
  // attention_fwd_f16's loop (32x32 blocks of 4 warps) carries m_i, l_i (a
  // register each a thread) and a 32x32 float accumulator (8), loads K and V
  // (8 halves each: 4 registers), starts S from zero (8) and reads Q from
  // before the loop (8 halves: 4): 10 + 8 + 8 + 4 + 24 = 54 registers.
  auto module = cudatest::parseCase("attention_fwd_f16");
  auto demandOf = [](const ir::Module& m, int warps) {
    const ir::Function& kernel = *m.kernel();
    analysis::AxisInfoAnalysis axis(kernel);
    return codegen::matrixDotLoopRegisterDemand(
        kernel, layout::LayoutAssignment(kernel, axis, {layout::MemoryLayout::COALESCED, warps}));
  };
  const codegen::MatrixLoopDemand demand = demandOf(*module, 4);
  ASSERT_NE(demand.loop, nullptr);
  EXPECT_EQ(demand.loop->kind(), ir::OpKind::ScfFor);
  EXPECT_EQ(demand.carried, 10);
  EXPECT_EQ(demand.registers, 54);
  // 1.3 x 54 is within the 168 registers of 3 blocks of 4 warps: no minimum
  // (one would let ptxas take more registers than it does unasked).
  codegen::CompileOptions options;
  options.target = "cuda";
  codegen::CompiledKernel cuda = codegen::compileKernel(*module, options);
  EXPECT_NE(cuda.source.find("__launch_bounds__(128) " + cuda.metadata.kernelName), std::string::npos);
  // One warp holds four times as many a thread (m_i, l_i 4 each and the
  // accumulator 32 carried, K and V 16 each, S 32, Q 16: 40 + 32 + 32 + 16
  // + 24 = 144; x 1.3 > 168 for 12 blocks of one warp): the minimum is asked.
  EXPECT_EQ(demandOf(*module, 1).registers, 144);
  options.numWarps = 1;
  cuda = codegen::compileKernel(*module, options);
  EXPECT_NE(cuda.source.find("__launch_bounds__(32, 12) " + cuda.metadata.kernelName), std::string::npos)
      << cuda.source.substr(0, 2000);
  EXPECT_NE(cuda.source.find("// __launch_bounds__ minimum 12 blocks (12 warps a multiprocessor): the loop of dots "
                             "on matrices at tests/kernels/linalg.py:128:"),
            std::string::npos);
  // The caller's minimum wins.
  options.minThreadgroupsPerCore = 0;
  cuda = codegen::compileKernel(*module, options);
  EXPECT_NE(cuda.source.find("__launch_bounds__(32) " + cuda.metadata.kernelName), std::string::npos);
  // The same loop over float32 inputs multiplies on FMAs: no such loop.
  std::string f32 = cudatest::readFile(cudatest::ttirDir() + "/matmul_f16_f32acc.nodebug.ttir");
  for (size_t at = f32.find("f16>"); at != std::string::npos; at = f32.find("f16>", at)) f32.replace(at, 4, "f32>");
  EXPECT_EQ(demandOf(*frontend::parseTtir(f32, "matmul_f32.ttir"), 4).loop, nullptr);
  // A loop that also carries a 128x128 float tensor (128 registers a thread
  // over 4 warps) would spill under the minimum: none is asked.
  std::string big = cudatest::readFile(cudatest::ttirDir() + "/matmul_f16_f32acc.nodebug.ttir");
  auto replace = [&](const std::string& from, const std::string& to) {
    ASSERT_NE(big.find(from), std::string::npos) << from;
    big.replace(big.find(from), from.size(), to);
  };
  replace("    %cst = arith.constant dense<0.000000e+00> : tensor<32x16xf32>\n",
          "    %cst = arith.constant dense<0.000000e+00> : tensor<32x16xf32>\n"
          "    %cst_big = arith.constant dense<0.000000e+00> : tensor<128x128xf32>\n");
  replace("%30:3 = scf.for", "%30:4 = scf.for");
  replace("%arg12 = %cst) -> (tensor<32x32x!tt.ptr<f16>>, tensor<32x16x!tt.ptr<f16>>, tensor<32x16xf32>)",
          "%arg12 = %cst, %arg13 = %cst_big) -> (tensor<32x32x!tt.ptr<f16>>, tensor<32x16x!tt.ptr<f16>>, "
          "tensor<32x16xf32>, tensor<128x128xf32>)");
  replace("scf.yield %63, %66, %62 : tensor<32x32x!tt.ptr<f16>>, tensor<32x16x!tt.ptr<f16>>, tensor<32x16xf32>",
          "scf.yield %63, %66, %62, %arg13 : tensor<32x32x!tt.ptr<f16>>, tensor<32x16x!tt.ptr<f16>>, "
          "tensor<32x16xf32>, tensor<128x128xf32>");
  auto bigModule = frontend::parseTtir(big, "matmul_big_carry.ttir");
  ir::verify(*bigModule);
  EXPECT_EQ(demandOf(*bigModule, 4).loop, nullptr);
}

TEST(CudaTarget, CompileKernelSelectsTheDialectAndKeepsTheMetadataSchema) {
  auto module = cudatest::parseCase("vector_add_f32");
  codegen::CompileOptions options;
  options.target = "cuda";
  codegen::CompiledKernel cuda = codegen::compileKernel(*module, options);
  options.target = "metal";
  codegen::CompiledKernel metal = codegen::compileKernel(*module, options);
  EXPECT_EQ(cuda.metadata.target, "cuda");
  EXPECT_NE(cuda.source.find("extern \"C\" __global__ void __launch_bounds__(128) " + cuda.metadata.kernelName),
            std::string::npos)
      << cuda.source;
  EXPECT_EQ(cuda.source.find("[[buffer("), std::string::npos) << "MSL attributes in CUDA source";
  // The same parameters, builtins and layout decisions as for Metal.
  nlohmann::json c = cuda.metadata.toJson(), m = metal.metadata.toJson();
  c.erase("target");
  m.erase("target");
  EXPECT_EQ(c, m);
  EXPECT_NE(std::find(codegen::knownTargets().begin(), codegen::knownTargets().end(), "cuda"),
            codegen::knownTargets().end());
}

TEST(CudaTarget, HeldToMetalLimitsEvenWithAnNvidiaProfile) {
  auto module = cudatest::parseCase("vector_add_f32");
  codegen::CompileOptions options;
  options.target = "cuda";
  options.hardware = hw::findHardwareProfile("h100");
  ASSERT_TRUE(options.hardware);
  codegen::CompiledKernel k = codegen::compileKernel(*module, options);
  EXPECT_EQ(k.metadata.layouts["hardware"], hw::kGenericAppleProfileId);
  EXPECT_EQ(k.metadata.layouts["measured_on"], "h100");
  // Metal still refuses an NVIDIA profile, and both refuse unknown targets.
  options.target = "metal";
  EXPECT_THROW(codegen::compileKernel(*module, options), CompileError);
  options.target = "opencl";
  try {
    codegen::compileKernel(*module, options);
    FAIL() << "an unknown target compiled";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("known: metal, cuda"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tmetal
