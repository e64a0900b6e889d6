// scf.for/if/while with loop-carried tensors, tt.call, tt.assert, the grid
// and tt.dot.
#include <gtest/gtest.h>

#include <sstream>

#include "interp_test_support.h"

using namespace tmetal;
using namespace tmetal::interp;
using namespace tmetal::interp::testing;
using ir::Attribute;
using ir::Type;

TEST(InterpControl, ForLoopCarriesTensors) {
  // acc = zeros(4); count = 0; for i in range(0, 5, 2): acc += i + arange(4); count += 1
  KernelUnderTest t;
  ir::Value* out = t.arg(Type::pointer(Type::i32()), "out_ptr");
  ir::Value* range = t.b.makeRange(0, 4);
  ir::Value* zeros = t.b.constantSplat(intAttr(0), Type::tensor({4}, Type::i32()));
  ir::Operation* loop = t.b.create("scf.for", {t.b.constantInt(0), t.b.constantInt(5), t.b.constantInt(2), zeros, t.b.constantInt(0)},
                                   {zeros->type(), Type::i32()});
  ir::Block* body = loop->addRegion()->addBlock();
  ir::Value* iv = body->addArgument(Type::i32(), "i");
  ir::Value* acc = body->addArgument(zeros->type(), "acc");
  ir::Value* count = body->addArgument(Type::i32(), "count");
  ir::Builder in(body);
  ir::Value* step = in.binary("arith.addi", in.splat(iv, {4}), range);
  in.create("scf.yield", {in.binary("arith.addi", acc, step), in.binary("arith.addi", count, in.constantInt(1))}, {});
  t.b.store(pointersAt(t.b, out, range), loop->result(0));
  t.b.store(t.b.addPtr(out, t.b.constantInt(4)), loop->result(1));
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<int32_t>(5))};
  interpret(*t.kernel, args, {1, 1, 1});
  EXPECT_EQ(contentsOf<int32_t>(args[0]), (std::vector<int32_t>{6, 9, 12, 15, 3}));
}

TEST(InterpControl, IfYieldsPerProgram) {
  KernelUnderTest t;
  ir::Value* out = t.arg(Type::pointer(Type::i32()), "out_ptr");
  ir::Value* pid = t.b.programId(0);
  ir::Operation* branch = t.b.create("scf.if", {t.b.cmpi("eq", pid, t.b.constantInt(1))}, {Type::i32()});
  ir::Builder thenB(branch->addRegion()->addBlock());
  thenB.create("scf.yield", {thenB.constantInt(10)}, {});
  ir::Builder elseB(branch->addRegion()->addBlock());
  elseB.create("scf.yield", {elseB.constantInt(20)}, {});
  t.b.store(t.b.addPtr(out, pid), branch->result(0));
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<int32_t>(3))};
  interpret(*t.kernel, args, {3, 1, 1});
  EXPECT_EQ(contentsOf<int32_t>(args[0]), (std::vector<int32_t>{20, 10, 20}));
}

namespace {
// i = 0; while i < n: i += 3; store i
ir::Value* whileLoop(KernelUnderTest& t, ir::Value* n) {
  ir::Operation* loop = t.b.create("scf.while", {t.b.constantInt(0)}, {Type::i32()});
  ir::Block* before = loop->addRegion()->addBlock();
  ir::Value* i = before->addArgument(Type::i32());
  ir::Builder bb(before);
  bb.create("scf.condition", {bb.cmpi("slt", i, n), i}, {});
  ir::Block* after = loop->addRegion()->addBlock();
  ir::Value* j = after->addArgument(Type::i32());
  ir::Builder ab(after);
  ab.create("scf.yield", {ab.binary("arith.addi", j, ab.constantInt(3))}, {});
  return loop->result(0);
}
}  // namespace

TEST(InterpControl, WhileLoopRunsUntilItsCondition) {
  KernelUnderTest t;
  ir::Value* out = t.arg(Type::pointer(Type::i32()), "out_ptr");
  ir::Value* n = t.arg(Type::i32(), "n");
  t.b.store(out, whileLoop(t, n));
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<int32_t>(1)), KernelArg::fromInt(10)};
  interpret(*t.kernel, args, {1, 1, 1});
  EXPECT_EQ(contentsOf<int32_t>(args[0])[0], 12);
}

