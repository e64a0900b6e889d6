// Runs one program of a launch: holds the value of every SSA value computed
// so far and executes ops one at a time. Its member functions are defined by
// op family in the exec_*.cpp files.
#pragma once

#include <array>
#include <string>
#include <unordered_map>
#include <vector>

#include "tmetal/interp/interpreter.h"
#include "tmetal/interp/runtime_value.h"

namespace tmetal::interp {

class ProgramExecutor {
 public:
  ProgramExecutor(std::vector<KernelArg>& args, std::array<int64_t, 3> grid, std::array<int64_t, 3> programId,
                  const InterpretOptions& options, int callDepth = 0);

  // Runs a function body with the given argument values; returns the
  // operands of its tt.return.
  std::vector<RuntimeValue> runFunction(const ir::Function& function, std::vector<RuntimeValue> arguments);

  // Ops without side effects that work element by element (arith, math and
  // the elementwise tt ops); the reduce/scan combiners may run them on many
  // elements at once.
  static bool isElementwise(ir::OpKind kind);

 private:
  // Binds the block's arguments, runs its ops and returns the operands of
  // its terminator (scf.yield, scf.condition, tt.return, *.return).
  std::vector<RuntimeValue> runBlock(const ir::Block& block, std::vector<RuntimeValue> arguments);
  std::vector<RuntimeValue> runRegion(const ir::Operation& op, size_t region, std::vector<RuntimeValue> arguments);
  void execute(const ir::Operation& op);

  const RuntimeValue& valueOf(const ir::Operation& op, size_t operand) const;
  // The single element of a scalar integer operand (bounds, offsets, conditions).
  const Element& integerOperand(const ir::Operation& op, size_t operand) const;
  const ir::Type& resultType(const ir::Operation& op, size_t result = 0) const;
  void setResult(const ir::Operation& op, size_t result, RuntimeValue value);
  void requireOperands(const ir::Operation& op, size_t atLeast, size_t atMost) const;

  // exec_elementwise.cpp
  RuntimeValue constant(const ir::Operation& op);
  RuntimeValue elementwise(const ir::Operation& op);

  // exec_shape.cpp
  RuntimeValue makeRange(const ir::Operation& op);
  RuntimeValue splat(const ir::Operation& op);
  RuntimeValue broadcast(const ir::Operation& op);
  RuntimeValue sameElementsNewShape(const ir::Operation& op);  // expand_dims, reshape
  RuntimeValue transpose(const ir::Operation& op);
  RuntimeValue gather(const ir::Operation& op);
  RuntimeValue join(const ir::Operation& op);
  void split(const ir::Operation& op);
  RuntimeValue concatenate(const ir::Operation& op);

  // exec_memory.cpp
  RuntimeValue load(const ir::Operation& op);
  void store(const ir::Operation& op);
  RuntimeValue atomicRmw(const ir::Operation& op);
  RuntimeValue atomicCas(const ir::Operation& op);
  RuntimeValue makeBlockPointer(const ir::Operation& op);
  RuntimeValue advance(const ir::Operation& op);
  RuntimeValue loadBlock(const ir::Operation& op, const RuntimeValue& pointer);
  void storeBlock(const ir::Operation& op, const RuntimeValue& pointer, const RuntimeValue& value);
  // The bytes a pointer element addresses, after checking that all `bytes`
  // of them lie inside a buffer; fails naming the element otherwise.
  uint8_t* address(const ir::Operation& op, const Element& pointer, int bytes, int64_t flatIndex,
                   const std::vector<int64_t>& shape);

  // exec_control.cpp
  void scfFor(const ir::Operation& op);
  void scfIf(const ir::Operation& op);
  void scfWhile(const ir::Operation& op);
  void call(const ir::Operation& op);

  // exec_reduce.cpp
  void reduceOrScan(const ir::Operation& op);
  void mapElementwise(const ir::Operation& op);
  RuntimeValue histogram(const ir::Operation& op);

  // exec_dot.cpp
  RuntimeValue dot(const ir::Operation& op);

  // exec_debug.cpp
  void assertion(const ir::Operation& op);
  void print(const ir::Operation& op);

  // "program (1, 0, 0)"
  std::string programName() const;
  // "program (1, 0, 0), element [3, 4]" (no element part for scalars).
  std::string placeName(int64_t flatIndex, const std::vector<int64_t>& shape) const;

  std::vector<KernelArg>& args_;
  std::array<int64_t, 3> grid_;
  std::array<int64_t, 3> programId_;
  const InterpretOptions& options_;
  int callDepth_;  // tt.call nesting, bounded so that recursion cannot overflow the stack
  std::unordered_map<const ir::Value*, RuntimeValue> values_;
};

// The element of `value` at flat index `i`; a scalar stands for every index.
inline const Element& elementAt(const RuntimeValue& value, int64_t i) {
  return value.isScalar() ? value.elements[0] : value.elements[i];
}

// The shape of a type: its dimensions for tensors, empty otherwise.
inline std::vector<int64_t> shapeOf(const ir::Type& type) {
  return type.isTensor() ? type.shape() : std::vector<int64_t>{};
}

}  // namespace tmetal::interp
