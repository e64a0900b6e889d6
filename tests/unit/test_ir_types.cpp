#include <gtest/gtest.h>

#include "tmetal/ir/builder.h"
#include "tmetal/ir/type.h"

using namespace tmetal::ir;

TEST(IrTypes, SpellsTritonTypes) {
  EXPECT_EQ(Type::f32().str(), "f32");
  EXPECT_EQ(Type::pointer(Type::f16()).str(), "!tt.ptr<f16>");
  EXPECT_EQ(Type::tensor({4, 8}, Type::bf16()).str(), "tensor<4x8xbf16>");
  EXPECT_EQ(Type::tensor({128}, Type::pointer(Type::f32())).str(), "tensor<128x!tt.ptr<f32>>");
  EXPECT_EQ(Type::pointer(Type::tensor({64, 32}, Type::f16())).str(), "!tt.ptr<tensor<64x32xf16>>");
}

TEST(IrTypes, StructuralEquality) {
  EXPECT_EQ(Type::tensor({4}, Type::i32()), Type::tensor({4}, Type::i32()));
  EXPECT_NE(Type::tensor({4}, Type::i32()), Type::tensor({8}, Type::i32()));
  EXPECT_NE(Type::f16(), Type::bf16());
  EXPECT_EQ(Type::tensor({2, 3}, Type::f32()).numElements(), 6);
  EXPECT_TRUE(Type::pointer(Type::tensor({2}, Type::f32())).isBlockPointer());
}

TEST(IrBuilder, BuildsVectorAdd) {
  Module m;
  Function* f = m.addFunction("add", true);
  Value* x = f->addArgument(Type::pointer(Type::f32()), "x");
  Builder b(f->entry());
  Value* pid = b.programId(0);
  Value* range = b.makeRange(0, 128);
  Value* ptrs = b.addPtr(b.splat(x, {128}), range);
  Value* v = b.load(ptrs);
  b.store(ptrs, b.binary("arith.addf", v, v));
  b.ret();
  EXPECT_EQ(pid->definingOp()->kind(), OpKind::TtGetProgramId);
  EXPECT_EQ(v->type(), Type::tensor({128}, Type::f32()));
  EXPECT_EQ(f->entry()->ops().size(), 8u);
  EXPECT_EQ(m.kernel(), f);
}

TEST(IrLocation, UserPosPrefersCaller) {
  Location lib = Location::fileLineCol("triton/language/standard.py", 181, 58);
  Location user = Location::fileLineCol("tests/kernels/k.py", 19, 21);
  Location cs = Location::callSite(lib, Location::named("x", user));
  EXPECT_EQ(cs.userPos().str(), "tests/kernels/k.py:19:21");
  EXPECT_EQ(cs.str(), "loc(callsite(\"triton/language/standard.py\":181:58 at \"x\"(\"tests/kernels/k.py\":19:21)))");
}