TEST(InterpControl, EndlessWhileLoopIsReported) {
  KernelUnderTest t;
  ir::Value* out = t.arg(Type::pointer(Type::i32()), "out_ptr");
  ir::Value* n = t.arg(Type::i32(), "n");
  t.at(8, 4);
  t.b.store(out, whileLoop(t, n));
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<int32_t>(1)), KernelArg::fromInt(2147483647)};
  InterpretOptions options;
  options.maxWhileIterations = 100;
  EXPECT_EQ(errorOf([&] { interpret(*t.kernel, args, {1, 1, 1}, options); }),
            "kernel.py:8:4: error: 'scf.while': did not finish after 100 iterations in program (0, 0, 0)");
}

TEST(InterpControl, ForLoopWithZeroStepIsAnError) {
  KernelUnderTest t;
  t.at(5, 2);
  ir::Operation* loop = t.b.create("scf.for", {t.b.constantInt(0), t.b.constantInt(5), t.b.constantInt(0)}, {});
  ir::Block* body = loop->addRegion()->addBlock();
  body->addArgument(Type::i32());
  ir::Builder(body).create("scf.yield", {}, {});
  t.b.ret();
  std::vector<KernelArg> args;
  EXPECT_EQ(errorOf([&] { interpret(*t.kernel, args, {1, 1, 1}); }),
            "kernel.py:5:2: error: 'scf.for': step must be positive, got 0");
}

TEST(InterpControl, FailedAssertNamesProgramAndElement) {
  KernelUnderTest t;
  ir::Value* x = t.arg(Type::pointer(Type::i32()), "x_ptr");
  ir::Value* offs = blockOffsets(t.b, 4);
  ir::Value* v = t.b.load(pointersAt(t.b, x, offs));
  ir::Value* positive = t.b.cmpi("sgt", v, t.b.constantSplat(intAttr(0), Type::tensor({4}, Type::i32())));
  t.at(40, 5);
  t.b.create("tt.assert", {positive}, {}, attrs({{"message", Attribute::string("x must be positive")}}));
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<int32_t>{1, 2, 3, 4, 5, 6, -7, 8})};
  EXPECT_EQ(errorOf([&] { interpret(*t.kernel, args, {2, 1, 1}); }),
            "kernel.py:40:5: error: 'tt.assert': assertion failed in program (1, 0, 0), element [2]: x must be positive");
}

TEST(InterpControl, PrintWritesOneLinePerElement) {
  KernelUnderTest t;
  ir::Value* x = t.arg(Type::pointer(Type::f32()), "x_ptr");
  ir::Value* v = t.b.load(pointersAt(t.b, x, t.b.makeRange(0, 2)));
  t.b.create("tt.print", {v}, {}, attrs({{"prefix", Attribute::string(" x")}, {"hex", Attribute::boolean(false)}}));
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<float>{0.1f, -2.0f})};
  std::ostringstream printed;
  InterpretOptions options;
  options.printStream = &printed;
  interpret(*t.kernel, args, {1, 2, 1}, options);
  // Triton's format on NVIDIA GPUs (the prefix is written as given).
  EXPECT_EQ(printed.str(),
            "pid (0, 0, 0) idx (0) x0.100000\n"
            "pid (0, 0, 0) idx (1) x-2.000000\n"
            "pid (0, 1, 0) idx (0) x0.100000\n"
            "pid (0, 1, 0) idx (1) x-2.000000\n");
}

TEST(InterpControl, ThreeDimensionalGridAndNumPrograms) {
  KernelUnderTest t;
  ir::Value* out = t.arg(Type::pointer(Type::i32()), "out_ptr");
  ir::Value* x = t.b.programId(0);
  ir::Value* y = t.b.programId(1);
  ir::Value* z = t.b.programId(2);
  auto numPrograms = [&](int axis) { return t.b.create1("tt.get_num_programs", {}, Type::i32(), attrs({{"axis", intAttr(axis)}})); };
  // linear = x + nx * (y + ny * z); out[linear] = 100 * z + 10 * y + x
  ir::Value* linear = t.b.binary("arith.addi", x, t.b.binary("arith.muli", numPrograms(0),
                                                              t.b.binary("arith.addi", y, t.b.binary("arith.muli", numPrograms(1), z))));
  ir::Value* code = t.b.binary("arith.addi", t.b.binary("arith.addi", t.b.binary("arith.muli", z, t.b.constantInt(100)),
                                                         t.b.binary("arith.muli", y, t.b.constantInt(10))), x);
  t.b.store(t.b.addPtr(out, linear), code);
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<int32_t>(12))};
  interpret(*t.kernel, args, {2, 3, 2});
  EXPECT_EQ(contentsOf<int32_t>(args[0]), (std::vector<int32_t>{0, 1, 10, 11, 20, 21, 100, 101, 110, 111, 120, 121}));
}

