// The pretty syntax of each op family (see ir/op_syntax.h for the layouts).
// Operand types are never guessed: each op's written types say what every
// operand must be, and a value of another type is an error in the text.
#include "tmetal/frontend/ttir_parser.h"

namespace tmetal::frontend {

using ir::OpKind;
using ir::Type;

std::unique_ptr<ir::Operation> TtirParser::parsePrettyOp(PendingOp& op) {
  switch (ir::opSyntax(op.kind)) {
    case ir::OpSyntax::Constant: return parseConstant(op);
    case ir::OpSyntax::SameType: return parseSameType(op);
    case ir::OpSyntax::Compare: return parseCompare(op);
    case ir::OpSyntax::Select: return parseSelect(op);
    case ir::OpSyntax::Cast: return parseCast(op);
    case ir::OpSyntax::Arrow:
    case ir::OpSyntax::Reshape:
    case ir::OpSyntax::FpToFp: return parseArrow(op);
    case ir::OpSyntax::ProgramDim: return parseProgramDim(op);
    case ir::OpSyntax::ResultTypeOnly: return parseResultTypeOnly(op);
    case ir::OpSyntax::OperandTypeOnly: return parseOperandTypeOnly(op);
    case ir::OpSyntax::AddPtr: return parseAddPtr(op);
    case ir::OpSyntax::Load: return parseLoadStore(op, true);
    case ir::OpSyntax::Store: return parseLoadStore(op, false);
    case ir::OpSyntax::AtomicRMW: return parseAtomic(op, true);
    case ir::OpSyntax::AtomicCAS: return parseAtomic(op, false);
    case ir::OpSyntax::Dot: return parseDot(op);
    case ir::OpSyntax::DotScaled: return parseDotScaled(op);
    case ir::OpSyntax::MakeTensorPtr: return parseMakeTensorPtr(op);
    case ir::OpSyntax::Advance: return parseAdvance(op);
    case ir::OpSyntax::Functional: return parseFunctional(op);
    case ir::OpSyntax::Gather: return parseGather(op);
    case ir::OpSyntax::Call: return parseCall(op);
    case ir::OpSyntax::ClampF: return parseClampF(op);
    case ir::OpSyntax::Print: return parsePrint(op);
    case ir::OpSyntax::Assert: return parseAssert(op);
    case ir::OpSyntax::Terminator: return parseTerminator(op);
    case ir::OpSyntax::RegionReturn: return parseRegionReturn(op);
    case ir::OpSyntax::Condition: return parseCondition(op);
    case ir::OpSyntax::For: return parseFor(op);
    case ir::OpSyntax::If: return parseIf(op);
    case ir::OpSyntax::While: return parseWhile(op);
    case ir::OpSyntax::Generic:
      failAt(op.nameToken, "'" + op.name + "' must be written in the generic form (\"" + op.name + "\"(...) ...)");
    case ir::OpSyntax::FunctionOp: break;
  }
  failAt(op.nameToken, "'" + op.name + "' is only allowed at module level");
}

void TtirParser::expectOperandCount(const PendingOp& op, const std::vector<OperandRef>& refs, size_t min, size_t max) {
  if (refs.size() >= min && refs.size() <= max) return;
  std::string expected = min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max);
  failAt(op.nameToken, "'" + op.name + "' takes " + expected + " operand(s), found " + std::to_string(refs.size()));
}

std::vector<ir::Value*> TtirParser::resolveAll(const std::vector<OperandRef>& refs, const std::vector<Type>& types) {
  std::vector<ir::Value*> values;
  for (size_t i = 0; i < refs.size(); ++i) values.push_back(resolve(refs[i], types[i]));
  return values;
}

