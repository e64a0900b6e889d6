#include "tmetal/frontend/ttir_lexer.h"

#include <algorithm>

#include "tmetal/ir/text_syntax.h"

namespace tmetal::frontend {

namespace {
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isHexDigit(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
int hexValue(char c) { return isDigit(c) ? c - '0' : (c | 0x20) - 'a' + 10; }

std::string printableChar(char c) {
  auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x20 && byte < 0x7f) return std::string("'") + c + "'";
  static const char* const kHex = "0123456789ABCDEF";
  return std::string("byte 0x") + kHex[byte >> 4] + kHex[byte & 15];
}
}  // namespace

std::string describeTokenKind(TokenKind kind) {
  switch (kind) {
    case TokenKind::Eof: return "end of file";
    case TokenKind::BareIdent: return "an identifier";
    case TokenKind::ValueId: return "a value name";
    case TokenKind::SymbolRef: return "a symbol name";
    case TokenKind::BlockId: return "a block label";
    case TokenKind::HashIdent: return "a '#' alias";
    case TokenKind::BangIdent: return "a dialect type";
    case TokenKind::Integer: return "an integer";
    case TokenKind::Float: return "a float";
    case TokenKind::String: return "a string";
    case TokenKind::LParen: return "'('";
    case TokenKind::RParen: return "')'";
    case TokenKind::LBrace: return "'{'";
    case TokenKind::RBrace: return "'}'";
    case TokenKind::LSquare: return "'['";
    case TokenKind::RSquare: return "']'";
    case TokenKind::Less: return "'<'";
    case TokenKind::Greater: return "'>'";
    case TokenKind::Comma: return "','";
    case TokenKind::Colon: return "':'";
    case TokenKind::Equal: return "'='";
    case TokenKind::Arrow: return "'->'";
    case TokenKind::Star: return "'*'";
    case TokenKind::Minus: return "'-'";
    case TokenKind::Plus: return "'+'";
    case TokenKind::Question: return "'?'";
  }
  return "a token";
}

std::string Token::describe() const {
  if (kind == TokenKind::Eof) return "end of file";
  // Long strings and names are cut so that a message stays one readable line.
  constexpr size_t kShown = 40;
  std::string shown(text.substr(0, kShown));
  if (text.size() > kShown) shown += "...";
  return "'" + shown + "'";
}

Lexer::Lexer(std::string_view source, std::string filename) : source_(source), filename_(std::move(filename)) {
  lineStarts_.push_back(0);
  for (size_t i = 0; i < source_.size(); ++i)
    if (source_[i] == '\n') lineStarts_.push_back(i + 1);
}

SourcePos Lexer::posAt(size_t offset) const {
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  size_t line = static_cast<size_t>(it - lineStarts_.begin());  // 1-based: lineStarts_[line-1] <= offset
  size_t col = offset - lineStarts_[line - 1] + 1;
  return SourcePos{filename_, static_cast<int>(line), static_cast<int>(col)};
}

void Lexer::fail(size_t offset, const std::string& message) const { throw CompileError(posAt(offset), message); }

void Lexer::skipSpaceAndComments() {
  while (pos_ < source_.size()) {
    char c = source_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < source_.size() && source_[pos_ + 1] == '/') {
      while (pos_ < source_.size() && source_[pos_] != '\n') ++pos_;
    } else {
      return;
    }
  }
}

Token Lexer::lex() {
  skipSpaceAndComments();
  size_t start = pos_;
  if (pos_ >= source_.size()) return Token{TokenKind::Eof, {}, source_.size()};
  char c = source_[pos_++];
  switch (c) {
    case '(': return make(TokenKind::LParen, start);
    case ')': return make(TokenKind::RParen, start);
    case '{': return make(TokenKind::LBrace, start);
    case '}': return make(TokenKind::RBrace, start);
    case '[': return make(TokenKind::LSquare, start);
    case ']': return make(TokenKind::RSquare, start);
    case '<': return make(TokenKind::Less, start);
    case '>': return make(TokenKind::Greater, start);
    case ',': return make(TokenKind::Comma, start);
    case ':': return make(TokenKind::Colon, start);
    case '=': return make(TokenKind::Equal, start);
    case '*': return make(TokenKind::Star, start);
    case '+': return make(TokenKind::Plus, start);
    case '?': return make(TokenKind::Question, start);
    case '-':
      if (pos_ < source_.size() && source_[pos_] == '>') {
        ++pos_;
        return make(TokenKind::Arrow, start);
      }
      return make(TokenKind::Minus, start);
    case '"': return lexString(start);
    case '%': return lexSuffixId(TokenKind::ValueId, start);
    case '#': return lexSuffixId(TokenKind::HashIdent, start);
    case '^': return lexSuffixId(TokenKind::BlockId, start);
    case '@':
      if (pos_ < source_.size() && source_[pos_] == '"') {
        ++pos_;
        Token quoted = lexString(pos_ - 1);
        return Token{TokenKind::SymbolRef, source_.substr(start, quoted.end() - start), start};
      }
      if (pos_ >= source_.size() || !ir::isBareIdentStart(source_[pos_]))
        fail(start, "expected a symbol name after '@'");
      while (pos_ < source_.size() && ir::isBareIdentChar(source_[pos_])) ++pos_;
      return make(TokenKind::SymbolRef, start);
    case '!':
      if (pos_ >= source_.size() || !ir::isBareIdentStart(source_[pos_]))
        fail(start, "expected a dialect type name after '!'");
      while (pos_ < source_.size() && ir::isBareIdentChar(source_[pos_])) ++pos_;
      return make(TokenKind::BangIdent, start);
    default: break;
  }
  if (isDigit(c)) return lexNumber(start);
  if (ir::isBareIdentStart(c)) return lexBareIdent(start);
  fail(start, "unexpected character " + printableChar(c));
}

