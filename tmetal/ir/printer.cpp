#include "tmetal/ir/printer.h"

#include <functional>

#include "tmetal/ir/decompose_dot_scaled.h"
#include "tmetal/ir/float_bits.h"
#include "tmetal/ir/op_syntax.h"
#include "tmetal/ir/text_syntax.h"
#include "tmetal/ir/value_names.h"

namespace tmetal::ir {

namespace {

std::string join(const std::vector<std::string>& parts, const char* separator = ", ") {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
  return out;
}

std::string typeList(const std::vector<Type>& types) {
  std::vector<std::string> parts;
  for (const Type& t : types) parts.push_back(t.str());
  return join(parts);
}

// A result type list: one type alone, otherwise in parentheses.
std::string resultTypes(const std::vector<Type>& types) {
  if (types.size() == 1) return types[0].str();
  return "(" + typeList(types) + ")";
}

std::vector<Type> operandTypes(const Operation& op, size_t from = 0) {
  std::vector<Type> types;
  for (size_t i = from; i < op.numOperands(); ++i) types.push_back(op.operand(i)->type());
  return types;
}

std::vector<Type> resultTypesOf(const Operation& op) {
  std::vector<Type> types;
  for (size_t i = 0; i < op.numResults(); ++i) types.push_back(op.result(i)->type());
  return types;
}

std::string locationBody(const Location& loc) {
  switch (loc.kind()) {
    case Location::Kind::Unknown: return "unknown";
    case Location::Kind::FileLineCol:
      return quoteString(loc.pos().file) + ":" + std::to_string(loc.pos().line) + ":" + std::to_string(loc.pos().col);
    case Location::Kind::Name:
      if (loc.child().isUnknown()) return quoteString(loc.name());
      return quoteString(loc.name()) + "(" + locationBody(loc.child()) + ")";
    case Location::Kind::CallSite:
      return "callsite(" + locationBody(loc.child()) + " at " + locationBody(loc.caller()) + ")";
    case Location::Kind::Fused: {
      std::vector<std::string> parts;
      for (const auto& part : loc.parts()) parts.push_back(locationBody(*part));
      return "fused[" + join(parts) + "]";
    }
  }
  return "unknown";
}

ScalarKind elementKind(const Type& type) {
  const Type& element = type.elementOrSelf();
  return element.isScalar() ? element.scalarKind() : ScalarKind::F64;
}

std::string scalarLiteral(const Attribute& a, ScalarKind floatKind) {
  switch (a.kind()) {
    case Attribute::Kind::Bool: return a.asBool() ? "true" : "false";
    case Attribute::Kind::Int: return std::to_string(a.asInt());
    case Attribute::Kind::Float: return formatFloatLiteral(a.asFloat(), floatKind);
    default: return printAttribute(a);
  }
}

std::string denseBody(const Attribute& a) {
  const std::vector<Attribute>& elements = a.elements();
  const ScalarKind kind = elementKind(a.type());
  if (elements.size() == 1) return scalarLiteral(elements[0], kind);
  const std::vector<int64_t>& shape = a.type().isTensor() ? a.type().shape() : std::vector<int64_t>{};
  if (static_cast<int64_t>(elements.size()) != a.type().numElements() || shape.empty()) {
    std::vector<std::string> parts;
    for (const Attribute& e : elements) parts.push_back(scalarLiteral(e, kind));
    return "[" + join(parts) + "]";
  }
  // Nested lists, one level per dimension, in row-major order.
  size_t next = 0;
  std::function<std::string(size_t)> level = [&](size_t dim) {
    std::vector<std::string> parts;
    for (int64_t i = 0; i < shape[dim]; ++i)
      parts.push_back(dim + 1 == shape.size() ? scalarLiteral(elements[next++], kind) : level(dim + 1));
    return "[" + join(parts) + "]";
  };
  return level(0);
}

std::string attrName(const std::string& name) { return isBareIdentifier(name) ? name : quoteString(name); }

// An enum keyword (slt, acq_rel, cg): a Symbol that can be written bare.
const Attribute* keyword(const Operation& op, const char* name) {
  const Attribute* a = op.attr(name);
  return a && a->kind() == Attribute::Kind::Symbol && isBareIdentifier(a->asString()) ? a : nullptr;
}

// Comma-separated flags (fastmath<nnan,ninf>).
const Attribute* flags(const Operation& op, const char* name) {
  const Attribute* a = op.attr(name);
  if (!a || a->kind() != Attribute::Kind::Symbol || a->asString().empty()) return nullptr;
  std::string word;
  for (char c : a->asString() + ",") {
    if (c != ',') {
      word += c;
      continue;
    }
    if (!isBareIdentifier(word)) return nullptr;
    word.clear();
  }
  return a;
}

bool isUnit(const Operation& op, const char* name) {
  const Attribute* a = op.attr(name);
  return a && a->kind() == Attribute::Kind::Unit;
}

bool isString(const Operation& op, const char* name) {
  const Attribute* a = op.attr(name);
  return a && a->kind() == Attribute::Kind::String;
}

bool allOperandsHaveType(const Operation& op, size_t from, size_t to, const Type& type) {
  for (size_t i = from; i < to && i < op.numOperands(); ++i)
    if (op.operand(i)->type() != type) return false;
  return true;
}

class Printer {
 public:
  Printer(const Module& module, const PrintOptions& options) : module_(module), options_(options), names_(module) {}

