// Exact diagnostics of the TTIR reader for malformed and unsupported input:
// every one names the file, line and column.
#include <gtest/gtest.h>

#include <string>

#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/support/diagnostic.h"

using tmetal::CompileError;
using tmetal::frontend::parseTtir;

namespace {

std::string errorOf(const std::string& text) {
  try {
    parseTtir(text, "bad.ttir");
  } catch (const CompileError& e) {
    return e.what();
  }
  return "no error";
}

// A kernel taking `args` whose body is `body` followed by tt.return.
std::string kernel(const std::string& args, const std::string& body) {
  return "module {\n  tt.func public @k(" + args + ") {\n" + body + "\n    tt.return\n  }\n}\n";
}

}  // namespace

TEST(FrontendErrors, UnsupportedOpNamesTheOpAtItsName) {
  EXPECT_EQ(errorOf(kernel("", "    tt.foo")), "bad.ttir:3:5: error: unsupported op 'tt.foo'");
  EXPECT_EQ(errorOf(kernel("%a: i32", "    %0 = ttg.convert_layout %a : i32 -> i32")),
            "bad.ttir:3:10: error: unsupported op 'ttg.convert_layout'");
  EXPECT_EQ(errorOf(kernel("%a: i32", "    %0 = \"tt.foo\"(%a) : (i32) -> i32")),
            "bad.ttir:3:10: error: unsupported op 'tt.foo'");
  EXPECT_EQ(errorOf(kernel("", "    %0 = ub.foo : i32")), "bad.ttir:3:10: error: unsupported op 'ub.foo'");
  EXPECT_EQ(errorOf("module {\n  arith.foo\n}\n"), "bad.ttir:2:3: error: unsupported op 'arith.foo'");
}

TEST(FrontendErrors, UndefinedAndRedefinedValues) {
  EXPECT_EQ(errorOf(kernel("%a: i32", "    %0 = arith.addi %a, %b : i32")),
            "bad.ttir:3:25: error: use of undefined value '%b'");
  EXPECT_EQ(errorOf(kernel("%a: i32", "    %a = arith.addi %a, %a : i32")),
            "bad.ttir:3:5: error: redefinition of value '%a'");
  EXPECT_EQ(errorOf(kernel("%a: i32", "    %0 = arith.addi %a#1, %a : i32")),
            "bad.ttir:3:21: error: result #1 of '%a' does not exist ('%a' names 1 result(s))");
  // A value of one region is not visible in its sibling.
  EXPECT_EQ(errorOf(kernel("%c: i1",
                           "    scf.if %c {\n      %x = arith.addi %c, %c : i1\n    } else {\n"
                           "      %y = arith.addi %x, %x : i1\n    }")),
            "bad.ttir:6:23: error: use of undefined value '%x'");
}

TEST(FrontendErrors, TypeMismatchBetweenValueAndText) {
  EXPECT_EQ(errorOf(kernel("%a: i32, %f: f32", "    %0 = arith.addi %a, %f : i32")),
            "bad.ttir:3:25: error: type mismatch: '%f' has type 'f32' but is used here as 'i32'");
  EXPECT_EQ(errorOf(kernel("%p: tensor<4x!tt.ptr<f32>>, %m: tensor<4xi32>",
                           "    %0 = tt.load %p, %m : tensor<4x!tt.ptr<f32>>")),
            "bad.ttir:3:22: error: type mismatch: '%m' has type 'tensor<4xi32>' but is used here as 'tensor<4xi1>'");
  EXPECT_EQ(errorOf(kernel("%a: i32", "    %0 = tt.load %a : i32")),
            "bad.ttir:3:23: error: 'tt.load' needs a pointer or a tensor of pointers, found 'i32'");
}

TEST(FrontendErrors, WrongOperandAndResultCounts) {
  EXPECT_EQ(errorOf(kernel("%a: i32", "    %0 = arith.addi %a, %a, %a : i32")),
            "bad.ttir:3:10: error: 'arith.addi' takes 2 operand(s), found 3");
  EXPECT_EQ(errorOf(kernel("%a: i32", "    %0:2 = arith.addi %a, %a : i32")),
            "bad.ttir:3:5: error: 'arith.addi' defines 1 result(s) but 2 are named before '='");
  EXPECT_EQ(errorOf(kernel("%a: tensor<4x2xf32>", "    %0 = tt.split %a : tensor<4x2xf32> -> tensor<4xf32>")),
            "bad.ttir:3:5: error: 'tt.split' defines 2 result(s) but 1 is named before '='");
}

