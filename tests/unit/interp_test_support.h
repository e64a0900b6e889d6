// Helpers for the interpreter's unit tests: build small kernels with
// ir::Builder and move typed host data in and out of kernel arguments.
#pragma once

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "tmetal/interp/interpreter.h"
#include "tmetal/ir/builder.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::interp::testing {

// A module with one public kernel and a builder at the end of its body.
struct KernelUnderTest {
  ir::Module module;
  ir::Function* kernel;
  ir::Builder b;

  explicit KernelUnderTest(const std::string& name = "kernel")
      : kernel(module.addFunction(name, true)), b(kernel->entry()) {
    b.setLoc(ir::Location::fileLineCol("kernel.py", 10, 5));
  }
  ir::Value* arg(const ir::Type& type, const std::string& name) { return kernel->addArgument(type, name); }
  // Sets the source position the next ops carry.
  void at(int line, int col = 5) { b.setLoc(ir::Location::fileLineCol("kernel.py", line, col)); }
};

template <typename T>
KernelArg bufferOf(const std::vector<T>& values, ir::ScalarKind kind = ir::ScalarKind::F32) {
  HostBuffer buffer;
  buffer.elementKind = kind;
  buffer.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(buffer.bytes.data(), values.data(), buffer.bytes.size());
  return KernelArg::fromBuffer(std::move(buffer));
}

template <typename T>
std::vector<T> contentsOf(const KernelArg& arg) {
  std::vector<T> values(arg.buffer.bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), arg.buffer.bytes.data(), values.size() * sizeof(T));
  return values;
}

inline ir::Attribute intAttr(int64_t v) { return ir::Attribute::integer(v); }

inline ir::AttrList attrs(std::initializer_list<std::pair<std::string, ir::Attribute>> list) {
  ir::AttrList a;
  for (const auto& [k, v] : list) a.set(k, v);
  return a;
}

// offsets = pid * block + arange(0, block), as i32.
inline ir::Value* blockOffsets(ir::Builder& b, int64_t block) {
  ir::Value* pid = b.programId(0);
  ir::Value* start = b.binary("arith.muli", pid, b.constantInt(block));
  return b.binary("arith.addi", b.splat(start, {block}), b.makeRange(0, block));
}

// ptr + offsets, for a scalar pointer and a 1-D offset tensor.
inline ir::Value* pointersAt(ir::Builder& b, ir::Value* base, ir::Value* offsets) {
  return b.addPtr(b.splat(base, offsets->type().shape()), offsets);
}

// The row-major flat index of every element of a rows x cols tensor, as i32:
// expand_dims(arange(rows), 1) * cols + expand_dims(arange(cols), 0).
inline ir::Value* matrixOffsets(ir::Builder& b, int64_t rows, int64_t cols) {
  ir::Type shape = ir::Type::tensor({rows, cols}, ir::Type::i32());
  ir::Value* r = b.broadcast(b.expandDims(b.makeRange(0, rows), 1), {rows, cols});
  ir::Value* c = b.broadcast(b.expandDims(b.makeRange(0, cols), 0), {rows, cols});
  ir::Value* colsSplat = b.constantSplat(ir::Attribute::integer(cols), shape);
  return b.binary("arith.addi", b.binary("arith.muli", r, colsSplat), c);
}

// Pointers base + offsets for an offset tensor of any shape.
inline ir::Value* pointersAtShape(ir::Builder& b, ir::Value* base, ir::Value* offsets) {
  return b.addPtr(b.splat(base, offsets->type().shape()), offsets);
}

// A tt.reduce or tt.scan over `inputs` whose combiner is written by `body`,
// given the combiner's block arguments (acc..., cur...).
inline ir::Operation* combineOp(ir::Builder& b, const std::string& name, std::vector<ir::Value*> inputs, int64_t axis,
                                const std::vector<ir::Type>& resultTypes,
                                const std::function<std::vector<ir::Value*>(ir::Builder&, std::vector<ir::Value*>)>& body,
                                bool reverse = false) {
  ir::AttrList a;
  a.set("axis", ir::Attribute::integer(axis));
  if (name == "tt.scan") a.set("reverse", ir::Attribute::boolean(reverse));
  ir::Operation* op = b.create(name, inputs, resultTypes, std::move(a));
  ir::Block* block = op->addRegion()->addBlock();
  for (int pass = 0; pass < 2; ++pass)
    for (ir::Value* v : inputs) block->addArgument(v->type().element());
  ir::Builder inner(block);
  inner.setLoc(b.loc());
  std::vector<ir::Value*> results = body(inner, block->arguments());
  inner.create(name + ".return", results, {});
  return op;
}

// Runs `op` elementwise on tensors loaded from the given host vectors (one
// per operand, all the same length) and returns the stored result.
template <typename Out, typename In>
std::vector<Out> applyOp(const std::string& op, const ir::Type& inType, const ir::Type& outType,
                         const std::vector<std::vector<In>>& inputs, ir::AttrList opAttrs = {}) {
  KernelUnderTest t;
  int64_t n = static_cast<int64_t>(inputs.at(0).size());
  std::vector<ir::Value*> pointers;
  for (size_t i = 0; i < inputs.size(); ++i) pointers.push_back(t.arg(ir::Type::pointer(inType), "in" + std::to_string(i)));
  ir::Value* outPtr = t.arg(ir::Type::pointer(outType), "out");
  ir::Value* range = t.b.makeRange(0, n);
  std::vector<ir::Value*> operands;
  for (ir::Value* p : pointers) operands.push_back(t.b.load(pointersAt(t.b, p, range)));
  ir::Value* r = t.b.create1(op, operands, ir::Type::tensor({n}, outType), std::move(opAttrs));
  t.b.store(pointersAt(t.b, outPtr, range), r);
  t.b.ret();
  std::vector<KernelArg> args;
  for (const auto& in : inputs) args.push_back(bufferOf(in));
  args.push_back(bufferOf(std::vector<Out>(n)));
  interpret(*t.kernel, args, {1, 1, 1});
  return contentsOf<Out>(args.back());
}

inline std::string errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const CompileError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace tmetal::interp::testing
