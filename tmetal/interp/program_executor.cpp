#include "tmetal/interp/program_executor.h"

#include "tmetal/ir/op_traits.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::interp {

using ir::OpKind;

ProgramExecutor::ProgramExecutor(std::vector<KernelArg>& args, std::array<int64_t, 3> grid,
                                 std::array<int64_t, 3> programId, const InterpretOptions& options, int callDepth)
    : args_(args), grid_(grid), programId_(programId), options_(options), callDepth_(callDepth) {}

bool ProgramExecutor::isElementwise(OpKind kind) {
  // tt.addptr has its own case in runOp (pointer arithmetic on (buffer,
  // offset) values).
  return ir::isElementwise(kind) && kind != OpKind::TtAddPtr;
}

std::vector<RuntimeValue> ProgramExecutor::runFunction(const ir::Function& function,
                                                       std::vector<RuntimeValue> arguments) {
  return runBlock(*function.entry(), std::move(arguments));
}

std::vector<RuntimeValue> ProgramExecutor::runBlock(const ir::Block& block, std::vector<RuntimeValue> arguments) {
  if (arguments.size() != block.numArguments()) {
    const ir::Operation* parent = block.parentOp();
    std::string message = "block takes " + std::to_string(block.numArguments()) + " arguments but " +
                          std::to_string(arguments.size()) + " were passed";
    if (parent) parent->fail(message);
    throw CompileError(message);
  }
  for (size_t i = 0; i < arguments.size(); ++i) values_[block.argument(i)] = std::move(arguments[i]);
  for (const auto& op : block.ops()) {
    switch (op->kind()) {
      case OpKind::TtReturn:
      case OpKind::ScfYield:
      case OpKind::ScfCondition:
      case OpKind::TtReduceReturn:
      case OpKind::TtScanReturn:
      case OpKind::TtMapElementwiseReturn: {
        std::vector<RuntimeValue> out;
        for (size_t i = 0; i < op->numOperands(); ++i) out.push_back(valueOf(*op, i));
        return out;
      }
      default:
        execute(*op);
    }
  }
  return {};
}

std::vector<RuntimeValue> ProgramExecutor::runRegion(const ir::Operation& op, size_t region,
                                                     std::vector<RuntimeValue> arguments) {
  if (region >= op.numRegions() || op.region(region)->numBlocks() == 0) op.fail("is missing a region");
  if (op.region(region)->numBlocks() != 1) op.fail("regions with more than one block are not supported");
  return runBlock(*op.region(region)->block(0), std::move(arguments));
}

