// The TTIR printer on IR built in code: MLIR's value naming, float spelling,
// the generic form when an op does not fit its pretty form, and that what it
// prints reads back to the same IR.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/ir/builder.h"
#include "tmetal/ir/equivalence.h"
#include "tmetal/ir/float_bits.h"
#include "tmetal/ir/printer.h"
#include "tmetal/ir/verifier.h"

using namespace tmetal;
using namespace tmetal::ir;

namespace {

PrintOptions withoutLocations() {
  PrintOptions o;
  o.locations = false;
  return o;
}

// Prints, reads back and checks the IR is the same; returns the text
// without locations.
std::string printAndReadBack(const Module& m, const EquivalenceOptions& options = {}) {
  std::string text = printModule(m);
  auto again = frontend::parseTtir(text, "printed.ttir");
  EXPECT_EQ(firstDifference(m, *again, options), "") << text;
  return printModule(m, withoutLocations());
}

}  // namespace

TEST(FrontendPrinter, NamesValuesAsMlirDoes) {
  Module m;
  Function* f = m.addFunction("add", true);
  Value* x = f->addArgument(Type::pointer(Type::f32()));
  Value* n = f->addArgument(Type::i32(), "n");
  Builder b(f->entry());
  Value* pid = b.programId(0);
  pid->setName("pid");
  Value* range = b.makeRange(0, 4);
  Value* ptrs = b.addPtr(b.splat(x, {4}), range);
  Value* mask = b.cmpi("slt", range, b.splat(n, {4}));
  mask->setName("pid");  // a clash: printed as %pid_0
  b.store(ptrs, b.load(ptrs, mask), mask);
  b.ret();
  verify(m);
  EquivalenceOptions sameButNames;
  sameButNames.names = false;  // the second "pid" reads back as "pid_0"
  EXPECT_EQ(printAndReadBack(m, sameButNames),
            "module {\n"
            "  tt.func public @add(%arg0: !tt.ptr<f32>, %n: i32) {\n"
            "    %pid = tt.get_program_id x : i32\n"
            "    %0 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32>\n"
            "    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>>\n"
            "    %2 = tt.addptr %1, %0 : tensor<4x!tt.ptr<f32>>, tensor<4xi32>\n"
            "    %3 = tt.splat %n : i32 -> tensor<4xi32>\n"
            "    %pid_0 = arith.cmpi slt, %0, %3 : tensor<4xi32>\n"
            "    %4 = tt.load %2, %pid_0 : tensor<4x!tt.ptr<f32>>\n"
            "    tt.store %2, %4, %pid_0 : tensor<4x!tt.ptr<f32>>\n"
            "    tt.return\n"
            "  }\n"
            "}\n");
}

TEST(FrontendPrinter, NumbersNestedRegionsAfterTheirParent) {
  auto m = frontend::parseTtir(R"(module {
  tt.func public @k(%c: i1, %n: i32) {
    %0 = scf.if %c -> (i32) {
      %5 = arith.addi %n, %n : i32
      scf.yield %5 : i32
    } else {
      %6 = arith.subi %n, %n : i32
      scf.yield %6 : i32
    }
    %1 = arith.muli %0, %0 : i32
    tt.return
  }
})",
                               "k.ttir");
  // Both branches start after the function's last number (%1), as in MLIR.
  EXPECT_EQ(printModule(*m, withoutLocations()), R"(module {
  tt.func public @k(%c: i1, %n: i32) {
    %0 = scf.if %c -> (i32) {
      %2 = arith.addi %n, %n : i32
      scf.yield %2 : i32
    } else {
      %2 = arith.subi %n, %n : i32
      scf.yield %2 : i32
    }
    %1 = arith.muli %0, %0 : i32
    tt.return
  }
}
)");
}

TEST(FrontendPrinter, SpellsFloatsAsMlirDoes) {
  EXPECT_EQ(formatFloatLiteral(1.0, ScalarKind::F32), "1.000000e+00");
  EXPECT_EQ(formatFloatLiteral(-0.5, ScalarKind::F16), "-5.000000e-01");
  EXPECT_EQ(formatFloatLiteral(0.0, ScalarKind::F32), "0.000000e+00");
  // Six digits do not give the float back: LLVM's shortest exact spelling.
  EXPECT_EQ(formatFloatLiteral(roundToFloat(0.70710678118654752, ScalarKind::F32), ScalarKind::F32), "0.707106769");
  EXPECT_EQ(formatFloatLiteral(roundToFloat(1.0e-7, ScalarKind::F32), ScalarKind::F32), "1.000000e-07");
  EXPECT_EQ(formatFloatLiteral(roundToFloat(3.14159265358979, ScalarKind::F32), ScalarKind::F32), "3.14159274");
  // Infinities, NaNs and numbers whose exact spelling has no '.' are bit patterns.
  EXPECT_EQ(formatFloatLiteral(-std::numeric_limits<double>::infinity(), ScalarKind::F32), "0xFF800000");
  EXPECT_EQ(formatFloatLiteral(std::numeric_limits<double>::quiet_NaN(), ScalarKind::F16), "0x7E00");
  EXPECT_EQ(formatFloatLiteral(std::numeric_limits<double>::infinity(), ScalarKind::BF16), "0x7F80");
  EXPECT_EQ(formatFloatLiteral(16777217.0, ScalarKind::F64), "0x4170000010000000");
}

