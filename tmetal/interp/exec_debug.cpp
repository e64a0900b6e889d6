// tt.assert (a failed assertion stops the run with an error) and tt.print.
#include <ostream>

#include "tmetal/interp/program_executor.h"
#include "tmetal/support/print_format.h"

namespace tmetal::interp {

void ProgramExecutor::assertion(const ir::Operation& op) {
  requireOperands(op, 1, 1);
  const RuntimeValue& condition = valueOf(op, 0);
  std::string message;
  if (const ir::Attribute* m = op.attr("message")) message = m->asString();
  for (int64_t i = 0; i < condition.size(); ++i)
    if (condition.elements[i].i == 0)
      op.fail("assertion failed in " + placeName(i, condition.shape) + ": " + message);
}

void ProgramExecutor::print(const ir::Operation& op) {
  std::string prefix;
  if (const ir::Attribute* p = op.attr("prefix")) prefix = p->asString();
  bool hex = false;
  if (const ir::Attribute* h = op.attr("hex")) hex = h->asBool();
  const ir::Attribute* isSigned = op.attr("isSigned");
  std::ostream& out = *options_.printStream;
  const std::array<int64_t, 3> pid = {programId_[0], programId_[1], programId_[2]};
  const int n = static_cast<int>(op.numOperands());
  if (n == 0) {
    out << formatPrintLine(pid, prefix, -1, 0, {}, {}, "") << "\n";
    return;
  }
  // One line per element, as Triton's device print writes them.
  for (int j = 0; j < n; ++j) {
    const RuntimeValue& v = valueOf(op, static_cast<size_t>(j));
    if (v.block) op.fail("cannot print a block pointer");
    PrintedType type;
    type.isFloat = v.elementType.isFloat();
    type.isPointer = v.elementType.isPointer();
    type.bits = type.isPointer ? 64 : v.elementType.bitWidth();
    if (isSigned && isSigned->kind() == ir::Attribute::Kind::DenseArray && j < static_cast<int>(isSigned->ints().size()))
      type.isSigned = isSigned->ints()[j] != 0;
    for (int64_t i = 0; i < v.size(); ++i) {
      const Element& e = v.elements[i];
      std::string value;
      if (type.isFloat)
        value = formatPrintedFloat(e.f);
      else if (type.isPointer)  // the interpreter's pointers are (buffer, offset), not addresses
        value = "buffer " + std::to_string(e.buffer) + " + " + std::to_string(e.i);
      else
        value = formatPrintedInteger(static_cast<uint64_t>(e.i), type, hex);
      out << formatPrintLine(pid, prefix, j, n, unflattenIndex(i, v.shape), v.shape, value) << "\n";
    }
  }
}

}  // namespace tmetal::interp
