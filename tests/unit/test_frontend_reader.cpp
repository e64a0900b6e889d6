// What the TTIR reader builds from Triton's text: ops and their attributes as
// ops.def stores them, value names, locations (aliases, call sites, text
// positions when there is no loc), multi-result values, constants.
#include <gtest/gtest.h>

#include <string>

#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/ir/float_bits.h"
#include "tmetal/ir/verifier.h"

using namespace tmetal;
using namespace tmetal::ir;

namespace {

std::unique_ptr<Module> read(const std::string& text) {
  auto module = frontend::parseTtir(text, "k.ttir");
  verify(*module);
  return module;
}

// The ops of the kernel's body, in order.
std::vector<const Operation*> bodyOps(const Module& m) {
  std::vector<const Operation*> ops;
  for (const auto& op : m.kernel()->entry()->ops()) ops.push_back(op.get());
  return ops;
}

const std::string kAddKernel = R"(#loc = loc("/k.py":25:0)
#loc15 = loc("x_ptr"(#loc))
module {
  tt.func public @add_kernel(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("x_ptr"(#loc)), %n: i32 loc("n"(#loc))) attributes {noinline = false} {
    %c1024_i32 = arith.constant 1024 : i32 loc(#loc2)
    %pid = tt.get_program_id x : i32 loc(#loc20)
    %offs = arith.muli %pid, %c1024_i32 : i32 loc(#loc21)
    %offs_0 = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32> loc(#loc22)
    %offs_1 = tt.splat %offs : i32 -> tensor<1024xi32> loc(#loc21)
    %offs_2 = arith.addi %offs_1, %offs_0 : tensor<1024xi32> loc(#loc21)
    %mask = tt.splat %n : i32 -> tensor<1024xi32> loc(#loc21)
    %mask_3 = arith.cmpi slt, %offs_2, %mask : tensor<1024xi32> loc(#loc21)
    %x = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>> loc(#loc21)
    %x_4 = tt.addptr %x, %offs_2 : tensor<1024x!tt.ptr<f32>>, tensor<1024xi32> loc(#loc21)
    %y = arith.constant dense<0.000000e+00> : tensor<1024xf32> loc(#loc21)
    %x_5 = tt.load %x_4, %mask_3, %y cacheModifier = cg evictionPolicy = evict_last : tensor<1024x!tt.ptr<f32>> loc(#loc21)
    tt.store %x_4, %x_5, %mask_3 : tensor<1024x!tt.ptr<f32>> loc(#loc21)
    tt.return loc(#loc14)
  } loc(#loc)
} loc(#loc)
#loc2 = loc(unknown)
#loc3 = loc("/k.py":26:24)
#loc14 = loc("/k.py":31:4)
#loc20 = loc("pid"(#loc3))
#loc21 = loc(callsite(#loc14 at #loc20))
#loc22 = loc("offs"(#loc3))
)";

}  // namespace

TEST(FrontendReader, ReadsFunctionArgumentsWithAttributesAndLocations) {
  auto m = read(kAddKernel);
  const Function* f = m->kernel();
  EXPECT_EQ(f->name(), "add_kernel");
  EXPECT_TRUE(f->isPublic());
  ASSERT_EQ(f->numArguments(), 2u);
  EXPECT_EQ(f->argument(0)->type(), Type::pointer(Type::f32()));
  EXPECT_EQ(f->argument(0)->name(), "x_ptr");
  EXPECT_EQ(f->argDivisibility(0), 16);
  EXPECT_EQ(f->argDivisibility(1), 1);
  EXPECT_EQ(f->argument(0)->loc().str(), R"(loc("x_ptr"("/k.py":25:0)))");
  EXPECT_EQ(f->argument(1)->type(), Type::i32());
  const Attribute* noinline = f->attrs().find("noinline");
  ASSERT_NE(noinline, nullptr);
  EXPECT_EQ(*noinline, Attribute::boolean(false));
  EXPECT_EQ(f->loc().str(), R"(loc("/k.py":25:0))");
  EXPECT_EQ(m->loc().str(), R"(loc("/k.py":25:0))");
}

TEST(FrontendReader, ResolvesAliasesDefinedAfterTheirUse) {
  auto m = read(kAddKernel);
  auto ops = bodyOps(*m);
  EXPECT_TRUE(ops[0]->loc().isUnknown());  // #loc2 = loc(unknown)
  EXPECT_EQ(ops[1]->loc().str(), R"(loc("pid"("/k.py":26:24)))");
  // #loc21 = callsite(#loc14 at #loc20): the user's line is the caller's.
  EXPECT_EQ(ops[2]->loc().kind(), Location::Kind::CallSite);
  EXPECT_EQ(ops[2]->loc().userPos().str(), "/k.py:26:24");
  EXPECT_EQ(ops[2]->loc().userName(), "pid");
  EXPECT_EQ(ops.back()->loc().str(), R"(loc("/k.py":31:4))");
}

TEST(FrontendReader, StoresOpAttributesAsOpsDefSays) {
  auto m = read(kAddKernel);
  auto ops = bodyOps(*m);
  EXPECT_EQ(ops[0]->kind(), OpKind::ArithConstant);
  EXPECT_EQ(*ops[0]->attr("value"), Attribute::integer(1024, Type::i32()));
  EXPECT_EQ(ops[1]->intAttr("axis"), 0);
  EXPECT_EQ(ops[3]->intAttr("start"), 0);
  EXPECT_EQ(ops[3]->intAttr("end"), 1024);
  EXPECT_EQ(ops[3]->result()->type(), Type::tensor({1024}, Type::i32()));
  EXPECT_EQ(ops[6]->kind(), OpKind::TtSplat);
  EXPECT_EQ(ops[7]->symbolAttr("predicate"), "slt");
  EXPECT_EQ(ops[7]->result()->type(), Type::tensor({1024}, Type::i1()));
  const Operation* load = ops[11];
  EXPECT_EQ(load->kind(), OpKind::TtLoad);
  EXPECT_EQ(load->numOperands(), 3u);
  EXPECT_EQ(load->symbolAttr("cache"), "cg");
  EXPECT_EQ(load->symbolAttr("evict"), "evict_last");
  EXPECT_EQ(load->result()->type(), Type::tensor({1024}, Type::f32()));
  const Attribute* zero = ops[10]->attr("value");
  ASSERT_TRUE(zero->isSplat());
  EXPECT_EQ(zero->elements()[0], Attribute::floating(0.0, Type::f32()));
  EXPECT_EQ(ops[12]->kind(), OpKind::TtStore);
  EXPECT_EQ(ops[12]->numOperands(), 3u);
  EXPECT_EQ(ops[12]->numResults(), 0u);
}

TEST(FrontendReader, WiresOperandsToTheirDefinitions) {
  auto m = read(kAddKernel);
  auto ops = bodyOps(*m);
  const Function* f = m->kernel();
  EXPECT_EQ(ops[2]->operand(0), ops[1]->result());
  EXPECT_EQ(ops[2]->operand(1), ops[0]->result());
  EXPECT_EQ(ops[6]->operand(0), f->argument(1));
  EXPECT_EQ(ops[12]->operand(1), ops[11]->result());
}

TEST(FrontendReader, KeepsNamesButNotNumbersOrDefaultArgumentNames) {
  auto m = read(R"(module {
  tt.func public @k(%arg0: i32, %named: i32) {
    %0 = arith.addi %arg0, %named : i32
    %sum_1 = arith.addi %0, %0 : i32
    tt.return
  }
})");
  const Function* f = m->kernel();
  EXPECT_EQ(f->argument(0)->name(), "");
  EXPECT_EQ(f->argument(1)->name(), "named");
  auto ops = bodyOps(*m);
  EXPECT_EQ(ops[0]->result()->name(), "");
  EXPECT_EQ(ops[1]->result()->name(), "sum_1");
}

TEST(FrontendReader, GivesOpsWithoutLocTheirPositionInTheText) {
  auto m = read("module {\n  tt.func public @k(%a: i32) {\n    %0 = arith.addi %a, %a : i32\n    tt.return\n  }\n}\n");
  auto ops = bodyOps(*m);
  EXPECT_EQ(ops[0]->loc().str(), R"(loc("k.ttir":3:5))");
  EXPECT_EQ(ops[1]->loc().str(), R"(loc("k.ttir":4:5))");
  EXPECT_EQ(m->kernel()->argument(0)->loc().str(), R"(loc("k.ttir":2:21))");
  EXPECT_EQ(m->kernel()->loc().str(), R"(loc("k.ttir":2:3))");
}

TEST(FrontendReader, ReadsGenericReduceWithTwoResults) {
  auto m = read(R"(module {
  tt.func public @argmax(%arg0: tensor<16x32xf32>, %arg1: tensor<16x32xi32>) {
    %11:2 = "tt.reduce"(%arg0, %arg1) <{axis = 1 : i32}> ({
    ^bb0(%arg3: f32, %arg4: i32, %arg5: f32, %arg6: i32):
      %19 = arith.cmpf ogt, %arg3, %arg5 : f32
      %24 = arith.select %19, %arg3, %arg5 : f32
      %25 = arith.select %19, %arg4, %arg6 : i32
      tt.reduce.return %24, %25 : f32, i32
    }) : (tensor<16x32xf32>, tensor<16x32xi32>) -> (tensor<16xf32>, tensor<16xi32>)
    %12 = arith.addi %11#1, %11#1 : tensor<16xi32>
    %13 = math.exp %11#0 : tensor<16xf32>
    tt.return
  }
})");
  auto ops = bodyOps(*m);
  const Operation* reduce = ops[0];
  EXPECT_EQ(reduce->kind(), OpKind::TtReduce);
  EXPECT_EQ(reduce->intAttr("axis"), 1);
  ASSERT_EQ(reduce->numResults(), 2u);
  EXPECT_EQ(reduce->result(0)->type(), Type::tensor({16}, Type::f32()));
  EXPECT_EQ(reduce->result(1)->type(), Type::tensor({16}, Type::i32()));
  ASSERT_EQ(reduce->numRegions(), 1u);
  const Block* combiner = reduce->region(0)->block(0);
  ASSERT_EQ(combiner->numArguments(), 4u);
  EXPECT_EQ(combiner->argument(1)->type(), Type::i32());
  EXPECT_EQ(combiner->terminator()->kind(), OpKind::TtReduceReturn);
  EXPECT_EQ(ops[1]->operand(0), reduce->result(1));
  EXPECT_EQ(ops[2]->operand(0), reduce->result(0));
}

TEST(FrontendReader, ReadsScanWithReverse) {
  auto m = read(R"(module {
  tt.func public @k(%x: tensor<64xf32>) {
    %y = "tt.scan"(%x) <{axis = 0 : i32, reverse = true}> ({
    ^bb0(%a: f32 loc("a"), %b: f32 loc("b")):
      %s = arith.addf %a, %b : f32
      tt.scan.return %s : f32
    }) : (tensor<64xf32>) -> tensor<64xf32>
    tt.return
  }
})");
  const Operation* scan = bodyOps(*m)[0];
  EXPECT_EQ(scan->kind(), OpKind::TtScan);
  EXPECT_EQ(*scan->attr("reverse"), Attribute::boolean(true));
  EXPECT_EQ(scan->region(0)->block(0)->argument(0)->loc().str(), R"(loc("a"))");
  EXPECT_EQ(scan->region(0)->block(0)->argument(1)->name(), "b");
}

TEST(FrontendReader, ReadsScfForWithIterArgsAndTrailingAttributes) {
  auto m = read(R"(module {
  tt.func public @k(%n: i32) {
    %c0_i32 = arith.constant 0 : i32
    %c1_i32 = arith.constant 1 : i32
    %cst = arith.constant 0.000000e+00 : f32
    %acc:2 = scf.for %k = %c0_i32 to %n step %c1_i32 iter_args(%a = %cst, %b = %c0_i32) -> (f32, i32)  : i32 {
      %a2 = arith.addf %a, %a : f32
      scf.yield %a2, %k : f32, i32
    } {tt.num_stages = 3 : i32}
    scf.for %i = %c0_i32 to %n step %c1_i32  : i32 {
      %t = arith.addi %i, %i : i32
    }
    tt.return
  }
})");
  auto ops = bodyOps(*m);
  const Operation* loop = ops[3];
  EXPECT_EQ(loop->kind(), OpKind::ScfFor);
  EXPECT_EQ(loop->numOperands(), 5u);
  EXPECT_EQ(loop->numResults(), 2u);
  EXPECT_EQ(loop->intAttr("tt.num_stages"), 3);
  const Block* body = loop->region(0)->block(0);
  ASSERT_EQ(body->numArguments(), 3u);
  EXPECT_EQ(body->argument(0)->name(), "k");
  EXPECT_EQ(body->argument(1)->type(), Type::f32());
  EXPECT_EQ(body->terminator()->operand(1), body->argument(0));
  // The yield that MLIR leaves out is back, with the loop's location.
  const Operation* plain = ops[4];
  const Operation* yield = plain->region(0)->block(0)->terminator();
  ASSERT_EQ(yield->kind(), OpKind::ScfYield);
  EXPECT_EQ(yield->numOperands(), 0u);
  EXPECT_EQ(yield->loc(), plain->loc());
}

TEST(FrontendReader, ReadsScfIfElseAndWhile) {
  auto m = read(R"(module {
  tt.func public @k(%n: i32, %c: i1) {
    %c0_i32 = arith.constant 0 : i32
    %r = scf.if %c -> (i32) {
      scf.yield %n : i32
    } else {
      scf.yield %c0_i32 : i32
    }
    scf.if %c {
      %z = arith.addi %n, %n : i32
    }
    %w:2 = scf.while (%i = %c0_i32, %j = %n) : (i32, i32) -> (i32, i32) {
      %t = arith.cmpi slt, %i, %j : i32
      scf.condition(%t) %i, %j : i32, i32
    } do {
    ^bb0(%i2: i32 loc("i"), %j2: i32):
      %i3 = arith.addi %i2, %n : i32
      scf.yield %i3, %j2 : i32, i32
    }
    tt.return
  }
})");
  auto ops = bodyOps(*m);
  EXPECT_EQ(ops[1]->numRegions(), 2u);
  EXPECT_EQ(ops[1]->region(1)->block(0)->terminator()->operand(0), ops[0]->result());
  EXPECT_EQ(ops[2]->numRegions(), 1u);
  EXPECT_EQ(ops[2]->region(0)->block(0)->terminator()->kind(), OpKind::ScfYield);
  const Operation* loop = ops[3];
  EXPECT_EQ(loop->kind(), OpKind::ScfWhile);
  EXPECT_EQ(loop->region(0)->block(0)->numArguments(), 2u);
  EXPECT_EQ(loop->region(0)->block(0)->terminator()->kind(), OpKind::ScfCondition);
  EXPECT_EQ(loop->region(1)->block(0)->argument(0)->loc().str(), R"(loc("i"))");
  EXPECT_EQ(loop->region(1)->block(0)->argument(0)->name(), "i2");
}

TEST(FrontendReader, ReadsDenseConstantsAndHexFloats) {
  auto m = read(R"(module {
  tt.func public @k() {
    %ninf = arith.constant dense<0xFF800000> : tensor<4xf32>
    %half = arith.constant dense<5.000000e-01> : tensor<4xf16>
    %t = arith.constant dense<true> : tensor<4xi1>
    %list = arith.constant dense<[[1, -2], [3, 4]]> : tensor<2x2xi32>
    %big = arith.constant 4294967295 : i32
    %neg = arith.constant -1.500000e+00 : f32
    %nan = arith.constant 0x7FC00000 : f32
    %f = arith.constant false
    %h = arith.constant 0x7C00 : f16
    tt.return
  }
})");
  auto ops = bodyOps(*m);
  const Attribute& ninf = *ops[0]->attr("value");
  EXPECT_EQ(ninf.elements()[0].asFloat(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(ops[1]->attr("value")->elements()[0], Attribute::floating(0.5, Type::f16()));
  EXPECT_EQ(ops[2]->attr("value")->elements()[0], Attribute::boolean(true));
  const Attribute& list = *ops[3]->attr("value");
  ASSERT_EQ(list.elements().size(), 4u);
  EXPECT_EQ(list.elements()[1], Attribute::integer(-2, Type::i32()));
  EXPECT_EQ(list.elements()[3], Attribute::integer(4, Type::i32()));
  // 4294967295 : i32 is the bit pattern of -1, as in MLIR.
  EXPECT_EQ(*ops[4]->attr("value"), Attribute::integer(-1, Type::i32()));
  EXPECT_EQ(*ops[5]->attr("value"), Attribute::floating(-1.5, Type::f32()));
  EXPECT_EQ(floatToBits(ops[6]->attr("value")->asFloat(), ScalarKind::F32), 0x7FC00000u);
  EXPECT_EQ(*ops[7]->attr("value"), Attribute::boolean(false));
  EXPECT_EQ(ops[7]->result()->type(), Type::i1());
  EXPECT_EQ(ops[8]->attr("value")->asFloat(), std::numeric_limits<double>::infinity());
}

TEST(FrontendReader, ReadsDotAtomicsAndSplitResults) {
  auto m = read(R"(module {
  tt.func public @k(%a: tensor<32x16xf16>, %b: tensor<16x32xf16>, %p: !tt.ptr<i32>, %j: tensor<8x2xf32>) {
    %acc = arith.constant dense<0.000000e+00> : tensor<32x32xf32>
    %c = tt.dot %a, %b, %acc, inputPrecision = tf32 {maxNumImpreciseAcc = 4 : i32} : tensor<32x16xf16> * tensor<16x32xf16> -> tensor<32x32xf32>
    %one = arith.constant 1 : i32
    %true = arith.constant true
    %old = tt.atomic_rmw add, acq_rel, gpu, %p, %one, %true : (!tt.ptr<i32>, i32, i1) -> i32
    %cas = tt.atomic_cas relaxed, cta, %p, %one, %old : (!tt.ptr<i32>, i32, i32) -> i32
    %outLHS, %outRHS = tt.split %j : tensor<8x2xf32> -> tensor<8xf32>
    %s = arith.addf %outLHS, %outRHS : tensor<8xf32>
    tt.return
  }
})");
  auto ops = bodyOps(*m);
  EXPECT_EQ(ops[1]->symbolAttr("inputPrecision"), "tf32");
  EXPECT_EQ(ops[1]->intAttr("maxNumImpreciseAcc"), 4);
  EXPECT_EQ(ops[4]->symbolAttr("atomic_rmw_op"), "add");
  EXPECT_EQ(ops[4]->symbolAttr("sem"), "acq_rel");
  EXPECT_EQ(ops[4]->symbolAttr("scope"), "gpu");
  EXPECT_EQ(ops[5]->symbolAttr("scope"), "cta");
  EXPECT_EQ(ops[5]->numOperands(), 3u);
  const Operation* split = ops[6];
  ASSERT_EQ(split->numResults(), 2u);
  EXPECT_EQ(split->result(0)->name(), "outLHS");
  EXPECT_EQ(split->result(1)->name(), "outRHS");
  EXPECT_EQ(ops[7]->operand(1), split->result(1));
}

TEST(FrontendReader, ReadsBlockPointersUnderTritonsSpelling) {
  auto m = read(R"(module {
  tt.func public @k(%base: !tt.ptr<f32>, %m: i64, %s: i64) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i64
    %p = tt.make_tensor_ptr %base, [%m, %m], [%s, %c1], [%c0, %c0] {order = array<i32: 1, 0>} : <tensor<32x64xf32>>
    %x = tt.load %p {boundaryCheck = array<i32: 0, 1>, padding = 1 : i32} : !tt.ptr<tensor<32x64xf32>>
    %q = tt.advance %p, [%c0, %c0] : <tensor<32x64xf32>>
    tt.store %q, %x {boundaryCheck = array<i32: 1>} : !tt.ptr<tensor<32x64xf32>>
    tt.return
  }
})");
  auto ops = bodyOps(*m);
  EXPECT_EQ(ops[2]->kind(), OpKind::TtMakeBlockPtr);
  EXPECT_EQ(ops[2]->numOperands(), 7u);
  EXPECT_EQ(ops[2]->result()->type(), Type::pointer(Type::tensor({32, 64}, Type::f32())));
  EXPECT_EQ(ops[2]->attr("order")->ints(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(ops[3]->result()->type(), Type::tensor({32, 64}, Type::f32()));
  EXPECT_EQ(ops[3]->attr("boundaryCheck")->ints(), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(ops[3]->intAttr("padding"), 1);
  EXPECT_EQ(ops[4]->kind(), OpKind::TtAdvance);
}

TEST(FrontendReader, ReadsCallsPrivateFunctionsAndModuleAttributes) {
  auto m = read(R"ttir(module attributes {"ttg.num-warps" = 4 : i32} {
  tt.func public @k(%n: i32) attributes {noinline = false} {
    %r = tt.call @"lib.helper(0, 1)"(%n, %n) : (i32, i32) -> i32
    tt.return
  }
  tt.func private @"lib.helper(0, 1)"(%x: i32, %y: i32) -> i32 attributes {noinline = true} {
    tt.return %x : i32
  }
})ttir");
  EXPECT_EQ(m->attrs().find("ttg.num-warps")->asInt(), 4);
  ASSERT_EQ(m->functions().size(), 2u);
  const Function* helper = m->lookup("lib.helper(0, 1)");
  ASSERT_NE(helper, nullptr);
  EXPECT_FALSE(helper->isPublic());
  EXPECT_EQ(helper->resultTypes(), std::vector<Type>{Type::i32()});
  EXPECT_EQ(bodyOps(*m)[0]->symbolAttr("callee"), "lib.helper(0, 1)");
}

TEST(FrontendReader, ReadsPrintAssertAndCasts) {
  auto m = read(R"(module {
  tt.func public @k(%x: tensor<32xf32>, %n: i32) {
    %cst = arith.constant dense<0.000000e+00> : tensor<32xf32>
    %c = arith.cmpf ogt, %x, %cst : tensor<32xf32>
    tt.assert %c, "x must be positive" : tensor<32xi1>
    tt.print " x: " {hex = true, isSigned = array<i32: 0, 1>} : %x, %n : tensor<32xf32>, i32
    tt.print " hello" {hex = false, isSigned = array<i32>}
    %h = arith.truncf %x : tensor<32xf32> to tensor<32xf16>
    %b = tt.bitcast %x : tensor<32xf32> -> tensor<32xi32>
    %s = arith.select %c, %x, %cst : tensor<32xi1>, tensor<32xf32>
    tt.return
  }
})");
  auto ops = bodyOps(*m);
  EXPECT_EQ(ops[2]->symbolAttr("message"), "x must be positive");
  EXPECT_EQ(ops[3]->symbolAttr("prefix"), " x: ");
  EXPECT_EQ(ops[3]->numOperands(), 2u);
  EXPECT_EQ(ops[4]->numOperands(), 0u);
  EXPECT_EQ(ops[4]->attr("isSigned")->ints().size(), 0u);
  EXPECT_EQ(ops[5]->result()->type(), Type::tensor({32}, Type::f16()));
  EXPECT_EQ(ops[6]->result()->type(), Type::tensor({32}, Type::i32()));
  EXPECT_EQ(ops[7]->operand(0)->type(), Type::tensor({32}, Type::i1()));
}