TEST(FrontendPrinter, ConvertsFloatBitsExactly) {
  EXPECT_EQ(floatToBits(1.0, ScalarKind::F16), 0x3C00u);
  EXPECT_EQ(floatToBits(1.0, ScalarKind::BF16), 0x3F80u);
  EXPECT_EQ(floatToBits(65520.0, ScalarKind::F16), 0x7C00u);               // rounds up to infinity
  EXPECT_EQ(floatToBits(std::ldexp(1.0, -24), ScalarKind::F16), 0x0001u);  // smallest subnormal
  EXPECT_EQ(floatToBits(std::ldexp(1.0, -25), ScalarKind::F16), 0x0000u);  // a tie rounds to even
  EXPECT_EQ(floatFromBits(0x0001, ScalarKind::F16), std::ldexp(1.0, -24));
  EXPECT_EQ(floatToBits(floatFromBits(0x7F800001, ScalarKind::F32), ScalarKind::F32), 0x7F800001u);  // NaN payload
  EXPECT_EQ(roundToFloat(1.0 + std::ldexp(1.0, -9), ScalarKind::BF16), 1.0);
}

TEST(FrontendPrinter, UsesTheGenericFormWhenThePrettyFormCannotSayIt) {
  Module m;
  Function* f = m.addFunction("k", true);
  Value* a = f->addArgument(Type::i32(), "a");
  Value* c = f->addArgument(Type::f32(), "c");
  Builder b(f->entry());
  // Operands of different types: `arith.addi %a, %c : i32` would be wrong.
  b.create("arith.addi", {a, c}, {Type::i32()});
  b.ret();
  EXPECT_EQ(printAndReadBack(m),
            "module {\n"
            "  tt.func public @k(%a: i32, %c: f32) {\n"
            "    %0 = \"arith.addi\"(%a, %c) : (i32, f32) -> i32\n"
            "    tt.return\n"
            "  }\n"
            "}\n");
}

TEST(FrontendPrinter, PrintsLocationsInline) {
  Module m;
  m.setLoc(Location::fileLineCol("k.py", 1, 0));
  Function* f = m.addFunction("k", true);
  f->setLoc(Location::fileLineCol("k.py", 1, 0));
  Value* a = f->addArgument(Type::i32(), "a", {}, Location::named("a", Location::fileLineCol("k.py", 1, 0)));
  Builder b(f->entry());
  b.setLoc(Location::callSite(Location::fileLineCol("triton/language/standard.py", 40, 11),
                              Location::named("s", Location::fileLineCol("k.py", 3, 8))));
  b.binary("arith.addi", a, a);
  b.setLoc(Location());
  b.ret();
  EXPECT_EQ(printModule(m),
            "module {\n"
            "  tt.func public @k(%a: i32 loc(\"a\"(\"k.py\":1:0))) {\n"
            "    %0 = arith.addi %a, %a : i32 loc(callsite(\"triton/language/standard.py\":40:11 at "
            "\"s\"(\"k.py\":3:8)))\n"
            "    tt.return loc(unknown)\n"
            "  } loc(\"k.py\":1:0)\n"
            "} loc(\"k.py\":1:0)\n");
  printAndReadBack(m);
}

TEST(FrontendPrinter, QuotesSymbolsAndStringsThatNeedIt) {
  auto m = frontend::parseTtir(R"ttir(module {
  tt.func public @k(%x: f32) {
    tt.print "tab\09and \22quotes\22" {hex = false, isSigned = array<i32: 0>} : %x : f32
    %r = tt.call @"lib.f(0, 1)"(%x) : (f32) -> f32
    tt.return
  }
  tt.func private @"lib.f(0, 1)"(%y: f32) -> f32 {
    tt.return %y : f32
  }
})ttir",
                               "k.ttir");
  verify(*m);
  std::string text = printAndReadBack(*m);
  EXPECT_NE(text.find(R"(tt.print "tab\09and \22quotes\22" {hex = false, isSigned = array<i32: 0>} : %x : f32)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(R"ttir(%r = tt.call @"lib.f(0, 1)"(%x) : (f32) -> f32)ttir"), std::string::npos) << text;
  EXPECT_NE(text.find(R"ttir(tt.func private @"lib.f(0, 1)"(%y: f32) -> f32 {)ttir"), std::string::npos) << text;
}