TEST(InterpControl, CallsNonInlinedFunctions) {
  KernelUnderTest t;
  ir::Function* helper = t.module.addFunction("twice", false);
  ir::Value* a = helper->addArgument(Type::i32(), "a");
  ir::Builder hb(helper->entry());
  hb.ret({hb.binary("arith.addi", a, a)});
  ir::Value* out = t.arg(Type::pointer(Type::i32()), "out_ptr");
  ir::Value* r = t.b.create1("tt.call", {t.b.constantInt(21)}, Type::i32(), attrs({{"callee", Attribute::symbol("twice")}}));
  t.b.store(out, r);
  t.b.ret();
  std::vector<KernelArg> args{bufferOf(std::vector<int32_t>(1))};
  InterpretOptions options;
  options.module = &t.module;
  interpret(*t.kernel, args, {1, 1, 1}, options);
  EXPECT_EQ(contentsOf<int32_t>(args[0])[0], 42);
}

TEST(InterpControl, ArgumentsAreChecked) {
  KernelUnderTest t;
  t.arg(Type::pointer(Type::f32()), "x_ptr");
  t.arg(Type::i32(), "n");
  t.b.ret();
  std::vector<KernelArg> tooFew{bufferOf(std::vector<float>(1))};
  EXPECT_EQ(errorOf([&] { interpret(*t.kernel, tooFew, {1, 1, 1}); }), "error: kernel 'kernel' takes 2 arguments, got 1");
  std::vector<KernelArg> swapped{KernelArg::fromInt(3), bufferOf(std::vector<float>(1))};
  EXPECT_EQ(errorOf([&] { interpret(*t.kernel, swapped, {1, 1, 1}); }),
            "error: kernel argument 0 ('x_ptr') is a pointer (!tt.ptr<f32>) but was given a scalar");
}

TEST(InterpDot, HalfInputsAccumulateExactlyInF32) {
  // (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20 is exact in f32 but not in f16.
  KernelUnderTest t;
  ir::Value* a = t.arg(Type::pointer(Type::f16()), "a_ptr");
  ir::Value* bPtr = t.arg(Type::pointer(Type::f16()), "b_ptr");
  ir::Value* c = t.arg(Type::pointer(Type::f32()), "c_ptr");
  ir::Value* av = t.b.load(pointersAtShape(t.b, a, matrixOffsets(t.b, 2, 3)));
  ir::Value* bv = t.b.load(pointersAtShape(t.b, bPtr, matrixOffsets(t.b, 3, 2)));
  ir::Value* cOffsets = matrixOffsets(t.b, 2, 2);
  ir::Value* acc = t.b.load(pointersAtShape(t.b, c, cOffsets));
  ir::Value* d = t.b.create1("tt.dot", {av, bv, acc}, acc->type(),
                             attrs({{"inputPrecision", Attribute::symbol("ieee")}, {"maxNumImpreciseAcc", intAttr(0)}}));
  t.b.store(pointersAtShape(t.b, c, cOffsets), d);
  t.b.ret();
  const uint16_t onePlus = 0x3C01, one = 0x3C00, two = 0x4000;
  std::vector<KernelArg> args{bufferOf(std::vector<uint16_t>{onePlus, onePlus, onePlus, one, two, one}),
                              bufferOf(std::vector<uint16_t>{onePlus, one, onePlus, two, onePlus, one}),
                              bufferOf(std::vector<float>{0.5f, 0, 0, 0})};
  interpret(*t.kernel, args, {1, 1, 1});
  float p = 1.0f + 0x1p-9f + 0x1p-20f;
  float r1 = 1.0f + 0x1p-10f;
  EXPECT_EQ(contentsOf<float>(args[2]), (std::vector<float>{0.5f + 3 * p, r1 * 4, r1 + 2 * r1 + r1, 1 + 4 + 1}));
}
