// The verifier's diagnostics for IR whose text is well formed but whose types
// do not fit the op. Positions are the op's location: here its place in the
// TTIR text, since the text has no loc(...).
#include <gtest/gtest.h>

#include <string>

#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/ir/builder.h"
#include "tmetal/ir/verifier.h"

using namespace tmetal;
using namespace tmetal::ir;

namespace {

std::string verifyError(const std::string& args, const std::string& body) {
  std::string text = "module {\n  tt.func public @k(" + args + ") {\n" + body + "\n    tt.return\n  }\n}\n";
  auto module = frontend::parseTtir(text, "bad.ttir");
  try {
    verify(*module);
  } catch (const CompileError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(FrontendVerifier, AcceptsWellFormedKernels) {
  EXPECT_EQ(verifyError("%a: tensor<4x1xf32>, %p: tensor<4x8x!tt.ptr<f32>>",
                        "    %0 = tt.broadcast %a : tensor<4x1xf32> -> tensor<4x8xf32>\n"
                        "    tt.store %p, %0 : tensor<4x8x!tt.ptr<f32>>"),
            "no error");
}

TEST(FrontendVerifier, ElementwiseRules) {
  EXPECT_EQ(verifyError("%a: i32", "    %0 = arith.addf %a, %a : i32"),
            "bad.ttir:3:5: error: 'arith.addf': works on floats, found 'i32'");
  EXPECT_EQ(verifyError("%a: tensor<4xf32>", "    %0 = arith.cmpi slt, %a, %a : tensor<4xf32>"),
            "bad.ttir:3:5: error: 'arith.cmpi': compares integers, found 'tensor<4xf32>'");
  EXPECT_EQ(verifyError("%a: f32", "    %0 = arith.cmpf slt, %a, %a : f32"),
            "bad.ttir:3:5: error: 'arith.cmpf': attribute 'predicate' must be one of false, oeq, ogt, oge, olt, ole, "
            "one, ord, ueq, ugt, uge, ult, ule, une, uno, true");
  EXPECT_EQ(verifyError("%c: tensor<8xi1>, %a: tensor<4xf32>",
                        "    %0 = arith.select %c, %a, %a : tensor<8xi1>, tensor<4xf32>"),
            "bad.ttir:3:5: error: 'arith.select': the condition must be i1 or an i1 tensor of the values' shape, "
            "found 'tensor<8xi1>'");
  EXPECT_EQ(verifyError("%a: i32", "    %0 = arith.extsi %a : i32 to i16"),
            "bad.ttir:3:5: error: 'arith.extsi': extends an integer to a wider integer, found 'i32' to 'i16'");
  EXPECT_EQ(verifyError("%a: f32", "    %0 = tt.fp_to_fp %a : f32 -> f16"),
            "bad.ttir:3:5: error: 'tt.fp_to_fp': a conversion to a narrower float needs attribute 'rounding' (rtne "
            "or rtz)");
}

TEST(FrontendVerifier, UnsplatPoisonAndAssume) {
  EXPECT_EQ(verifyError("%a: tensor<1x1xf32>, %c: i1",
                        "    %0 = tt.unsplat %a : tensor<1x1xf32>\n    %1 = ub.poison : tensor<4xi32>\n"
                        "    llvm.intr.assume %c : i1"),
            "no error");
  EXPECT_EQ(verifyError("%a: tensor<2xf32>", "    %0 = tt.unsplat %a : tensor<2xf32>"),
            "bad.ttir:3:5: error: 'tt.unsplat': expects a tensor of one element, found 'tensor<2xf32>'");
  EXPECT_EQ(verifyError("%a: i32", "    llvm.intr.assume %a : i32"),
            "bad.ttir:3:5: error: 'llvm.intr.assume': the condition must have type 'i1', found 'i32'");
}

TEST(FrontendVerifier, GatherRules) {
  EXPECT_EQ(verifyError("%s: tensor<8x4xf32>, %i: tensor<16x4xi32>",
                        "    %0 = tt.gather %s[%i] {axis = 0 : i32} : (tensor<8x4xf32>, tensor<16x4xi32>) -> "
                        "tensor<16x4xf32>"),
            "no error");
  EXPECT_EQ(verifyError("%s: tensor<8x4xf32>, %i: tensor<16x8xi32>",
                        "    %0 = tt.gather %s[%i] {axis = 0 : i32} : (tensor<8x4xf32>, tensor<16x8xi32>) -> "
                        "tensor<16x8xf32>"),
            "bad.ttir:3:5: error: 'tt.gather': the indices must have the source's extent along dimension 1 (not the "
            "axis), found 'tensor<16x8xi32>' for 'tensor<8x4xf32>'");
  EXPECT_EQ(verifyError("%s: tensor<8xf32>, %i: tensor<8xi32>",
                        "    %0 = tt.gather %s[%i] {axis = 1 : i32} : (tensor<8xf32>, tensor<8xi32>) -> tensor<8xf32>"),
            "bad.ttir:3:5: error: 'tt.gather': axis 1 is out of range for rank 1");
}

TEST(FrontendVerifier, ShapeRules) {
  EXPECT_EQ(verifyError("%a: i32", "    %0 = tt.splat %a : i32 -> tensor<4xf32>"),
            "bad.ttir:3:5: error: 'tt.splat': the result must be a tensor of 'i32', found 'tensor<4xf32>'");
  EXPECT_EQ(verifyError("%a: tensor<4x2xf32>", "    %0 = tt.broadcast %a : tensor<4x2xf32> -> tensor<4x8xf32>"),
            "bad.ttir:3:5: error: 'tt.broadcast': dimension 1 has size 2; only size-1 dimensions broadcast "
            "('tensor<4x2xf32>' to 'tensor<4x8xf32>')");
  EXPECT_EQ(verifyError("%a: tensor<4xf32>",
                        "    %0 = tt.expand_dims %a {axis = 1 : i32} : tensor<4xf32> -> tensor<4x2xf32>"),
            "bad.ttir:3:5: error: 'tt.expand_dims': the result shape must be [4, 1], found [4, 2]");
  EXPECT_EQ(verifyError("%a: tensor<4xf32>",
                        "    %0 = tt.expand_dims %a {axis = 3 : i32} : tensor<4xf32> -> tensor<4x1xf32>"),
            "bad.ttir:3:5: error: 'tt.expand_dims': axis 3 is out of range for a rank-1 tensor");
  EXPECT_EQ(verifyError("%a: tensor<4xf32>", "    %0 = tt.reshape %a : tensor<4xf32> -> tensor<2x3xf32>"),
            "bad.ttir:3:5: error: 'tt.reshape': cannot change the number of elements: 'tensor<4xf32>' to "
            "'tensor<2x3xf32>'");
  EXPECT_EQ(verifyError("%a: tensor<4x2xf32>",
                        "    %0 = tt.trans %a {order = array<i32: 1, 0>} : tensor<4x2xf32> -> tensor<4x2xf32>"),
            "bad.ttir:3:5: error: 'tt.trans': the result shape must be [2, 4], found [4, 2]");
  EXPECT_EQ(verifyError("%a: tensor<4x2xf32>",
                        "    %0 = tt.trans %a {order = array<i32: 0, 0>} : tensor<4x2xf32> -> tensor<2x4xf32>"),
            "bad.ttir:3:5: error: 'tt.trans': 'order' must be a permutation of the 2 dimensions");
  EXPECT_EQ(verifyError("", "    %0 = tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<4xi32>"),
            "bad.ttir:3:5: error: 'tt.make_range': the result must have type 'tensor<8xi32>', found 'tensor<4xi32>'");
  EXPECT_EQ(verifyError("%a: tensor<32x16xf16>, %b: tensor<32x16xf16>, %c: tensor<32x32xf32>",
                        "    %0 = tt.dot %a, %b, %c : tensor<32x16xf16> * tensor<32x16xf16> -> tensor<32x32xf32>"),
            "bad.ttir:3:5: error: 'tt.dot': shapes do not multiply: 'tensor<32x16xf16>' * 'tensor<32x16xf16>' -> "
            "'tensor<32x32xf32>'");
}

TEST(FrontendVerifier, PointerRules) {
  EXPECT_EQ(
      verifyError("%p: !tt.ptr<f32>, %o: tensor<4xi32>", "    %0 = tt.addptr %p, %o : !tt.ptr<f32>, tensor<4xi32>"),
      "bad.ttir:3:5: error: 'tt.addptr': pointer '!tt.ptr<f32>' and offset 'tensor<4xi32>' must have the same "
      "shape");
  EXPECT_EQ(verifyError("%p: tensor<4x!tt.ptr<f32>>, %m: tensor<8xi1>",
                        "    %0 = \"tt.load\"(%p, %m) : (tensor<4x!tt.ptr<f32>>, tensor<8xi1>) -> tensor<4xf32>"),
            "bad.ttir:3:5: error: 'tt.load': the mask must have type 'tensor<4xi1>', found 'tensor<8xi1>'");
  EXPECT_EQ(verifyError("%p: tensor<4x!tt.ptr<f32>>, %v: tensor<4xf16>",
                        "    \"tt.store\"(%p, %v) : (tensor<4x!tt.ptr<f32>>, tensor<4xf16>) -> ()"),
            "bad.ttir:3:5: error: 'tt.store': the stored value must have type 'tensor<4xf32>', found 'tensor<4xf16>'");
  EXPECT_EQ(verifyError("%p: !tt.ptr<f32>, %v: f32",
                        "    %0 = tt.atomic_rmw fadd, weird, gpu, %p, %v : (!tt.ptr<f32>, f32) -> f32"),
            "bad.ttir:3:5: error: 'tt.atomic_rmw': attribute 'sem' must be one of relaxed, acquire, release, acq_rel");
}

TEST(FrontendVerifier, ReduceAndScanCombiners) {
  EXPECT_EQ(verifyError("%a: tensor<4xf32>", R"(    %0 = "tt.reduce"(%a) <{axis = 0 : i32}> ({
    ^bb0(%x: f32):
      tt.reduce.return %x : f32
    }) : (tensor<4xf32>) -> f32)"),
            "bad.ttir:3:5: error: 'tt.reduce': the combiner must take 2 arguments (accumulated and current values), "
            "found 1");
  EXPECT_EQ(verifyError("%a: tensor<4xf32>", R"(    %0 = "tt.reduce"(%a) <{axis = 0 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      tt.scan.return %s : f32
    }) : (tensor<4xf32>) -> f32)"),
            "bad.ttir:3:5: error: 'tt.reduce': the combiner must end with 'tt.reduce.return'");
  EXPECT_EQ(verifyError("%a: tensor<4x8xf32>", R"(    %0 = "tt.reduce"(%a) <{axis = 0 : i32}> ({
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      tt.reduce.return %s : f32
    }) : (tensor<4x8xf32>) -> tensor<4xf32>)"),
            "bad.ttir:3:5: error: 'tt.reduce': result 0 must have type 'tensor<8xf32>', found 'tensor<4xf32>'");
  EXPECT_EQ(verifyError("%a: tensor<4xf32>", R"(    %0 = "tt.scan"(%a) <{axis = 1 : i32, reverse = false}> ({
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %y : f32
      tt.scan.return %s : f32
    }) : (tensor<4xf32>) -> tensor<4xf32>)"),
            "bad.ttir:3:5: error: 'tt.scan': axis 1 is out of range for 'tensor<4xf32>'");
}

