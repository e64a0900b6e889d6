#include "tmetal/interp/interpreter.h"

#include "tmetal/interp/float_format.h"
#include "tmetal/ir/decompose_dot_scaled.h"
#include "tmetal/ir/float8_uses.h"
#include "tmetal/interp/program_executor.h"
#include "tmetal/interp/scalar_semantics.h"
#include "tmetal/support/diagnostic.h"
#include "tmetal/support/grid_limits.h"

namespace tmetal::interp {

namespace {

std::string argumentName(const ir::Function& kernel, size_t i) {
  const std::string& name = kernel.argument(i)->name();
  return name.empty() ? "arg" + std::to_string(i) : name;  // as the TTIR printer numbers them
}

// The value kernel argument i starts with, checked against its IR type.
RuntimeValue argumentValue(const ir::Function& kernel, size_t i, KernelArg& arg) {
  const ir::Type& type = kernel.argument(i)->type();
  std::string what = "kernel argument " + std::to_string(i) + " ('" + argumentName(kernel, i) + "')";
  SourcePos pos = kernel.argument(i)->loc().userPos();
  if (!pos.known()) pos = kernel.loc().userPos();
  RuntimeValue value{type, {}, {Element{}}, nullptr};
  if (type.isPointer()) {
    if (type.isBlockPointer()) throw CompileError(pos, what + " is a block pointer, which a kernel cannot take");
    if (arg.kind != KernelArg::Kind::Buffer) throw CompileError(pos, what + " is a pointer (" + type.str() + ") but was given a scalar");
    if (arg.buffer.name.empty()) arg.buffer.name = argumentName(kernel, i);
    value.elements[0].buffer = static_cast<int32_t>(i);
    return value;
  }
  if (arg.kind == KernelArg::Kind::Buffer)
    throw CompileError(pos, what + " is a scalar (" + type.str() + ") but was given a buffer");
  if (type.isInt()) {
    if (arg.kind != KernelArg::Kind::Int) throw CompileError(pos, what + " is an integer (" + type.str() + ") but was given a float");
    value.elements[0].i = wrapInt(static_cast<uint64_t>(arg.intValue), type.bitWidth());
    return value;
  }
  if (type.isFloat()) {
    double v = arg.kind == KernelArg::Kind::Int ? static_cast<double>(arg.intValue) : arg.floatValue;
    value.elements[0].f = roundToFloatKind(v, type.scalarKind());
    return value;
  }
  throw CompileError(pos, what + " has type " + type.str() + ", which the interpreter cannot pass");
}

}  // namespace

void interpret(const ir::Function& original, std::vector<KernelArg>& args, std::array<int64_t, 3> grid,
               const InterpretOptions& options) {
  // tt.dot_scaled runs as the ops the code generator lowers it to.
  std::unique_ptr<ir::Function> decomposed;
  if (ir::hasDotScaled(original)) decomposed = ir::decomposeDotScaled(original);
  const ir::Function& kernel = decomposed ? *decomposed : original;
  SourcePos kernelPos = kernel.loc().userPos();
  if (std::string problem = gridProblem(grid); !problem.empty()) throw CompileError(kernelPos, problem);
  if (args.size() != kernel.numArguments())
    throw CompileError(kernelPos, "kernel '" + kernel.name() + "' takes " + std::to_string(kernel.numArguments()) +
                                      " arguments, got " + std::to_string(args.size()));
  ir::checkFloat8Uses(kernel);
  std::vector<RuntimeValue> arguments;
  for (size_t i = 0; i < args.size(); ++i) arguments.push_back(argumentValue(kernel, i, args[i]));

  for (int64_t z = 0; z < grid[2]; ++z)
    for (int64_t y = 0; y < grid[1]; ++y)
      for (int64_t x = 0; x < grid[0]; ++x) {
        ProgramExecutor program(args, grid, {x, y, z}, options);
        program.runFunction(kernel, arguments);
      }
}

}  // namespace tmetal::interp