TEST(FrontendErrors, UnterminatedConstructs) {
  EXPECT_EQ(errorOf("module {\n  tt.func public @k(%a: i32) {\n    %0 = arith.addi %a, %a : i32\n"),
            "bad.ttir:4:1: error: unterminated function body: expected '}' to close the '{' at line 2, column 30");
  EXPECT_EQ(errorOf("module {\n"),
            "bad.ttir:2:1: error: unterminated module: expected '}' to close the module opened at line 1, column 8");
  EXPECT_EQ(errorOf(kernel("", "    tt.print \"abc : i32")),
            "bad.ttir:3:14: error: unterminated string (a string must end with '\"' on the same line)");
  EXPECT_EQ(errorOf(kernel("%a: i32", "    %0 = arith.addi %a, %a : tensor<4xi32")),
            "bad.ttir:4:5: error: expected '>' to close the tensor type, found 'tt.return'");
}

TEST(FrontendErrors, SyntaxErrors) {
  EXPECT_EQ(errorOf(kernel("%a: i32", "    %0 = arith.addi %a, %a i32")),
            "bad.ttir:3:28: error: expected ':' before the operand type, found 'i32'");
  EXPECT_EQ(errorOf(kernel("%a: i32", "    %0 = arith.addi %a, %a : i32 ~")),
            "bad.ttir:3:34: error: unexpected character '~'");
  EXPECT_EQ(errorOf(kernel("", "    %0 = tt.get_program_id w : i32")),
            "bad.ttir:3:28: error: expected the grid axis x, y or z, found 'w'");
  EXPECT_EQ(errorOf(kernel("", "    tt.print \"a\\q\" {hex = false, isSigned = array<i32>}")),
            "bad.ttir:3:16: error: unknown escape in string: expected \\\\, \\\", \\n, \\t or two hex digits after "
            "'\\'");
  EXPECT_EQ(errorOf(""), "bad.ttir:1:1: error: expected 'module', found end of file");
  EXPECT_EQ(errorOf("module {\n}\nmodule {\n}\n"),
            "bad.ttir:3:1: error: a TTIR file holds one module; found a second 'module'");
  EXPECT_EQ(errorOf(kernel("%a: i32", "    scf.for %i = %a to %a step %a {\n    }")),
            "bad.ttir:3:35: error: expected ': i32' or ': i64' (an scf.for without it counts in 'index', which "
            "tmetal does not support), found '{'");
}

TEST(FrontendErrors, UnsupportedTypesAndForms) {
  EXPECT_EQ(errorOf(kernel("%a: f8E3M4", "")),
            "bad.ttir:2:25: error: unsupported type 'f8E3M4': tmetal supports i1, i8, i16, i32, i64, f16, bf16, f32, "
            "f64, f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, f8E4M3B11FNUZ, pointers and tensors of them");
  EXPECT_EQ(errorOf(kernel("%a: tensor<4xf32, #blocked>", "")),
            "bad.ttir:2:37: error: tensor encodings (TritonGPU layouts) are not supported: tmetal reads TTIR, not "
            "TTGIR");
  EXPECT_EQ(errorOf(kernel("%a: tensor<?xf32>", "")),
            "bad.ttir:2:32: error: dynamic tensor dimensions ('?') are not supported");
  EXPECT_EQ(errorOf("module {\n  tt.func private @f(i32) -> i32\n}\n"),
            "bad.ttir:2:22: error: function declarations (arguments without names, no body) are not supported");
  // A function body may have blocks (returns inside if), each ending once.
  EXPECT_EQ(errorOf(kernel("%a: i32", "    tt.return\n  ^bb1:\n    tt.return")),
            "bad.ttir:6:5: error: 'tt.return' ends its block: no operation may follow it before the closing '}'");
  // An op after a terminator (the reader found it; printed back it would read
  // as the terminator's operand).
  EXPECT_EQ(errorOf(kernel("%n: i32", "    tt.return %n : i32")),
            "bad.ttir:4:5: error: 'tt.return' ends its block: no operation may follow it before the closing '}'");
  EXPECT_EQ(errorOf(kernel("%n: i32", "    tt.return %n : i32 %c = arith.constant 1 : i32")),
            "bad.ttir:3:24: error: 'tt.return' ends its block: no operation may follow it before the closing '}'");
  EXPECT_EQ(errorOf(kernel("%n: i32", "    scf.yield")),
            "bad.ttir:4:5: error: 'scf.yield' ends its block: no operation may follow it before the closing '}'");
  EXPECT_EQ(errorOf("#blocked = #ttg.blocked<{sizePerThread = [1]}>\nmodule {\n}\n"),
            "bad.ttir:1:12: error: unsupported attribute '#ttg.blocked': TritonGPU layouts belong to TTGIR; tmetal "
            "reads TTIR (Triton's 'ttir' stage)");
}

