// tt.map_elementwise (tl.map_elementwise): a scalar function with control
// flow, applied to each group of `pack` elements of a thread's registers.
// Its region (one block: the reader rebuilt the function's returns as
// scf.if) is lowered as scalar code in the kernel body, inside a loop over
// the registers, so that it sees the kernel's values it uses and its ifs
// run only the taken side.
#include "tmetal/codegen/kernel_lowering.h"

namespace tmetal::codegen {

using layout::LayoutPtr;
using layout::TensorMap;

void KernelLowering::lowerMapElementwise(const ir::Operation& op) {
  const ir::Block& body = *op.region(0)->block(0);
  const int64_t pack = op.attr("pack") ? op.intAttr("pack") : 1;
  const std::vector<int64_t>& shape = op.result(0)->type().shape();
  LayoutPtr l = layouts_.home(op.result(0));
  const int64_t n = TensorMap(l, shape).numRegisters();
  // A loop over groups of registers where they divide evenly; otherwise each
  // group written out, the last one filled up with its first element (whose
  // extra results are dropped).
  const bool loop = n > pack && n % pack == 0;
  const int64_t groups = loop ? 1 : (n + pack - 1) / pack;
  const std::string g = loop ? newName("g") : "";

  // The operands, as arrays where the loop needs to index them.
  std::vector<RegisterTensor> in;
  for (size_t i = 0; i < op.numOperands(); ++i) {
    RegisterTensor t = operandTensor(op, i);
    if (loop && !t.at(g)) {
      RegisterTensor copy = RegisterTensor::array(l, shape, t.element, newName("map_in"), n);
      body_.line(declaration(t.element, copy.arrayName, n) + ";");
      copyRegisters(copy, t);
      t = std::move(copy);
    }
    in.push_back(std::move(t));
  }
  std::vector<RegisterTensor> out;
  for (const ir::Value* r : op.results()) {
    std::string name = newName(r->name().empty() ? "mapped" : r->name());
    body_.line(declaration(r->type().element(), name, n) + ";");
    out.push_back(RegisterTensor::array(l, shape, r->type().element(), name, n));
  }

  for (int64_t group = 0; group < groups; ++group) {
    // Register j of the group: under the loop symbolic, else a number (or, past the end, none).
    auto element = [&](const RegisterTensor& t, int64_t j) -> std::optional<std::string> {
      if (loop) return t.at(j ? g + " + " + std::to_string(j) : g);
      int64_t r = group * pack + j;
      if (r >= n) return std::nullopt;
      return t.regs[r];
    };
    body_.open(loop ? "for (int " + g + " = 0; " + g + " < " + std::to_string(n) + "; " + g + " += " +
                          std::to_string(pack) + ")"
                    : "");
    for (size_t i = 0; i < in.size(); ++i)
      for (int64_t j = 0; j < pack; ++j)
        defineScalar(body.argument(i * pack + j), element(in[i], j).value_or(*element(in[i], 0)));
    for (const auto& inner : body.ops())
      if (inner->kind() != ir::OpKind::TtMapElementwiseReturn) lowerOp(*inner);
    const ir::Operation* ret = body.terminator();
    for (size_t r = 0; r < out.size(); ++r)
      for (int64_t j = 0; j < pack; ++j)
        if (std::optional<std::string> slot = element(out[r], j))
          body_.line(*slot + " = " + scalarOf(ret->operand(r * pack + j)) + ";");
    body_.close();
  }
  for (size_t r = 0; r < out.size(); ++r) defineTensor(op.result(r), out[r]);
}

}  // namespace tmetal::codegen
