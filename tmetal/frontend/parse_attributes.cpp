// Attribute values: integers and floats with their types, true/false,
// strings, enum keywords (stored as Symbol), @symbols, types, [arrays],
// array<i32: ..> and dense<..> : tensor<..> constants; and {dictionaries}.
#include <cmath>
#include <cstdlib>

#include "tmetal/frontend/ttir_parser.h"
#include "tmetal/ir/float_bits.h"

namespace tmetal::frontend {

namespace {

bool isHexLiteral(const Token& t) { return t.text.size() > 2 && t.text[0] == '0' && t.text[1] == 'x'; }

// Integers are kept as int64, sign-extended from their type's width, so
// that `4294967295 : i32` and `-1 : i32` are the same attribute (as in MLIR).
int64_t signExtend(uint64_t value, int bits) {
  if (bits >= 64) return static_cast<int64_t>(value);
  uint64_t mask = (uint64_t{1} << bits) - 1;
  value &= mask;
  if (value >> (bits - 1)) value |= ~mask;
  return static_cast<int64_t>(value);
}

}  // namespace

void TtirParser::setUniqueAttr(ir::AttrList& into, const Token& nameToken, const std::string& name,
                               ir::Attribute value) {
  if (into.has(name)) failAt(nameToken, "attribute '" + name + "' is given twice");
  into.set(name, std::move(value));
}

void TtirParser::parseOptionalAttrDict(ir::AttrList& into) {
  if (tok_.is(TokenKind::LBrace)) parseAttrDict(into);
}

void TtirParser::parseAttrDict(ir::AttrList& into) {
  DepthGuard guard(*this, tok_.offset);
  expect(TokenKind::LBrace, "to open an attribute dictionary");
  if (consumeIf(TokenKind::RBrace)) return;
  while (true) {
    Token nameToken = tok_;
    std::string name;
    if (tok_.is(TokenKind::BareIdent)) {
      name = std::string(consume().text);
    } else if (tok_.is(TokenKind::String)) {
      name = Lexer::decodeString(consume());
      if (name.empty()) failAt(nameToken, "an attribute name cannot be empty");
    } else {
      failExpected("an attribute name");
    }
    ir::Attribute value = ir::Attribute::unit();
    if (consumeIf(TokenKind::Equal)) value = parseAttribute();
    setUniqueAttr(into, nameToken, name, std::move(value));
    if (consumeIf(TokenKind::RBrace)) return;
    expect(TokenKind::Comma, "or '}' in the attribute dictionary");
  }
}

ir::Attribute TtirParser::parseAttribute() {
  DepthGuard guard(*this, tok_.offset);
  Token t = tok_;
  switch (t.kind) {
    case TokenKind::Minus: {
      consume();
      if (!tok_.is(TokenKind::Integer) && !tok_.is(TokenKind::Float)) failExpected("a number after '-'");
      return parseNumber(t, true, nullptr);
    }
    case TokenKind::Integer:
    case TokenKind::Float: return parseNumber(t, false, nullptr);
    case TokenKind::String: consume(); return ir::Attribute::string(Lexer::decodeString(t));
    case TokenKind::SymbolRef: {
      consume();
      std::string_view name = t.text.substr(1);
      return ir::Attribute::symbol(name.size() && name[0] == '"' ? Lexer::decodeString(t) : std::string(name));
    }
    case TokenKind::LSquare: {
      consume();
      std::vector<ir::Attribute> elements;
      if (!consumeIf(TokenKind::RSquare)) {
        while (true) {
          elements.push_back(parseAttribute());
          if (consumeIf(TokenKind::RSquare)) break;
          expect(TokenKind::Comma, "or ']' in the array attribute");
        }
      }
      return ir::Attribute::array(std::move(elements));
    }
    case TokenKind::BangIdent: return ir::Attribute::type(parseType());
    case TokenKind::HashIdent: return ir::Attribute::dialect(parseDialectAttributeText());
    case TokenKind::LBrace: failAt(t, "dictionary attributes are not supported");
    case TokenKind::BareIdent: break;
    default: failExpected("an attribute value");
  }
  if (t.text == "true" || t.text == "false") {
    consume();
    return ir::Attribute::boolean(t.text == "true");
  }
  if (t.text == "unit") {
    consume();
    return ir::Attribute::unit();
  }
  if (t.text == "dense") return parseDenseElements();
  if (t.text == "array") return parseDenseArray();
  if (t.text == "dense_resource" || t.text == "sparse" || t.text == "affine_map")
    failAt(t, "unsupported attribute '" + std::string(t.text) + "<...>'");
  if (atTypeStart()) return ir::Attribute::type(parseType());
  consume();
  return ir::Attribute::symbol(std::string(t.text));
}

ir::Attribute TtirParser::parseNumber(const Token& signToken, bool negative, const ir::Type* type) {
  Token literal = consume();
  ir::Type valueType;
  if (type) {
    valueType = *type;
  } else if (consumeIf(TokenKind::Colon)) {
    size_t typeOffset = tok_.offset;
    valueType = parseType();
    if (!valueType.isScalar()) failAt(typeOffset, "a number's type must be an integer or float type");
  } else {
    // Without a type MLIR makes an i64 or an f64.
    valueType = literal.is(TokenKind::Float) ? ir::Type::f64() : ir::Type::i64();
  }
  (void)signToken;
  if (valueType.isFloat()) return parseFloatLiteral(literal, negative, valueType);
  if (literal.is(TokenKind::Float))
    failAt(literal, "a float literal cannot have the integer type '" + valueType.str() + "'");
  return parseIntegerLiteral(literal, negative, valueType);
}

ir::Attribute TtirParser::parseIntegerLiteral(const Token& token, bool negative, const ir::Type& type) {
  const int bits = type.bitWidth();
  // Either sign-extended or unsigned spelling of a `bits`-wide value.
  const uint64_t maxMagnitude = negative ? (bits >= 64 ? uint64_t{1} << 63 : uint64_t{1} << (bits - 1))
                                         : (bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1);
  uint64_t magnitude = parseUnsigned(token, ~uint64_t{0}, "integer");
  if (magnitude > maxMagnitude)
    failAt(token, "integer " + std::string(negative ? "-" : "") + std::string(token.text) + " does not fit in '" +
                      type.str() + "'");
  uint64_t value = negative ? ~magnitude + 1 : magnitude;
  if (type.scalarKind() == ir::ScalarKind::I1) return ir::Attribute::boolean(value & 1);
  return ir::Attribute::integer(signExtend(value, bits), type);
}

ir::Attribute TtirParser::parseFloatLiteral(const Token& token, bool negative, const ir::Type& type) {
  const ir::ScalarKind kind = type.scalarKind();
  if (token.is(TokenKind::Integer)) {
    if (!isHexLiteral(token))
      failAt(token,
             "expected a float literal like 1.0 for type '" + type.str() + "', found the integer " + token.describe());
    // Hexadecimal: the bit pattern (how MLIR writes infinities and NaNs).
    if (negative) failAt(token, "a float's bit pattern cannot be negated; write the sign bit into it");
    const int bits = type.bitWidth();
    uint64_t pattern = parseUnsigned(token, bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1,
                                     "bit pattern for '" + type.str() + "'");
    return ir::Attribute::floating(ir::floatFromBits(pattern, kind), type);
  }
  std::string text(token.text);
  double value = std::strtod(text.c_str(), nullptr);
  if (negative) value = -value;
  return ir::Attribute::floating(ir::roundToFloat(value, kind), type);
}

ir::Attribute TtirParser::parseScalarElement(const Token& token, bool negative, const ir::Type& elementType) {
  if (token.isKeyword("true") || token.isKeyword("false")) {
    if (elementType.scalarKind() != ir::ScalarKind::I1)
      failAt(token, "'" + std::string(token.text) + "' is not a value of type '" + elementType.str() + "'");
    return ir::Attribute::boolean(token.text == "true");
  }
  if (elementType.isFloat()) return parseFloatLiteral(token, negative, elementType);
  if (token.is(TokenKind::Float)) failAt(token, "a float literal is not a value of type '" + elementType.str() + "'");
  return parseIntegerLiteral(token, negative, elementType);
}

ir::Attribute TtirParser::parseDenseElements() {
  Token keyword = consume();  // dense
  expect(TokenKind::Less, "after 'dense'");
  if (tok_.is(TokenKind::String)) failAt(tok_, "hex-encoded dense constants (dense<\"0x...\">) are not supported");
  // Elements are kept as tokens until the type after '>' says what they are.
  std::vector<Token> scalars;
  std::vector<bool> negatives;
  auto takeScalar = [&] {
    bool negative = consumeIf(TokenKind::Minus);
    if (!tok_.is(TokenKind::Integer) && !tok_.is(TokenKind::Float) && !tok_.isKeyword("true") &&
        !tok_.isKeyword("false"))
      failExpected("a number, true or false in the dense literal");
    scalars.push_back(consume());
    negatives.push_back(negative);
  };
  const bool isList = tok_.is(TokenKind::LSquare);
  std::vector<int64_t> listShape;  // the length of the lists at each depth
  if (isList) {
    // Nested lists are walked with an explicit stack: no recursion to bound.
    struct Level {
      Token open;
      int64_t count;
    };
    std::vector<Level> stack;
    size_t scalarDepth = 0;  // the depth all numbers must be at; 0 until the first
    auto afterElement = [&] {
      ++stack.back().count;
      if (consumeIf(TokenKind::Comma)) {
        if (tok_.is(TokenKind::RSquare)) failExpected("an element after ','");
      } else if (!tok_.is(TokenKind::RSquare)) {
        failExpected("',' or ']' in the dense literal");
      }
    };
    stack.push_back({consume(), 0});
    while (!stack.empty()) {
      if (tok_.is(TokenKind::RSquare)) {
        consume();
        Level level = stack.back();
        stack.pop_back();
        size_t depth = stack.size();
        if (listShape.size() <= depth) listShape.resize(depth + 1, -1);
        if (listShape[depth] == -1)
          listShape[depth] = level.count;
        else if (listShape[depth] != level.count)
          failAt(level.open, "the nested lists of a dense literal must all have the same length at each depth");
        if (!stack.empty()) afterElement();
        continue;
      }
      if (tok_.is(TokenKind::LSquare)) {
        if (stack.size() >= static_cast<size_t>(kMaxNesting)) failAt(tok_, "dense literal nests too deep");
        stack.push_back({consume(), 0});
        continue;
      }
      if (scalarDepth == 0) scalarDepth = stack.size();
      if (scalarDepth != stack.size())
        failAt(tok_, "the numbers of a dense literal must all be at the same list depth");
      takeScalar();
      afterElement();
    }
    if (scalarDepth != 0 && scalarDepth != listShape.size())
      failAt(keyword, "the numbers of a dense literal must all be at the same list depth");
  } else {
    takeScalar();
  }
  expect(TokenKind::Greater, "to close the dense literal");
  expect(TokenKind::Colon, "before the type of the dense constant");
  size_t typeOffset = tok_.offset;
  ir::Type type = parseType();
  if (!type.isTensor()) failAt(typeOffset, "a dense constant must have a tensor type, found '" + type.str() + "'");
  const ir::Type& element = type.element();
  if (!element.isScalar())
    failAt(typeOffset, "a dense constant's elements must be integers or floats, found '" + element.str() + "'");
  if (isList) {
    if (scalars.size() != static_cast<size_t>(type.numElements()) || listShape != type.shape()) {
      // One element in brackets ([1.0]) for a one-element tensor is fine.
      bool oneElement = scalars.size() == 1 && type.numElements() == 1;
      if (!oneElement) {
        std::string shown;
        for (size_t i = 0; i < listShape.size(); ++i) shown += (i ? "x" : "") + std::to_string(listShape[i]);
        failAt(keyword, "dense literal of shape [" + shown + "] does not match its type '" + type.str() + "'");
      }
    }
  }
  std::vector<ir::Attribute> elements;
  elements.reserve(scalars.size());
  for (size_t i = 0; i < scalars.size(); ++i) elements.push_back(parseScalarElement(scalars[i], negatives[i], element));
  return ir::Attribute::dense(std::move(elements), type);
}

ir::Attribute TtirParser::parseDenseArray() {
  consume();  // array
  expect(TokenKind::Less, "after 'array'");
  size_t typeOffset = tok_.offset;
  ir::Type element = parseType();
  if (!element.isInt()) failAt(typeOffset, "array<...> attributes must hold integers, found '" + element.str() + "'");
  std::vector<int64_t> values;
  if (consumeIf(TokenKind::Colon)) {
    while (true) {
      bool negative = consumeIf(TokenKind::Minus);
      Token t = tok_;
      if (!t.is(TokenKind::Integer) && !t.isKeyword("true") && !t.isKeyword("false"))
        failExpected("an integer in the array attribute");
      consume();
      ir::Attribute a = parseScalarElement(t, negative, element);
      values.push_back(a.kind() == ir::Attribute::Kind::Bool ? (a.asBool() ? 1 : 0) : a.asInt());
      if (!consumeIf(TokenKind::Comma)) break;
    }
  }
  expect(TokenKind::Greater, "to close the array attribute");
  return ir::Attribute::denseArray(std::move(values), element);
}

}  // namespace tmetal::frontend