TEST(FrontendErrors, AttributeAliases) {
  // Triton's loop annotations (tl.range(..., disable_licm=True)) are aliases
  // of LLVM dialect attributes; they are kept as text.
  const std::string loops = "#loop_licm = #llvm.loop_licm<disable = true>\n"
                            "#loop_annotation = #llvm.loop_annotation<licm = #loop_licm>\n";
  EXPECT_EQ(errorOf(loops + kernel("%n: i32", "    %0 = arith.addi %n, %n {tag = #loop_annotation} : i32")), "no error");
  EXPECT_EQ(errorOf(kernel("%n: i32", "    %0 = arith.addi %n, %n {tag = #nothere} : i32")),
            "bad.ttir:3:35: error: undefined attribute alias '#nothere'");
  EXPECT_EQ(errorOf("#a = #llvm.x<b = #a>\n" + kernel("%n: i32", "    %0 = arith.addi %n, %n {tag = #a} : i32")),
            "bad.ttir:1:18: error: attribute alias '#a' is defined in terms of itself");
  EXPECT_EQ(errorOf("#a = #llvm.x<b = 1\n" + kernel("%n: i32", "")),
            "bad.ttir:1:6: error: dialect attribute '#llvm.x' is not closed with '>'");
  EXPECT_EQ(errorOf("#l = loc(\"f.py\":1:1)\n" + kernel("%n: i32", "    %0 = arith.addi %n, %n {tag = #l} : i32")),
            "bad.ttir:4:35: error: alias '#l' is a location, not an attribute");
}

TEST(FrontendErrors, BadConstants) {
  EXPECT_EQ(errorOf(kernel("", "    %0 = arith.constant 300 : i8")),
            "bad.ttir:3:25: error: integer 300 does not fit in 'i8'");
  EXPECT_EQ(errorOf(kernel("", "    %0 = arith.constant 1 : f32")),
            "bad.ttir:3:25: error: expected a float literal like 1.0 for type 'f32', found the integer '1'");
  EXPECT_EQ(errorOf(kernel("", "    %0 = arith.constant dense<[1, 2, 3]> : tensor<4xi32>")),
            "bad.ttir:3:25: error: dense literal of shape [3] does not match its type 'tensor<4xi32>'");
  EXPECT_EQ(errorOf(kernel("", "    %0 = arith.constant dense<[[1, 2], [3]]> : tensor<2x2xi32>")),
            "bad.ttir:3:40: error: the nested lists of a dense literal must all have the same length at each depth");
  EXPECT_EQ(errorOf(kernel("", "    %0 = arith.constant 0x1FFFF : f16")),
            "bad.ttir:3:25: error: bit pattern for 'f16' '0x1FFFF' is too large");
  EXPECT_EQ(errorOf(kernel("", "    %0 = arith.constant dense<1.5> : tensor<4xi32>")),
            "bad.ttir:3:31: error: a float literal is not a value of type 'i32'");
}

