// tt.dot: acc + a x b over the last two dimensions (a leading batch
// dimension is allowed). Float inputs accumulate in f32 (f64 for f64),
// strictly in k order, as acc = acc + a*b with the product rounded on its own
// (no fused multiply-add); products of f16/bf16 values are exact in f32. The
// sum is rounded to the accumulator type once at the end. Integer inputs
// accumulate with wrap-around at the accumulator's width.
#include "tmetal/interp/float_format.h"
#include "tmetal/interp/program_executor.h"
#include "tmetal/interp/scalar_semantics.h"

namespace tmetal::interp {

RuntimeValue ProgramExecutor::dot(const ir::Operation& op) {
  requireOperands(op, 3, 3);
  const RuntimeValue& a = valueOf(op, 0);
  const RuntimeValue& b = valueOf(op, 1);
  const RuntimeValue& c = valueOf(op, 2);
  size_t rank = a.shape.size();
  if ((rank != 2 && rank != 3) || b.shape.size() != rank || c.shape.size() != rank)
    op.fail("expects operands of rank 2 or 3");
  int64_t batch = rank == 3 ? a.shape[0] : 1;
  int64_t m = a.shape[rank - 2], k = a.shape[rank - 1], n = b.shape[rank - 1];
  if (b.shape[rank - 2] != k || c.shape[rank - 2] != m || c.shape[rank - 1] != n ||
      (rank == 3 && (b.shape[0] != batch || c.shape[0] != batch)))
    op.fail("shapes " + formatIndex(a.shape) + " x " + formatIndex(b.shape) + " + " + formatIndex(c.shape) + " do not match");
  const ir::Type& inType = a.elementType;
  const ir::Type& accType = c.elementType;
  if (inType.isFloat() != accType.isFloat() || b.elementType.isFloat() != inType.isFloat())
    op.fail("mixes integer and float operands");

  RuntimeValue result{accType, c.shape, std::vector<Element>(c.size()), nullptr};
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        int64_t out = (p * m + i) * n + j;
        auto aAt = [&](int64_t q) { return a.elements[(p * m + i) * k + q]; };
        auto bAt = [&](int64_t q) { return b.elements[(p * k + q) * n + j]; };
        if (!accType.isFloat()) {
          int width = accType.bitWidth();
          int64_t sum = c.elements[out].i;
          for (int64_t q = 0; q < k; ++q) {
            uint64_t product = static_cast<uint64_t>(aAt(q).i) * static_cast<uint64_t>(bAt(q).i);
            sum = wrapInt(static_cast<uint64_t>(sum) + product, width);
          }
          result.elements[out].i = sum;
        } else if (accType.scalarKind() == ir::ScalarKind::F64 || inType.scalarKind() == ir::ScalarKind::F64) {
          double sum = c.elements[out].f;
          for (int64_t q = 0; q < k; ++q) {
            double product = aAt(q).f * bAt(q).f;
            sum = sum + product;
          }
          result.elements[out].f = roundToFloatKind(sum, accType.scalarKind());
        } else {
          float sum = static_cast<float>(c.elements[out].f);
          for (int64_t q = 0; q < k; ++q) {
            float product = static_cast<float>(aAt(q).f) * static_cast<float>(bAt(q).f);
            sum = sum + product;
          }
          result.elements[out].f = roundToFloatKind(sum, accType.scalarKind());
        }
      }
  return result;
}

}  // namespace tmetal::interp
