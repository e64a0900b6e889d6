#include "tmetal/codegen/kernel_lowering.h"

#include <algorithm>
#include <cctype>

#include "tmetal/ir/op_traits.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::codegen {

using ir::OpKind;
using layout::LayoutPtr;
using layout::TensorMap;

namespace {

// Names the emitted code must not take for values: C++/MSL keywords, types
// and the builtins' names.
const std::set<std::string>& reservedNames() {
  static const std::set<std::string> names = {
      "auto", "bool", "break", "case", "char", "const", "constant", "continue", "default", "device", "do", "double",
      "else", "enum", "false", "float", "for", "goto", "half", "bfloat", "if", "int", "kernel", "long", "return",
      "short", "signed", "sizeof", "static", "struct", "switch", "thread", "threadgroup", "true", "uint", "ulong",
      "ushort", "uchar", "unsigned", "void", "volatile", "while", "pid", "num_pids", "tid", "lane", "simd", "r",
      "k", "g", "metal", "as_type", "min", "max", "abs", "exp", "log", "sin", "cos", "main", "new", "delete",
      "vec", "word", "q", "w", "m", "kk", "this", "template", "typename", "using", "namespace", "class", "union", "vertex", "fragment", "sampler",
      "texture", "atomic", "private", "public", "operator", "register", "signed", "inline", "extern",
      "tmetal_assert_failed", "tmetal_print", "tmetal_debug"};
  return names;
}

// What a value is called when Triton printed no name for it.
std::string hintFor(const ir::Value* v) {
  if (v->isBlockArgument()) return v->type().isTensor() ? "carried" : "iv";
  switch (v->definingOp()->kind()) {
    case OpKind::TtLoad: return "val";
    case OpKind::TtAddPtr:
    case OpKind::TtSplat: return v->type().elementOrSelf().isPointer() ? "ptrs" : "t";
    case OpKind::ArithCmpI:
    case OpKind::ArithCmpF: return "cond";
    case OpKind::TtMakeRange: return "idx";
    case OpKind::TtReduce: return "red";
    case OpKind::TtScan: return "scan";
    case OpKind::TtDot: return "acc";
    case OpKind::TtGetProgramId: return "pid";
    case OpKind::TtGetNumPrograms: return "npid";
    case OpKind::TtAtomicRMW:
    case OpKind::TtAtomicCAS: return "old";
    default: return "t";
  }
}

}  // namespace

KernelLowering::KernelLowering(const ir::Function& fn, const CEmitter& dialect, const layout::LayoutAssignment& layouts,
                               const analysis::AxisInfoAnalysis& axis, LoweringOptions options)
    : fn_(fn),
      dialect_(dialect),
      layouts_(layouts),
      axis_(axis),
      options_(std::move(options)),
      threadgroupMemory_(options_.threadgroupMemoryLimit, options_.hardwareName) {
  for (const std::string& n : reservedNames()) names_.insert(n);
  for (const std::string& n : dialect_.reservedNames()) names_.insert(n);
  remaindersComparedWithZero_ = remaindersComparedWithZero();
  planStreamedStores();
}

// ---- values ------------------------------------------------------------------

std::string KernelLowering::newName(const std::string& hint) {
  std::string base;
  for (char c : hint) base += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v" + base;
  if (!names_.count(base) && base.find("__") == std::string::npos) {
    names_.insert(base);
    return base;
  }
  for (int i = 0;; ++i) {
    std::string candidate = base + (std::isdigit(static_cast<unsigned char>(base.back())) ? "_" : "") +
                            std::to_string(i);
    if (!names_.count(candidate)) {
      names_.insert(candidate);
      return candidate;
    }
  }
}

std::string KernelLowering::nameFor(const ir::Value* v) {
  return newName(v->name().empty() ? hintFor(v) : v->name());
}

const RegisterTensor* KernelLowering::computedIn(const ir::Value* v, const LayoutPtr& l) const {
  auto it = tensors_.find(v);
  if (it != tensors_.end())
    for (const RegisterTensor& t : it->second)
      if (layout::sameLayout(t.layout, l)) return &t;
  return nullptr;
}

