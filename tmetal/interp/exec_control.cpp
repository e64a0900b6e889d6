// Structured control flow (scf.for, scf.if, scf.while) and tt.call. Loop-
// carried values are whole tensors passed from one iteration to the next.
#include <cstdint>
#include <iterator>

#include "tmetal/interp/program_executor.h"
#include "tmetal/interp/scalar_semantics.h"

namespace tmetal::interp {

namespace {

void requireResults(const ir::Operation& op, const std::vector<RuntimeValue>& values, const char* producer) {
  if (values.size() != op.numResults())
    op.fail(std::string(producer) + " gives " + std::to_string(values.size()) + " values for " +
            std::to_string(op.numResults()) + " results");
}

}  // namespace

void ProgramExecutor::scfFor(const ir::Operation& op) {
  requireOperands(op, 3, SIZE_MAX);
  int64_t begin = integerOperand(op, 0).i, end = integerOperand(op, 1).i, step = integerOperand(op, 2).i;
  const ir::Type ivType = valueOf(op, 0).elementType;
  int width = ivType.bitWidth();
  if (step <= 0) op.fail("step must be positive, got " + std::to_string(step));
  std::vector<RuntimeValue> carried;
  for (size_t i = 3; i < op.numOperands(); ++i) carried.push_back(valueOf(op, i));
  // Signed comparison, as scf.for without `unsigned`; the induction variable
  // steps in 64 bits so it cannot wrap around the loop's end.
  for (int64_t iv = begin; iv < end; iv += step) {
    std::vector<RuntimeValue> arguments;
    arguments.push_back(RuntimeValue{ivType, {}, {Element{wrapInt(static_cast<uint64_t>(iv), width), 0, -1}}, nullptr});
    for (auto& c : carried) arguments.push_back(std::move(c));
    carried = runRegion(op, 0, std::move(arguments));
    if (iv > INT64_MAX - step) break;
  }
  requireResults(op, carried, "scf.yield");
  for (size_t i = 0; i < carried.size(); ++i) setResult(op, i, std::move(carried[i]));
}

void ProgramExecutor::scfIf(const ir::Operation& op) {
  requireOperands(op, 1, 1);
  bool taken = integerOperand(op, 0).i != 0;
  std::vector<RuntimeValue> results;
  if (taken)
    results = runRegion(op, 0, {});
  else if (op.numRegions() > 1 && op.region(1)->numBlocks() > 0)
    results = runRegion(op, 1, {});
  requireResults(op, results, taken ? "the then-region" : "the else-region");
  for (size_t i = 0; i < results.size(); ++i) setResult(op, i, std::move(results[i]));
}

void ProgramExecutor::scfWhile(const ir::Operation& op) {
  std::vector<RuntimeValue> carried;
  for (size_t i = 0; i < op.numOperands(); ++i) carried.push_back(valueOf(op, i));
  for (int64_t iteration = 0;; ++iteration) {
    if (iteration >= options_.maxWhileIterations)
      op.fail("did not finish after " + std::to_string(options_.maxWhileIterations) + " iterations in " + programName());
    std::vector<RuntimeValue> condition = runRegion(op, 0, std::move(carried));
    if (condition.empty() || condition[0].block || condition[0].elements.size() != 1)
      op.fail("before-region must end in scf.condition with a scalar i1");
    bool proceed = condition[0].scalar().i != 0;
    std::vector<RuntimeValue> forwarded(std::make_move_iterator(condition.begin() + 1),
                                        std::make_move_iterator(condition.end()));
    if (!proceed) {
      requireResults(op, forwarded, "scf.condition");
      for (size_t i = 0; i < forwarded.size(); ++i) setResult(op, i, std::move(forwarded[i]));
      return;
    }
    carried = runRegion(op, 1, std::move(forwarded));
  }
}

void ProgramExecutor::call(const ir::Operation& op) {
  const ir::Attribute* callee = op.attr("callee");
  if (!callee) op.fail("is missing its 'callee' attribute");
  std::string name = callee->asString();
  if (!name.empty() && name[0] == '@') name.erase(0, 1);
  const ir::Function* function = options_.module ? options_.module->lookup(name) : nullptr;
  if (!function) op.fail("calls '" + name + "', which is not in the module given to the interpreter");
  std::vector<RuntimeValue> arguments;
  for (size_t i = 0; i < op.numOperands(); ++i) arguments.push_back(valueOf(op, i));
  constexpr int kMaxCallDepth = 64;
  if (callDepth_ >= kMaxCallDepth) op.fail("calls nest deeper than " + std::to_string(kMaxCallDepth) + " (recursion?)");
  // A fresh executor keeps the callee's values apart from the caller's.
  ProgramExecutor calleeExecutor(args_, grid_, programId_, options_, callDepth_ + 1);
  std::vector<RuntimeValue> results = calleeExecutor.runFunction(*function, std::move(arguments));
  requireResults(op, results, "the callee");
  for (size_t i = 0; i < results.size(); ++i) setResult(op, i, std::move(results[i]));
}

}  // namespace tmetal::interp