void ProgramExecutor::execute(const ir::Operation& op) {
  switch (op.kind()) {
    case OpKind::ArithConstant:
      return setResult(op, 0, constant(op));
    case OpKind::TtGetProgramId:
    case OpKind::TtGetNumPrograms: {
      int64_t axis = op.intAttr("axis");
      if (axis < 0 || axis > 2) op.fail("axis must be 0, 1 or 2, got " + std::to_string(axis));
      RuntimeValue v{ir::Type::i32(), {}, {Element{}}, nullptr};
      v.elements[0].i = op.kind() == OpKind::TtGetProgramId ? programId_[axis] : grid_[axis];
      return setResult(op, 0, std::move(v));
    }
    case OpKind::TtMakeRange:
      return setResult(op, 0, makeRange(op));
    case OpKind::TtSplat:
      return setResult(op, 0, splat(op));
    case OpKind::TtUnsplat: {
      const RuntimeValue& in = valueOf(op, 0);
      if (in.elements.size() != 1) op.fail("expects a tensor of one element");
      return setResult(op, 0, RuntimeValue{in.elementType, {}, {in.elements[0]}, nullptr});
    }
    case OpKind::UbPoison: {
      // Any value will do; zero makes runs reproducible.
      const ir::Type& t = op.result(0)->type();
      std::vector<int64_t> shape = t.isTensor() ? t.shape() : std::vector<int64_t>{};
      return setResult(op, 0, RuntimeValue{t.elementOrSelf(), shape, std::vector<Element>(shapeElements(shape)), nullptr});
    }
    case OpKind::LlvmAssume:
      return;  // a hint for the optimizer
    case OpKind::GpuBarrier:
      return;  // a program runs as one: its stores are already in order
    case OpKind::TtGather:
      return setResult(op, 0, gather(op));
    case OpKind::TtBroadcast:
      return setResult(op, 0, broadcast(op));
    case OpKind::TtExpandDims:
    case OpKind::TtReshape:
      return setResult(op, 0, sameElementsNewShape(op));
    case OpKind::TtTrans:
      return setResult(op, 0, transpose(op));
    case OpKind::TtJoin:
      return setResult(op, 0, join(op));
    case OpKind::TtSplit:
      return split(op);
    case OpKind::TtCat:
      return setResult(op, 0, concatenate(op));
    case OpKind::TtAddPtr:
      return setResult(op, 0, elementwise(op));
    case OpKind::TtLoad:
      return setResult(op, 0, load(op));
    case OpKind::TtStore:
      return store(op);
    case OpKind::TtAtomicRMW:
      return setResult(op, 0, atomicRmw(op));
    case OpKind::TtAtomicCAS:
      return setResult(op, 0, atomicCas(op));
    case OpKind::TtMakeBlockPtr:
      return setResult(op, 0, makeBlockPointer(op));
    case OpKind::TtAdvance:
      return setResult(op, 0, advance(op));
    case OpKind::TtReduce:
    case OpKind::TtScan:
      return reduceOrScan(op);
    case OpKind::TtHistogram:
      return setResult(op, 0, histogram(op));
    case OpKind::TtMapElementwise:
      return mapElementwise(op);
    case OpKind::TtDot:
      return setResult(op, 0, dot(op));
    case OpKind::ScfFor:
      return scfFor(op);
    case OpKind::ScfIf:
      return scfIf(op);
    case OpKind::ScfWhile:
      return scfWhile(op);
    case OpKind::TtCall:
      return call(op);
    case OpKind::TtAssert:
      return assertion(op);
    case OpKind::TtPrint:
      return print(op);
    default:
      if (isElementwise(op.kind())) return setResult(op, 0, elementwise(op));
      throw CompileError(op.loc().userPos(), "interpreter does not support op '" + op.name() + "'");
  }
}

const RuntimeValue& ProgramExecutor::valueOf(const ir::Operation& op, size_t operand) const {
  if (operand >= op.numOperands()) op.fail("is missing operand #" + std::to_string(operand));
  auto it = values_.find(op.operand(operand));
  if (it == values_.end()) op.fail("operand #" + std::to_string(operand) + " has no value at this point");
  return it->second;
}

const Element& ProgramExecutor::integerOperand(const ir::Operation& op, size_t operand) const {
  const RuntimeValue& v = valueOf(op, operand);
  if (v.block || !v.isScalar() || v.elements.size() != 1 || !v.elementType.isInt())
    op.fail("operand #" + std::to_string(operand) + " must be a scalar integer");
  return v.elements[0];
}

const ir::Type& ProgramExecutor::resultType(const ir::Operation& op, size_t result) const {
  if (result >= op.numResults()) op.fail("is missing result #" + std::to_string(result));
  return op.result(result)->type();
}

void ProgramExecutor::setResult(const ir::Operation& op, size_t result, RuntimeValue value) {
  if (result >= op.numResults()) op.fail("is missing result #" + std::to_string(result));
  values_[op.result(result)] = std::move(value);
}

void ProgramExecutor::requireOperands(const ir::Operation& op, size_t atLeast, size_t atMost) const {
  size_t n = op.numOperands();
  if (n >= atLeast && n <= atMost) return;
  std::string expected = atLeast == atMost ? std::to_string(atLeast)
                                           : std::to_string(atLeast) + " to " + std::to_string(atMost);
  op.fail("expects " + expected + " operands, got " + std::to_string(n));
}

std::string ProgramExecutor::programName() const {
  return "program (" + std::to_string(programId_[0]) + ", " + std::to_string(programId_[1]) + ", " +
         std::to_string(programId_[2]) + ")";
}

std::string ProgramExecutor::placeName(int64_t flatIndex, const std::vector<int64_t>& shape) const {
  if (shape.empty()) return programName();
  return programName() + ", element " + formatIndex(unflattenIndex(flatIndex, shape));
}

}  // namespace tmetal::interp