const RegisterTensor& KernelLowering::tensorIn(const ir::Value* v, const LayoutPtr& l) const {
  if (const RegisterTensor* t = computedIn(v, l)) return *t;
  std::string where = v->isBlockArgument() ? "a block argument" : "the result of '" + v->definingOp()->name() + "'";
  throw CompileError("internal error: " + where + " of type " + v->type().str() + " was not computed in layout " +
                     (l ? l->str() : "<none>"));
}

const RegisterTensor& KernelLowering::home(const ir::Value* v) const { return tensorIn(v, layouts_.home(v)); }

const RegisterTensor& KernelLowering::operandTensor(const ir::Operation& op, size_t i) const {
  return tensorIn(op.operand(i), layouts_.operandLayout(&op, i));
}

void KernelLowering::defineTensor(const ir::Value* v, RegisterTensor t) { tensors_[v].push_back(std::move(t)); }

std::string KernelLowering::scalarOf(const ir::Value* v) const {
  auto it = scalars_.find(v);
  if (it == scalars_.end())
    throw CompileError("internal error: scalar " + v->type().str() + " used before it was computed");
  return it->second;
}

void KernelLowering::defineScalar(const ir::Value* v, const std::string& expr) { scalars_[v] = expr; }

std::string KernelLowering::declaration(const ir::Type& element, const std::string& name, int64_t n) const {
  return typeOf(element) + " " + name + (n == 1 ? "" : "[" + std::to_string(n) + "]");
}

std::string KernelLowering::registerLoop(const std::string& var, int64_t n, int64_t first) {
  body_.line(dialect_.fullUnrollHint());
  return "for (int " + var + " = " + std::to_string(first) + "; " + var + " < " + std::to_string(n) + "; ++" + var +
         ")";
}

void KernelLowering::forEachRegister(int64_t n,
                                     const std::function<std::optional<std::string>(const std::string&)>& symbolic,
                                     const std::function<std::string(int64_t)>& concrete) {
  if (n > 1) {
    if (std::optional<std::string> s = symbolic("r")) {
      body_.line(registerLoop("r", n) + " " + *s);
      return;
    }
  }
  for (int64_t r = 0; r < n; ++r)
    if (std::string line = concrete(r); !line.empty()) body_.line(line);
}

RegisterTensor KernelLowering::computeRegisters(
    const ir::Value* v, const LayoutPtr& l, const std::vector<const RegisterTensor*>& operands,
    const std::function<std::string(const std::vector<std::string>&)>& expr) {
  const ir::Type& element = v->type().element();
  int64_t n = TensorMap(l, v->type().shape()).numRegisters();
  std::string name = nameFor(v);
  RegisterTensor out = RegisterTensor::array(l, v->type().shape(), element, name, n);
  auto argsAt = [&](const std::function<std::optional<std::string>(const RegisterTensor&)>& pick)
      -> std::optional<std::vector<std::string>> {
    std::vector<std::string> args;
    for (const RegisterTensor* t : operands) {
      std::optional<std::string> a = pick(*t);
      if (!a) return std::nullopt;
      args.push_back(*a);
    }
    return args;
  };
  if (n == 1) {
    auto args = argsAt([](const RegisterTensor& t) { return std::optional<std::string>(t.regs[0]); });
    body_.line(declaration(element, name, 1) + " = " + expr(*args) + ";");
    return out;
  }
  body_.line(declaration(element, name, n) + ";");
  forEachRegister(
      n,
      [&](const std::string& idx) -> std::optional<std::string> {
        auto args = argsAt([&](const RegisterTensor& t) { return t.at(idx); });
        if (!args) return std::nullopt;
        return name + "[" + idx + "] = " + expr(*args) + ";";
      },
      [&](int64_t r) {
        auto args = argsAt([&](const RegisterTensor& t) { return std::optional<std::string>(t.regs[r]); });
        return out.regs[r] + " = " + expr(*args) + ";";
      });
  return out;
}

void KernelLowering::unsupported(const ir::Operation& op, const std::string& what) const {
  op.fail("not supported by the " + dialect_.targetName() + " backend: " + what);
}