  std::string run() {
    out_ += "module";
    if (!module_.attrs().empty()) {
      out_ += " attributes";
      attrDict(module_.attrs(), {});
    }
    out_ += " {\n";
    for (const auto& f : module_.functions()) function(*f);
    out_ += "}";
    location(module_.loc());
    out_ += "\n";
    return std::move(out_);
  }

 private:
  void indent(int level) { out_.append(static_cast<size_t>(level) * 2, ' '); }
  std::string use(const Value* v) const { return names_.use(v); }
  std::string uses(const Operation& op, size_t from, size_t to) const {
    std::vector<std::string> parts;
    for (size_t i = from; i < to && i < op.numOperands(); ++i) parts.push_back(use(op.operand(i)));
    return join(parts);
  }
  std::string allUses(const Operation& op) const { return uses(op, 0, op.numOperands()); }
  void location(const Location& loc) {
    if (options_.locations) out_ += " " + printLocation(loc);
  }

  // " {a = 1 : i32, b}" without the names in `elided`; nothing when empty.
  void attrDict(const AttrList& attrs, std::initializer_list<const char*> elided) {
    std::string text = attrDictText(attrs, elided);
    if (!text.empty()) out_ += " " + text;
  }
  static std::string attrDictText(const AttrList& attrs, std::initializer_list<const char*> elided) {
    std::vector<std::string> parts;
    for (const auto& [name, value] : attrs.entries()) {
      bool skip = false;
      for (const char* e : elided) skip = skip || name == e;
      if (skip) continue;
      parts.push_back(value.kind() == Attribute::Kind::Unit ? attrName(name)
                                                            : attrName(name) + " = " + printAttribute(value));
    }
    return parts.empty() ? "" : "{" + join(parts) + "}";
  }

  void function(const Function& f) {
    indent(1);
    out_ += "tt.func " + std::string(f.isPublic() ? "public " : "private ") + symbolRef(f.name()) + "(";
    for (size_t i = 0; i < f.numArguments(); ++i) {
      if (i) out_ += ", ";
      const Value* arg = f.argument(i);
      out_ += use(arg) + ": " + arg->type().str();
      attrDict(f.argAttrs(i), {});
      location(arg->loc());
    }
    out_ += ")";
    if (!f.resultTypes().empty()) out_ += " -> " + resultTypes(f.resultTypes());
    if (!f.attrs().empty()) {
      out_ += " attributes";
      attrDict(f.attrs(), {});
    }
    out_ += " {\n";
    for (const auto& op : f.entry()->ops()) operation(*op, 2);
    indent(1);
    out_ += "}";
    location(f.loc());
    out_ += "\n";
  }