TEST(FrontendVerifier, MapElementwiseRegions) {
  const std::string head = "    %0 = \"tt.map_elementwise\"(%x) <{pack = 2 : i32}> ({\n";
  const std::string tail = "    }) : (tensor<4xf32>) -> tensor<4xf32>";
  EXPECT_EQ(verifyError("%x: tensor<4xf32>", head + "    ^bb0(%a: f32):\n      tt.map_elementwise.return %a : f32\n" + tail),
            "bad.ttir:3:5: error: 'tt.map_elementwise': the region must take 2 arguments (pack 2 per operand), "
            "found 1");
  EXPECT_EQ(verifyError("%x: tensor<4xf32>",
                        head + "    ^bb0(%a: f32, %b: f32):\n      tt.map_elementwise.return %a : f32\n" + tail),
            "bad.ttir:3:5: error: 'tt.map_elementwise': the region must return 2 value(s), found 1");
  EXPECT_EQ(verifyError("%x: tensor<4xf32>", "    %0 = \"tt.map_elementwise\"(%x) <{pack = 0 : i32}> ({\n"
                                              "    ^bb0(%a: f32):\n      tt.map_elementwise.return %a : f32\n" + tail),
            "bad.ttir:3:5: error: 'tt.map_elementwise': attribute 'pack' must be a positive integer");
}