// ---- driver ------------------------------------------------------------------

void KernelLowering::lowerBlock(const ir::Block& block) {
  for (const auto& op : block.ops()) lowerOp(*op);
}

void KernelLowering::lowerRematerialized(const ir::Operation& op) {
  const ir::Value* v = op.result(0);
  for (const LayoutPtr& l : layouts_.layoutsOf(v)) {
    std::vector<const RegisterTensor*> operands;
    for (size_t i = 0; i < op.numOperands(); ++i) {
      LayoutPtr ol = layout::LayoutAssignment::rematerializedOperandLayout(op, i, l);
      operands.push_back(ol ? &tensorIn(op.operand(i), ol) : nullptr);
    }
    switch (op.kind()) {
      case OpKind::TtMakeRange: defineTensor(v, makeRangeIn(op, l)); break;
      case OpKind::TtSplat: defineTensor(v, splatIn(op, l)); break;
      case OpKind::ArithConstant: defineTensor(v, constantIn(op, l)); break;
      case OpKind::TtBroadcast: defineTensor(v, broadcastIn(op, l, *operands[0])); break;
      case OpKind::TtExpandDims: defineTensor(v, expandDimsIn(op, l, *operands[0])); break;
      default: defineTensor(v, elementwiseIn(op, l, operands)); break;
    }
  }
}

void KernelLowering::lowerOp(const ir::Operation& op) {
  if (ir::isTerminator(op.kind())) return;  // the op owning the region handles it
  if (op.numResults() == 1 && layouts_.isRematerializable(op.result(0))) return lowerRematerialized(op);
  if (op.numResults() == 1 && layouts_.home(op.result(0)) && !layouts_.homeMaterialized(op.result(0)))
    return convertExtraLayouts(op.result(0));  // nothing reads it in its home: only the other layouts
  switch (op.kind()) {
    case OpKind::TtLoad:
      op.result(0)->type().isTensor() ? lowerLoad(op) : lowerScalarLoad(op);
      break;
    case OpKind::TtStore:
      op.operand(1)->type().isTensor() ? lowerStore(op) : lowerScalarStore(op);
      break;
    case OpKind::TtReduce: lowerReduce(op); break;
    case OpKind::TtScan: lowerScan(op); break;
    case OpKind::TtDot: lowerDot(op); break;
    case OpKind::ScfFor: lowerFor(op); break;
    case OpKind::ScfIf: lowerIf(op); break;
    case OpKind::ScfWhile: lowerWhile(op); break;
    case OpKind::TtTrans: lowerTrans(op); break;
    case OpKind::TtReshape: lowerReshape(op); break;
    case OpKind::TtJoin:
    case OpKind::TtSplit:
    case OpKind::TtCat: lowerJoinSplitCat(op); break;
    case OpKind::TtAtomicRMW: lowerAtomicRmw(op); break;
    case OpKind::TtAtomicCAS: lowerAtomicCas(op); break;
    case OpKind::TtHistogram: lowerHistogram(op); break;
    case OpKind::TtGather: lowerGather(op); break;
    case OpKind::TtMapElementwise: lowerMapElementwise(op); break;
    case OpKind::TtBroadcast: {
      LayoutPtr l = layouts_.home(op.result(0));
      defineTensor(op.result(0), broadcastIn(op, l, operandTensor(op, 0)));
      break;
    }
    case OpKind::TtExpandDims: {
      LayoutPtr l = layouts_.home(op.result(0));
      defineTensor(op.result(0), expandDimsIn(op, l, operandTensor(op, 0)));
      break;
    }
    case OpKind::TtUnsplat:
      // Every thread holds the one element (a layout wraps extent 1).
      defineScalar(op.result(0), operandTensor(op, 0).regs[0]);
      break;
    case OpKind::UbPoison: {
      const ir::Type& t = op.result(0)->type();
      if (!t.isTensor()) {
        defineScalar(op.result(0), zeroOf(t));
        break;
      }
      LayoutPtr l = layouts_.home(op.result(0));
      int64_t n = TensorMap(l, t.shape()).numRegisters();
      defineTensor(op.result(0), RegisterTensor::uniform(l, t.shape(), t.element(), zeroOf(t.element()), n));
      break;
    }
    case OpKind::LlvmAssume: break;  // a hint for LLVM; nothing to emit
    case OpKind::TtAssert: lowerAssert(op); break;
    case OpKind::TtPrint: lowerPrint(op); break;
    case OpKind::GpuBarrier: body_.line(dialect_.deviceMemoryBarrier()); break;
    case OpKind::TtMakeBlockPtr:
    case OpKind::TtAdvance:
      unsupported(op, "block pointers; run Triton's rewrite-tensor-pointer pass (make_ttir does) before tmetal");
    default:
      if (op.numResults() == 1 && op.result(0)->type().isTensor() && ir::isElementwise(op.kind())) {
        std::vector<const RegisterTensor*> operands;
        for (size_t i = 0; i < op.numOperands(); ++i)
          operands.push_back(op.operand(i)->type().isTensor() ? &operandTensor(op, i) : nullptr);
        defineTensor(op.result(0), elementwiseIn(op, layouts_.home(op.result(0)), operands));
        break;
      }
      bool anyTensor = false;
      for (const ir::Value* v : op.operands()) anyTensor |= v->type().isTensor();
      for (const ir::Value* v : op.results()) anyTensor |= v->type().isTensor();
      if (anyTensor || op.numRegions() > 0) unsupported(op, "this op");
      lowerScalarOp(op);
      break;
  }
  threadgroupMemory_.release(op);
  for (const ir::Value* r : op.results()) convertExtraLayouts(r);
}