  void operation(const Operation& op, int level) {
    indent(level);
    if (op.numResults() > 0) out_ += names_.definition(op) + " = ";
    if (!pretty(op, level)) generic(op, level);
    location(op.loc());
    out_ += "\n";
  }

  // The ops of a block, one level deeper than `level`; a trailing scf.yield
  // without values may be left out, as MLIR does for scf.for and scf.if.
  void blockBody(const Block& block, int level, const Operation* elideEmptyYieldOf) {
    const auto& ops = block.ops();
    for (size_t i = 0; i < ops.size(); ++i) {
      const Operation& op = *ops[i];
      if (i + 1 == ops.size() && elideEmptyYieldOf && op.kind() == OpKind::ScfYield && op.numOperands() == 0 &&
          op.numResults() == 0 && op.numRegions() == 0 && op.attrs().empty() &&
          (!options_.locations || op.loc() == elideEmptyYieldOf->loc()))
        continue;
      operation(op, level + 1);
    }
  }

  // `{ ops }` of a region whose block arguments the op itself shows.
  void bareRegion(const Region& region, int level, const Operation* elideEmptyYieldOf = nullptr) {
    out_ += "{\n";
    blockBody(*region.block(0), level, elideEmptyYieldOf);
    indent(level);
    out_ += "}";
  }

  // `{ ^bb0(%a: T loc(..)): ops }`, the header only when there are arguments.
  void regionWithHeader(const Region& region, int level) {
    out_ += "{\n";
    for (size_t b = 0; b < region.numBlocks(); ++b) {
      const Block& block = *region.block(b);
      // An empty block needs its label, or it would read back as no block.
      if (block.numArguments() > 0 || b > 0 || block.ops().empty()) {
        indent(level);
        out_ += "^bb" + std::to_string(b);
        if (block.numArguments() > 0) {
          out_ += "(";
          for (size_t i = 0; i < block.numArguments(); ++i) {
            if (i) out_ += ", ";
            out_ += use(block.argument(i)) + ": " + block.argument(i)->type().str();
            location(block.argument(i)->loc());
          }
          out_ += ")";
        }
        out_ += ":\n";
      }
      blockBody(block, level, nullptr);
    }
    indent(level);
    out_ += "}";
  }

  void generic(const Operation& op, int level) {
    out_ += quoteString(op.name()) + "(" + allUses(op) + ")";
    if (!op.attrs().empty()) out_ += " <" + attrDictText(op.attrs(), {}) + ">";
    if (op.numRegions() > 0) {
      out_ += " (";
      for (size_t r = 0; r < op.numRegions(); ++r) {
        if (r) out_ += ", ";
        regionWithHeader(*op.region(r), level);
      }
      out_ += ")";
    }
    out_ += " : (" + typeList(operandTypes(op)) + ") -> ";
    std::vector<Type> results = resultTypesOf(op);
    out_ += results.size() == 1 ? results[0].str() : "(" + typeList(results) + ")";
  }

  bool pretty(const Operation& op, int level);

