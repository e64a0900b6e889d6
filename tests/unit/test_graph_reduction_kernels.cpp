// Graph reductions compiled by the planner into kernels: the index walks the
// kernels use, the kernels' TTIR (it reads back, it is shape-generic), that
// stage 0 writes exactly the partials locate() assigns, and that every
// reduction op on a spread of shapes, dtypes and layouts gives the host
// reference's result on the interpreter and on the emulator (exact for
// integers, max/min, argmax/argmin, any/all; tolerance for float sums,
// means and products, see reduction_reference.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <numeric>
#include <random>
#include <regex>
#include <sstream>
#include <tuple>

#include "tmetal/codegen/compile_kernel.h"
#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/graph/host_elements.h"
#include "tmetal/graph/index_walk.h"
#include "tmetal/graph/op_analysis.h"
#include "tmetal/graph/reduction_inputs.h"
#include "tmetal/graph/reduction_kernels.h"
#include "tmetal/graph/reduction_planner.h"
#include "tmetal/graph/reduction_reference.h"
#include "tmetal/graph/tensor_checks.h"
#include "tmetal/ir/printer.h"
#include "tmetal/ir/verifier.h"
#include "tmetal/support/diagnostic.h"
#include "tools/graph_reduction_run.h"

using namespace tmetal;
using namespace tmetal::graph;
using ir::ScalarKind;

namespace {

// Compiled kernels go to the build tree's cache unless the caller chose one,
// so a second run of the tests compiles nothing.
[[maybe_unused]] const bool kCacheInBuildTree = [] {
  setenv("TMETAL_CACHE_DIR", (std::string(TMETAL_BINARY_DIR) + "/emulator-test-cache").c_str(), 0);
  return true;
}();

const hw::HardwareProfile& genericProfile() {
  static const hw::HardwareProfile p = *hw::findHardwareProfile("apple-generic");
  return p;
}

ReductionPlan plan(std::vector<int64_t> shape, std::vector<int> axes, Combiner c = Combiner::Sum,
                   ScalarKind dtype = ScalarKind::F32, std::vector<int64_t> strides = {}) {
  return planReduction({std::move(shape), std::move(strides), std::move(axes), dtype, c, PlanTuning{}},
                       genericProfile());
}

std::string ttirOf(const StageKernel& k) { return ir::printModule(*k.module, ir::PrintOptions{false}); }
int countOf(const std::string& text, const std::string& word) {
  int n = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + word.size())) ++n;
  return n;
}
// Whether the kernel's body (past the tt.func line) names `argument`.
bool bodyUses(const std::string& ttir, const std::string& argument) {
  const size_t body = ttir.find('\n', ttir.find("tt.func"));
  return body != std::string::npos && ttir.find(argument, body) != std::string::npos;
}

const StageScalar& scalar(const StageKernel& k, const std::string& name) {
  for (const StageScalar& s : k.scalars)
    if (s.name == name) return s;
  throw std::runtime_error("no scalar " + name);
}

std::string kernelError(const ReductionPlan& p) {
  try {
    buildReductionKernels(p);
  } catch (const CompileError& e) {
    return e.message();
  }
  return "no error";
}

tools::DeviceOptions deviceOptions() {
  tools::DeviceOptions o;
  o.codegen.hardware = genericProfile().id;
  return o;
}

}  // namespace

// ---------------------------------------------------------------- index walks

TEST(GraphIndexWalk, DropsUnitDimensionsAndMergesContiguousOnes) {
  // [4, 1, 6, 8] row-major: one dimension of 192 with stride 1.
  IndexWalk w = simplifyWalk({4, 1, 6, 8}, {48, 48, 8, 1});
  EXPECT_EQ(w.sizes, (std::vector<int64_t>{192}));
  EXPECT_EQ(w.strides, (std::vector<int64_t>{1}));
  // A padded row (stride 10 for 8 columns) does not merge.
  w = simplifyWalk({3, 8}, {10, 1});
  EXPECT_EQ(w.sizes, (std::vector<int64_t>{3, 8}));
  EXPECT_EQ(w.apply(0), 0);
  EXPECT_EQ(w.apply(9), 11);   // (1, 1)
  EXPECT_EQ(w.apply(23), 27);  // (2, 7)
  EXPECT_EQ(simplifyWalk({1, 1}, {5, 7}).dims(), 0);
}

TEST(GraphIndexWalk, IncreasingWhenEachStrideClearsTheDimensionsInsideIt) {
  EXPECT_TRUE(IndexWalk{}.increasing());
  EXPECT_TRUE(simplifyWalk({3, 8}, {8, 1}).increasing());   // row-major
  EXPECT_TRUE(simplifyWalk({3, 8}, {10, 1}).increasing());  // padded
  EXPECT_FALSE(simplifyWalk({3, 8}, {7, 1}).increasing());  // index 7 (0, 7) = 7 = index 8 (1, 0)
  EXPECT_FALSE(simplifyWalk({3, 8}, {1, 3}).increasing());  // permuted
  EXPECT_FALSE(simplifyWalk({4}, {0}).increasing());        // broadcast
}