TEST(FrontendVerifier, ControlFlowRules) {
  EXPECT_EQ(verifyError("%n: i32", R"(    %c = arith.constant 0.000000e+00 : f32
    %0 = scf.for %i = %n to %n step %n iter_args(%a = %c) -> (f32)  : i32 {
      scf.yield %i : i32
    })"),
            "bad.ttir:4:5: error: 'scf.for': yielded value 0 must have type 'f32', found 'i32'");
  EXPECT_EQ(verifyError("%n: f32", "    scf.for %i = %n to %n step %n  : f32 {\n    }"),
            "bad.ttir:3:5: error: 'scf.for': the bounds must be integers, found 'f32'");
  EXPECT_EQ(verifyError("%c: i1, %n: i32", "    %0 = scf.if %c -> (i32) {\n      scf.yield %n : i32\n    }"),
            "bad.ttir:3:5: error: 'scf.if': an scf.if with results needs an else region");
  EXPECT_EQ(verifyError("%n: i32", R"(    %0 = scf.while (%i = %n) : (i32) -> i32 {
      %t = arith.cmpi slt, %i, %n : i32
      scf.condition(%t) %t : i1
    } do {
    ^bb0(%j: i32):
      scf.yield %j : i32
    })"),
            "bad.ttir:3:5: error: 'scf.while': forwarded value 0 must have type 'i32', found 'i1'");
  EXPECT_EQ(verifyError("%n: i32", "    %0 = tt.call @nothere(%n) : (i32) -> i32"),
            "bad.ttir:3:5: error: 'tt.call': calls @nothere, which is not a function of the module");
  EXPECT_EQ(verifyError("", "    %0 = tt.get_program_id x : i64"),
            "bad.ttir:3:5: error: 'tt.get_program_id': the result must have type 'i32', found 'i64'");
}

