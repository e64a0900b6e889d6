#include "tmetal/codegen/register_demand.h"

#include "tmetal/codegen/kernel_lowering.h"
#include "tmetal/ir/op_traits.h"
#include "tmetal/layout/layout_op_traits.h"
#include "tmetal/layout/tensor_map.h"

namespace tmetal::codegen {

namespace {

// Addresses, masks, indices and the induction variable beside the loaded
// values and the carried ones: what ptxas used beyond those two in the loops
// measured (a 4x256 float16 row sum held 40 registers, 8 carried and 16
// loaded).
constexpr int kRegistersBesideLoads = 24;

int registersOf(const ir::Value* v, const layout::LayoutAssignment& layouts) {
  const ir::Type& element = v->type().elementOrSelf();
  const int words = element.bitWidth() > 32 ? 2 : 1;
  if (!v->type().isTensor()) return words;
  return static_cast<int>(layout::TensorMap(layouts.home(v), v->type().shape()).numRegisters()) * words;
}

}  // namespace

LoopRegisterDemand loopOfLoadsRegisterDemand(const ir::Function& fn, const layout::LayoutAssignment& layouts) {
  LoopRegisterDemand most;
  ir::walk(*fn.body(), [&](const ir::Operation* op) {
    if (!ir::isRegisterOnlyLoop(*op)) return;
    const ir::Block& body = *op->region(0)->block(0);
    int carried = 0, loaded = 0;
    for (size_t i = 1; i < body.numArguments(); ++i) carried += registersOf(body.argument(i), layouts);
    for (const auto& inner : body.ops())
      if (inner->kind() == ir::OpKind::TtLoad) loaded += registersOf(inner->result(0), layouts);
    if (loaded == 0) return;
    const int registers = carried + kUnrolledTrips * loaded + kRegistersBesideLoads;
    if (registers > most.registers) most = {registers, op};
  });
  return most;
}

MatrixLoopDemand matrixDotLoopRegisterDemand(const ir::Function& fn, const layout::LayoutAssignment& layouts) {
  const ir::Operation* loop = nullptr;
  ir::walk(*fn.body(), [&](const ir::Operation* op) {
    if (loop || op->kind() != ir::OpKind::ScfFor) return;
    ir::walk(*op->region(0), [&](const ir::Operation* inner) {
      if (inner->kind() == ir::OpKind::TtDot && layout::hasMatrixOperands(*inner)) loop = op;
    });
  });
  if (!loop) return {};
  auto packed = [&](const ir::Value* v) {
    const int registers = registersOf(v, layouts);
    return v->type().elementOrSelf().bitWidth() == 16 ? (registers + 1) / 2 : registers;
  };
  MatrixLoopDemand demand{0, 0, loop};
  const ir::Block& body = *loop->region(0)->block(0);
  for (size_t i = 1; i < body.numArguments(); ++i)
    if (!body.argument(i)->type().elementOrSelf().isPointer()) demand.carried += packed(body.argument(i));
  if (demand.carried > kMatrixLoopCarriedLimit) return {};
  int held = 0;
  ir::walk(*loop->region(0), [&](const ir::Operation* op) {
    if (op->kind() == ir::OpKind::TtLoad) held += packed(op->result(0));
    if (op->kind() != ir::OpKind::TtDot) return;
    const ir::Operation* c = op->operand(2)->definingOp();
    if (c && c->kind() == ir::OpKind::ArithConstant) held += packed(op->result(0));
    for (size_t i : {size_t{0}, size_t{1}})
      if (!op->operand(i)->isDefinedWithin(*loop)) held += packed(op->operand(i));
  });
  demand.registers = demand.carried + held + kRegistersBesideLoads;
  return demand;
}

}  // namespace tmetal::codegen