void KernelLowering::convertExtraLayouts(const ir::Value* v) {
  if (!v->type().isTensor() || layouts_.isRematerializable(v) || valuesInTiles_.count(v)) return;
  const ir::Operation* at = v->isBlockArgument() ? v->ownerBlock()->parentOp() : v->definingOp();
  bool homeComputed = layouts_.homeMaterialized(v);
  const std::vector<LayoutPtr>& ls = layouts_.layoutsOf(v);
  for (size_t i = homeComputed ? 1 : 0; i < ls.size(); ++i) {
    if (i > 0 && streamedValues_.count(v)) continue;  // converted by its store, streamed
    if (layouts_.isRecomputedIn(v, ls[i])) {
      defineTensor(v, recomputeIn(*at, ls[i]));
      continue;
    }
    const RegisterTensor& h = home(v);
    std::string name = h.arrayName.empty() ? h.regs[0] : h.arrayName;
    decisions_["conversions"].push_back({{"value", name}, {"from", ls[0]->str()}, {"to", ls[i]->str()},
                                         {"loc", at->loc().userPos().str()}});
    RegisterTensor converted = convertLayout(*at, home(v), ls[i], name + "_cvt");
    defineTensor(v, std::move(converted));
  }
  auto first = tensors_.find(v);
  if (first == tensors_.end() || first->second.empty()) return;  // never read
  const RegisterTensor& t = first->second.front();
  decisions_["tensors"].push_back({{"name", t.arrayName.empty() ? t.regs[0] : t.arrayName},
                                   {"type", v->type().str()},
                                   {"layout", t.layout->str()},
                                   {"registers", t.size()},
                                   {"loc", at->loc().userPos().str()}});
}

RegisterTensor KernelLowering::recomputeIn(const ir::Operation& op, const LayoutPtr& l) {
  auto operandIn = [&](size_t i) -> const RegisterTensor* {
    LayoutPtr ol = layout::LayoutAssignment::rematerializedOperandLayout(op, i, l);
    return ol ? &tensorIn(op.operand(i), ol) : nullptr;
  };
  switch (op.kind()) {
    case OpKind::TtBroadcast: return broadcastIn(op, l, *operandIn(0));
    case OpKind::TtExpandDims: return expandDimsIn(op, l, *operandIn(0));
    case OpKind::TtLoad:
      return loadIn(op, l, *operandIn(0), op.numOperands() > 1 ? operandIn(1) : nullptr,
                    op.numOperands() > 2 ? operandIn(2) : nullptr);
    default: {
      std::vector<const RegisterTensor*> operands;
      for (size_t i = 0; i < op.numOperands(); ++i) operands.push_back(operandIn(i));
      return elementwiseIn(op, l, operands);
    }
  }
}

