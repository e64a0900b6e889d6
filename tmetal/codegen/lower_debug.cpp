// tt.assert and tt.print. Metal has neither a device-side assert nor printf
// and cannot stop a kernel, so both write to the debug buffer
// (debug_buffer.h), which the launcher reads once the kernel has finished:
// the first failing assertion swaps its number into the buffer's first word
// and records its program, thread and element; each printed element claims
// a record with an atomic counter. The threads run on past a failed
// assertion, as they would with asserts compiled out.
#include "tmetal/codegen/debug_buffer.h"
#include "tmetal/codegen/kernel_lowering.h"

namespace tmetal::codegen {

namespace {
constexpr const char* kAssertHelper = "tmetal_assert_failed";
constexpr const char* kPrintHelper = "tmetal_print";
}  // namespace

std::string KernelLowering::debugHelpers() const {
  std::string buffer = dialect_.pointerType(ir::Type::i32(), AddressSpace::Device) + " debug";
  std::string out;
  if (!assertions_.empty())
    out += dialect_.helperQualifier() + " void " + kAssertHelper + "(" + buffer +
           ", int assertion, int x, int y, int z, int thread_index, int element) {\n"
           "  if (" + dialect_.atomicCas("debug", "0", "assertion + 1", ir::ScalarKind::I32) + " != 0) return;\n"
           "  debug[1] = x;\n  debug[2] = y;\n  debug[3] = z;\n  debug[4] = thread_index;\n  debug[5] = element;\n}\n";
  if (!prints_.empty()) {
    const std::string i64 = dialect_.scalarType(ir::ScalarKind::I64);
    out += dialect_.helperQualifier() + " void " + kPrintHelper + "(" + buffer +
           ", int print, int operand, int x, int y, int z, int element, " + i64 + " value) {\n"
           "  int slot = " + dialect_.atomicRmw(AtomicOp::Add, "debug + " + std::to_string(kPrintCountWord), "1",
                                               ir::ScalarKind::I32) + ";\n"
           "  if (slot >= debug[" + std::to_string(kPrintCapacityWord) + "]) return;\n"
           "  " + dialect_.pointerType(ir::Type::i32(), AddressSpace::Device) + " record = debug + " +
           std::to_string(kDebugHeaderWords) + " + slot * " + std::to_string(kPrintRecordWords) + ";\n"
           "  record[0] = print;\n  record[1] = operand;\n  record[2] = x;\n  record[3] = y;\n  record[4] = z;\n"
           "  record[5] = element;\n  record[6] = int(value);\n  record[7] = int(value >> 32);\n}\n";
  }
  return out;
}

std::string KernelLowering::programIdArguments() {
  if (combinerSite_) return combinerSite_->programId;
  useBuiltin(Builtin::ProgramId);
  return dialect_.programIdExpr(0) + ", " + dialect_.programIdExpr(1) + ", " + dialect_.programIdExpr(2);
}

std::string KernelLowering::threadIndexArgument() {
  if (combinerSite_) return combinerSite_->threadIndex;
  useBuiltin(Builtin::ThreadIndex);
  return "int(" + dialect_.builtinName(Builtin::ThreadIndex) + ")";
}

void KernelLowering::lowerAssert(const ir::Operation& op) {
  // A loop body lowered twice (beginBodyCopies) reports the same assertion.
  auto [it, added] = debugOpIndex_.try_emplace(&op, static_cast<int>(assertions_.size()));
  if (added) {
    const ir::Attribute* message = op.attr("message");
    SourcePos pos = op.loc().userPos();
    const ir::Type& t = op.operand(0)->type();
    assertions_.push_back({message ? message->asString() : "", pos.file, pos.line, pos.col,
                           t.isTensor() ? t.shape() : std::vector<int64_t>{}});
  }
  atomicsUsed_ = true;  // the helper's compare-and-swap
  std::string call = std::string(kAssertHelper) + "(" + kDebugBufferName + ", " + std::to_string(it->second) + ", " +
                     programIdArguments() + ", " + threadIndexArgument() + ", ";
  if (!op.operand(0)->type().isTensor()) {
    body_.line("if (!(" + scalarOf(op.operand(0)) + ")) " + call + "-1);");
    return;
  }
  writeEachStaged(operandTensor(op, 0), "assert", [&](const std::string& index, const std::string& holds) {
    return "if (!(" + holds + ")) " + call + index + ");";
  });
}

std::string KernelLowering::printedBits(const std::string& value, const ir::Type& t) const {
  const std::string i64 = dialect_.scalarType(ir::ScalarKind::I64);
  if (t.isPointer()) return dialect_.convert(dialect_.pointerCast(value, dialect_.unsignedType(ir::ScalarKind::I64)), i64);
  ir::ScalarKind k = t.scalarKind();
  if (ir::isFloatKind(k))  // the value as f32 bits, which hold every float type Apple GPUs have
    return dialect_.convert(
        dialect_.bitcast(dialect_.convert(value, dialect_.scalarType(ir::ScalarKind::F32)),
                         dialect_.unsignedType(ir::ScalarKind::I32)),
        i64);
  return dialect_.convert(value, i64);  // sign-extended; the host keeps the type's bits
}

void KernelLowering::lowerPrint(const ir::Operation& op) {
  auto [it, added] = debugOpIndex_.try_emplace(&op, static_cast<int>(prints_.size()));
  if (added) {
    KernelPrint print;
    if (const ir::Attribute* p = op.attr("prefix")) print.prefix = p->asString();
    if (const ir::Attribute* h = op.attr("hex")) print.hex = h->asBool();
    const ir::Attribute* isSigned = op.attr("isSigned");
    for (size_t j = 0; j < op.numOperands(); ++j) {
      const ir::Type& t = op.operand(j)->type();
      const ir::Type& e = t.elementOrSelf();
      KernelPrintOperand o;
      o.type = e.str();
      o.isPointer = e.isPointer();
      o.isFloat = !o.isPointer && ir::isFloatKind(e.scalarKind());
      o.bits = o.isPointer ? 64 : e.bitWidth();
      if (isSigned && isSigned->kind() == ir::Attribute::Kind::DenseArray && j < isSigned->ints().size())
        o.isSigned = isSigned->ints()[j] != 0;
      if (t.isTensor()) o.shape = t.shape();
      print.operands.push_back(std::move(o));
    }
    prints_.push_back(std::move(print));
  }
  atomicsUsed_ = true;  // the record counter
  const std::string head = std::string(kPrintHelper) + "(" + kDebugBufferName + ", " + std::to_string(it->second) + ", ";
  // Like Triton's, every thread prints a scalar (or a print without
  // operands); a tensor's elements are printed by the threads that own them.
  if (op.numOperands() == 0) {
    body_.line(head + "-1, " + programIdArguments() + ", -1, 0);");
    return;
  }
  for (size_t j = 0; j < op.numOperands(); ++j) {
    const ir::Value* v = op.operand(j);
    const std::string call = head + std::to_string(j) + ", " + programIdArguments() + ", ";
    const ir::Type& element = v->type().elementOrSelf();
    if (!v->type().isTensor()) {
      body_.line(call + "-1, " + printedBits(scalarOf(v), element) + ");");
      continue;
    }
    writeEachStaged(operandTensor(op, j), "print", [&](const std::string& index, const std::string& value) {
      return call + index + ", " + printedBits(value, element) + ");";
    });
  }
}

}  // namespace tmetal::codegen
