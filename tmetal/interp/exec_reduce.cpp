// tt.reduce and tt.scan, by running their combiner region, tt.map_elementwise
// by running its region on each group of `pack` elements, and tt.histogram.
#include "tmetal/interp/program_executor.h"
#include "tmetal/interp/scalar_semantics.h"

namespace tmetal::interp {

using ir::OpKind;

namespace {

// A combiner made only of elementwise ops gives the same result whether it
// runs on one element or on many side by side, so the interpreter runs it
// once per step for every position along the other axes together.
bool combinerIsElementwise(const ir::Block& block) {
  for (const auto& op : block.ops()) {
    OpKind k = op->kind();
    if (k == OpKind::ArithConstant || k == OpKind::TtReduceReturn || k == OpKind::TtScanReturn) continue;
    if (!ProgramExecutor::isElementwise(k) || op->numRegions() > 0) return false;
  }
  return true;
}

}  // namespace

void ProgramExecutor::reduceOrScan(const ir::Operation& op) {
  bool isScan = op.kind() == OpKind::TtScan;
  size_t count = op.numOperands();
  if (count == 0) op.fail("expects at least one operand");
  if (op.numResults() != count) op.fail("expects one result per operand");
  std::vector<const RuntimeValue*> inputs;
  for (size_t j = 0; j < count; ++j) {
    const RuntimeValue& v = valueOf(op, j);
    if (v.block || v.isScalar()) op.fail("expects tensor operands");
    if (j > 0 && v.shape != inputs[0]->shape) op.fail("operands must have the same shape");
    inputs.push_back(&v);
  }
  const std::vector<int64_t>& shape = inputs[0]->shape;
  int64_t axis = op.intAttr("axis");
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size()))
    op.fail("axis " + std::to_string(axis) + " is outside a rank-" + std::to_string(shape.size()) + " tensor");
  bool reverse = false;
  if (const ir::Attribute* r = op.attr("reverse")) reverse = r->asBool();
  if (op.numRegions() != 1 || op.region(0)->numBlocks() != 1) op.fail("expects one combiner region with one block");
  const ir::Block& combiner = *op.region(0)->block(0);
  if (combiner.numArguments() != 2 * count)
    op.fail("combiner takes " + std::to_string(combiner.numArguments()) + " arguments, expected " + std::to_string(2 * count));

  int64_t length = shape[axis];
  int64_t inner = 1;  // elements between neighbours along the axis
  for (size_t d = axis + 1; d < shape.size(); ++d) inner *= shape[d];
  int64_t total = inputs[0]->size();
  if (total == 0) op.fail("cannot combine an empty tensor");
  // The flat index of the first element of every line along the axis, in the
  // row-major order of the shape without the axis (the reduce output order).
  std::vector<int64_t> lineStarts;
  for (int64_t outer = 0; outer < total / (length * inner); ++outer)
    for (int64_t s = 0; s < inner; ++s) lineStarts.push_back(outer * length * inner + s);
  int64_t lines = static_cast<int64_t>(lineStarts.size());

  std::vector<RuntimeValue> outputs;
  for (size_t j = 0; j < count; ++j) {
    std::vector<int64_t> outShape = isScan ? shape : shapeOf(op.result(j)->type());
    if (shapeElements(outShape) != (isScan ? total : lines))
      op.fail("result #" + std::to_string(j) + " has the wrong shape " + formatIndex(outShape));
    outputs.push_back(RuntimeValue{inputs[j]->elementType, outShape, std::vector<Element>(shapeElements(outShape)), nullptr});
  }

  bool together = combinerIsElementwise(combiner);
  int64_t groupSize = together ? lines : 1;
  for (int64_t first = 0; first < lines; first += groupSize) {
    // The values at position k along the axis of the lines in this group.
    auto gather = [&](int64_t k) {
      std::vector<RuntimeValue> values;
      for (size_t j = 0; j < count; ++j) {
        RuntimeValue v{inputs[j]->elementType, together ? std::vector<int64_t>{groupSize} : std::vector<int64_t>{},
                       std::vector<Element>(groupSize), nullptr};
        for (int64_t g = 0; g < groupSize; ++g) v.elements[g] = inputs[j]->elements[lineStarts[first + g] + k * inner];
        values.push_back(std::move(v));
      }
      return values;
    };
    auto scatterScan = [&](const std::vector<RuntimeValue>& acc, int64_t k) {
      for (size_t j = 0; j < count; ++j)
        for (int64_t g = 0; g < groupSize; ++g) outputs[j].elements[lineStarts[first + g] + k * inner] = elementAt(acc[j], g);
    };

    int64_t k = reverse ? length - 1 : 0;
    std::vector<RuntimeValue> acc = gather(k);
    if (isScan) scatterScan(acc, k);
    for (int64_t step = 1; step < length; ++step) {
      k = reverse ? length - 1 - step : step;
      std::vector<RuntimeValue> arguments = std::move(acc);
      for (auto& v : gather(k)) arguments.push_back(std::move(v));
      acc = runBlock(combiner, std::move(arguments));
      if (acc.size() != count)
        op.fail("combiner returns " + std::to_string(acc.size()) + " values, expected " + std::to_string(count));
      if (isScan) scatterScan(acc, k);
    }
    if (!isScan)
      for (size_t j = 0; j < count; ++j)
        for (int64_t g = 0; g < groupSize; ++g) outputs[j].elements[first + g] = elementAt(acc[j], g);
  }
  for (size_t j = 0; j < count; ++j) setResult(op, j, std::move(outputs[j]));
}