TEST(FrontendErrors, LocationAliases) {
  EXPECT_EQ(errorOf(kernel("", "    tt.print \"x\" {hex = false, isSigned = array<i32>} loc(#loc9)")),
            "bad.ttir:3:59: error: undefined location alias '#loc9'");
  EXPECT_EQ(errorOf("#loc1 = loc(\"a\"(#loc2))\n#loc2 = loc(\"b\"(#loc1))\nmodule {\n} loc(#loc1)\n"),
            "bad.ttir:2:17: error: location alias '#loc1' is defined in terms of itself");
  EXPECT_EQ(errorOf("#loc1 = loc(unknown)\n#loc1 = loc(unknown)\nmodule {\n}\n"),
            "bad.ttir:2:1: error: redefinition of alias '#loc1'");
  EXPECT_EQ(errorOf("module {\n} loc(\"f.py\":x:1)\n"),
            "bad.ttir:2:14: error: expected an integer as the line of the location, found 'x'");
}

TEST(FrontendErrors, NestingIsBounded) {
  std::string deepType;
  for (int i = 0; i < 200; ++i) deepType += "!tt.ptr<";
  deepType += "f32";
  for (int i = 0; i < 200; ++i) deepType += ">";
  EXPECT_EQ(errorOf(kernel("%a: " + deepType, "")),
            "bad.ttir:2:1049: error: nesting too deep: regions, types, attributes and locations may nest at most 128 "
            "levels");

  std::string deepRegions = "module {\n  tt.func public @k(%c: i1) {\n";
  for (int i = 0; i < 300; ++i) deepRegions += "scf.if %c {\n";
  EXPECT_EQ(errorOf(deepRegions),
            "bad.ttir:130:11: error: nesting too deep: regions, types, attributes and locations "
            "may nest at most 128 levels");

  // A chain of aliases, each named around the next: the expanded location
  // would nest 1000 deep.
  std::string chain = "#loc0 = loc(\"f.py\":1:1)\n";
  for (int i = 1; i < 1000; ++i)
    chain += "#loc" + std::to_string(i) + " = loc(\"n\"(#loc" + std::to_string(i - 1) + "))\n";
  chain += "module {\n} loc(#loc999)\n";
  EXPECT_EQ(errorOf(chain), "bad.ttir:129:15: error: location nests too deep (more than 128 levels, aliases expanded)");

  // Each alias uses the previous one twice: 2^41 - 1 parts once expanded.
  std::string doubling = "#loc0 = loc(\"f.py\":1:1)\n";
  for (int i = 1; i <= 40; ++i)
    doubling += "#loc" + std::to_string(i) + " = loc(callsite(#loc" + std::to_string(i - 1) + " at #loc" +
                std::to_string(i - 1) + "))\n";
  doubling += "module {\n} loc(#loc40)\n";
  EXPECT_EQ(errorOf(doubling), "bad.ttir:9:13: error: location is too large (more than 256 parts, aliases expanded)");

  // Aliases that only name the next alias add no depth but do recurse.
  std::string forward;
  for (int i = 0; i < 1000; ++i) forward += "#loc" + std::to_string(i) + " = loc(#loc" + std::to_string(i + 1) + ")\n";
  forward += "#loc1000 = loc(\"f.py\":1:1)\nmodule {\n} loc(#loc0)\n";
  EXPECT_EQ(errorOf(forward),
            "bad.ttir:257:11: error: location nests too deep (more than 512 levels of parts and aliases)");
}

namespace {
// A kernel whose body is `blocks` as written (labels and branches included).
std::string blocks(const std::string& body) {
  return "module {\n  tt.func public @k(%c: i1, %p: !tt.ptr<i32>) {\n" + body + "\n  }\n}\n";
}
}  // namespace

