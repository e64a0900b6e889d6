// Splits TTIR text into tokens the way MLIR's lexer does. Tokens are made on
// demand from a position that can be reset, because MLIR's grammar needs it:
// `tensor<4x8xf32>` lexes as `4` then `x8xf32` in the ordinary token set, so
// the reader re-reads shapes character by character and resumes lexing after
// them; location aliases (`#loc3`) may be used before they are defined, so the
// reader jumps to their definitions and back.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tmetal/support/diagnostic.h"

namespace tmetal::frontend {

enum class TokenKind {
  Eof,
  BareIdent,  // tt.func, arith.addi, tensor, f32, slt, loc
  ValueId,    // %x_ptr, %0
  SymbolRef,  // @kernel or @"quoted name"
  BlockId,    // ^bb0
  HashIdent,  // #loc3, and the #1 of %11#1
  BangIdent,  // !tt.ptr
  Integer,    // 42, 0xFF800000
  Float,      // 1.000000e+00
  String,     // "text" (text() keeps the quotes and escapes)
  LParen,
  RParen,
  LBrace,
  RBrace,
  LSquare,
  RSquare,
  Less,
  Greater,
  Comma,
  Colon,
  Equal,
  Arrow,  // ->
  Star,
  Minus,
  Plus,
  Question,
};

// How a token kind reads in a message: "'('", "a value name", ...
std::string describeTokenKind(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::Eof;
  std::string_view text;  // as written; empty at end of file
  size_t offset = 0;      // of the first character

  bool is(TokenKind k) const { return kind == k; }
  bool isKeyword(std::string_view word) const { return kind == TokenKind::BareIdent && text == word; }
  size_t end() const { return offset + text.size(); }
  // How the token reads in a message: "'tt.func'", "end of file".
  std::string describe() const;
};

class Lexer {
 public:
  Lexer(std::string_view source, std::string filename);

  // The next token from the current position; Eof at the end, forever.
  Token lex();
  size_t position() const { return pos_; }
  void resetTo(size_t offset) { pos_ = offset < source_.size() ? offset : source_.size(); }

  std::string_view source() const { return source_; }
  const std::string& filename() const { return filename_; }
  // 1-based line and column (in bytes) of a character offset.
  SourcePos posAt(size_t offset) const;
  [[noreturn]] void fail(size_t offset, const std::string& message) const;

  // The characters a String token stands for, escapes decoded.
  static std::string decodeString(const Token& token);

 private:
  void skipSpaceAndComments();
  Token make(TokenKind kind, size_t start) const { return Token{kind, source_.substr(start, pos_ - start), start}; }
  Token lexNumber(size_t start);
  Token lexString(size_t start);
  // %name, #name, ^name: an MLIR suffix-id after the sigil.
  Token lexSuffixId(TokenKind kind, size_t start);
  Token lexBareIdent(size_t start);

  std::string_view source_;
  std::string filename_;
  size_t pos_ = 0;
  std::vector<size_t> lineStarts_;
};

}  // namespace tmetal::frontend
