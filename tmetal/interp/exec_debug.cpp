// tt.assert (a failed assertion stops the run with an error) and tt.print.
#include <iomanip>
#include <limits>
#include <ostream>

#include "tmetal/interp/program_executor.h"
#include "tmetal/interp/scalar_semantics.h"

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
  std::ostream& out = *options_.printStream;
  std::string pid = "pid (" + std::to_string(programId_[0]) + ", " + std::to_string(programId_[1]) + ", " +
                    std::to_string(programId_[2]) + ")";
  if (op.numOperands() == 0) {
    out << pid << " " << prefix << "\n";
    return;
  }
  // One line per element, as Triton's device print does.
  for (size_t j = 0; j < op.numOperands(); ++j) {
    const RuntimeValue& v = valueOf(op, j);
    if (v.block) op.fail("cannot print a block pointer");
    for (int64_t i = 0; i < v.size(); ++i) {
      out << pid << " idx " << formatIndex(unflattenIndex(i, v.shape)) << " " << prefix;
      if (op.numOperands() > 1) out << " (operand " << j << ")";
      out << ": ";
      const Element& e = v.elements[i];
      if (v.elementType.isFloat())  // enough digits to read the value back exactly
        out << std::setprecision(std::numeric_limits<double>::max_digits10) << e.f << std::setprecision(6);
      else if (v.elementType.isPointer())
        out << "buffer " << e.buffer << " + " << e.i;
      else if (hex)
        out << "0x" << std::hex << unsignedInt(e.i, v.elementType.bitWidth()) << std::dec;
      else
        out << e.i;
      out << "\n";
    }
  }
}

}  // namespace tmetal::interp