TEST(FrontendErrors, ReturnsInsideIfBecomeScfIf) {
  // Triton's `if c: return` and a block shared by two paths, with an argument.
  EXPECT_EQ(errorOf(blocks("    %one = arith.constant 1 : i32\n"
                           "    cf.cond_br %c, ^bb1, ^bb2(%one : i32)\n"
                           "  ^bb1:\n"
                           "    cf.cond_br %c, ^bb2(%one : i32), ^bb3\n"
                           "  ^bb2(%v: i32):\n"
                           "    tt.store %p, %v : !tt.ptr<i32>\n"
                           "    tt.return\n"
                           "  ^bb3:\n"
                           "    tt.return")),
            "no error");
  // In a function with results every scf.if yields what its paths return
  // (the verifier checks the yields against the results).
  EXPECT_EQ(errorOf("module {\n"
                    "  tt.func private @f(%c: i1, %a: i32) -> i32 {\n"
                    "    cf.cond_br %c, ^bb1, ^bb2\n"
                    "  ^bb1:\n"
                    "    tt.return %a : i32\n"
                    "  ^bb2:\n"
                    "    %z = arith.constant 0 : i32\n"
                    "    tt.return %z : i32\n"
                    "  }\n"
                    "  tt.func public @k(%c: i1, %p: !tt.ptr<i32>) {\n"
                    "    tt.return\n"
                    "  }\n"
                    "}\n"),
            "no error");
  EXPECT_EQ(errorOf(blocks("    cf.cond_br %c, ^bb1, ^bb9\n  ^bb1:\n    tt.return")),
            "bad.ttir:3:26: error: branch to undefined block '^bb9'");
  EXPECT_EQ(errorOf(blocks("    cf.br ^bb1(%c : i1)\n  ^bb1:\n    tt.return")),
            "bad.ttir:3:11: error: the branch passes 1 value(s) to '^bb1', which takes 0");
  EXPECT_EQ(errorOf(blocks("    cf.br ^bb1\n    tt.return\n  ^bb1:\n    tt.return")),
            "bad.ttir:4:5: error: a branch ends its block: no operation may follow it before the closing '}'");
  EXPECT_EQ(errorOf(blocks("    %one = arith.constant 1 : i32\n  ^bb1:\n    tt.return")),
            "bad.ttir:4:3: error: the block before '^bb1' must end in tt.return or a branch");
  // A value defined on one path and used on another: MLIR's dominance.
  EXPECT_EQ(errorOf(blocks("    cf.cond_br %c, ^bb1, ^bb2\n"
                           "  ^bb1:\n"
                           "    %one = arith.constant 1 : i32\n"
                           "    cf.br ^bb2\n"
                           "  ^bb2:\n"
                           "    tt.store %p, %one : !tt.ptr<i32>\n"
                           "    tt.return")),
            "bad.ttir:8:5: error: a value is used on a path where it is not defined (its definition does not dominate "
            "the use)");
}

TEST(FrontendErrors, UnstructuredLoopsAndPathExplosionsAreRefused) {
  // A branch back to a block on its own path would have copied the block
  // forever (the TTIR fuzzer found a block branching to itself): an error at
  // the branch.
  const std::string loop = "error: a branch back to a block on its own path (a loop in unstructured control flow): "
                           "only branches toward returns are supported; write loops as scf.for or scf.while";
  EXPECT_EQ(errorOf(blocks("    cf.cond_br %c, ^bb1, ^bb2\n"
                           "  ^bb1:\n"
                           "    cf.cond_br %c, ^bb2, ^bb1\n"
                           "  ^bb2:\n"
                           "    tt.return")),
            "bad.ttir:5:5: " + loop);
  EXPECT_EQ(errorOf(blocks("    cf.br ^bb1\n"
                           "  ^bb1:\n"
                           "    %one = arith.constant 1 : i32\n"
                           "    cf.br ^bb2\n"
                           "  ^bb2:\n"
                           "    cf.cond_br %c, ^bb1, ^bb3\n"
                           "  ^bb3:\n"
                           "    tt.return")),
            "bad.ttir:8:5: " + loop);
  // 40 diamonds of empty blocks in a row are 2^40 paths that copy no ops:
  // the blocks entered are counted too.
  std::string diamonds = "    cf.br ^bb0x\n";
  for (int i = 0; i < 40; ++i) {
    const std::string n = std::to_string(i), next = std::to_string(i + 1);
    diamonds += "  ^bb" + n + "x:\n    cf.cond_br %c, ^bb" + n + "a, ^bb" + n + "b\n  ^bb" + n + "a:\n    cf.br ^bb" +
                next + "x\n  ^bb" + n + "b:\n    cf.br ^bb" + next + "x\n";
  }
  diamonds += "  ^bb40x:\n    tt.return";
  const std::string error = errorOf(blocks(diamonds));
  EXPECT_NE(error.find("error: the function's early returns lead through more than 100000 block copies; "
                       "restructure the kernel's returns"),
            std::string::npos)
      << error;
}
