#include "tmetal/frontend/ttir_parser.h"

#include <cctype>

namespace tmetal::frontend {

TtirParser::TtirParser(std::string_view text, std::string filename) : lexer_(text, std::move(filename)) {
  tok_ = lexer_.lex();
}

Token TtirParser::consume() {
  Token current = tok_;
  tok_ = lexer_.lex();
  return current;
}

bool TtirParser::consumeIf(TokenKind kind) {
  if (!tok_.is(kind)) return false;
  consume();
  return true;
}

bool TtirParser::consumeKeyword(std::string_view word) {
  if (!tok_.isKeyword(word)) return false;
  consume();
  return true;
}

Token TtirParser::expect(TokenKind kind, std::string_view context) {
  if (!tok_.is(kind)) failExpected(describeTokenKind(kind) + (context.empty() ? "" : " " + std::string(context)));
  return consume();
}

Token TtirParser::expectKeyword(std::string_view word, std::string_view context) {
  if (!tok_.isKeyword(word))
    failExpected("'" + std::string(word) + "'" + (context.empty() ? "" : " " + std::string(context)));
  return consume();
}

Token TtirParser::peekNext() {
  size_t resume = lexer_.position();
  Token next = lexer_.lex();
  lexer_.resetTo(resume);
  return next;
}

void TtirParser::failAt(size_t offset, const std::string& message) const { lexer_.fail(offset, message); }

void TtirParser::failExpected(std::string_view what) const {
  failAt(tok_, "expected " + std::string(what) + ", found " + tok_.describe());
}

ir::Location TtirParser::locationOf(size_t offset) const {
  SourcePos pos = lexer_.posAt(offset);
  return ir::Location::fileLineCol(pos.file, pos.line, pos.col);
}

uint64_t TtirParser::parseUnsigned(const Token& token, uint64_t max, std::string_view what) {
  std::string_view digits = token.text;
  int base = 10;
  if (digits.size() > 2 && digits[0] == '0' && digits[1] == 'x') {
    base = 16;
    digits.remove_prefix(2);
  }
  uint64_t value = 0;
  for (char c : digits) {
    uint64_t d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (c | 0x20) - 'a' + 10;
    if (value > (max - d) / base) failAt(token, std::string(what) + " " + token.describe() + " is too large");
    value = value * base + d;
  }
  return value;
}

TtirParser::DepthGuard::DepthGuard(TtirParser& parser, size_t offset) : parser_(parser) {
  if (++parser_.depth_ > kMaxNesting)
    parser_.failAt(offset, "nesting too deep: regions, types, attributes and locations may nest at most " +
                               std::to_string(kMaxNesting) + " levels");
}

TtirParser::LocationRecursionGuard::LocationRecursionGuard(TtirParser& parser, size_t offset) : parser_(parser) {
  if (++parser_.locationRecursion_ > kMaxLocationRecursion)
    parser_.failAt(offset, "location nests too deep (more than " + std::to_string(kMaxLocationRecursion) +
                               " levels of parts and aliases)");
}

TtirParser::OperandRef TtirParser::parseOperandRef() {
  if (!tok_.is(TokenKind::ValueId)) failExpected("a value like '%x'");
  Token name = consume();
  OperandRef ref{name, std::string(name.text.substr(1)), 0};
  // `%11#1` is result 1 of the op whose results are named %11.
  if (tok_.is(TokenKind::HashIdent) && tok_.offset == name.end()) {
    Token index = consume();
    std::string_view digits = index.text.substr(1);
    for (char c : digits)
      if (!std::isdigit(static_cast<unsigned char>(c))) failAt(index, "expected a result number after '#'");
    ref.index = parseUnsigned(Token{TokenKind::Integer, digits, index.offset + 1}, 1u << 30, "result number");
    ref.token = Token{TokenKind::ValueId, lexer_.source().substr(name.offset, index.end() - name.offset), name.offset};
  }
  return ref;
}

std::vector<TtirParser::OperandRef> TtirParser::parseOperandRefs() {
  std::vector<OperandRef> refs{parseOperandRef()};
  while (tok_.is(TokenKind::Comma) && peekNext().is(TokenKind::ValueId)) {
    consume();
    refs.push_back(parseOperandRef());
  }
  return refs;
}

std::vector<TtirParser::OperandRef> TtirParser::parseOptionalOperandRefs() {
  if (!tok_.is(TokenKind::ValueId)) return {};
  return parseOperandRefs();
}

ir::Value* TtirParser::lookup(const OperandRef& ref) const {
  for (auto scope = scopes_.rbegin(); scope != scopes_.rend(); ++scope) {
    auto it = scope->find(ref.name);
    if (it == scope->end()) continue;
    const std::vector<ir::Value*>& group = it->second;
    if (ref.index >= group.size())
      failAt(ref.token, "result #" + std::to_string(ref.index) + " of '%" + ref.name + "' does not exist ('%" +
                            ref.name + "' names " + std::to_string(group.size()) + " result(s))");
    return group[ref.index];
  }
  failAt(ref.token, "use of undefined value '%" + ref.name + "'");
}

void TtirParser::checkType(const OperandRef& ref, ir::Value* value, const ir::Type& expected) const {
  if (value->type() != expected)
    failAt(ref.token, "type mismatch: '" + std::string(ref.token.text) + "' has type '" + value->type().str() +
                          "' but is used here as '" + expected.str() + "'");
}

ir::Value* TtirParser::resolve(const OperandRef& ref, const ir::Type& expected) const {
  ir::Value* value = lookup(ref);
  checkType(ref, value, expected);
  return value;
}

void TtirParser::defineValue(const Token& nameToken, std::vector<ir::Value*> group) {
  std::string name(nameToken.text.substr(1));
  for (const auto& scope : scopes_)
    if (scope.count(name)) failAt(nameToken, "redefinition of value '%" + name + "'");
  scopes_.back().emplace(std::move(name), std::move(group));
}

std::string TtirParser::nameHint(const Token& nameToken) {
  std::string_view name = nameToken.text.substr(1);
  auto allDigits = [](std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
  };
  if (allDigits(name)) return "";
  if (name.size() > 3 && name.substr(0, 3) == "arg" && allDigits(name.substr(3))) return "";
  return std::string(name);
}

}  // namespace tmetal::frontend
