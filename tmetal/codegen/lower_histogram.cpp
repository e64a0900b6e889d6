// tt.histogram: counts in threadgroup memory. The threads zero one int per
// bin, each element's owner adds 1 to its bin with a threadgroup atomic
// (values outside [0, bins) and masked-off elements count nowhere, as
// Triton's and the interpreter's histograms), and every thread reads the
// bins of its result registers back.
#include "tmetal/codegen/kernel_lowering.h"

namespace tmetal::codegen {

using layout::TensorMap;

void KernelLowering::lowerHistogram(const ir::Operation& op) {
  const ir::Value* v = op.result(0);
  const RegisterTensor& values = operandTensor(op, 0);
  const RegisterTensor* mask = op.numOperands() > 1 ? &operandTensor(op, 1) : nullptr;
  const int64_t bins = v->type().shape()[0];
  const ir::Type counter = ir::Type::i32();
  std::string buffer = allocateStaging(op, counter, bins, "histogram");
  barrierBeforeReuse();
  useBuiltin(Builtin::ThreadIndex);
  TensorMap map = values.map();
  const std::string bin = newName("bin");
  body_.open("for (int " + bin + " = int(" + dialect_.builtinName(Builtin::ThreadIndex) + "); " + bin + " < " +
             std::to_string(bins) + "; " + bin + " += " + std::to_string(map.numThreads()) + ")");
  body_.line(buffer + "[" + bin + "] = 0;");
  body_.close();
  body_.line(dialect_.barrier());

  const std::string owner = ownerCondition(map);
  if (!owner.empty()) body_.open("if (" + owner + ")");
  auto count = [&](const std::string& x, const std::optional<std::string>& m) {
    std::string wide = dialect_.convert(x, dialect_.scalarType(ir::ScalarKind::I64));
    std::string cond = (m ? *m + " && " : "") + wide + " >= 0 && " + wide + " < " + std::to_string(bins);
    return "if (" + cond + ") " + dialect_.threadgroupAtomicAdd(buffer + " + " + parenthesized(x), "1") + ";";
  };
  forEachRegister(
      map.numRegisters(),
      [&](const std::string& idx) -> std::optional<std::string> {
        std::optional<std::string> x = values.at(idx);
        std::optional<std::string> m = mask ? mask->at(idx) : std::nullopt;
        if (!x || (mask && !m)) return std::nullopt;
        return count(*x, m);
      },
      [&](int64_t r) {
        return count(values.regs[r], mask ? std::optional<std::string>(mask->regs[r]) : std::nullopt);
      });
  if (!owner.empty()) body_.close();
  body_.line(dialect_.barrier());
  defineTensor(v, readStaged(buffer, layouts_.home(v), v->type().shape(), v->type().element(), nameFor(v), 1, 0));
}

}  // namespace tmetal::codegen