TEST(FrontendVerifier, NamesTheUsersPythonLine) {
  auto module = frontend::parseTtir(R"(#loc = loc("kernel.py":12:8)
module {
  tt.func public @k(%a: i32) {
    %0 = tt.splat %a : i32 -> tensor<4xf32> loc(callsite("triton/language/core.py":10:2 at #loc))
    tt.return
  }
})",
                                    "k.ttir");
  try {
    verify(*module);
    FAIL() << "expected a verifier error";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()),
              "kernel.py:12:8: error: 'tt.splat': the result must be a tensor of 'i32', found 'tensor<4xf32>'");
  }
}

TEST(FrontendVerifier, CatchesBuilderMistakes) {
  Module m;
  Function* f = m.addFunction("k", true);
  Value* x = f->addArgument(Type::f32(), "x");
  Builder b(f->entry());
  b.setLoc(Location::fileLineCol("gen.py", 3, 1));
  b.binary("arith.addi", x, x);
  b.ret();
  EXPECT_THROW(verify(m), CompileError);
  try {
    verify(m);
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()), "gen.py:3:1: error: 'arith.addi': works on integers, found 'f32'");
  }

  Module missingReturn;
  Function* g = missingReturn.addFunction("g", true);
  g->setLoc(Location::fileLineCol("gen.py", 1, 1));
  try {
    verify(missingReturn);
    FAIL() << "expected a verifier error";
  } catch (const CompileError& e) {
    EXPECT_EQ(std::string(e.what()), "gen.py:1:1: error: function @g: the body must end with 'tt.return'");
  }
}