RuntimeValue ProgramExecutor::histogram(const ir::Operation& op) {
  requireOperands(op, 1, 2);
  const RuntimeValue& source = valueOf(op, 0);
  const RuntimeValue* mask = op.numOperands() > 1 ? &valueOf(op, 1) : nullptr;
  if (!source.elementType.isInt()) op.fail("expects integer values, got " + source.elementType.str());
  const ir::Type& type = resultType(op);
  if (source.block || (mask && mask->block)) op.fail("does not take block pointers");
  if (mask && !mask->isScalar() && mask->shape != source.shape) op.fail("mask shape differs from the values' shape");
  if (!type.isTensor() || type.rank() != 1 || !type.element().isInt()) op.fail("result must be a 1-D integer tensor");
  int64_t bins = type.shape()[0];
  // Values outside [0, bins) are not counted.
  std::vector<int64_t> counts(bins, 0);
  for (int64_t i = 0; i < source.size(); ++i) {
    if (mask && elementAt(*mask, i).i == 0) continue;
    int64_t v = source.elements[i].i;
    if (v >= 0 && v < bins) ++counts[v];
  }
  RuntimeValue result{type.element(), {bins}, std::vector<Element>(bins), nullptr};
  for (int64_t b = 0; b < bins; ++b) result.elements[b].i = wrapInt(static_cast<uint64_t>(counts[b]), type.element().bitWidth());
  return result;
}

void ProgramExecutor::mapElementwise(const ir::Operation& op) {
  const size_t n = op.numOperands(), m = op.numResults();
  const int64_t pack = op.attr("pack") ? op.intAttr("pack") : 1;
  std::vector<const RuntimeValue*> inputs;
  for (size_t i = 0; i < n; ++i) inputs.push_back(&valueOf(op, i));
  const int64_t total = inputs[0]->size();
  if (pack < 1 || total % pack != 0)
    op.fail("packs " + std::to_string(pack) + " elements a call, which does not divide the " + std::to_string(total) +
            " elements");
  std::vector<RuntimeValue> outputs;
  for (size_t r = 0; r < m; ++r) {
    const ir::Type& t = resultType(op, r);
    outputs.push_back({t.element(), t.shape(), std::vector<Element>(static_cast<size_t>(total)), nullptr});
  }
  // Operand i's j-th element of a group is argument i * pack + j; result r's
  // is returned value r * pack + j.
  for (int64_t group = 0; group < total; group += pack) {
    std::vector<RuntimeValue> arguments;
    for (size_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < pack; ++j)
        arguments.push_back({inputs[i]->elementType, {}, {inputs[i]->elements[group + j]}, nullptr});
    std::vector<RuntimeValue> returned = runRegion(op, 0, std::move(arguments));
    if (returned.size() != m * static_cast<size_t>(pack)) op.fail("the region returned the wrong number of values");
    for (size_t r = 0; r < m; ++r)
      for (int64_t j = 0; j < pack; ++j) outputs[r].elements[group + j] = returned[r * pack + j].scalar();
  }
  for (size_t r = 0; r < m; ++r) setResult(op, r, std::move(outputs[r]));
}

}  // namespace tmetal::interp