Token Lexer::lexBareIdent(size_t start) {
  while (pos_ < source_.size() && ir::isBareIdentChar(source_[pos_])) ++pos_;
  return make(TokenKind::BareIdent, start);
}

Token Lexer::lexSuffixId(TokenKind kind, size_t start) {
  if (pos_ < source_.size() && isDigit(source_[pos_])) {
    while (pos_ < source_.size() && isDigit(source_[pos_])) ++pos_;
    return make(kind, start);
  }
  if (pos_ >= source_.size() || !ir::isSuffixIdChar(source_[pos_])) {
    const char* what = kind == TokenKind::ValueId   ? "a value name after '%'"
                       : kind == TokenKind::BlockId ? "a block name after '^'"
                                                    : "an alias name after '#'";
    fail(start, std::string("expected ") + what);
  }
  while (pos_ < source_.size() && ir::isSuffixIdChar(source_[pos_])) ++pos_;
  return make(kind, start);
}

Token Lexer::lexNumber(size_t start) {
  // 0x... is a hexadecimal integer (also the bit pattern of a float).
  if (source_[start] == '0' && pos_ < source_.size() && source_[pos_] == 'x' && pos_ + 1 < source_.size() &&
      isHexDigit(source_[pos_ + 1])) {
    ++pos_;
    while (pos_ < source_.size() && isHexDigit(source_[pos_])) ++pos_;
    return make(TokenKind::Integer, start);
  }
  while (pos_ < source_.size() && isDigit(source_[pos_])) ++pos_;
  if (pos_ >= source_.size() || source_[pos_] != '.') return make(TokenKind::Integer, start);
  ++pos_;
  while (pos_ < source_.size() && isDigit(source_[pos_])) ++pos_;
  if (pos_ < source_.size() && (source_[pos_] == 'e' || source_[pos_] == 'E')) {
    size_t p = pos_ + 1;
    if (p < source_.size() && (source_[p] == '+' || source_[p] == '-')) ++p;
    if (p < source_.size() && isDigit(source_[p])) {
      pos_ = p;
      while (pos_ < source_.size() && isDigit(source_[pos_])) ++pos_;
    }
  }
  return make(TokenKind::Float, start);
}

Token Lexer::lexString(size_t start) {
  while (true) {
    if (pos_ >= source_.size() || source_[pos_] == '\n' || source_[pos_] == '\r')
      fail(start, "unterminated string (a string must end with '\"' on the same line)");
    char c = source_[pos_++];
    if (c == '"') return make(TokenKind::String, start);
    if (c != '\\') continue;
    if (pos_ >= source_.size()) fail(start, "unterminated string (a string must end with '\"' on the same line)");
    char e = source_[pos_];
    if (e == '"' || e == '\\' || e == 'n' || e == 't') {
      ++pos_;
    } else if (pos_ + 1 < source_.size() && isHexDigit(e) && isHexDigit(source_[pos_ + 1])) {
      pos_ += 2;
    } else {
      fail(pos_ - 1, "unknown escape in string: expected \\\\, \\\", \\n, \\t or two hex digits after '\\'");
    }
  }
}

std::string Lexer::decodeString(const Token& token) {
  // The token was checked by lexString; skip the quotes (and a leading '@').
  std::string_view body = token.text;
  if (!body.empty() && body[0] == '@') body.remove_prefix(1);
  body = body.substr(1, body.size() - 2);
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\') {
      out += body[i];
      continue;
    }
    char e = body[++i];
    if (e == 'n')
      out += '\n';
    else if (e == 't')
      out += '\t';
    else if (e == '"' || e == '\\')
      out += e;
    else {
      out += static_cast<char>(hexValue(e) * 16 + hexValue(body[i + 1]));
      ++i;
    }
  }
  return out;
}

}  // namespace tmetal::frontend