TEST(GraphIndexWalk, VectorUnitsFollowThePlansContract) {
  IndexWalk run = vectorizeRun(simplifyWalk({3, 8}, {16, 1}), 4);
  EXPECT_EQ(run.sizes, (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(run.strides, (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(run.apply(3) * 4, 20);  // vector 3 = row 1, elements 4..7 of it
  IndexWalk outer = stridesInVectors(simplifyWalk({5}, {12}), 4);
  EXPECT_EQ(outer.strides, (std::vector<int64_t>{3}));
  auto message = [](auto f) {
    try {
      f();
    } catch (const std::logic_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([] { vectorizeRun(simplifyWalk({6}, {2}), 2); }),
            "index walk: vectors of 2 elements need a unit-stride innermost dimension");
  EXPECT_EQ(message([] { vectorizeRun(simplifyWalk({6}, {1}), 4); }),
            "index walk: vectors of 4 elements need an innermost size they divide");
  EXPECT_EQ(message([] { stridesInVectors(simplifyWalk({6}, {6}), 4); }),
            "index walk: vectors of 4 elements need strides they divide");
}

// ---------------------------------------------------------------- kernels

TEST(GraphReductionKernels, LargeSumStagesTakeThePlansGeometry) {
  ReductionPlan p = plan({1048576}, {0});
  ReductionKernels k = buildReductionKernels(p);
  ASSERT_EQ(k.stages.size(), 2u);
  const StageKernel& first = k.stages[0];
  EXPECT_EQ(first.name, "sum_f32_rows_partials");
  EXPECT_EQ(first.buffers, (std::vector<StageBuffer>{StageBuffer::Input, StageBuffer::PartialValues}));
  EXPECT_EQ(first.threadgroups, 48);
  EXPECT_EQ(first.numWarps, 16);
  EXPECT_EQ(scalar(first, "sweep_vectors").intValue, 1024);  // 512 lanes x 2 loads per trip
  EXPECT_EQ(scalar(first, "row_vectors").intValue, 262144);
  EXPECT_EQ(scalar(first, "splits").intValue, 48);
  EXPECT_EQ(scalar(first, "iterations").intValue, 6);  // more than rows write out: a loop
  EXPECT_EQ(scalar(first, "red_stride_0").intValue, 1);
  const std::string ttir = ttirOf(first);
  // 1 output x (512 lanes x 2 loads) vectors x 4 lanes, each vector reduced before the accumulators
  EXPECT_NE(ttir.find("tensor<1x1024x4xf32>"), std::string::npos);
  EXPECT_NE(ttir.find("-> (tensor<1x1024xf32>)  : i32"), std::string::npos);  // the loop carries one per vector
  EXPECT_EQ(countOf(ttir, "tt.load"), 1);
  EXPECT_NE(ttir.find("{tt.divisibility = 16 : i32}"), std::string::npos);
  EXPECT_NE(ttir.find("\"tt.reduce\""), std::string::npos);
  const StageKernel& second = k.stages[1];
  EXPECT_EQ(second.name, "sum_f32_rows_combine");
  EXPECT_EQ(second.buffers, (std::vector<StageBuffer>{StageBuffer::PartialValues, StageBuffer::Output}));
  EXPECT_EQ(second.threadgroups, 1);
  EXPECT_EQ(second.numWarps, 1);
  EXPECT_EQ(scalar(second, "row_vectors").intValue, 12);  // 48 partials as 12 float4
  EXPECT_EQ(k.partialElements, 48);
  EXPECT_EQ(k.outputKind, ScalarKind::F32);
}

TEST(GraphReductionKernels, ShortRowsWriteTheirTripsOut) {
  // Argmax of rows of 32 float32: 4 lanes per row reading 2 vectors each
  // (one per trip, 2 outputs per thread), both trips written out: two loads,
  // no loop and no trip count argument.
  ReductionPlan p = plan({65536, 32}, {1}, Combiner::ArgMax);
  ASSERT_EQ(p.stages.size(), 1u);
  EXPECT_EQ(p.stages[0].lanesPerOutput, 4);
  EXPECT_EQ(p.stages[0].iterations, 2);
  EXPECT_TRUE(p.stages[0].tripsWrittenOut);
  const ReductionKernels kernels = buildReductionKernels(p);
  const StageKernel& k = kernels.stages[0];
  const std::string ttir = ttirOf(k);
  EXPECT_EQ(countOf(ttir, "tt.load"), 2);
  EXPECT_EQ(ttir.find("scf.for"), std::string::npos);
  EXPECT_EQ(ttir.find("iterations"), std::string::npos);
  for (const StageScalar& s : k.scalars) EXPECT_NE(s.name, "iterations");
  // Sums keep a 128-byte line per row: 8 lanes, one trip.
  EXPECT_EQ(plan({65536, 32}, {1}).stages[0].lanesPerOutput, 8);
}

TEST(GraphReductionKernels, ArgReductionsReadClampedNotMasked) {
  // Argmax and argmin read the last real element again past the end of a
  // row or column (and for outputs past the last) instead of masking: no
  // load of theirs has a mask, each clamps its index with arith.minsi. Sums
  // must mask (an element read twice would count twice), and max keeps its
  // masks (measured faster).
  const std::regex masked(R"(tt\.load %\w+, )");
  auto maskedLoads = [&](const std::string& ttir) {
    return std::distance(std::sregex_iterator(ttir.begin(), ttir.end(), masked), std::sregex_iterator());
  };
  for (const auto& [shape, axes] : std::vector<std::pair<std::vector<int64_t>, std::vector<int>>>{
           {{37, 129}, {1}}, {{37, 129}, {0}}, {{1048576}, {0}}, {{100, 8, 40}, {1}}}) {
    for (Combiner c : {Combiner::ArgMax, Combiner::ArgMin, Combiner::Max, Combiner::Sum}) {
      const ReductionKernels k = buildReductionKernels(plan(shape, axes, c));
      for (const StageKernel& stage : k.stages) {
        SCOPED_TRACE(stage.name);
        const std::string ttir = ttirOf(stage);
        ASSERT_GT(countOf(ttir, "tt.load"), 0);
        if (combinerCarriesIndex(c)) {
          EXPECT_EQ(maskedLoads(ttir), 0);
          EXPECT_GT(countOf(ttir, "arith.minsi"), 0);
        } else {
          EXPECT_EQ(maskedLoads(ttir), countOf(ttir, "tt.load"));
        }
      }
    }
  }
}

TEST(GraphReductionKernels, ArgReductionsInIndexOrderTakeTheValueFromMaxOrMin) {
  // A column stage of float argmax meets its elements in index order: each
  // combine's comparison picks the index and maxnumf (minnumf for argmin)
  // gives the value, so the only select of value tensors is the one that
  // turns a still-empty accumulator back into the identity. Integer argmax
  // keeps Triton's combiner.
  auto firstStage = [](Combiner c, ScalarKind dtype) {
    return ttirOf(buildReductionKernels(plan({37, 129}, {0}, c, dtype)).stages[0]);
  };
  auto valueSelects = [](const std::string& ttir, const std::string& valueType) {
    std::istringstream lines(ttir);
    int n = 0;
    for (std::string line; std::getline(lines, line);)
      if (line.find("arith.select") != std::string::npos && line.find("x" + valueType + ">") != std::string::npos) ++n;
    return n;
  };
  const std::string argmax = firstStage(Combiner::ArgMax, ScalarKind::F32);
  const std::string argmin = firstStage(Combiner::ArgMin, ScalarKind::F16);
  EXPECT_GT(countOf(argmax, "arith.maxnumf"), 0);
  EXPECT_EQ(valueSelects(argmax, "f32"), 1);
  EXPECT_GT(countOf(argmin, "arith.minnumf"), 0);
  EXPECT_EQ(valueSelects(argmin, "f16"), 1);
  const std::string integers = firstStage(Combiner::ArgMax, ScalarKind::I32);
  EXPECT_GT(countOf(integers, "arith.cmpi sgt"), 0);  // Triton's combiner: the greater value wins
  EXPECT_EQ(countOf(integers, "arith.maxsi"), 0);
}

TEST(GraphReductionKernels, CompiledThreadgroupsAreThePlans) {
  // Lanes, threads along the rows and loads per trip are powers of two, so
  // the compiled kernel runs exactly the plan's threadgroup: the tile holds
  // loadsPerTrip() vectors per thread.
  for (const ReductionPlan& p : {plan({1048576}, {0}), plan({4, 4096}, {0}), plan({4096, 4}, {1}),
                                 plan({37, 129}, {1}), plan({65536, 32}, {1}, Combiner::ArgMax),
                                 plan({300, 8, 40}, {0, 2}, Combiner::Max, ScalarKind::F16)}) {
    ReductionKernels k = buildReductionKernels(p);
    for (size_t i = 0; i < k.stages.size(); ++i) {
      codegen::CompileOptions options;
      options.numWarps = k.stages[i].numWarps;
      options.hardware = genericProfile();
      codegen::CompiledKernel compiled = codegen::compileKernel(*k.stages[i].module, options);
      EXPECT_EQ(compiled.metadata.threadsPerThreadgroup, std::max(32, p.stages[i].threadgroupSize))
          << k.stages[i].name;
    }
  }
}

// A thread that would combine more than 8 SIMD-group partials shares that
// work with the threadgroup (lower_reduce.cpp); the combine where each
// thread combines them all remains for fewer.
TEST(GraphReductionKernels, ManySimdGroupPartialsAreCombinedByTheWholeThreadgroup) {
  auto combineOf = [](const ReductionPlan& p) {
    const ReductionKernels k = buildReductionKernels(p);
    codegen::CompileOptions options;
    options.numWarps = k.stages[0].numWarps;
    options.hardware = genericProfile();
    const std::string source = codegen::compileKernel(*k.stages[0].module, options).source;
    const size_t at = source.find("SIMD groups through ");
    return at == std::string::npos ? std::string() : source.substr(at, source.find('\n', at) - at);
  };
  EXPECT_EQ(combineOf(plan({1024, 64}, {0}, Combiner::ArgMax, ScalarKind::F16)),
            "SIMD groups through threadgroup memory, combined by the whole threadgroup");
  EXPECT_EQ(combineOf(plan({1024, 64}, {0}, Combiner::Sum)),
            "SIMD groups through threadgroup memory, combined by the whole threadgroup");
  EXPECT_EQ(combineOf(plan({17, 129}, {0}, Combiner::Max)), "SIMD groups through threadgroup memory");
}

TEST(GraphReductionKernels, OneKernelServesEveryShapeWithTheSameTile) {
  // The sizes are arguments: these plans differ only in them.
  auto sameKernels = [](const ReductionPlan& a, const ReductionPlan& b) {
    ReductionKernels ka = buildReductionKernels(a), kb = buildReductionKernels(b);
    if (ka.stages.size() != kb.stages.size()) return false;
    for (size_t s = 0; s < ka.stages.size(); ++s)
      if (ttirOf(ka.stages[s]) != ttirOf(kb.stages[s])) return false;
    return true;
  };
  EXPECT_TRUE(sameKernels(plan({100003}, {0}), plan({99999}, {0})));
  EXPECT_TRUE(sameKernels(plan({4096, 4}, {1}, Combiner::Max), plan({8192, 4}, {1}, Combiner::Max)));
  EXPECT_TRUE(sameKernels(plan({40, 64, 32}, {2}, Combiner::ArgMax), plan({64, 40, 32}, {2}, Combiner::ArgMax)));
  EXPECT_FALSE(sameKernels(plan({100003}, {0}), plan({100000}, {0})));  // float4 instead of single floats
}

TEST(GraphReductionKernels, TtirReadsBackAndVerifies) {
  for (const ReductionPlan& p : {plan({100003}, {0}, Combiner::ArgMin), plan({4096, 4}, {0}, Combiner::Mean, ScalarKind::F16),
                                 plan({6, 10, 34}, {0, 2}, Combiner::Any), plan({5, 7, 9}, {1}, Combiner::Prod)}) {
    for (const StageKernel& k : buildReductionKernels(p).stages) {
      ir::verify(*k.module);
      const std::string text = ttirOf(k);
      std::unique_ptr<ir::Module> back = frontend::parseTtir(text, k.name + ".ttir");
      ir::verify(*back);
      EXPECT_EQ(ir::printModule(*back, ir::PrintOptions{false}), text);
    }
  }
}

TEST(GraphReductionKernels, RefusesWhatTheKernelsDoNotCover) {
  EXPECT_EQ(kernelError(plan({64}, {0}, Combiner::Sum, ScalarKind::I8)),
            "graph reduction kernels take float32, float16, bfloat16 or int32 inputs, not int8");
  EXPECT_EQ(kernelError(plan({64}, {0}, Combiner::Mean, ScalarKind::I32)),
            "mean of int32 is not defined (as in torch, a mean needs a float input)");
  EXPECT_EQ(kernelError(plan({2048, 1024, 1024}, {2})),
            "the input has 2147483648 elements spanning 2147483648; graph reduction kernels use 32-bit offsets and "
            "indices, so at most 2^30 of each");
  // A broadcast input spans one element but still counts 2^31 indices.
  EXPECT_EQ(kernelError(plan({int64_t{1} << 31}, {0}, Combiner::ArgMax, ScalarKind::F32, {0})),
            "the input has 2147483648 elements spanning 1; graph reduction kernels use 32-bit offsets and indices, so "
            "at most 2^30 of each");
}

TEST(GraphReductionKernels, OutputTypes) {
  EXPECT_EQ(reductionOutputKind(Combiner::Sum, ScalarKind::F16), ScalarKind::F16);
  EXPECT_EQ(reductionOutputKind(Combiner::ArgMax, ScalarKind::F16), ScalarKind::I32);
  EXPECT_EQ(reductionOutputKind(Combiner::All, ScalarKind::F32), ScalarKind::I8);
}

// ---------------------------------------------------------------- reference

TEST(GraphReductionReference, ReportsTheFirstMismatchWithItsPosition) {
  ReductionPlan p = plan({2, 3}, {0}, Combiner::Max, ScalarKind::I32);
  std::vector<uint8_t> input(6 * 4);
  for (int i = 0; i < 6; ++i) writeElement(input, ScalarKind::I32, i, i % 3 == 1 ? 7 : i);
  ReductionReference ref = referenceReduction(p, input);
  EXPECT_EQ(ref.expected, (std::vector<double>{3, 7, 5}));
  std::vector<uint8_t> got(3 * 4);
  for (int i = 0; i < 3; ++i) writeElement(got, ScalarKind::I32, i, ref.expected[i]);
  EXPECT_EQ(compareWithReference(ref, got), std::nullopt);
  writeElement(got, ScalarKind::I32, 2, 4);
  EXPECT_EQ(compareWithReference(ref, got), "1 of 3 outputs differs; first at [2]: got 4, expected 5 (tolerance 0)");
  EXPECT_EQ(compareWithReference(ref, std::vector<uint8_t>(8)), "the output holds 2 elements of i32, expected 3");
}

TEST(GraphReductionReference, ArgmaxReportsTheFirstOccurrence) {
  ReductionPlan p = plan({2, 4}, {1}, Combiner::ArgMax, ScalarKind::I32);
  std::vector<uint8_t> input(8 * 4);
  const int values[8] = {1, 5, 5, 0, 2, 2, 2, 2};
  for (int i = 0; i < 8; ++i) writeElement(input, ScalarKind::I32, i, values[i]);
  EXPECT_EQ(referenceReduction(p, input).expected, (std::vector<double>{1, 0}));
}

TEST(GraphReductionReference, ExactFloatSumsAllowOnlyTheOutputRounding) {
  // 2048 + 1 is exact in float32; the float16 result must be it rounded to
  // nearest even: 2048, not 2050.
  ReductionPlan p = plan({2}, {0}, Combiner::Sum, ScalarKind::F16);
  std::vector<uint8_t> input(4);
  writeElement(input, ScalarKind::F16, 0, 2048);
  writeElement(input, ScalarKind::F16, 1, 1);
  ReductionReference ref = referenceReduction(p, input);
  EXPECT_EQ(ref.tolerance, (std::vector<double>{0}));
  std::vector<uint8_t> got(2);
  writeElement(got, ScalarKind::F16, 0, 2048);
  EXPECT_EQ(compareWithReference(ref, got), std::nullopt);
  writeElement(got, ScalarKind::F16, 0, 2050);
  EXPECT_EQ(compareWithReference(ref, got), "1 of 1 output differs; first at []: got 2050, expected 2049 (tolerance 0)");
}

TEST(GraphReductionReference, InexactSumsGetTheRoundingBound) {
  // 0.1 needs far more than 24 bits next to 0.6: float32 rounds, and the
  // bound is D * 2^-24 * sum|x| with D = 1 trip + 4 lanes (3 vectors of 1).
  ReductionPlan p = plan({3}, {0});
  std::vector<uint8_t> input(12);
  for (int i = 0; i < 3; ++i) writeElement(input, ScalarKind::F32, i, 0.1 * (i + 1));
  ReductionReference ref = referenceReduction(p, input);
  const double absoluteSum = readElement(input, ScalarKind::F32, 0) + readElement(input, ScalarKind::F32, 1) +
                             readElement(input, ScalarKind::F32, 2);
  EXPECT_EQ(ref.tolerance, (std::vector<double>{5 * 0x1.0p-24 * absoluteSum}));
  // Products of powers of two are exact; others are not.
  ReductionPlan product = plan({3}, {0}, Combiner::Prod);
  writeElement(input, ScalarKind::F32, 0, -0.5);
  writeElement(input, ScalarKind::F32, 1, 4);
  writeElement(input, ScalarKind::F32, 2, 1);
  EXPECT_EQ(referenceReduction(product, input).expected, (std::vector<double>{-2}));
  EXPECT_EQ(referenceReduction(product, input).tolerance, (std::vector<double>{0}));
  writeElement(input, ScalarKind::F32, 2, 3);
  EXPECT_EQ(referenceReduction(product, input).tolerance, (std::vector<double>{2 * 0x1.0p-24 * 6}));
}

// ---------------------------------------------------------------- stage 0 follows locate()

namespace {

// Runs stage 0 of a two-stage int32 sum on the interpreter and compares every
// partial with the sum of the elements locate() assigns to it.
void expectPartialsFollowLocate(const ReductionPlan& p) {
  SCOPED_TRACE("shape " + shapeText(p.shape) + " strides " + shapeText(p.strides));
  ASSERT_TRUE(p.twoStage());
  ReductionKernels k = buildReductionKernels(p);
  k.stages.pop_back();  // stage 0 alone: its partials are what we look at
  const std::vector<uint8_t> input = makeReductionInput(p, 7);
  const tools::ReductionRunBuffers out =
      tools::runReductionKernels(k, input, tools::findDevice("interpreter"), deviceOptions());
  std::vector<uint32_t> expected(k.partialElements, 0);
  const ReductionStage& s = p.stages[0];
  for (int64_t g = 0; g < s.threadgroups; ++g)
    for (int64_t t = 0; t < s.threadgroupSize; ++t)
      for (int64_t i = 0; i < s.iterations; ++i)
        for (int k = 0; k < s.loadsPerTrip(); ++k)
          for (int v = 0; v < s.vectorWidth; ++v)
            if (std::optional<StageElement> e = s.locate(g, t, i, k, v))
              expected[p.partialOffset(e->output, e->partial)] +=
                  static_cast<uint32_t>(readIntElement(input, ScalarKind::I32, p.inputOffset(e->output, e->reduce)));
  for (int64_t j = 0; j < k.partialElements; ++j)
    ASSERT_EQ(static_cast<uint32_t>(readIntElement(out.partialValues, ScalarKind::I32, j)), expected[j])
        << "partial " << j;
}

}  // namespace

TEST(GraphReductionKernels, StageZeroWritesThePartialsLocateAssigns) {
  expectPartialsFollowLocate(plan({100003}, {0}, Combiner::Sum, ScalarKind::I32));                    // all, V=1
  expectPartialsFollowLocate(plan({20000}, {0}, Combiner::Sum, ScalarKind::I32));                     // all, V=4
  expectPartialsFollowLocate(plan({3, 9000}, {1}, Combiner::Sum, ScalarKind::I32));                   // rows
  expectPartialsFollowLocate(plan({3000, 6}, {0}, Combiner::Sum, ScalarKind::I32));                   // columns
  expectPartialsFollowLocate(plan({12, 1000, 5}, {0, 1}, Combiner::Sum, ScalarKind::I32));            // columns, 3-D
  expectPartialsFollowLocate(plan({9000, 3}, {0}, Combiner::Sum, ScalarKind::I32, {1, 9000}));        // rows via strides
  expectPartialsFollowLocate(plan({40, 300}, {0, 1}, Combiner::Sum, ScalarKind::I32, {602, 2}));      // general
}

// ---------------------------------------------------------------- against the reference

namespace {

struct Shape {
  const char* name;
  std::vector<int64_t> shape;
  std::vector<int> axes;
  std::vector<int64_t> strides;  // empty: row-major
};

// What the shapes exercise, in the planner's terms.
const Shape kOneDTwoStages{"1d_two_stages", {100003}, {0}, {}};   // all, 24 partials, single floats
const Shape kSkinnyColumns{"skinny_4096x4_axis0", {4096, 4}, {0}, {}};  // columns, 4 partials
const Shape kWideRows{"wide_4x4096_axis1", {4, 4096}, {1}, {}};   // a threadgroup per row
const Shape k3dOuterInner{"3d_axes_0_2", {6, 10, 34}, {0, 2}, {}};  // rows over two axes, float2
const Shape kOddRows{"odd_37x129_axis1", {37, 129}, {1}, {}};      // 160 lanes padded to 256

const Shape kSharedCombineColumns{"columns_1024x64_axis0", {1024, 64}, {0}, {}};  // 16 SIMD groups of partials

// Several trips per thread (float32; TripsOfTheDeviceShapes checks the plans).
const Shape kRowTripsWrittenOut{"rows_8x65536_axis1", {8, 65536}, {1}, {}};        // 3 trips, written out
const Shape kRowTripsLooped{"rows_2x524288_axis1", {2, 524288}, {1}, {}};         // a loop of 6 trips
const Shape kColumnTripsWrittenOut{"columns_96x8192_axis0", {96, 8192}, {0}, {}};  // 2 trips (the 2nd half masked), written out
// One thread along the rows: 3 trips (the last half masked), written out for float16 sums (they widen), looped for
// float32.
const Shape kWideningColumnTrips{"columns_5x262144_axis0", {5, 262144}, {0}, {}};

const std::vector<Shape> kCoreShapes{kOneDTwoStages, kSkinnyColumns, kWideRows, k3dOuterInner, kOddRows};
const std::vector<Shape> kMoreShapes{
    {"1d_float4_two_stages", {65536}, {0}, {}},     // all, 16 partials of float4 reads
    {"skinny_4096x4_axis1", {4096, 4}, {1}, {}},    // a thread per row
    {"wide_4x4096_axis0", {4, 4096}, {0}, {}},      // column tiles, one stage
    {"3d_middle_axis", {5, 7, 9}, {1}, {}},         // columns with runs of outputs
    {"3d_all_axes", {6, 10, 34}, {0, 1, 2}, {}},    // all, one threadgroup
    {"odd_37x129_axis0", {37, 129}, {0}, {}},       // columns, 2 partials
    {"transposed_33x20_axis0", {33, 20}, {0}, {1, 33}},  // the contiguous run is reduced via strides
    {"strided_16x8_axis1", {16, 8}, {1}, {16, 2}},       // no unit stride: general
    {"permuted_6x5x8_axes_0_2", {6, 5, 8}, {0, 2}, {1, 48, 6}},  // reduce order differs from logical order
};

struct Case {
  Shape shape;
  Combiner combiner;
  ScalarKind dtype;
};

std::vector<Case> cases() {
  std::vector<Case> all;
  const Combiner every[] = {Combiner::Sum,    Combiner::Mean,   Combiner::Max, Combiner::Min, Combiner::Prod,
                            Combiner::ArgMax, Combiner::ArgMin, Combiner::Any, Combiner::All};
  for (const Shape& s : kCoreShapes)
    for (Combiner c : every) all.push_back({s, c, ScalarKind::F32});
  for (const Shape& s : kMoreShapes)
    for (Combiner c : {Combiner::Sum, Combiner::Max, Combiner::ArgMax}) all.push_back({s, c, ScalarKind::F32});
  // Other dtypes on the two two-stage shapes (rows and columns), alternating.
  const std::vector<std::pair<ScalarKind, std::vector<Combiner>>> dtypes{
      {ScalarKind::F16, {Combiner::Sum, Combiner::Mean, Combiner::Max, Combiner::ArgMax, Combiner::Prod, Combiner::Any}},
      {ScalarKind::BF16, {Combiner::Sum, Combiner::Min, Combiner::ArgMin, Combiner::All}},
      {ScalarKind::I32,
       {Combiner::Sum, Combiner::Prod, Combiner::Max, Combiner::Min, Combiner::ArgMax, Combiner::ArgMin, Combiner::Any,
        Combiner::All}}};
  int n = 0;
  for (const auto& [dtype, combiners] : dtypes)
    for (Combiner c : combiners) all.push_back({n++ % 2 ? kSkinnyColumns : kOneDTwoStages, c, dtype});
  // Arg-reductions of rows read as vectors (8 x 16-bit, 4 x 32-bit): each
  // vector's extreme and first lane holding it, before the accumulators.
  for (const Shape& s : {kWideRows, k3dOuterInner}) {
    all.push_back({s, Combiner::ArgMax, ScalarKind::F16});
    all.push_back({s, Combiner::ArgMin, ScalarKind::BF16});
    all.push_back({s, Combiner::ArgMax, ScalarKind::I32});
    all.push_back({s, Combiner::ArgMin, ScalarKind::I32});
  }
  // Column stages with 16 SIMD groups along the rows and several outputs per
  // thread: tt.reduce shares the combine of their partials (next test).
  for (const auto& [c, dtype] : std::vector<std::pair<Combiner, ScalarKind>>{{Combiner::Sum, ScalarKind::F32},
                                                                            {Combiner::ArgMax, ScalarKind::F16},
                                                                            {Combiner::ArgMin, ScalarKind::F32},
                                                                            {Combiner::Max, ScalarKind::BF16},
                                                                            {Combiner::ArgMax, ScalarKind::I32}})
    all.push_back({kSharedCombineColumns, c, dtype});
  // Several trips per thread: written out one after another (rows of up to
  // 4 trips, columns with two threadgroups per core, float16 sums of columns
  // with one thread along the rows) or a loop (longer rows, float32 sums of
  // those columns).
  for (const auto& [s, c, dtype] : std::vector<std::tuple<Shape, Combiner, ScalarKind>>{
           {kRowTripsWrittenOut, Combiner::ArgMax, ScalarKind::F16},
           {kRowTripsWrittenOut, Combiner::ArgMax, ScalarKind::F32},
           {kRowTripsWrittenOut, Combiner::ArgMin, ScalarKind::BF16},
           {kRowTripsWrittenOut, Combiner::Sum, ScalarKind::F32},
           {kRowTripsLooped, Combiner::ArgMax, ScalarKind::F32},
           {kRowTripsLooped, Combiner::Sum, ScalarKind::F32},
           {kColumnTripsWrittenOut, Combiner::ArgMax, ScalarKind::F32},
           {kColumnTripsWrittenOut, Combiner::ArgMin, ScalarKind::F16},
           {kColumnTripsWrittenOut, Combiner::Sum, ScalarKind::F32},
           {kWideningColumnTrips, Combiner::Sum, ScalarKind::F16},
           {kWideningColumnTrips, Combiner::Sum, ScalarKind::F32}})
    all.push_back({s, c, dtype});
  return all;
}

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.shape.name << " " << combinerName(c.combiner) << " " << ir::scalarName(c.dtype);
}

std::string caseName(const testing::TestParamInfo<Case>& info) {
  return std::string(info.param.shape.name) + "_" + combinerName(info.param.combiner) + "_" +
         ir::scalarName(info.param.dtype);
}

class GraphReductionOnDevices : public testing::TestWithParam<Case> {};

}  // namespace

TEST(GraphReductionKernels, TripsOfTheDeviceShapes) {
  auto first = [](const Shape& s) { return plan(s.shape, s.axes, Combiner::ArgMax).stages[0]; };
  EXPECT_EQ(first(kRowTripsWrittenOut).iterations, 3);
  EXPECT_TRUE(first(kRowTripsWrittenOut).tripsWrittenOut);
  EXPECT_EQ(first(kRowTripsLooped).iterations, 6);
  EXPECT_FALSE(first(kRowTripsLooped).tripsWrittenOut);
  EXPECT_EQ(first(kColumnTripsWrittenOut).iterations, 2);
  EXPECT_TRUE(first(kColumnTripsWrittenOut).tripsWrittenOut);
  const Shape& widening = kWideningColumnTrips;
  const ReductionStage f16 = plan(widening.shape, widening.axes, Combiner::Sum, ScalarKind::F16).stages[0];
  const ReductionStage f32 = plan(widening.shape, widening.axes, Combiner::Sum, ScalarKind::F32).stages[0];
  EXPECT_EQ(f16.threadsY, 1);
  EXPECT_EQ(f16.iterations, 3);
  EXPECT_TRUE(f16.tripsWrittenOut);  // float16 sums accumulate in float32
  EXPECT_EQ(f32.threadsY, 1);
  EXPECT_EQ(f32.iterations, 3);
  EXPECT_FALSE(f32.tripsWrittenOut);
}

TEST_P(GraphReductionOnDevices, MatchesTheHostReference) {
  const Case& c = GetParam();
  ReductionPlan p = plan(c.shape.shape, c.shape.axes, c.combiner, c.dtype, c.shape.strides);
  ReductionKernels kernels = buildReductionKernels(p);
  const std::vector<uint8_t> input = makeReductionInput(p, 2024);
  const ReductionReference reference = referenceReduction(p, input);
  // The inputs make float32 exact, so only mean's division may round.
  for (size_t i = 0; i < reference.tolerance.size() && c.combiner != Combiner::Mean; ++i)
    ASSERT_EQ(reference.tolerance[i], 0) << "output " << i;
  for (const char* device : {"interpreter", "emulator"}) {
    SCOPED_TRACE(device);
    const tools::ReductionRunBuffers out =
        tools::runReductionKernels(kernels, input, tools::findDevice(device), deviceOptions());
    EXPECT_EQ(compareWithReference(reference, out.output), std::nullopt);
  }
}

INSTANTIATE_TEST_SUITE_P(PlannerKernels, GraphReductionOnDevices, testing::ValuesIn(cases()), caseName);

// Stage 0 of argmax and argmin combines each accumulator in index order,
// starting it empty as NaN (combiner_ir.h). Infinities are where that could
// go wrong: the first -inf of an all -inf argmax (+inf of argmin) must win
// over the empty accumulator, and over masked-off elements (the same -inf)
// that follow it in the last, partial trip.
TEST(GraphReductionKernels, ArgReductionsFindTheFirstInfinity) {
  const Shape shapes[] = {kOneDTwoStages, kSkinnyColumns, kWideRows, kOddRows, {"odd_37x129_axis0", {37, 129}, {0}, {}}};
  for (const Shape& shape : shapes) {
    for (Combiner c : {Combiner::ArgMax, Combiner::ArgMin}) {
      for (ScalarKind dtype : {ScalarKind::F32, ScalarKind::F16}) {
        ReductionPlan p = plan(shape.shape, shape.axes, c, dtype);
        const ReductionKernels kernels = buildReductionKernels(p);
        ASSERT_NE(ttirOf(kernels.stages[0]).find(c == Combiner::ArgMax ? "cmpf oge" : "cmpf ole"), std::string::npos)
            << "stage 0 combines in index order";
        const double infinity = c == Combiner::ArgMax ? -INFINITY : INFINITY;
        std::vector<uint8_t> input = makeReductionInput(p, 5);
        const int64_t count = static_cast<int64_t>(input.size()) / scalarBytes(dtype);
        // All infinite, then infinite but for ties of a finite value at every
        // 97th element.
        for (bool sparse : {false, true}) {
          SCOPED_TRACE(std::string(shape.name) + " " + combinerName(c) + " " + ir::scalarName(dtype) +
                       (sparse ? " sparse ties" : " all infinite"));
          for (int64_t k = 0; k < count; ++k) writeElement(input, dtype, k, sparse && k % 97 == 3 ? 0.5 : infinity);
          const ReductionReference reference = referenceReduction(p, input);
          for (const char* device : {"interpreter", "emulator"}) {
            SCOPED_TRACE(device);
            const tools::ReductionRunBuffers out =
                tools::runReductionKernels(kernels, input, tools::findDevice(device), deviceOptions());
            EXPECT_EQ(compareWithReference(reference, out.output), std::nullopt);
          }
        }
      }
    }
  }
}

// A vector of NaNs has no lane equal to its maximum (NaN); it reports its
// last lane, so an all-NaN row still gets the index of one of its elements.
// (Which NaN is not specified, as with Triton's combiner.)
TEST(GraphReductionKernels, ArgmaxOfAllNanRowsReportsAnIndexInTheRow) {
  for (ScalarKind dtype : {ScalarKind::F16, ScalarKind::F32}) {
    ReductionPlan p = plan(kWideRows.shape, kWideRows.axes, Combiner::ArgMax, dtype);
    const ReductionKernels kernels = buildReductionKernels(p);
    std::vector<uint8_t> input = makeReductionInput(p, 5);
    for (int64_t k = 0; k < static_cast<int64_t>(input.size()) / scalarBytes(dtype); ++k)
      writeElement(input, dtype, k, NAN);
    for (const char* device : {"interpreter", "emulator"}) {
      SCOPED_TRACE(std::string(device) + " " + ir::scalarName(dtype));
      const tools::ReductionRunBuffers out =
          tools::runReductionKernels(kernels, input, tools::findDevice(device), deviceOptions());
      for (int64_t row = 0; row < kWideRows.shape[0]; ++row) {
        const int64_t index = readIntElement(out.output, ScalarKind::I32, row);
        EXPECT_GE(index, 0) << "row " << row;
        EXPECT_LT(index, kWideRows.shape[1]) << "row " << row;
      }
    }
  }
}

TEST(GraphReductionKernels, ArgReductionsOfPermutedIndicesKeepTritonsCombiner) {
  // The reduce order differs from the logical order the index counts in,
  // so pairs meet out of index order and need the tie-breaking combiner.
  ReductionPlan p = plan({6, 5, 8}, {0, 2}, Combiner::ArgMax, ScalarKind::F32, {1, 48, 6});
  const std::string ttir = ttirOf(buildReductionKernels(p).stages[0]);
  EXPECT_EQ(ttir.find("cmpf oge"), std::string::npos);
  EXPECT_NE(ttir.find("cmpf ogt"), std::string::npos);
  EXPECT_TRUE(bodyUses(ttir, "%idx_stride_"));  // the index walk's strides (not 1) stay arguments
}

TEST(GraphReductionKernels, UnitStridesAreFoldedLikeTritonsSpecialization) {
  // Contiguous rows: the index and element walks step by 1, so no multiply by
  // their stride arguments is left (the arguments stay in the signature).
  const std::string ttir = ttirOf(buildReductionKernels(plan({8, 64}, {1}, Combiner::ArgMax)).stages[0]);
  EXPECT_NE(ttir.find("%idx_stride_0: i32"), std::string::npos);
  EXPECT_FALSE(bodyUses(ttir, "%idx_stride_0"));
  EXPECT_FALSE(bodyUses(ttir, "%red_stride_0"));
}

TEST(GraphReductionKernels, MultiplesOfSixteenAreDeclaredDivisibleLikeTritonsSpecialization) {
  // float16 maxima down 32 rows of 4096 columns: 8 outputs per 16-byte
  // vector. run_outputs (4096) is declared divisible by 16, so the output
  // offset run * run_outputs + column keeps each vector's 8 outputs aligned
  // and the kernel writes them with one store, as it reads them.
  const ReductionKernels k = buildReductionKernels(plan({32, 4096}, {0}, Combiner::Max, ScalarKind::F16));
  ASSERT_EQ(k.stages.size(), 1u);
  const StageKernel& stage = k.stages[0];
  const std::string ttir = ttirOf(stage);
  EXPECT_NE(ttir.find("%run_outputs: i32 {tt.divisibility = 16 : i32}"), std::string::npos) << ttir;
  EXPECT_NE(ttir.find("%reduce_rows: i32 {tt.divisibility = 16 : i32}"), std::string::npos);
  EXPECT_NE(ttir.find("%splits: i32,"), std::string::npos);  // 1: folded where it strides, not divisible

  codegen::CompileOptions options;
  options.numWarps = stage.numWarps;
  options.hardware = genericProfile();
  const std::string msl = codegen::compileKernel(*stage.module, options).source;
  EXPECT_NE(msl.find("*reinterpret_cast<device int4*>(&out_ptr["), std::string::npos) << msl;  // 8 halves

  // 4100 columns: not a multiple of 16, so no claim and one store per output.
  const ReductionKernels odd = buildReductionKernels(plan({32, 4100}, {0}, Combiner::Max, ScalarKind::F16));
  EXPECT_NE(ttirOf(odd.stages[0]).find("%run_outputs: i32,"), std::string::npos);
}

TEST(GraphReductionKernels, LoopsOfAMultipleOfFourTripsHaveNoRemainderLoop) {
  // Float16 maxima down 8192 rows, 64 per trip: 128 trips, and `iterations`
  // is declared divisible by 16, so the loop unrolled by four needs no
  // remainder. 8200 rows take 129 trips: 128 unrolled by four, then one in a
  // remainder loop unrolled by two.
  auto stageMsl = [](int64_t rows) {
    const ReductionKernels k = buildReductionKernels(plan({rows, 8192}, {0}, Combiner::Max, ScalarKind::F16));
    EXPECT_EQ(k.stages.size(), 1u);
    codegen::CompileOptions options;
    options.numWarps = k.stages[0].numWarps;
    options.hardware = genericProfile();
    return codegen::compileKernel(*k.stages[0].module, options).source;
  };
  const std::string exact = stageMsl(8192);
  EXPECT_NE(exact.find("#pragma clang loop unroll_count(4)\n  for (int i = 0; i < iterations; i += 1) {"),
            std::string::npos)
      << exact;
  EXPECT_EQ(exact.find("unroll_count(2)"), std::string::npos);
  EXPECT_EQ(exact.find("i_main_end"), std::string::npos);
  const std::string ragged = stageMsl(8200);
  EXPECT_NE(ragged.find("int i_trips = iterations > 0 ? (iterations - 1) / 1 + 1 : 0;"), std::string::npos) << ragged;
  EXPECT_NE(ragged.find("#pragma clang loop unroll_count(4)\n  for (int i = 0; i < i_main_end; i += 1) {"),
            std::string::npos);
  EXPECT_NE(ragged.find("#pragma clang loop unroll_count(2)\n  for (int i0 = i_main_end; i0 < iterations; i0 += 1) {"),
            std::string::npos);
}

// ---------------------------------------------------------------- random problems

namespace {

struct RandomProblem {
  std::vector<int64_t> shape, strides;
  std::vector<int> axes;
  Combiner combiner;
  ScalarKind dtype;
  std::string text() const {
    std::vector<int64_t> a(axes.begin(), axes.end());
    return "shape " + shapeText(shape) + " strides " + shapeText(strides) + " axes " + shapeText(a) + " " +
           combinerName(combiner) + " " + ir::scalarName(dtype);
  }
};

// Shapes of up to 3 dimensions and 40000 elements (large enough for
// two-stage plans), row-major, permuted, padded, broadcast or without a
// unit stride; any axes, combiner and kernel dtype.
RandomProblem randomProblem(std::mt19937_64& rng) {
  auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  RandomProblem r;
  const int rank = static_cast<int>(uniform(1, 3));
  int64_t elements = 1;
  for (int d = 0; d < rank; ++d) {
    int64_t dim = uniform(0, 7) == 0 ? 1 : uniform(2, rank == 1 ? 40000 : rank == 2 ? 300 : 40);
    dim = std::max<int64_t>(1, std::min<int64_t>(dim, 40000 / elements));
    r.shape.push_back(dim);
    elements *= dim;
  }
  std::vector<int> order(rank);  // slowest first
  std::iota(order.begin(), order.end(), 0);
  const int64_t style = uniform(0, 9);
  if (style >= 5 && style < 7) std::shuffle(order.begin(), order.end(), rng);
  r.strides.assign(rank, 0);
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    r.strides[order[i]] = stride;
    stride *= r.shape[order[i]];
    if (style == 7 && i == rank - 1) stride += uniform(1, 3);  // padded rows
  }
  if (style == 8) r.strides[uniform(0, rank - 1)] = 0;        // a broadcast dimension
  if (style == 9) for (int64_t& s : r.strides) s *= 2;        // no unit stride
  for (int d = 0; d < rank; ++d)
    if (uniform(0, 1)) r.axes.push_back(d);
  if (r.axes.empty()) r.axes.push_back(static_cast<int>(uniform(0, rank - 1)));
  const Combiner combiners[] = {Combiner::Sum,    Combiner::Mean,   Combiner::Max, Combiner::Min, Combiner::Prod,
                                Combiner::ArgMax, Combiner::ArgMin, Combiner::Any, Combiner::All};
  r.combiner = combiners[uniform(0, 8)];
  const ScalarKind dtypes[] = {ScalarKind::F32, ScalarKind::F16, ScalarKind::BF16, ScalarKind::I32};
  r.dtype = dtypes[uniform(0, 3)];
  if (r.combiner == Combiner::Mean && r.dtype == ScalarKind::I32) r.dtype = ScalarKind::F32;
  return r;
}

void expectMatchesReference(const RandomProblem& r, const char* device, bool sanitize) {
  SCOPED_TRACE(r.text() + " on " + device);
  ReductionPlan p = plan(r.shape, r.axes, r.combiner, r.dtype, r.strides);
  ReductionKernels kernels = buildReductionKernels(p);
  const std::vector<uint8_t> input = makeReductionInput(p, 99);
  tools::DeviceOptions options = deviceOptions();
  options.sanitize = sanitize;
  const tools::ReductionRunBuffers out = tools::runReductionKernels(kernels, input, tools::findDevice(device), options);
  EXPECT_EQ(compareWithReference(referenceReduction(p, input), out.output), std::nullopt);
}

}  // namespace

TEST(GraphReductionRandom, InterpreterMatchesTheReference) {
  std::mt19937_64 rng(20251121);
  for (int i = 0; i < 300; ++i) expectMatchesReference(randomProblem(rng), "interpreter", false);
}

TEST(GraphReductionRandom, SanitizedEmulatorMatchesTheReference) {
  // Guarded buffers: a masked-off lane that still touched memory would be
  // reported as an out-of-bounds access.
  std::mt19937_64 rng(7);
  for (int i = 0; i < 12; ++i) expectMatchesReference(randomProblem(rng), "emulator", true);
}