  const Module& module_;
  PrintOptions options_;
  ValueNames names_;
  std::string out_;
};

bool Printer::pretty(const Operation& op, int level) {
  const OpSyntax syntax = opSyntax(op.kind());
  const size_t n = op.numOperands();
  auto t = [&](size_t i) -> const Type& { return op.operand(i)->type(); };
  auto r = [&](size_t i) -> const Type& { return op.result(i)->type(); };
  const bool regionFamily = syntax == OpSyntax::For || syntax == OpSyntax::If || syntax == OpSyntax::While;
  if (op.numRegions() > 0 && !regionFamily) return false;

  switch (syntax) {
    case OpSyntax::Constant: {
      const Attribute* value = op.attr("value");
      if (n != 0 || op.numResults() != 1 || !value) return false;
      bool fits = (value->kind() == Attribute::Kind::Bool && r(0) == Type::i1()) ||
                  (value->kind() == Attribute::Kind::Int && value->type().isInt() && value->type() != Type::i1() &&
                   r(0) == value->type()) ||
                  (value->kind() == Attribute::Kind::Float && value->type().isFloat() && r(0) == value->type()) ||
                  (value->kind() == Attribute::Kind::Dense && value->type().isTensor() && r(0) == value->type());
      if (!fits) return false;
      out_ += op.name();
      attrDict(op.attrs(), {"value"});
      out_ += " " + printAttribute(*value);
      return true;
    }
    case OpSyntax::SameType: {
      if (n != sameTypeArity(op.kind()) || op.numResults() != 1 || !allOperandsHaveType(op, 0, n, r(0))) return false;
      const Attribute* fastmath = flags(op, "fastmath");
      const Attribute* overflow = flags(op, "overflowFlags");
      out_ += op.name() + " " + allUses(op);
      if (fastmath) out_ += " fastmath<" + fastmath->asString() + ">";
      if (overflow) out_ += " overflow<" + overflow->asString() + ">";
      if (fastmath && overflow)
        attrDict(op.attrs(), {"fastmath", "overflowFlags"});
      else if (fastmath)
        attrDict(op.attrs(), {"fastmath"});
      else if (overflow)
        attrDict(op.attrs(), {"overflowFlags"});
      else
        attrDict(op.attrs(), {});
      out_ += " : " + r(0).str();
      return true;
    }
    case OpSyntax::Compare: {
      const Attribute* predicate = keyword(op, "predicate");
      if (!predicate || n != 2 || op.numResults() != 1 || t(1) != t(0) || r(0) != t(0).withElement(Type::i1()))
        return false;
      const Attribute* fastmath = flags(op, "fastmath");
      out_ += op.name() + " " + predicate->asString() + ", " + allUses(op);
      if (fastmath) out_ += " fastmath<" + fastmath->asString() + ">";
      if (fastmath)
        attrDict(op.attrs(), {"predicate", "fastmath"});
      else
        attrDict(op.attrs(), {"predicate"});
      out_ += " : " + t(0).str();
      return true;
    }
    case OpSyntax::Select: {
      if (n != 3 || op.numResults() != 1 || t(1) != r(0) || t(2) != r(0)) return false;
      out_ += op.name() + " " + allUses(op);
      attrDict(op.attrs(), {});
      out_ += " : " + (t(0) == Type::i1() ? "" : t(0).str() + ", ") + r(0).str();
      return true;
    }
    case OpSyntax::Cast: {
      if (n != 1 || op.numResults() != 1) return false;
      out_ += op.name() + " " + allUses(op);
      attrDict(op.attrs(), {});
      out_ += " : " + t(0).str() + " to " + r(0).str();
      return true;
    }
    case OpSyntax::Arrow:
    case OpSyntax::Reshape:
    case OpSyntax::FpToFp: {
      const OpKind kind = op.kind();
      const bool twoOperands = kind == OpKind::TtJoin || kind == OpKind::TtCat;
      const size_t minOperands = twoOperands ? 2 : 1;
      const size_t maxOperands = twoOperands || kind == OpKind::TtHistogram ? 2 : 1;
      const size_t results = kind == OpKind::TtSplit ? 2 : 1;
      if (n < minOperands || n > maxOperands || op.numResults() != results) return false;
      if (results == 2 && r(1) != r(0)) return false;
      if (kind == OpKind::TtHistogram ? (n == 2 && t(1) != t(0).withElement(Type::i1()))
                                      : !allOperandsHaveType(op, 0, n, t(0)))
        return false;
      out_ += op.name() + " " + allUses(op);
      if (syntax == OpSyntax::Reshape) {
        const bool allowReorder = isUnit(op, "allow_reorder"), efficient = isUnit(op, "efficient_layout");
        if (allowReorder) out_ += " allow_reorder";
        if (efficient) out_ += " efficient_layout";
        if (allowReorder && efficient)
          attrDict(op.attrs(), {"allow_reorder", "efficient_layout"});
        else if (allowReorder)
          attrDict(op.attrs(), {"allow_reorder"});
        else if (efficient)
          attrDict(op.attrs(), {"efficient_layout"});
        else
          attrDict(op.attrs(), {});
      } else if (syntax == OpSyntax::FpToFp) {
        const Attribute* rounding = keyword(op, "rounding");
        if (rounding) {
          attrDict(op.attrs(), {"rounding"});
          out_ += ", rounding = " + rounding->asString();
        } else {
          attrDict(op.attrs(), {});
        }
      } else {
        attrDict(op.attrs(), {});
      }
      out_ += " : " + t(0).str() + " -> " + r(0).str();
      return true;
    }
    case OpSyntax::ProgramDim: {
      const Attribute* axis = op.attr("axis");
      if (n != 0 || op.numResults() != 1 || !axis || axis->kind() != Attribute::Kind::Int ||
          axis->type() != Type::i32() || axis->asInt() < 0 || axis->asInt() > 2)
        return false;
      out_ += op.name() + " " + std::string(1, static_cast<char>('x' + axis->asInt()));
      attrDict(op.attrs(), {"axis"});
      out_ += " : " + r(0).str();
      return true;
    }
    case OpSyntax::ResultTypeOnly: {
      if (n != 0 || op.numResults() != 1) return false;
      out_ += op.name();
      attrDict(op.attrs(), {});
      out_ += " : " + r(0).str();
      return true;
    }
    case OpSyntax::OperandTypeOnly: {
      if (n != 1 || op.numResults() > 1) return false;
      out_ += op.name() + " " + allUses(op);
      attrDict(op.attrs(), {});
      out_ += " : " + t(0).str();
      return true;
    }
    case OpSyntax::AddPtr: {
      if (n != 2 || op.numResults() != 1 || r(0) != t(0)) return false;
      out_ += op.name() + " " + allUses(op);
      attrDict(op.attrs(), {});
      out_ += " : " + t(0).str() + ", " + t(1).str();
      return true;
    }
    case OpSyntax::Load:
    case OpSyntax::Store: {
      const bool isLoad = syntax == OpSyntax::Load;
      Type loaded;
      if (n < 1 || !loadedType(t(0), loaded)) return false;
      const Type mask = loaded.withElement(Type::i1());
      if (isLoad) {
        if (n > 3 || op.numResults() != 1 || r(0) != loaded || (n > 1 && t(1) != mask) || (n > 2 && t(2) != loaded))
          return false;
      } else if (n < 2 || n > 3 || op.numResults() != 0 || t(1) != loaded || (n > 2 && t(2) != mask)) {
        return false;
      }
      const Attribute* cache = keyword(op, "cache");
      const Attribute* evict = keyword(op, "evict");
      out_ += op.name() + " " + allUses(op);
      if (cache) out_ += " cacheModifier = " + cache->asString();
      if (evict) out_ += " evictionPolicy = " + evict->asString();
      if (cache && evict)
        attrDict(op.attrs(), {"cache", "evict"});
      else if (cache)
        attrDict(op.attrs(), {"cache"});
      else if (evict)
        attrDict(op.attrs(), {"evict"});
      else
        attrDict(op.attrs(), {});
      out_ += " : " + t(0).str();
      return true;
    }
    case OpSyntax::AtomicRMW:
    case OpSyntax::AtomicCAS: {
      const bool isRmw = syntax == OpSyntax::AtomicRMW;
      const Attribute* rmw = keyword(op, "atomic_rmw_op");
      const Attribute* sem = keyword(op, "sem");
      const Attribute* scope = keyword(op, "scope");
      if (!sem || !scope || (isRmw && !rmw) || op.numResults() != 1) return false;
      if (isRmw ? (n < 2 || n > 3) : n != 3) return false;
      out_ += op.name() + " " + (isRmw ? rmw->asString() + ", " : "") + sem->asString() + ", " + scope->asString() +
              ", " + allUses(op);
      if (isRmw)
        attrDict(op.attrs(), {"atomic_rmw_op", "sem", "scope"});
      else
        attrDict(op.attrs(), {"sem", "scope"});
      out_ += " : (" + typeList(operandTypes(op)) + ") -> " + r(0).str();
      return true;
    }
    case OpSyntax::Dot: {
      if (n != 3 || op.numResults() != 1 || r(0) != t(2)) return false;
      const Attribute* precision = keyword(op, "inputPrecision");
      out_ += op.name() + " " + allUses(op);
      if (precision) {
        out_ += ", inputPrecision = " + precision->asString();
        attrDict(op.attrs(), {"inputPrecision"});
      } else {
        attrDict(op.attrs(), {});
      }
      out_ += " : " + t(0).str() + " * " + t(1).str() + " -> " + r(0).str();
      return true;
    }
    case OpSyntax::DotScaled: {
      const Attribute* lhs = keyword(op, "lhs");
      const Attribute* rhs = keyword(op, "rhs");
      if (!lhs || !rhs || op.numResults() != 1) return false;
      const DotScaledOperands in = dotScaledOperands(op);
      if (!in.a || !in.b || !in.acc || r(0) != in.acc->type()) return false;
      out_ += op.name() + " " + use(in.a) + (in.aScale ? " scale " + use(in.aScale) : "") + ", " + use(in.b) +
              (in.bScale ? " scale " + use(in.bScale) : "") + ", " + use(in.acc) + " lhs = " + lhs->asString() +
              " rhs = " + rhs->asString();
      attrDict(op.attrs(), {"lhs", "rhs", "operandSegmentSizes"});
      out_ += " : " + in.a->type().str() + (in.aScale ? ", " + in.aScale->type().str() : "") + " * " +
              in.b->type().str() + (in.bScale ? ", " + in.bScale->type().str() : "") + " -> " + r(0).str();
      return true;
    }
    case OpSyntax::MakeTensorPtr: {
      if (n < 1 || (n - 1) % 3 != 0 || op.numResults() != 1 || !r(0).isBlockPointer()) return false;
      const size_t rank = (n - 1) / 3;
      if (t(0) != Type::pointer(r(0).pointee().element(), r(0).addressSpace()) ||
          !allOperandsHaveType(op, 1, 1 + 2 * rank, Type::i64()) ||
          !allOperandsHaveType(op, 1 + 2 * rank, n, Type::i32()))
        return false;
      out_ += writtenOpName(op) + " " + use(op.operand(0)) + ", [" + uses(op, 1, 1 + rank) + "], [" +
              uses(op, 1 + rank, 1 + 2 * rank) + "], [" + uses(op, 1 + 2 * rank, n) + "]";
      attrDict(op.attrs(), {});
      out_ += " : " + r(0).str().substr(std::string("!tt.ptr").size());
      return true;
    }
    case OpSyntax::Advance: {
      if (n < 1 || op.numResults() != 1 || r(0) != t(0) || !r(0).isBlockPointer() ||
          !allOperandsHaveType(op, 1, n, Type::i32()))
        return false;
      out_ += op.name() + " " + use(op.operand(0)) + ", [" + uses(op, 1, n) + "]";
      attrDict(op.attrs(), {});
      out_ += " : " + r(0).str().substr(std::string("!tt.ptr").size());
      return true;
    }
    case OpSyntax::Functional: {
      out_ += op.name() + (n ? " " + allUses(op) : "");
      attrDict(op.attrs(), {});
      std::vector<Type> results = resultTypesOf(op);
      out_ += " : (" + typeList(operandTypes(op)) + ") -> " +
              (results.size() == 1 ? results[0].str() : "(" + typeList(results) + ")");
      return true;
    }
    case OpSyntax::Gather: {
      if (n != 2 || op.numResults() != 1) return false;
      out_ += op.name() + " " + use(op.operand(0)) + "[" + use(op.operand(1)) + "]";
      attrDict(op.attrs(), {});
      out_ += " : (" + typeList(operandTypes(op)) + ") -> " + r(0).str();
      return true;
    }
    case OpSyntax::Call: {
      const Attribute* callee = op.attr("callee");
      if (!callee || (callee->kind() != Attribute::Kind::Symbol && callee->kind() != Attribute::Kind::String))
        return false;
      out_ += op.name() + " " + symbolRef(callee->asString()) + "(" + allUses(op) + ")";
      attrDict(op.attrs(), {"callee"});
      std::vector<Type> results = resultTypesOf(op);
      out_ += " : (" + typeList(operandTypes(op)) + ") -> " +
              (results.size() == 1 ? results[0].str() : "(" + typeList(results) + ")");
      return true;
    }
    case OpSyntax::ClampF: {
      const Attribute* propagate = keyword(op, "propagateNan");
      if (!propagate || n != 3 || op.numResults() != 1 || !allOperandsHaveType(op, 0, 3, r(0))) return false;
      out_ += op.name() + " " + allUses(op) + ", propagateNan = " + propagate->asString();
      attrDict(op.attrs(), {"propagateNan"});
      out_ += " : " + r(0).str();
      return true;
    }
    case OpSyntax::Print: {
      if (!isString(op, "prefix") || op.numResults() != 0) return false;
      out_ += op.name() + " " + quoteString(op.attr("prefix")->asString());
      attrDict(op.attrs(), {"prefix"});
      if (n) out_ += " : " + allUses(op) + " : " + typeList(operandTypes(op));
      return true;
    }
    case OpSyntax::Assert: {
      if (!isString(op, "message") || n != 1 || op.numResults() != 0) return false;
      out_ += op.name() + " " + allUses(op) + ", " + quoteString(op.attr("message")->asString());
      attrDict(op.attrs(), {"message"});
      out_ += " : " + t(0).str();
      return true;
    }
    case OpSyntax::Terminator: {
      if (op.numResults() != 0) return false;
      out_ += op.name();
      attrDict(op.attrs(), {});
      if (n) out_ += " " + allUses(op) + " : " + typeList(operandTypes(op));
      return true;
    }
    case OpSyntax::RegionReturn: {
      if (op.numResults() != 0) return false;
      out_ += op.name() + (n ? " " + allUses(op) : "");
      attrDict(op.attrs(), {});
      out_ += " :" + (n ? " " + typeList(operandTypes(op)) : "");
      return true;
    }
    case OpSyntax::Condition: {
      if (n < 1 || t(0) != Type::i1() || op.numResults() != 0) return false;
      out_ += op.name() + "(" + use(op.operand(0)) + ")";
      attrDict(op.attrs(), {});
      if (n > 1) out_ += " " + uses(op, 1, n) + " : " + typeList(operandTypes(op, 1));
      return true;
    }
    case OpSyntax::For: {
      if (n < 3 || op.numRegions() != 1 || op.region(0)->numBlocks() != 1) return false;
      const Block& body = *op.region(0)->block(0);
      const size_t carried = n - 3;
      if (t(1) != t(0) || t(2) != t(0) || op.numResults() != carried || body.numArguments() != carried + 1 ||
          body.argument(0)->type() != t(0) || t(0).isNone())
        return false;
      for (size_t i = 0; i < carried; ++i)
        if (body.argument(1 + i)->type() != t(3 + i) || r(i) != t(3 + i)) return false;
      out_ += op.name() + (isUnit(op, "unsignedCmp") ? " unsigned " : " ") + use(body.argument(0)) + " = " +
              use(op.operand(0)) + " to " + use(op.operand(1)) + " step " + use(op.operand(2));
      if (carried) {
        std::vector<std::string> inits;
        for (size_t i = 0; i < carried; ++i)
          inits.push_back(use(body.argument(1 + i)) + " = " + use(op.operand(3 + i)));
        out_ += " iter_args(" + join(inits) + ") -> (" + typeList(operandTypes(op, 3)) + ")";
      }
      out_ += "  : " + t(0).str() + " ";
      bareRegion(*op.region(0), level, carried == 0 ? &op : nullptr);
      if (isUnit(op, "unsignedCmp"))
        attrDict(op.attrs(), {"unsignedCmp"});
      else
        attrDict(op.attrs(), {});
      return true;
    }
    case OpSyntax::If: {
      if (n != 1 || t(0) != Type::i1() || op.numRegions() < 1 || op.numRegions() > 2) return false;
      for (size_t i = 0; i < op.numRegions(); ++i)
        if (op.region(i)->numBlocks() != 1 || op.region(i)->block(0)->numArguments() != 0) return false;
      out_ += op.name() + " " + use(op.operand(0));
      if (op.numResults() > 0) out_ += " -> (" + typeList(resultTypesOf(op)) + ")";
      out_ += " ";
      const Operation* elide = op.numResults() == 0 ? &op : nullptr;
      bareRegion(*op.region(0), level, elide);
      if (op.numRegions() == 2) {
        out_ += " else ";
        bareRegion(*op.region(1), level, elide);
      }
      attrDict(op.attrs(), {});
      return true;
    }
    case OpSyntax::While: {
      if (op.numRegions() != 2 || op.region(0)->numBlocks() != 1) return false;
      const Block& before = *op.region(0)->block(0);
      if (before.numArguments() != n) return false;
      for (size_t i = 0; i < n; ++i)
        if (before.argument(i)->type() != t(i)) return false;
      out_ += op.name();
      if (n) {
        std::vector<std::string> inits;
        for (size_t i = 0; i < n; ++i) inits.push_back(use(before.argument(i)) + " = " + use(op.operand(i)));
        out_ += " (" + join(inits) + ")";
      }
      std::vector<Type> results = resultTypesOf(op);
      out_ += " : (" + typeList(operandTypes(op)) + ") -> " +
              (results.size() == 1 ? results[0].str() : "(" + typeList(results) + ")") + " ";
      bareRegion(*op.region(0), level);
      out_ += " do ";
      regionWithHeader(*op.region(1), level);
      if (!op.attrs().empty()) {
        out_ += " attributes";
        attrDict(op.attrs(), {});
      }
      return true;
    }
    case OpSyntax::Generic:
    case OpSyntax::FunctionOp: return false;
  }
  return false;
}

}  // namespace

std::string printAttribute(const Attribute& a) {
  switch (a.kind()) {
    case Attribute::Kind::Unit: return "unit";
    case Attribute::Kind::Bool: return a.asBool() ? "true" : "false";
    case Attribute::Kind::Int:
      if (a.type() == Type::i1()) return a.asInt() & 1 ? "true" : "false";
      return std::to_string(a.asInt()) + " : " + a.type().str();
    case Attribute::Kind::Float: return formatFloatLiteral(a.asFloat(), elementKind(a.type())) + " : " + a.type().str();
    case Attribute::Kind::String: return quoteString(a.asString());
    case Attribute::Kind::Symbol: {
      // Bare unless the word would read back as something else (true, dense, i32, ...).
      static const char* const kReserved[] = {"true",   "false",      "unit",   "dense", "array", "dense_resource",
                                              "sparse", "affine_map", "tensor", "index", "loc"};
      const std::string& s = a.asString();
      bool reserved = parseScalarName(s).has_value();
      for (const char* word : kReserved) reserved = reserved || s == word;
      return isBareIdentifier(s) && !reserved ? s : symbolRef(s);
    }
    case Attribute::Kind::Dialect: return a.asString();
    case Attribute::Kind::TypeAttr: return a.type().str();
    case Attribute::Kind::Array: {
      std::vector<std::string> parts;
      for (const Attribute& e : a.elements()) parts.push_back(printAttribute(e));
      return "[" + join(parts) + "]";
    }
    case Attribute::Kind::DenseArray: {
      std::vector<std::string> parts;
      const bool isBool = a.type() == Type::i1();
      for (int64_t v : a.ints()) parts.push_back(isBool ? (v ? "true" : "false") : std::to_string(v));
      return "array<" + a.type().str() + (parts.empty() ? "" : ": " + join(parts)) + ">";
    }
    case Attribute::Kind::Dense: return "dense<" + denseBody(a) + "> : " + a.type().str();
  }
  return "unit";
}

std::string printLocation(const Location& location) { return "loc(" + locationBody(location) + ")"; }

std::string printModule(const Module& module, const PrintOptions& options) { return Printer(module, options).run(); }

}  // namespace tmetal::ir
