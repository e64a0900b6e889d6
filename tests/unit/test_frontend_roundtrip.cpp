// Every TTIR file of the corpus (tests/ttir) reads, verifies, prints and reads
// again to the same IR, with and without locations; str_nodebug() files
// print back exactly as Triton wrote them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/ir/equivalence.h"
#include "tmetal/ir/printer.h"
#include "tmetal/ir/verifier.h"

using namespace tmetal;
using namespace tmetal::ir;

namespace {

std::vector<std::string> corpusFiles() {
  std::vector<std::string> files;
  const std::filesystem::path dir = std::filesystem::path(TMETAL_SOURCE_DIR) / "tests" / "ttir";
  if (std::filesystem::is_directory(dir))
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.path().extension() == ".ttir") files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string readFile(const std::string& name) {
  std::ifstream in(std::filesystem::path(TMETAL_SOURCE_DIR) / "tests" / "ttir" / name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string testName(const testing::TestParamInfo<std::string>& info) {
  std::string name = info.param.substr(0, info.param.size() - std::string(".ttir").size());
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

class CorpusRoundTrip : public testing::TestWithParam<std::string> {};

}  // namespace

TEST(CorpusRoundTrip, CorpusIsPresent) { EXPECT_FALSE(corpusFiles().empty()) << "tests/ttir has no .ttir files"; }

TEST_P(CorpusRoundTrip, PrintsAndReadsBackTheSameIr) {
  const std::string& file = GetParam();
  auto first = frontend::parseTtir(readFile(file), file);
  verify(*first);

  const std::string withLocations = printModule(*first);
  auto second = frontend::parseTtir(withLocations, "printed.ttir");
  verify(*second);
  EXPECT_EQ(firstDifference(*first, *second), "");
  EXPECT_EQ(printModule(*second), withLocations) << "printing is not stable";

  PrintOptions noLocations;
  noLocations.locations = false;
  const std::string bare = printModule(*first, noLocations);
  auto third = frontend::parseTtir(bare, "printed.nodebug.ttir");
  verify(*third);
  EquivalenceOptions ignoreLocations;
  ignoreLocations.locations = false;
  EXPECT_EQ(firstDifference(*first, *third, ignoreLocations), "");

  // Triton's own str_nodebug() text is what the printer writes.
  if (file.find(".nodebug.") != std::string::npos) EXPECT_EQ(bare, readFile(file));
}

INSTANTIATE_TEST_SUITE_P(Ttir, CorpusRoundTrip, testing::ValuesIn(corpusFiles()), testName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CorpusRoundTrip);

namespace {

// One use of every op of ops.def (tt.func is the function itself), in the
// syntax Triton prints.
const char* const kEveryOp = R"ttir(module {
  tt.func public @every_op(%i: tensor<4xi32>, %f: tensor<4xf32>, %p: tensor<4x!tt.ptr<f32>>, %s: !tt.ptr<f32>, %n: i32, %m: i64, %a: tensor<4x8xf16>, %b: tensor<8x4xf16>) {
    %c = arith.constant dense<1> : tensor<4xi32>
    %0 = arith.addi %i, %c : tensor<4xi32>
    %1 = arith.subi %0, %c : tensor<4xi32>
    %2 = arith.muli %1, %c : tensor<4xi32>
    %3 = arith.divsi %2, %c : tensor<4xi32>
    %4 = arith.divui %3, %c : tensor<4xi32>
    %5 = arith.ceildivsi %4, %c : tensor<4xi32>
    %6 = arith.floordivsi %5, %c : tensor<4xi32>
    %7 = arith.remsi %6, %c : tensor<4xi32>
    %8 = arith.remui %7, %c : tensor<4xi32>
    %9 = arith.andi %8, %c : tensor<4xi32>
    %10 = arith.ori %9, %c : tensor<4xi32>
    %11 = arith.xori %10, %c : tensor<4xi32>
    %12 = arith.shli %11, %c : tensor<4xi32>
    %13 = arith.shrsi %12, %c : tensor<4xi32>
    %14 = arith.shrui %13, %c : tensor<4xi32>
    %15 = arith.maxsi %14, %c : tensor<4xi32>
    %16 = arith.minsi %15, %c : tensor<4xi32>
    %17 = arith.maxui %16, %c : tensor<4xi32>
    %18 = arith.minui %17, %c : tensor<4xi32>
    %19 = arith.addf %f, %f : tensor<4xf32>
    %20 = arith.subf %19, %f : tensor<4xf32>
    %21 = arith.mulf %20, %f fastmath<fast> : tensor<4xf32>
    %22 = arith.divf %21, %f : tensor<4xf32>
    %23 = arith.remf %22, %f : tensor<4xf32>
    %24 = arith.negf %23 : tensor<4xf32>
    %25 = arith.maxnumf %24, %f : tensor<4xf32>
    %26 = arith.minnumf %25, %f : tensor<4xf32>
    %27 = arith.maximumf %26, %f : tensor<4xf32>
    %28 = arith.minimumf %27, %f : tensor<4xf32>
    %29 = arith.cmpi slt, %18, %c : tensor<4xi32>
    %30 = arith.cmpf oge, %28, %f : tensor<4xf32>
    %31 = arith.select %29, %28, %f : tensor<4xi1>, tensor<4xf32>
    %32 = arith.extsi %18 : tensor<4xi32> to tensor<4xi64>
    %33 = arith.extui %30 : tensor<4xi1> to tensor<4xi32>
    %34 = arith.trunci %32 : tensor<4xi64> to tensor<4xi16>
    %35 = arith.truncf %31 : tensor<4xf32> to tensor<4xbf16>
    %36 = arith.extf %35 : tensor<4xbf16> to tensor<4xf32>
    %37 = arith.sitofp %33 : tensor<4xi32> to tensor<4xf32>
    %38 = arith.uitofp %34 : tensor<4xi16> to tensor<4xf16>
    %39 = arith.fptosi %36 : tensor<4xf32> to tensor<4xi32>
    %40 = arith.fptoui %38 : tensor<4xf16> to tensor<4xi8>
    %41 = arith.bitcast %37 : tensor<4xf32> to tensor<4xi32>
    %42 = arith.index_cast %n : i32 to i64
    %43 = math.exp %f : tensor<4xf32>
    %44 = math.exp2 %43 : tensor<4xf32>
    %45 = math.log %44 : tensor<4xf32>
    %46 = math.log2 %45 : tensor<4xf32>
    %47 = math.sqrt %46 : tensor<4xf32>
    %48 = math.rsqrt %47 : tensor<4xf32>
    %49 = math.sin %48 : tensor<4xf32>
    %50 = math.cos %49 : tensor<4xf32>
    %51 = math.tanh %50 : tensor<4xf32>
    %52 = math.erf %51 : tensor<4xf32>
    %53 = math.absf %52 : tensor<4xf32>
    %54 = math.absi %41 : tensor<4xi32>
    %55 = math.floor %53 : tensor<4xf32>
    %56 = math.ceil %55 : tensor<4xf32>
    %57 = math.fma %56, %56, %56 : tensor<4xf32>
    %58 = tt.call @helper(%n) : (i32) -> i32
    %59 = tt.get_program_id x : i32
    %60 = tt.get_num_programs y : i32
    %61 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>
    %62 = tt.splat %n : i32 -> tensor<4xi32>
    %63 = tt.expand_dims %61 {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32>
    %64 = tt.broadcast %63 : tensor<4x1xi32> -> tensor<4x2xi32>
    %65 = tt.reshape %64 allow_reorder : tensor<4x2xi32> -> tensor<8xi32>
    %66 = tt.trans %64 {order = array<i32: 1, 0>} : tensor<4x2xi32> -> tensor<2x4xi32>
    %67 = tt.addptr %p, %62 : tensor<4x!tt.ptr<f32>>, tensor<4xi32>
    %68 = tt.load %67, %29, %f cacheModifier = cg : tensor<4x!tt.ptr<f32>>
    tt.store %67, %68, %29 evictionPolicy = evict_last : tensor<4x!tt.ptr<f32>>
    %69 = "tt.reduce"(%68) <{axis = 0 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %r = arith.addf %x, %y : f32
      tt.reduce.return %r : f32
    }) : (tensor<4xf32>) -> f32
    %70 = "tt.scan"(%68) <{axis = 0 : i32, reverse = false}> ({
    ^bb0(%x: f32, %y: f32):
      %r = arith.mulf %x, %y : f32
      tt.scan.return %r : f32
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %mapped = "tt.map_elementwise"(%68) <{pack = 2 : i32}> ({
    ^bb0(%me0: f32, %me1: f32):
      %pq = arith.mulf %me0, %me1 : f32
      tt.map_elementwise.return %pq, %me0 : f32, f32
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %acc = arith.constant dense<0.000000e+00> : tensor<4x4xf32>
    %71 = tt.dot %a, %b, %acc, inputPrecision = tf32 : tensor<4x8xf16> * tensor<8x4xf16> -> tensor<4x4xf32>
    %scales = arith.constant dense<127> : tensor<4x1xi8>
    %ds0 = tt.dot_scaled %a, %b scale %scales, %acc lhs = fp16 rhs = fp16 {fastMath = false} : tensor<4x8xf16> * tensor<8x4xf16>, tensor<4x1xi8> -> tensor<4x4xf32>
    %ds1 = tt.dot_scaled %a scale %scales, %b, %71 lhs = fp16 rhs = bf16 {fastMath = true} : tensor<4x8xf16>, tensor<4x1xi8> * tensor<8x4xf16> -> tensor<4x4xf32>
    %72 = tt.atomic_rmw fadd, acq_rel, gpu, %67, %68, %29 : (tensor<4x!tt.ptr<f32>>, tensor<4xf32>, tensor<4xi1>) -> tensor<4xf32>
    %73 = tt.atomic_cas acq_rel, gpu, %67, %68, %72 : (tensor<4x!tt.ptr<f32>>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i64
    %74 = tt.make_tensor_ptr %s, [%m], [%c1], [%c0] {order = array<i32: 0>} : <tensor<4xf32>>
    %75 = tt.advance %74, [%c0] : <tensor<4xf32>>
    %76 = tt.bitcast %68 : tensor<4xf32> -> tensor<4xi32>
    %77 = tt.ptr_to_int %67 : tensor<4x!tt.ptr<f32>> -> tensor<4xi64>
    %78 = tt.int_to_ptr %77 : tensor<4xi64> -> tensor<4x!tt.ptr<f32>>
    %79 = tt.fp_to_fp %68, rounding = rtne : tensor<4xf32> -> tensor<4xf16>
    %80 = tt.precise_sqrt %68 : tensor<4xf32>
    %81 = tt.precise_divf %80, %68 : tensor<4xf32>
    %82 = tt.clampf %81, %f, %f, propagateNan = none : tensor<4xf32>
    %83 = tt.mulhiui %i, %c : tensor<4xi32>
    %84 = tt.join %68, %68 : tensor<4xf32> -> tensor<4x2xf32>
    %85, %86 = tt.split %84 : tensor<4x2xf32> -> tensor<4xf32>
    %87 = tt.cat %85, %86 : tensor<4xf32> -> tensor<8xf32>
    %88 = tt.histogram %i : tensor<4xi32> -> tensor<8xi32>
    %89 = tt.extern_elementwise %68 {libname = "", libpath = "", pure = true, symbol = "__nv_expf"} : (tensor<4xf32>) -> tensor<4xf32>
    tt.assert %29, "in range" : tensor<4xi1>
    tt.print " v: " {hex = false, isSigned = array<i32: 1>} : %i : tensor<4xi32>
    %one = tt.splat %n : i32 -> tensor<1xi32>
    %93 = tt.unsplat %one : tensor<1xi32>
    %94 = ub.poison : i32
    %positive = arith.cmpi sgt, %93, %94 : i32
    llvm.intr.assume %positive : i1
    gpu.barrier
    %95 = tt.gather %68[%i] {axis = 0 : i32} : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
    %90 = scf.for %k = %c0 to %n step %n iter_args(%v = %c0) -> (i32)  : i32 {
      scf.yield %v : i32
    }
    %cond = arith.cmpi slt, %n, %c0 : i32
    %91 = scf.if %cond -> (i32) {
      scf.yield %n : i32
    } else {
      scf.yield %c0 : i32
    }
    %92 = scf.while (%w = %c0) : (i32) -> i32 {
      %t = arith.cmpi slt, %w, %n : i32
      scf.condition(%t) %w : i32
    } do {
    ^bb0(%w2: i32):
      scf.yield %w2 : i32
    }
    tt.return
  }
  tt.func private @helper(%x: i32) -> i32 {
    tt.return %x : i32
  }
})ttir";

}  // namespace

TEST(FrontendRoundTrip, EveryOpOfOpsDefReadsVerifiesAndPrintsBack) {
  auto first = frontend::parseTtir(kEveryOp, "every_op.ttir");
  verify(*first);
  std::vector<bool> seen(static_cast<size_t>(OpKind::Unknown), false);
  walk(*first->kernel()->body(), [&](const Operation* op) { seen[static_cast<size_t>(op->kind())] = true; });
  for (size_t k = 0; k < seen.size(); ++k)
    if (static_cast<OpKind>(k) != OpKind::TtFunc)
      EXPECT_TRUE(seen[k]) << opKindName(static_cast<OpKind>(k)) << " is not in the sample";
  const std::string printed = printModule(*first);
  auto second = frontend::parseTtir(printed, "printed.ttir");
  EXPECT_EQ(firstDifference(*first, *second), "") << printed;
  // Nothing falls back to the generic form but tt.reduce, tt.scan and tt.map_elementwise.
  size_t generic = 0;
  for (size_t at = printed.find("\"("); at != std::string::npos; at = printed.find("\"(", at + 1)) ++generic;
  EXPECT_EQ(generic, 3u) << printed;
}

TEST(FrontendRoundTrip, LoopAnnotationsKeepTheirExpandedText) {
  // What Triton prints for tl.range(0, n, disable_licm=True).
  const char* text = R"(#loop_licm = #llvm.loop_licm<disable = true, versioningDisable = true>
#loop_annotation = #llvm.loop_annotation<licm = #loop_licm>
module {
  tt.func public @k(%n: i32) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    scf.for %i = %c0_i32 to %n step %c1_i32  : i32 {
      scf.yield
    } {llvm.loop_annotation = #loop_annotation}
    tt.return
  }
}
)";
  auto first = frontend::parseTtir(text, "loops.ttir");
  verify(*first);
  const std::string printed = printModule(*first);
  EXPECT_NE(printed.find("{llvm.loop_annotation = #llvm.loop_annotation<licm = #llvm.loop_licm<disable = true, "
                         "versioningDisable = true>>}"),
            std::string::npos)
      << printed;
  auto second = frontend::parseTtir(printed, "printed.ttir");
  EXPECT_EQ(firstDifference(*first, *second), "") << printed;
}
