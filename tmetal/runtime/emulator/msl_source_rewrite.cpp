#include "tmetal/runtime/emulator/msl_source_rewrite.h"

#include <cctype>
#include <vector>

namespace tmetal::runtime::emulator {
namespace {

enum class TokenKind { Identifier, Number, Punctuation, Skipped };

// A token of the source, by position; comments, literals, whitespace and
// preprocessor line continuations are Skipped so that copying every token's
// text reproduces the input exactly.
struct Token {
  TokenKind kind;
  size_t begin;
  size_t end;
};

bool isIdentifierStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool isIdentifierChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<Token> tokenize(const std::string& s) {
  std::vector<Token> tokens;
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    const size_t start = i;
    const char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      while (i < n && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      tokens.push_back({TokenKind::Skipped, start, i});
    } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
      tokens.push_back({TokenKind::Skipped, start, i});
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      const size_t close = s.find("*/", i + 2);
      i = close == std::string::npos ? n : close + 2;
      tokens.push_back({TokenKind::Skipped, start, i});
    } else if (c == '"' || c == '\'') {
      ++i;
      while (i < n && s[i] != c && s[i] != '\n') i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
      if (i < n && s[i] == c) ++i;
      tokens.push_back({TokenKind::Skipped, start, i});
    } else if (isIdentifierStart(c)) {
      while (i < n && isIdentifierChar(s[i])) ++i;
      tokens.push_back({TokenKind::Identifier, start, i});
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      // A preprocessing number: digits, letters, '.', and a sign after an exponent letter.
      ++i;
      while (i < n) {
        const char d = s[i];
        if ((d == '+' || d == '-') && (s[i - 1] == 'e' || s[i - 1] == 'E' || s[i - 1] == 'p' || s[i - 1] == 'P'))
          ++i;
        else if (isIdentifierChar(d) || d == '.')
          ++i;
        else
          break;
      }
      tokens.push_back({TokenKind::Number, start, i});
    } else if (c == ':' && i + 1 < n && s[i + 1] == ':') {
      i += 2;
      tokens.push_back({TokenKind::Punctuation, start, i});
    } else {
      ++i;
      tokens.push_back({TokenKind::Punctuation, start, i});
    }
  }
  return tokens;
}

class Rewriter {
 public:
  explicit Rewriter(const std::string& source) : s_(source), tokens_(tokenize(source)) {}

  std::string run() {
    std::string out;
    out.reserve(s_.size() + 256);
    int parenDepth = 0;
    for (size_t t = 0; t < tokens_.size(); ++t) {
      const Token& tok = tokens_[t];
      const std::string text = s_.substr(tok.begin, tok.end - tok.begin);
      if (tok.kind == TokenKind::Punctuation) {
        if (text == "(") ++parenDepth;
        if (text == ")" && parenDepth > 0) --parenDepth;
        out += text;
      } else if (tok.kind == TokenKind::Identifier && text == "threadgroup") {
        const bool variable = parenDepth == 0 && declaresVariable(t);
        out += variable ? "TMETAL_THREADGROUP_STORAGE" : "TMETAL_THREADGROUP_ADDRESS_SPACE";
      } else if (tok.kind == TokenKind::Number) {
        out += rewriteNumber(text);
      } else {
        out += text;
      }
    }
    return out;
  }

 private:
  // Index of the next token that is not Skipped, or tokens_.size().
  size_t next(size_t t) const {
    ++t;
    while (t < tokens_.size() && tokens_[t].kind == TokenKind::Skipped) ++t;
    return t;
  }

  std::string textOf(size_t t) const { return s_.substr(tokens_[t].begin, tokens_[t].end - tokens_[t].begin); }

  // Looks past `threadgroup` at tokens_[t] over the rest of the type.
  bool declaresVariable(size_t t) const {
    size_t k = next(t);
    while (k < tokens_.size()) {
      const Token& tok = tokens_[k];
      const std::string text = textOf(k);
      if (tok.kind == TokenKind::Identifier || text == "::") {
        k = next(k);
      } else if (text == "<") {
        int depth = 0;
        while (k < tokens_.size()) {
          const std::string inner = textOf(k);
          if (inner == "<") ++depth;
          if (inner == ">" && --depth == 0) break;
          k = next(k);
        }
        k = next(k);
      } else {
        return !(text == "*" || text == "&" || text == "(" || text == ")");
      }
    }
    return false;
  }

  static std::string rewriteNumber(const std::string& number) {
    const char last = number.back();
    const bool hex = number.size() > 1 && number[0] == '0' && (number[1] == 'x' || number[1] == 'X');
    if (hex || (last != 'h' && last != 'H')) return number;
    const std::string digits = number.substr(0, number.size() - 1);
    const bool floating = digits.find_first_of(".eE") != std::string::npos;
    return "half(" + digits + (floating ? "f" : "") + ")";
  }

  const std::string& s_;
  std::vector<Token> tokens_;
};

}  // namespace

std::string rewriteMslForShim(const std::string& msl) { return Rewriter(msl).run(); }

}  // namespace tmetal::runtime::emulator
