// tt.dot, correct first: A and B are staged in threadgroup memory (one
// barrier), then every thread accumulates its own registers of C with FMAs,
// loading each row of A and each column of B it needs once per k. This is
// the classic register-tiled threadgroup-memory GEMM; simdgroup_matrix is a
// later refinement.
#include <algorithm>
#include <map>

#include "tmetal/codegen/kernel_lowering.h"

namespace tmetal::codegen {

using ir::ScalarKind;
using layout::LayoutPtr;
using layout::TensorMap;

void KernelLowering::lowerDot(const ir::Operation& op) {
  const ir::Value* v = op.result(0);
  const RegisterTensor& a = operandTensor(op, 0);
  const RegisterTensor& b = operandTensor(op, 1);
  const RegisterTensor& c = operandTensor(op, 2);
  if (a.shape.size() != 2 || b.shape.size() != 2) unsupported(op, "batched (3-D) tt.dot");
  const ir::Type& accType = v->type().element();
  ScalarKind ak = a.element.scalarKind(), ck = accType.scalarKind();
  bool isInt = !accType.isFloat();
  if (isInt ? (ak != ScalarKind::I8 && ak != ScalarKind::I32) : ck != ScalarKind::F32)
    unsupported(op, "tt.dot accumulating in " + accType.str() + " (f32, or i32 for integer inputs)");
  int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  LayoutPtr l = layouts_.home(v);
  TensorMap map(l, {m, n});
  int64_t regs = map.numRegisters();
  body_.comment("'tt.dot' " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " at " +
                op.loc().userPos().str() + ": A and B through threadgroup memory, FMAs into registers");

  // One barrier after both are written (and, in a loop, one before).
  std::string bufA = stageInThreadgroupMemory(op, a, "dot_a", true, false);
  std::string bufB = stageInThreadgroupMemory(op, b, "dot_b", false, true);

  std::string name = nameFor(v);
  RegisterTensor out = RegisterTensor::array(l, {m, n}, accType, name, regs);
  body_.line(declaration(accType, name, regs) + ";");
  copyRegisters(out, c);

  int rowDim = l->rootDims()[0], colDim = l->rootDims()[1];
  std::string row = threadOffset(map, rowDim), col = threadOffset(map, colDim);
  // The distinct row and column offsets of this thread's registers.
  std::map<int64_t, std::string> rows, cols;
  std::vector<std::pair<int64_t, int64_t>> at(regs);
  for (int64_t r = 0; r < regs; ++r) {
    std::vector<int64_t> off = map.registerOffset(r);
    at[r] = {off[rowDim], off[colDim]};
    rows[off[rowDim]];
    cols[off[colDim]];
  }
  std::string wide = isInt ? dialect_.scalarType(ScalarKind::I32) : dialect_.scalarType(ScalarKind::F32);
  auto plusOffset = [](const std::string& base, int64_t off) {
    if (base == "0") return std::to_string(off);
    return off ? "(" + base + " + " + std::to_string(off) + ")" : base;
  };
  std::string kk = newName("kk");
  body_.open("for (int " + kk + " = 0; " + kk + " < " + std::to_string(k) + "; ++" + kk + ")");
  int i = 0;
  for (auto& [off, var] : rows) {
    var = newName("a" + std::to_string(i++));
    std::string index = plusOffset(row, off);
    index = (index == "0" ? "" : index + " * " + std::to_string(k) + " + ") + kk;
    body_.line(wide + " " + var + " = " + dialect_.convert(bufA + "[" + index + "]", wide) + ";");
  }
  i = 0;
  for (auto& [off, var] : cols) {
    var = newName("b" + std::to_string(i++));
    std::string colIndex = plusOffset(col, off);
    std::string index = kk + " * " + std::to_string(n) + (colIndex == "0" ? "" : " + " + colIndex);
    body_.line(wide + " " + var + " = " + dialect_.convert(bufB + "[" + index + "]", wide) + ";");
  }
  for (int64_t r = 0; r < regs; ++r) {
    const std::string& x = rows[at[r].first];
    const std::string& y = cols[at[r].second];
    if (isInt)
      body_.line(out.regs[r] + " += " + x + " * " + y + ";");
    else
      body_.line(out.regs[r] + " = " + dialect_.mathCall(MathFn::Fma, {x, y, out.regs[r]}, ScalarKind::F32, false) + ";");
  }
  body_.close();
  defineTensor(v, out);
}

}  // namespace tmetal::codegen
