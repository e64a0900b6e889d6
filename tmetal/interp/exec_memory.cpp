// Ops that touch buffers: loads, stores, atomics and block pointers. Every
// access goes through address(), which checks it against its buffer.
#include <cmath>
#include <functional>

#include "tmetal/interp/float_format.h"
#include "tmetal/interp/memory_access.h"
#include "tmetal/interp/program_executor.h"
#include "tmetal/interp/scalar_semantics.h"

namespace tmetal::interp {

using ir::OpKind;
using ir::Type;

namespace {

bool maskAllows(const RuntimeValue* mask, int64_t i) { return !mask || elementAt(*mask, i).i != 0; }

// The scalar type behind a (tensor of) plain pointer(s), checked to be loadable.
Type pointeeOf(const ir::Operation& op, const RuntimeValue& pointer) {
  if (!pointer.elementType.isPointer()) op.fail("expects a pointer operand, got " + pointer.elementType.str());
  const Type& pointee = pointer.elementType.pointee();
  if (!pointee.isScalar()) op.fail("cannot access memory of type " + pointee.str());
  return pointee;
}

void requireSameShape(const ir::Operation& op, const RuntimeValue& pointer, const RuntimeValue* other, const char* what) {
  if (other && other->block) op.fail(std::string(what) + " cannot be a block pointer");
  if (other && !other->isScalar() && other->shape != pointer.shape)
    op.fail(std::string(what) + " shape " + formatIndex(other->shape) + " differs from the pointer shape " +
            formatIndex(pointer.shape));
}

// The window coordinates of element `index` of a block pointer access, and
// whether they lie inside the checked dimensions of the whole tensor.
struct BlockCoordinates {
  std::vector<int64_t> coordinates;
  bool insideCheckedBounds = true;
};

BlockCoordinates blockCoordinates(const BlockPointer& block, const std::vector<int64_t>& index,
                                  const std::vector<int64_t>& checkedDims) {
  BlockCoordinates c;
  for (size_t d = 0; d < index.size(); ++d) c.coordinates.push_back(block.offsets[d] + index[d]);
  for (int64_t d : checkedDims)
    if (c.coordinates[d] < 0 || c.coordinates[d] >= block.shape[d]) c.insideCheckedBounds = false;
  return c;
}

std::vector<int64_t> boundaryCheckDims(const ir::Operation& op, size_t rank) {
  std::vector<int64_t> dims;
  if (const ir::Attribute* a = op.attr("boundaryCheck")) dims = a->ints();
  for (int64_t d : dims)
    if (d < 0 || d >= static_cast<int64_t>(rank)) op.fail("boundaryCheck names dimension " + std::to_string(d) + " of a rank-" + std::to_string(rank) + " block");
  return dims;
}

}  // namespace

uint8_t* ProgramExecutor::address(const ir::Operation& op, const Element& pointer, int bytes, int64_t flatIndex,
                                  const std::vector<int64_t>& shape) {
  if (pointer.buffer < 0 || pointer.buffer >= static_cast<int32_t>(args_.size()) ||
      args_[pointer.buffer].kind != KernelArg::Kind::Buffer)
    op.fail("access in " + placeName(flatIndex, shape) + " through a pointer that points into no buffer");
  HostBuffer& buffer = args_[pointer.buffer].buffer;
  int64_t size = static_cast<int64_t>(buffer.bytes.size());
  if (pointer.i < 0 || pointer.i > size - bytes) {
    std::string where;
    if (pointer.i % bytes == 0 && size % bytes == 0)
      where = "element offset " + std::to_string(pointer.i / bytes) + " is outside buffer '" + buffer.name + "' of " +
              std::to_string(size / bytes) + " elements";
    else
      where = "byte offset " + std::to_string(pointer.i) + " is outside buffer '" + buffer.name + "' of " +
              std::to_string(size) + " bytes";
    op.fail("out-of-bounds access in " + placeName(flatIndex, shape) + ": " + where);
  }
  return buffer.bytes.data() + pointer.i;
}

RuntimeValue ProgramExecutor::load(const ir::Operation& op) {
  requireOperands(op, 1, 3);
  const RuntimeValue& pointer = valueOf(op, 0);
  if (pointer.block) {
    requireOperands(op, 1, 1);
    return loadBlock(op, pointer);
  }
  const RuntimeValue* mask = op.numOperands() > 1 ? &valueOf(op, 1) : nullptr;
  const RuntimeValue* other = op.numOperands() > 2 ? &valueOf(op, 2) : nullptr;
  requireSameShape(op, pointer, mask, "mask");
  requireSameShape(op, pointer, other, "other");
  Type pointee = pointeeOf(op, pointer);
  int bytes = storageBytes(pointee);
  RuntimeValue result{pointee, pointer.shape, std::vector<Element>(pointer.size()), nullptr};
  for (int64_t i = 0; i < pointer.size(); ++i) {
    if (!maskAllows(mask, i)) {
      if (other) result.elements[i] = elementAt(*other, i);
      continue;  // masked-off lanes never touch memory
    }
    result.elements[i] = readElement(address(op, pointer.elements[i], bytes, i, pointer.shape), pointee);
  }
  return result;
}

void ProgramExecutor::store(const ir::Operation& op) {
  requireOperands(op, 2, 3);
  const RuntimeValue& pointer = valueOf(op, 0);
  const RuntimeValue& value = valueOf(op, 1);
  if (pointer.block) {
    requireOperands(op, 2, 2);
    return storeBlock(op, pointer, value);
  }
  const RuntimeValue* mask = op.numOperands() > 2 ? &valueOf(op, 2) : nullptr;
  requireSameShape(op, pointer, &value, "value");
  requireSameShape(op, pointer, mask, "mask");
  Type pointee = pointeeOf(op, pointer);
  if (value.elementType != pointee) op.fail("stores " + value.elementType.str() + " through a pointer to " + pointee.str());
  int bytes = storageBytes(pointee);
  for (int64_t i = 0; i < pointer.size(); ++i) {
    if (!maskAllows(mask, i)) continue;
    writeElement(address(op, pointer.elements[i], bytes, i, pointer.shape), elementAt(value, i), pointee);
  }
}

RuntimeValue ProgramExecutor::atomicRmw(const ir::Operation& op) {
  requireOperands(op, 2, 3);
  const RuntimeValue& pointer = valueOf(op, 0);
  const RuntimeValue& value = valueOf(op, 1);
  const RuntimeValue* mask = op.numOperands() > 2 ? &valueOf(op, 2) : nullptr;
  if (pointer.block) op.fail("does not take block pointers");
  requireSameShape(op, pointer, &value, "value");
  requireSameShape(op, pointer, mask, "mask");
  Type type = pointeeOf(op, pointer);
  if (value.elementType != type) op.fail("combines " + value.elementType.str() + " into memory of type " + type.str());
  const std::string& kind = op.symbolAttr("atomic_rmw_op");
  int width = type.bitWidth();
  std::function<Element(const Element&, const Element&)> combine;
  auto integerOp = [&](OpKind k) {
    if (!type.isInt()) op.fail("atomic '" + kind + "' needs an integer type, got " + type.str());
    combine = [k, width](const Element& old, const Element& v) {
      Element r;
      r.i = integerBinary(k, old.i, v.i, width).value();
      return r;
    };
  };
  auto floatOp = [&](OpKind k) {
    combine = [k, type](const Element& old, const Element& v) {
      Element r;
      r.f = floatBinary(k, old.f, v.f, type.scalarKind()).value();
      return r;
    };
  };
  if (kind == "and") integerOp(OpKind::ArithAndI);
  else if (kind == "or") integerOp(OpKind::ArithOrI);
  else if (kind == "xor") integerOp(OpKind::ArithXOrI);
  else if (kind == "add" && type.isInt()) integerOp(OpKind::ArithAddI);
  else if ((kind == "add" || kind == "fadd") && type.isFloat()) floatOp(OpKind::ArithAddF);
  else if (kind == "max" && type.isFloat()) floatOp(OpKind::ArithMaxNumF);
  else if (kind == "min" && type.isFloat()) floatOp(OpKind::ArithMinNumF);
  else if (kind == "max") integerOp(OpKind::ArithMaxSI);
  else if (kind == "min") integerOp(OpKind::ArithMinSI);
  else if (kind == "umax") integerOp(OpKind::ArithMaxUI);
  else if (kind == "umin") integerOp(OpKind::ArithMinUI);
  else if (kind == "exch") combine = [](const Element&, const Element& v) { return v; };
  else op.fail("unknown atomic_rmw_op '" + kind + "' for type " + type.str());

  // Elements apply one after another in row-major order, each seeing the
  // previous ones; each lane gets the value memory held just before its update.
  int bytes = storageBytes(type);
  RuntimeValue old{type, pointer.shape, std::vector<Element>(pointer.size()), nullptr};
  for (int64_t i = 0; i < pointer.size(); ++i) {
    if (!maskAllows(mask, i)) continue;
    uint8_t* memory = address(op, pointer.elements[i], bytes, i, pointer.shape);
    old.elements[i] = readElement(memory, type);
    writeElement(memory, combine(old.elements[i], elementAt(value, i)), type);
  }
  return old;
}

RuntimeValue ProgramExecutor::atomicCas(const ir::Operation& op) {
  requireOperands(op, 3, 3);
  const RuntimeValue& pointer = valueOf(op, 0);
  const RuntimeValue& expected = valueOf(op, 1);
  const RuntimeValue& desired = valueOf(op, 2);
  if (pointer.block) op.fail("does not take block pointers");
  requireSameShape(op, pointer, &expected, "cmp");
  requireSameShape(op, pointer, &desired, "val");
  Type type = pointeeOf(op, pointer);
  int bytes = storageBytes(type);
  RuntimeValue old{type, pointer.shape, std::vector<Element>(pointer.size()), nullptr};
  for (int64_t i = 0; i < pointer.size(); ++i) {
    uint8_t* memory = address(op, pointer.elements[i], bytes, i, pointer.shape);
    old.elements[i] = readElement(memory, type);
    // Compared bit for bit, as a hardware compare-and-swap does.
    if (elementBits(old.elements[i], type) == elementBits(elementAt(expected, i), type))
      writeElement(memory, elementAt(desired, i), type);
  }
  return old;
}

RuntimeValue ProgramExecutor::makeBlockPointer(const ir::Operation& op) {
  const Type& type = resultType(op);
  if (!type.isBlockPointer()) op.fail("result must be a pointer to a tensor, got " + type.str());
  size_t rank = type.pointee().shape().size();
  requireOperands(op, 1 + 3 * rank, 1 + 3 * rank);
  const RuntimeValue& base = valueOf(op, 0);
  if (!base.isScalar() || base.block || !base.elementType.isPointer()) op.fail("base must be a scalar pointer");
  auto block = std::make_shared<BlockPointer>();
  block->base = base.scalar();
  for (size_t d = 0; d < rank; ++d) {
    block->shape.push_back(integerOperand(op, 1 + d).i);
    block->strides.push_back(integerOperand(op, 1 + rank + d).i);
    block->offsets.push_back(integerOperand(op, 1 + 2 * rank + d).i);
  }
  // The order attribute only describes the memory layout for the lowering.
  return RuntimeValue{type, {}, {}, std::move(block)};
}

RuntimeValue ProgramExecutor::advance(const ir::Operation& op) {
  const RuntimeValue& pointer = valueOf(op, 0);
  if (!pointer.block) op.fail("expects a block pointer");
  size_t rank = pointer.block->offsets.size();
  requireOperands(op, 1 + rank, 1 + rank);
  auto block = std::make_shared<BlockPointer>(*pointer.block);
  for (size_t d = 0; d < rank; ++d) block->offsets[d] += integerOperand(op, 1 + d).i;
  return RuntimeValue{pointer.elementType, {}, {}, std::move(block)};
}

RuntimeValue ProgramExecutor::loadBlock(const ir::Operation& op, const RuntimeValue& pointer) {
  const BlockPointer& block = *pointer.block;
  const Type& tensor = pointer.elementType.pointee();
  Type element = tensor.element();
  std::vector<int64_t> shape = tensor.shape();
  std::vector<int64_t> checked = boundaryCheckDims(op, shape.size());
  // padding = 1 (zero, also the default) or 2 (NaN) fills checked-out elements.
  Element padding;
  if (const ir::Attribute* p = op.attr("padding"); p && p->asInt() == 2 && element.isFloat()) padding.f = NAN;
  int bytes = storageBytes(element);
  RuntimeValue result{element, shape, std::vector<Element>(shapeElements(shape)), nullptr};
  for (int64_t i = 0; i < result.size(); ++i) {
    BlockCoordinates c = blockCoordinates(block, unflattenIndex(i, shape), checked);
    if (!c.insideCheckedBounds) {
      result.elements[i] = padding;
      continue;
    }
    Element at = block.base;
    for (size_t d = 0; d < shape.size(); ++d) at.i += c.coordinates[d] * block.strides[d] * bytes;
    result.elements[i] = readElement(address(op, at, bytes, i, shape), element);
  }
  return result;
}

void ProgramExecutor::storeBlock(const ir::Operation& op, const RuntimeValue& pointer, const RuntimeValue& value) {
  const BlockPointer& block = *pointer.block;
  const Type& tensor = pointer.elementType.pointee();
  Type element = tensor.element();
  std::vector<int64_t> shape = tensor.shape();
  if (value.shape != shape || value.elementType != element)
    op.fail("stored value does not match the block " + tensor.str());
  std::vector<int64_t> checked = boundaryCheckDims(op, shape.size());
  int bytes = storageBytes(element);
  for (int64_t i = 0; i < value.size(); ++i) {
    BlockCoordinates c = blockCoordinates(block, unflattenIndex(i, shape), checked);
    if (!c.insideCheckedBounds) continue;
    Element at = block.base;
    for (size_t d = 0; d < shape.size(); ++d) at.i += c.coordinates[d] * block.strides[d] * bytes;
    writeElement(address(op, at, bytes, i, shape), value.elements[i], element);
  }
}

}  // namespace tmetal::interp