void TtirParser::parseOptionalFlagsKeyword(std::string_view keyword, const std::string& attrName, ir::AttrList& attrs) {
  if (!tok_.isKeyword(keyword)) return;
  Token start = consume();
  expect(TokenKind::Less, "after '" + std::string(keyword) + "'");
  std::string flags;
  while (true) {
    flags += (flags.empty() ? "" : ",") + std::string(expect(TokenKind::BareIdent, "as a flag").text);
    if (!consumeIf(TokenKind::Comma)) break;
  }
  expect(TokenKind::Greater, "to close '" + std::string(keyword) + "<...>'");
  setUniqueAttr(attrs, start, attrName, ir::Attribute::symbol(flags));
}

std::string TtirParser::parseEnumKeyword(std::string_view what) {
  return std::string(expect(TokenKind::BareIdent, what).text);
}

std::unique_ptr<ir::Operation> TtirParser::parseConstant(PendingOp& op) {
  ir::AttrList attrs;
  parseOptionalAttrDict(attrs);
  Token valueToken = tok_;
  ir::Attribute value = parseAttribute();
  Type type;
  switch (value.kind()) {
    case ir::Attribute::Kind::Bool: type = Type::i1(); break;
    case ir::Attribute::Kind::Int:
    case ir::Attribute::Kind::Float:
    case ir::Attribute::Kind::Dense: type = value.type(); break;
    default: failAt(valueToken, "'arith.constant' needs an integer, float, true/false or dense<...> value");
  }
  setUniqueAttr(attrs, valueToken, "value", value);
  return makeOp(op, {}, {type}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseSameType(PendingOp& op) {
  std::vector<OperandRef> refs = parseOperandRefs();
  size_t arity = ir::sameTypeArity(op.kind);
  expectOperandCount(op, refs, arity, arity);
  ir::AttrList attrs;
  parseOptionalFlagsKeyword("fastmath", "fastmath", attrs);
  parseOptionalFlagsKeyword("overflow", "overflowFlags", attrs);
  parseOptionalAttrDict(attrs);
  expect(TokenKind::Colon, "before the operand type");
  Type type = parseType();
  return makeOp(op, resolveAll(refs, std::vector<Type>(refs.size(), type)), {type}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseCompare(PendingOp& op) {
  Token predicate = expect(TokenKind::BareIdent, "as the comparison predicate (slt, oeq, ...)");
  ir::AttrList attrs;
  attrs.set("predicate", ir::Attribute::symbol(std::string(predicate.text)));
  expect(TokenKind::Comma, "after the predicate");
  std::vector<OperandRef> refs = parseOperandRefs();
  expectOperandCount(op, refs, 2, 2);
  parseOptionalFlagsKeyword("fastmath", "fastmath", attrs);
  parseOptionalAttrDict(attrs);
  expect(TokenKind::Colon, "before the operand type");
  Type type = parseType();
  return makeOp(op, resolveAll(refs, {type, type}), {type.withElement(Type::i1())}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseSelect(PendingOp& op) {
  std::vector<OperandRef> refs = parseOperandRefs();
  expectOperandCount(op, refs, 3, 3);
  ir::AttrList attrs;
  parseOptionalAttrDict(attrs);
  expect(TokenKind::Colon, "before the operand types");
  Type first = parseType();
  Type condition = Type::i1(), value = first;
  if (consumeIf(TokenKind::Comma)) {
    condition = first;
    value = parseType();
  }
  return makeOp(op, resolveAll(refs, {condition, value, value}), {value}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseCast(PendingOp& op) {
  std::vector<OperandRef> refs = parseOperandRefs();
  expectOperandCount(op, refs, 1, 1);
  ir::AttrList attrs;
  parseOptionalAttrDict(attrs);
  expect(TokenKind::Colon, "before the source type");
  Type from = parseType();
  expectKeyword("to", "between the source and the result type");
  Type to = parseType();
  return makeOp(op, resolveAll(refs, {from}), {to}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseArrow(PendingOp& op) {
  std::vector<OperandRef> refs = parseOperandRefs();
  ir::AttrList attrs;
  if (op.kind == OpKind::TtReshape) {
    while (tok_.isKeyword("allow_reorder") || tok_.isKeyword("efficient_layout")) {
      Token flag = consume();
      setUniqueAttr(attrs, flag, std::string(flag.text), ir::Attribute::unit());
    }
  }
  parseOptionalAttrDict(attrs);
  if (op.kind == OpKind::TtFpToFp && consumeIf(TokenKind::Comma)) {
    Token keyword = expectKeyword("rounding", "after ','");
    expect(TokenKind::Equal, "after 'rounding'");
    setUniqueAttr(attrs, keyword, "rounding", ir::Attribute::symbol(parseEnumKeyword("as the rounding mode")));
  }
  const bool twoOperands = op.kind == OpKind::TtJoin || op.kind == OpKind::TtCat;
  expectOperandCount(op, refs, twoOperands ? 2 : 1, twoOperands || op.kind == OpKind::TtHistogram ? 2 : 1);
  expect(TokenKind::Colon, "before the source type");
  Type from = parseType();
  expect(TokenKind::Arrow, "between the source and the result type");
  Type to = parseType();
  std::vector<Type> operandTypes(refs.size(), from);
  if (op.kind == OpKind::TtHistogram && refs.size() == 2) operandTypes[1] = from.withElement(Type::i1());
  std::vector<Type> results{to};
  if (op.kind == OpKind::TtSplit) results.push_back(to);
  return makeOp(op, resolveAll(refs, operandTypes), results, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseProgramDim(PendingOp& op) {
  Token axis = expect(TokenKind::BareIdent, "as the grid axis (x, y or z)");
  int64_t index = axis.text == "x" ? 0 : axis.text == "y" ? 1 : axis.text == "z" ? 2 : -1;
  if (index < 0) failAt(axis, "expected the grid axis x, y or z, found " + axis.describe());
  ir::AttrList attrs;
  attrs.set("axis", ir::Attribute::integer(index, Type::i32()));
  parseOptionalAttrDict(attrs);
  expect(TokenKind::Colon, "before the result type");
  Type type = parseType();
  return makeOp(op, {}, {type}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseResultTypeOnly(PendingOp& op) {
  ir::AttrList attrs;
  parseOptionalAttrDict(attrs);
  expect(TokenKind::Colon, "before the result type");
  Type type = parseType();
  return makeOp(op, {}, {type}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseOperandTypeOnly(PendingOp& op) {
  std::vector<OperandRef> refs = parseOperandRefs();
  expectOperandCount(op, refs, 1, 1);
  ir::AttrList attrs;
  parseOptionalAttrDict(attrs);
  expect(TokenKind::Colon, "before the operand type");
  Type type = parseType();
  std::vector<Type> results;
  if (op.kind == OpKind::TtUnsplat) results.push_back(type.isTensor() ? type.element() : type);
  return makeOp(op, resolveAll(refs, {type}), results, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseGather(PendingOp& op) {
  OperandRef source = parseOperandRef();
  expect(TokenKind::LSquare, "before the indices");
  OperandRef indices = parseOperandRef();
  expect(TokenKind::RSquare, "after the indices");
  ir::AttrList attrs;
  parseOptionalAttrDict(attrs);
  Token colon = expect(TokenKind::Colon, "before the op's function type");
  FunctionType type = parseFunctionType();
  if (type.inputs.size() != 2 || type.results.size() != 1)
    failAt(colon, "'tt.gather' has the type (source, indices) -> result");
  return makeOp(op, {resolve(source, type.inputs[0]), resolve(indices, type.inputs[1])}, type.results,
                std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseAddPtr(PendingOp& op) {
  std::vector<OperandRef> refs = parseOperandRefs();
  expectOperandCount(op, refs, 2, 2);
  ir::AttrList attrs;
  parseOptionalAttrDict(attrs);
  expect(TokenKind::Colon, "before the pointer type");
  Type pointer = parseType();
  expect(TokenKind::Comma, "between the pointer and the offset type");
  Type offset = parseType();
  return makeOp(op, resolveAll(refs, {pointer, offset}), {pointer}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseLoadStore(PendingOp& op, bool isLoad) {
  std::vector<OperandRef> refs = parseOperandRefs();
  if (isLoad)
    expectOperandCount(op, refs, 1, 3);
  else
    expectOperandCount(op, refs, 2, 3);
  ir::AttrList attrs;
  // Triton prints these two in either order, each at most once.
  while (tok_.isKeyword("cacheModifier") || tok_.isKeyword("evictionPolicy")) {
    Token keyword = consume();
    expect(TokenKind::Equal, "after " + keyword.describe());
    std::string value = parseEnumKeyword("as the " + std::string(keyword.text));
    setUniqueAttr(attrs, keyword, keyword.text == "cacheModifier" ? "cache" : "evict", ir::Attribute::symbol(value));
  }
  parseOptionalAttrDict(attrs);
  expect(TokenKind::Colon, "before the pointer type");
  size_t typeOffset = tok_.offset;
  Type pointer = parseType();
  Type loaded;
  if (!ir::loadedType(pointer, loaded))
    failAt(typeOffset, "'" + op.name + "' needs a pointer or a tensor of pointers, found '" + pointer.str() + "'");
  Type mask = loaded.withElement(Type::i1());
  std::vector<Type> types =
      isLoad ? std::vector<Type>{pointer, mask, loaded} : std::vector<Type>{pointer, loaded, mask};
  types.resize(refs.size());
  std::vector<Type> results;
  if (isLoad) results.push_back(loaded);
  return makeOp(op, resolveAll(refs, types), results, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseAtomic(PendingOp& op, bool isRmw) {
  ir::AttrList attrs;
  if (isRmw) {
    Token kind = tok_;
    setUniqueAttr(attrs, kind, "atomic_rmw_op", ir::Attribute::symbol(parseEnumKeyword("as the atomic operation")));
    expect(TokenKind::Comma, "after the atomic operation");
  }
  attrs.set("sem", ir::Attribute::symbol(parseEnumKeyword("as the memory semantics (relaxed, acq_rel, ...)")));
  expect(TokenKind::Comma, "after the memory semantics");
  attrs.set("scope", ir::Attribute::symbol(parseEnumKeyword("as the memory scope (gpu, cta, sys)")));
  expect(TokenKind::Comma, "after the memory scope");
  std::vector<OperandRef> refs = parseOperandRefs();
  if (isRmw)
    expectOperandCount(op, refs, 2, 3);
  else
    expectOperandCount(op, refs, 3, 3);
  parseOptionalAttrDict(attrs);
  Token colon = expect(TokenKind::Colon, "before the op's function type");
  FunctionType type = parseFunctionType();
  if (type.inputs.size() != refs.size() || type.results.size() != 1)
    failAt(colon, "'" + op.name + "' with " + std::to_string(refs.size()) +
                      " operand(s) needs a function type with as many inputs and one result");
  return makeOp(op, resolveAll(refs, type.inputs), type.results, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseDot(PendingOp& op) {
  std::vector<OperandRef> refs = parseOperandRefs();
  expectOperandCount(op, refs, 3, 3);
  ir::AttrList attrs;
  if (consumeIf(TokenKind::Comma)) {
    Token keyword = expectKeyword("inputPrecision", "after ','");
    expect(TokenKind::Equal, "after 'inputPrecision'");
    setUniqueAttr(attrs, keyword, "inputPrecision",
                  ir::Attribute::symbol(parseEnumKeyword("as the input precision (tf32, tf32x3, bf16x3, bf16x6, ieee)")));
  }
  parseOptionalAttrDict(attrs);
  expect(TokenKind::Colon, "before the operand types");
  Type a = parseType();
  expect(TokenKind::Star, "between the types of a and b");
  Type b = parseType();
  expect(TokenKind::Arrow, "before the result type");
  Type c = parseType();
  return makeOp(op, resolveAll(refs, {a, b, c}), {c}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseDotScaled(PendingOp& op) {
  // %a [scale %sa], %b [scale %sb], %c lhs = T rhs = T {attrs}? : A[, SA] * B[, SB] -> C
  std::vector<OperandRef> refs;
  bool hasScale[2] = {false, false};
  for (int side = 0; side < 2; ++side) {
    refs.push_back(parseOperandRef());
    if (consumeKeyword("scale")) {
      refs.push_back(parseOperandRef());
      hasScale[side] = true;
    }
    expect(TokenKind::Comma, side == 0 ? "after a (and its scale)" : "after b (and its scale)");
  }
  refs.push_back(parseOperandRef());
  ir::AttrList attrs;
  for (const char* side : {"lhs", "rhs"}) {
    Token keyword = expectKeyword(side, "of tt.dot_scaled");
    expect(TokenKind::Equal, std::string("after '") + side + "'");
    setUniqueAttr(attrs, keyword, side,
                  ir::Attribute::symbol(parseEnumKeyword("as an operand format (e2m1, e4m3, e5m2, bf16, fp16)")));
  }
  parseOptionalAttrDict(attrs);
  attrs.set("operandSegmentSizes", ir::Attribute::denseArray({1, hasScale[0] ? 1 : 0, 1, hasScale[1] ? 1 : 0, 1}));
  expect(TokenKind::Colon, "before the operand types");
  std::vector<Type> types{parseType()};
  if (hasScale[0]) {
    expect(TokenKind::Comma, "before the type of a's scale");
    types.push_back(parseType());
  }
  expect(TokenKind::Star, "between the types of a and b");
  types.push_back(parseType());
  if (hasScale[1]) {
    expect(TokenKind::Comma, "before the type of b's scale");
    types.push_back(parseType());
  }
  expect(TokenKind::Arrow, "before the result type");
  Type c = parseType();
  types.push_back(c);
  return makeOp(op, resolveAll(refs, types), {c}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseMakeTensorPtr(PendingOp& op) {
  OperandRef base = parseOperandRef();
  std::vector<OperandRef> lists[3];
  const char* const names[3] = {"shape", "strides", "offsets"};
  for (int i = 0; i < 3; ++i) {
    expect(TokenKind::Comma, std::string("before the ") + names[i] + " list");
    expect(TokenKind::LSquare, std::string("to open the ") + names[i] + " list");
    if (!tok_.is(TokenKind::RSquare)) lists[i] = parseOperandRefs();
    expect(TokenKind::RSquare, std::string("to close the ") + names[i] + " list");
  }
  ir::AttrList attrs;
  parseOptionalAttrDict(attrs);
  expect(TokenKind::Colon, "before the result type");
  Type result = parseTensorPointerType();
  std::vector<OperandRef> refs{base};
  std::vector<Type> types{Type::pointer(result.pointee().element(), result.addressSpace())};
  const Type listTypes[3] = {Type::i64(), Type::i64(), Type::i32()};
  for (int i = 0; i < 3; ++i)
    for (const OperandRef& ref : lists[i]) {
      refs.push_back(ref);
      types.push_back(listTypes[i]);
    }
  return makeOp(op, resolveAll(refs, types), {result}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseAdvance(PendingOp& op) {
  OperandRef pointer = parseOperandRef();
  expect(TokenKind::Comma, "before the offsets");
  expect(TokenKind::LSquare, "to open the offsets");
  std::vector<OperandRef> offsets;
  if (!tok_.is(TokenKind::RSquare)) offsets = parseOperandRefs();
  expect(TokenKind::RSquare, "to close the offsets");
  ir::AttrList attrs;
  parseOptionalAttrDict(attrs);
  expect(TokenKind::Colon, "before the pointer type");
  Type type = parseTensorPointerType();
  std::vector<OperandRef> refs{pointer};
  refs.insert(refs.end(), offsets.begin(), offsets.end());
  std::vector<Type> types(refs.size(), Type::i32());
  types[0] = type;
  return makeOp(op, resolveAll(refs, types), {type}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseFunctional(PendingOp& op) {
  std::vector<OperandRef> refs = parseOptionalOperandRefs();
  ir::AttrList attrs;
  parseOptionalAttrDict(attrs);
  Token colon = expect(TokenKind::Colon, "before the op's function type");
  FunctionType type = parseFunctionType();
  if (type.inputs.size() != refs.size())
    failAt(colon, "'" + op.name + "' has " + std::to_string(refs.size()) + " operand(s) but its type lists " +
                      std::to_string(type.inputs.size()));
  return makeOp(op, resolveAll(refs, type.inputs), type.results, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseCall(PendingOp& op) {
  Token callee = expect(TokenKind::SymbolRef, "as the called function");
  std::string_view raw = callee.text.substr(1);
  ir::AttrList attrs;
  attrs.set("callee",
            ir::Attribute::symbol(raw.size() && raw[0] == '"' ? Lexer::decodeString(callee) : std::string(raw)));
  expect(TokenKind::LParen, "to open the call's arguments");
  std::vector<OperandRef> refs = parseOptionalOperandRefs();
  expect(TokenKind::RParen, "to close the call's arguments");
  parseOptionalAttrDict(attrs);
  Token colon = expect(TokenKind::Colon, "before the call's function type");
  FunctionType type = parseFunctionType();
  if (type.inputs.size() != refs.size())
    failAt(colon, "the call passes " + std::to_string(refs.size()) + " argument(s) but its type lists " +
                      std::to_string(type.inputs.size()));
  return makeOp(op, resolveAll(refs, type.inputs), type.results, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseClampF(PendingOp& op) {
  std::vector<OperandRef> refs = parseOperandRefs();
  expectOperandCount(op, refs, 3, 3);
  expect(TokenKind::Comma, "before 'propagateNan'");
  Token keyword = expectKeyword("propagateNan", "after the operands");
  expect(TokenKind::Equal, "after 'propagateNan'");
  ir::AttrList attrs;
  setUniqueAttr(attrs, keyword, "propagateNan", ir::Attribute::symbol(parseEnumKeyword("as none or all")));
  parseOptionalAttrDict(attrs);
  expect(TokenKind::Colon, "before the operand type");
  Type type = parseType();
  return makeOp(op, resolveAll(refs, {type, type, type}), {type}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parsePrint(PendingOp& op) {
  Token prefix = expect(TokenKind::String, "as the print prefix");
  ir::AttrList attrs;
  attrs.set("prefix", ir::Attribute::string(Lexer::decodeString(prefix)));
  parseOptionalAttrDict(attrs);
  std::vector<OperandRef> refs;
  std::vector<Type> types;
  if (consumeIf(TokenKind::Colon)) {
    refs = parseOperandRefs();
    Token colon = expect(TokenKind::Colon, "before the types of the printed values");
    types = parseTypeList();
    if (types.size() != refs.size())
      failAt(colon, "'tt.print' has " + std::to_string(refs.size()) + " value(s) but " + std::to_string(types.size()) +
                        " type(s)");
  }
  return makeOp(op, resolveAll(refs, types), {}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseAssert(PendingOp& op) {
  std::vector<OperandRef> refs = parseOperandRefs();
  expectOperandCount(op, refs, 1, 1);
  expect(TokenKind::Comma, "before the assert message");
  Token message = expect(TokenKind::String, "as the assert message");
  ir::AttrList attrs;
  attrs.set("message", ir::Attribute::string(Lexer::decodeString(message)));
  parseOptionalAttrDict(attrs);
  expect(TokenKind::Colon, "before the condition type");
  Type type = parseType();
  return makeOp(op, resolveAll(refs, {type}), {}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseTerminator(PendingOp& op) {
  ir::AttrList attrs;
  parseOptionalAttrDict(attrs);
  if (op.kind == OpKind::GpuBarrier) return makeOp(op, {}, {}, std::move(attrs));  // never has operands
  std::vector<OperandRef> refs = parseOptionalOperandRefs();
  std::vector<Type> types;
  if (!refs.empty()) {
    Token colon = expect(TokenKind::Colon, "before the types of the values");
    types = parseTypeList();
    if (types.size() != refs.size())
      failAt(colon, "'" + op.name + "' has " + std::to_string(refs.size()) + " value(s) but " +
                        std::to_string(types.size()) + " type(s)");
  }
  return makeOp(op, resolveAll(refs, types), {}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseRegionReturn(PendingOp& op) {
  std::vector<OperandRef> refs = parseOptionalOperandRefs();
  ir::AttrList attrs;
  parseOptionalAttrDict(attrs);
  Token colon = expect(TokenKind::Colon, "before the types of the values");
  std::vector<Type> types;
  if (!refs.empty()) types = parseTypeList();
  if (types.size() != refs.size())
    failAt(colon, "'" + op.name + "' has " + std::to_string(refs.size()) + " value(s) but " +
                      std::to_string(types.size()) + " type(s)");
  return makeOp(op, resolveAll(refs, types), {}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseCondition(PendingOp& op) {
  expect(TokenKind::LParen, "around the condition");
  OperandRef condition = parseOperandRef();
  expect(TokenKind::RParen, "after the condition");
  ir::AttrList attrs;
  parseOptionalAttrDict(attrs);
  std::vector<OperandRef> refs{condition};
  std::vector<Type> types{Type::i1()};
  std::vector<OperandRef> forwarded = parseOptionalOperandRefs();
  if (!forwarded.empty()) {
    Token colon = expect(TokenKind::Colon, "before the types of the forwarded values");
    std::vector<Type> forwardedTypes = parseTypeList();
    if (forwardedTypes.size() != forwarded.size())
      failAt(colon, "'scf.condition' forwards " + std::to_string(forwarded.size()) + " value(s) but lists " +
                        std::to_string(forwardedTypes.size()) + " type(s)");
    refs.insert(refs.end(), forwarded.begin(), forwarded.end());
    types.insert(types.end(), forwardedTypes.begin(), forwardedTypes.end());
  }
  return makeOp(op, resolveAll(refs, types), {}, std::move(attrs));
}

std::unique_ptr<ir::Operation> TtirParser::parseFor(PendingOp& op) {
  ir::AttrList attrs;
  if (consumeKeyword("unsigned")) attrs.set("unsignedCmp", ir::Attribute::unit());
  Token inductionName = expect(TokenKind::ValueId, "as the induction variable");
  expect(TokenKind::Equal, "after the induction variable");
  OperandRef lower = parseOperandRef();
  expectKeyword("to", "after the lower bound");
  OperandRef upper = parseOperandRef();
  expectKeyword("step", "after the upper bound");
  OperandRef step = parseOperandRef();
  std::vector<Token> iterNames;
  std::vector<OperandRef> inits;
  std::vector<Type> iterTypes;
  if (consumeKeyword("iter_args")) {
    expect(TokenKind::LParen, "after 'iter_args'");
    while (true) {
      iterNames.push_back(expect(TokenKind::ValueId, "as a loop-carried value"));
      expect(TokenKind::Equal, "after the loop-carried value");
      inits.push_back(parseOperandRef());
      if (consumeIf(TokenKind::RParen)) break;
      expect(TokenKind::Comma, "or ')' in 'iter_args'");
    }
    Token arrow = expect(TokenKind::Arrow, "before the types of the loop-carried values");
    iterTypes = parseResultTypeList();
    if (iterTypes.size() != inits.size())
      failAt(arrow, "'scf.for' carries " + std::to_string(inits.size()) + " value(s) but lists " +
                        std::to_string(iterTypes.size()) + " type(s)");
  }
  if (!tok_.is(TokenKind::Colon))
    failExpected("': i32' or ': i64' (an scf.for without it counts in 'index', which tmetal does not support)");
  consume();
  Type inductionType = parseType();
  std::vector<OperandRef> refs{lower, upper, step};
  std::vector<Type> types(3, inductionType);
  refs.insert(refs.end(), inits.begin(), inits.end());
  types.insert(types.end(), iterTypes.begin(), iterTypes.end());
  std::unique_ptr<ir::Operation> loop = makeOp(op, resolveAll(refs, types), iterTypes, std::move(attrs));

  ir::Block* body = loop->addRegion()->addBlock();
  pushScope();
  op.argumentsWithoutLocation.push_back(addBlockArgument(body, inductionName, inductionType, ir::Location()));
  for (size_t i = 0; i < iterNames.size(); ++i)
    op.argumentsWithoutLocation.push_back(addBlockArgument(body, iterNames[i], iterTypes[i], ir::Location()));
  parseBlockBody(body, "loop body");
  popScope();
  if (iterTypes.empty()) addImplicitYield(op, body);
  parseOptionalAttrDict(loop->attrs());
  return loop;
}

std::unique_ptr<ir::Operation> TtirParser::parseIf(PendingOp& op) {
  OperandRef condition = parseOperandRef();
  std::vector<Type> results;
  if (consumeIf(TokenKind::Arrow)) results = parseResultTypeList();
  std::unique_ptr<ir::Operation> branch = makeOp(op, resolveAll({condition}, {Type::i1()}), results);
  const char* const what[2] = {"then region", "else region"};
  for (int i = 0; i < 2; ++i) {
    if (i == 1 && !consumeKeyword("else")) break;
    ir::Block* block = branch->addRegion()->addBlock();
    pushScope();
    parseBlockBody(block, what[i]);
    popScope();
    if (results.empty()) addImplicitYield(op, block);
  }
  parseOptionalAttrDict(branch->attrs());
  return branch;
}

std::unique_ptr<ir::Operation> TtirParser::parseWhile(PendingOp& op) {
  std::vector<Token> argNames;
  std::vector<OperandRef> inits;
  if (consumeIf(TokenKind::LParen)) {
    while (true) {
      argNames.push_back(expect(TokenKind::ValueId, "as a loop value"));
      expect(TokenKind::Equal, "after the loop value");
      inits.push_back(parseOperandRef());
      if (consumeIf(TokenKind::RParen)) break;
      expect(TokenKind::Comma, "or ')' in the loop values");
    }
  }
  Token colon = expect(TokenKind::Colon, "before the loop's function type");
  FunctionType type = parseFunctionType();
  if (type.inputs.size() != inits.size())
    failAt(colon, "'scf.while' starts " + std::to_string(inits.size()) + " value(s) but its type lists " +
                      std::to_string(type.inputs.size()));
  std::unique_ptr<ir::Operation> loop = makeOp(op, resolveAll(inits, type.inputs), type.results);
  ir::Block* before = loop->addRegion()->addBlock();
  pushScope();
  for (size_t i = 0; i < argNames.size(); ++i)
    op.argumentsWithoutLocation.push_back(addBlockArgument(before, argNames[i], type.inputs[i], ir::Location()));
  parseBlockBody(before, "'before' region");
  popScope();
  expectKeyword("do", "between the two regions of 'scf.while'");
  pushScope();
  parseRegionWithHeader(loop->addRegion());
  popScope();
  if (consumeKeyword("attributes")) parseAttrDict(loop->attrs());
  return loop;
}

}  // namespace tmetal::frontend
