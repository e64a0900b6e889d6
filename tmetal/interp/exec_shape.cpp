// Ops that create or rearrange tensors without computing new element values:
// make_range, splat, broadcast, expand_dims, reshape, trans, join, split, cat.
#include <algorithm>

#include "tmetal/interp/program_executor.h"

namespace tmetal::interp {

namespace {

std::vector<int64_t> resultShape(const ir::Operation& op, size_t result = 0) {
  if (result >= op.numResults()) op.fail("is missing result #" + std::to_string(result));
  return shapeOf(op.result(result)->type());
}

void requireTensor(const ir::Operation& op, const RuntimeValue& v) {
  if (v.block) op.fail("does not take block pointers");
  if (v.isScalar()) op.fail("expects a tensor operand, got a scalar");
}

}  // namespace

RuntimeValue ProgramExecutor::makeRange(const ir::Operation& op) {
  int64_t start = op.intAttr("start"), end = op.intAttr("end");
  if (end <= start) op.fail("end (" + std::to_string(end) + ") must be greater than start (" + std::to_string(start) + ")");
  RuntimeValue v{ir::Type::i32(), {end - start}, {}, nullptr};
  for (int64_t i = start; i < end; ++i) {
    Element e;
    e.i = i;
    v.elements.push_back(e);
  }
  return v;
}

RuntimeValue ProgramExecutor::splat(const ir::Operation& op) {
  requireOperands(op, 1, 1);
  const RuntimeValue& in = valueOf(op, 0);
  if (!in.isScalar() || in.block) op.fail("expects a scalar operand");
  std::vector<int64_t> shape = resultShape(op);
  return RuntimeValue{in.elementType, shape, std::vector<Element>(shapeElements(shape), in.scalar()), nullptr};
}

RuntimeValue ProgramExecutor::broadcast(const ir::Operation& op) {
  requireOperands(op, 1, 1);
  const RuntimeValue& in = valueOf(op, 0);
  std::vector<int64_t> shape = resultShape(op);
  if (in.isScalar() && !in.block)  // a scalar broadcasts like a splat
    return RuntimeValue{in.elementType, shape, std::vector<Element>(shapeElements(shape), in.scalar()), nullptr};
  requireTensor(op, in);
  if (in.shape.size() != shape.size()) op.fail("cannot broadcast " + formatIndex(in.shape) + " to " + formatIndex(shape));
  for (size_t d = 0; d < shape.size(); ++d)
    if (in.shape[d] != shape[d] && in.shape[d] != 1)
      op.fail("cannot broadcast " + formatIndex(in.shape) + " to " + formatIndex(shape));
  std::vector<int64_t> inStrides = rowMajorStrides(in.shape);
  int64_t n = shapeElements(shape);
  RuntimeValue out{in.elementType, shape, std::vector<Element>(n), nullptr};
  for (int64_t i = 0; i < n; ++i) {
    std::vector<int64_t> index = unflattenIndex(i, shape);
    int64_t source = 0;
    for (size_t d = 0; d < shape.size(); ++d) source += (in.shape[d] == 1 ? 0 : index[d]) * inStrides[d];
    out.elements[i] = in.elements[source];
  }
  return out;
}

RuntimeValue ProgramExecutor::sameElementsNewShape(const ir::Operation& op) {
  requireOperands(op, 1, 1);
  const RuntimeValue& in = valueOf(op, 0);
  if (in.block) op.fail("does not take block pointers");
  std::vector<int64_t> shape = resultShape(op);
  if (shapeElements(shape) != in.size())
    op.fail("cannot reshape " + formatIndex(in.shape) + " to " + formatIndex(shape));
  // Row-major order is kept; a reshape that allows reordering reorders nothing here.
  return RuntimeValue{in.elementType, shape, in.elements, nullptr};
}

RuntimeValue ProgramExecutor::gather(const ir::Operation& op) {
  requireOperands(op, 2, 2);
  const RuntimeValue& src = valueOf(op, 0);
  const RuntimeValue& indices = valueOf(op, 1);
  const int64_t axis = op.intAttr("axis");
  std::vector<int64_t> strides = rowMajorStrides(src.shape);
  RuntimeValue out{src.elementType, indices.shape, std::vector<Element>(indices.size()), nullptr};
  for (int64_t i = 0; i < indices.size(); ++i) {
    // Element i's multi-index with the index it holds along the axis.
    std::vector<int64_t> at = unflattenIndex(i, indices.shape);
    at[axis] = indices.elements[i].i;
    if (at[axis] < 0 || at[axis] >= src.shape[axis])
      op.fail("index " + std::to_string(at[axis]) + " is out of range for extent " + std::to_string(src.shape[axis]) +
              " of the source");
    int64_t source = 0;
    for (size_t d = 0; d < at.size(); ++d) source += at[d] * strides[d];
    out.elements[i] = src.elements[source];
  }
  return out;
}

RuntimeValue ProgramExecutor::transpose(const ir::Operation& op) {
  requireOperands(op, 1, 1);
  const RuntimeValue& in = valueOf(op, 0);
  requireTensor(op, in);
  const ir::Attribute* orderAttr = op.attr("order");
  if (!orderAttr || orderAttr->kind() != ir::Attribute::Kind::DenseArray) op.fail("is missing its 'order' attribute");
  const std::vector<int64_t>& order = orderAttr->ints();
  size_t rank = in.shape.size();
  std::vector<bool> seen(rank, false);
  if (order.size() != rank) op.fail("order has " + std::to_string(order.size()) + " entries for a rank-" + std::to_string(rank) + " tensor");
  for (int64_t o : order) {
    if (o < 0 || o >= static_cast<int64_t>(rank) || seen[o]) op.fail("order " + formatIndex(order) + " is not a permutation");
    seen[o] = true;
  }
  // Result dimension d is input dimension order[d].
  std::vector<int64_t> shape(rank);
  for (size_t d = 0; d < rank; ++d) shape[d] = in.shape[order[d]];
  std::vector<int64_t> inStrides = rowMajorStrides(in.shape);
  RuntimeValue out{in.elementType, shape, std::vector<Element>(in.size()), nullptr};
  for (int64_t i = 0; i < in.size(); ++i) {
    std::vector<int64_t> index = unflattenIndex(i, shape);
    int64_t source = 0;
    for (size_t d = 0; d < rank; ++d) source += index[d] * inStrides[order[d]];
    out.elements[i] = in.elements[source];
  }
  return out;
}

RuntimeValue ProgramExecutor::join(const ir::Operation& op) {
  requireOperands(op, 2, 2);
  const RuntimeValue& a = valueOf(op, 0);
  const RuntimeValue& b = valueOf(op, 1);
  if (a.block || b.block || a.shape != b.shape) op.fail("expects two operands of the same shape");
  // The new last dimension of size 2 holds a then b.
  std::vector<int64_t> shape = a.shape;
  shape.push_back(2);
  RuntimeValue out{a.elementType, shape, {}, nullptr};
  for (int64_t i = 0; i < a.size(); ++i) {
    out.elements.push_back(a.elements[i]);
    out.elements.push_back(b.elements[i]);
  }
  return out;
}

void ProgramExecutor::split(const ir::Operation& op) {
  requireOperands(op, 1, 1);
  const RuntimeValue& in = valueOf(op, 0);
  requireTensor(op, in);
  if (in.shape.back() != 2) op.fail("expects a last dimension of size 2, got shape " + formatIndex(in.shape));
  std::vector<int64_t> shape(in.shape.begin(), in.shape.end() - 1);
  RuntimeValue lhs{in.elementType, shape, {}, nullptr};
  RuntimeValue rhs = lhs;
  for (int64_t i = 0; i < in.size(); i += 2) {
    lhs.elements.push_back(in.elements[i]);
    rhs.elements.push_back(in.elements[i + 1]);
  }
  setResult(op, 0, std::move(lhs));
  setResult(op, 1, std::move(rhs));
}

RuntimeValue ProgramExecutor::concatenate(const ir::Operation& op) {
  requireOperands(op, 2, 2);
  const RuntimeValue& a = valueOf(op, 0);
  const RuntimeValue& b = valueOf(op, 1);
  requireTensor(op, a);
  requireTensor(op, b);
  if (a.shape.size() != b.shape.size() || !std::equal(a.shape.begin() + 1, a.shape.end(), b.shape.begin() + 1))
    op.fail("cannot concatenate shapes " + formatIndex(a.shape) + " and " + formatIndex(b.shape));
  // Triton allows tt.cat to reorder elements; the interpreter concatenates along dimension 0.
  std::vector<int64_t> shape = a.shape;
  shape[0] += b.shape[0];
  RuntimeValue out{a.elementType, shape, a.elements, nullptr};
  out.elements.insert(out.elements.end(), b.elements.begin(), b.elements.end());
  return out;
}

}  // namespace tmetal::interp
