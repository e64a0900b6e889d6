// Types: i1 ... f64, !tt.ptr<T[, addrspace]>, tensor<4x8xT>, and the short
// form `<tensor<..>>` that tt.make_tensor_ptr and tt.advance print.
#include <cctype>

#include "tmetal/frontend/ttir_parser.h"

namespace tmetal::frontend {

namespace {

constexpr const char* kSupportedTypes =
    "tmetal supports i1, i8, i16, i32, i64, f16, bf16, f32, f64, f8E4M3FN, f8E5M2, f8E4M3FNUZ, f8E5M2FNUZ, "
    "f8E4M3B11FNUZ, pointers and tensors of them";

// Larger tensors do not fit a threadgroup or a grid; the limit also keeps
// element counts far from int64 overflow.
constexpr uint64_t kMaxTensorElements = uint64_t{1} << 32;
}  // namespace

bool TtirParser::atTypeStart() const {
  if (tok_.is(TokenKind::BangIdent)) return true;
  if (!tok_.is(TokenKind::BareIdent)) return false;
  return tok_.text == "tensor" || ir::parseScalarName(std::string(tok_.text)).has_value();
}

ir::Type TtirParser::parseType() {
  DepthGuard guard(*this, tok_.offset);
  Token t = tok_;
  if (t.is(TokenKind::BareIdent)) {
    if (auto scalar = ir::parseScalarName(std::string(t.text))) {
      consume();
      return ir::Type::scalar(*scalar);
    }
    if (t.text == "tensor") return parseTensorType(consume());
    if (t.text == "index")
      failAt(t,
             "unsupported type 'index': " + std::string(kSupportedTypes));
    failAt(t, "unsupported type " + t.describe() + ": " + kSupportedTypes);
  }
  if (t.is(TokenKind::BangIdent)) {
    if (t.text != "!tt.ptr") failAt(t, "unsupported type " + t.describe());
    consume();
    expect(TokenKind::Less, "after '!tt.ptr'");
    return parsePointerParams(t.offset);
  }
  failExpected("a type");
}

ir::Type TtirParser::parsePointerParams(size_t typeOffset) {
  ir::Type pointee = parseType();
  if (!pointee.isScalar() && !pointee.isPointer() && !pointee.isTensor())
    failAt(typeOffset, "a pointer must point to a scalar, a pointer or a tensor");
  int addressSpace = 1;
  if (consumeIf(TokenKind::Comma)) {
    Token space = expect(TokenKind::Integer, "as the pointer's address space");
    addressSpace = static_cast<int>(parseUnsigned(space, 255, "address space"));
  }
  expect(TokenKind::Greater, "to close the pointer type");
  return ir::Type::pointer(pointee, addressSpace);
}

ir::Type TtirParser::parseTensorType(const Token& keyword) {
  Token open = tok_;
  if (!open.is(TokenKind::Less)) failExpected("'<' after 'tensor'");
  // The shape is read by character: `4x8xf32` is not a sequence of tokens.
  std::string_view text = lexer_.source();
  size_t p = open.end();
  while (p < text.size() && (text[p] == ' ' || text[p] == '\t')) ++p;
  std::vector<int64_t> shape;
  uint64_t elements = 1;
  while (p < text.size() && (std::isdigit(static_cast<unsigned char>(text[p])) || text[p] == '?')) {
    if (text[p] == '?') failAt(p, "dynamic tensor dimensions ('?') are not supported");
    size_t start = p;
    uint64_t dim = 0;
    while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p]))) {
      dim = dim * 10 + static_cast<uint64_t>(text[p] - '0');
      if (dim > kMaxTensorElements) failAt(start, "tensor dimension is too large");
      ++p;
    }
    if (dim != 0 && elements > kMaxTensorElements / dim)
      failAt(start, "tensor type has too many elements (more than 2^32)");
    elements *= dim;
    shape.push_back(static_cast<int64_t>(dim));
    if (p >= text.size() || text[p] != 'x') failAt(p, "expected 'x' after a tensor dimension");
    ++p;
  }
  lexer_.resetTo(p);
  tok_ = lexer_.lex();
  size_t elementOffset = tok_.offset;
  ir::Type element = parseType();
  if (element.isTensor()) failAt(elementOffset, "a tensor's element type cannot be a tensor");
  if (tok_.is(TokenKind::Comma))
    failAt(tok_, "tensor encodings (TritonGPU layouts) are not supported: tmetal reads TTIR, not TTGIR");
  expect(TokenKind::Greater, "to close the tensor type");
  (void)keyword;
  return ir::Type::tensor(std::move(shape), element);
}

ir::Type TtirParser::parseTensorPointerType() {
  Token start = tok_;
  ir::Type type;
  if (consumeIf(TokenKind::Less)) {
    type = parsePointerParams(start.offset);
  } else {
    type = parseType();
  }
  if (!type.isBlockPointer())
    failAt(start, "expected a pointer to a tensor like '<tensor<32x64xf32>>', found '" + type.str() + "'");
  return type;
}

std::vector<ir::Type> TtirParser::parseTypeList() {
  std::vector<ir::Type> types{parseType()};
  while (consumeIf(TokenKind::Comma)) types.push_back(parseType());
  return types;
}

std::vector<ir::Type> TtirParser::parseParenTypeList() {
  expect(TokenKind::LParen, "to open a type list");
  if (consumeIf(TokenKind::RParen)) return {};
  std::vector<ir::Type> types = parseTypeList();
  if (tok_.is(TokenKind::LBrace)) failAt(tok_, "attributes on function results are not supported");
  expect(TokenKind::RParen, "to close the type list");
  return types;
}

std::vector<ir::Type> TtirParser::parseResultTypeList() {
  if (tok_.is(TokenKind::LParen)) return parseParenTypeList();
  return {parseType()};
}

TtirParser::FunctionType TtirParser::parseFunctionType() {
  FunctionType type;
  type.inputs = parseParenTypeList();
  expect(TokenKind::Arrow, "in the function type");
  type.results = parseResultTypeList();
  return type;
}

}  // namespace tmetal::frontend