std::vector<KernelParamDecl> KernelLowering::kernelParams() const {
  std::vector<KernelParamDecl> params;
  for (size_t i = 0; i < fn_.numArguments(); ++i) {
    const ir::Value* a = fn_.argument(i);
    params.push_back({scalarOf(a), a->type(), static_cast<int>(i)});
  }
  if (!assertions_.empty() || !prints_.empty())
    params.push_back({kDebugBufferName, ir::Type::pointer(ir::Type::i32()), static_cast<int>(params.size())});
  return params;
}

LoweredKernel KernelLowering::run() {
  ir::walk(*fn_.body(), [&](const ir::Operation* op) {
    for (const ir::Value* v : op->operands()) used_.insert(v);
  });
  // The entry point keeps the Triton function's name unless that is a
  // keyword of the target ("kernel" is one in MSL).
  const std::string entryName = names_.count(fn_.name()) ? newName(fn_.name() + "_entry") : newName(fn_.name());
  // Kernel arguments keep their TTIR names ("x_ptr"), or arg<i>.
  for (size_t i = 0; i < fn_.numArguments(); ++i) {
    const ir::Value* a = fn_.argument(i);
    if (!a->type().isPointer() && !a->type().isScalar())
      throw CompileError(a->loc().userPos(), "kernel argument " + std::to_string(i) + " of type " + a->type().str() +
                                                 " is not supported by the " + dialect_.targetName() + " backend");
    defineScalar(a, newName(a->name().empty() ? "arg" + std::to_string(i) : a->name()));
  }
  lowerBlock(*fn_.entry());

  LoweredKernel out;
  CodeBuffer helpers;
  std::string math = dialect_.mathHelpers(mathUsed_);
  if (!math.empty()) helpers.line(math);
  if (atomicsUsed_) helpers.line(dialect_.atomicHelpers());
  if (std::string matrices = dialect_.matrixHelpers(); matricesUsed_ && !matrices.empty()) helpers.line(matrices);
  if (std::string conversions = floatConversions_.helpers(); !conversions.empty()) helpers.line(conversions);
  if (std::string libdevice = libdeviceCalls_.helpers(); !libdevice.empty()) helpers.line(libdevice);
  if (!assertions_.empty() || !prints_.empty()) helpers.line(debugHelpers());
  helpers.append(helpers_);
  out.helpers = helpers.str();

  // Builtins in a fixed order, so that the signature does not depend on
  // which op first needed one.
  for (Builtin b : {Builtin::ProgramId, Builtin::NumPrograms, Builtin::ThreadIndex, Builtin::LaneIndex,
                    Builtin::SimdGroupIndex})
    if (builtins_.count(b)) out.builtins.push_back(b);
  out.entryName = entryName;
  out.signature = dialect_.kernelSignature(entryName, kernelParams(), out.builtins);

  CodeBuffer decls(1);
  for (const std::string& d : threadgroupDecls_) decls.line(d);
  std::string text = decls.str();
  if (!threadgroupDecls_.empty()) text += "\n";
  if (!prologue_.empty()) text += prologue_.str() + "\n";
  out.body = text + body_.str();
  out.threadgroupMemoryBytes = threadgroupMemory_.totalBytes();
  nlohmann::json buffers = nlohmann::json::array();
  for (const ThreadgroupBuffer& b : threadgroupMemory_.buffers())
  {
    nlohmann::json entry{{"name", b.name}, {"type", b.elementType}, {"elements", b.count}, {"bytes", b.bytes},
                         {"purpose", b.purpose}};
    if (!b.sharesWith.empty()) entry["shares_memory_of"] = b.sharesWith;
    buffers.push_back(std::move(entry));
  }
  decisions_["threadgroup_buffers"] = buffers;
  out.decisions = decisions_;
  out.assertions = assertions_;
  out.prints = prints_;
  return out;
}

}  // namespace tmetal::codegen
