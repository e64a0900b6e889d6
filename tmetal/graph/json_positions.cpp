#include "tmetal/graph/json_positions.h"

#include <cctype>

namespace tmetal::graph {

namespace {

class Scanner {
 public:
  explicit Scanner(const std::string& text) : text_(text) {}

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }
  size_t pos() const { return pos_; }
  void advance() { ++pos_; }

  void skipSpace() {
    while (!atEnd() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  // At an opening quote: returns the raw string contents (escapes kept).
  std::string readString() {
    std::string out;
    ++pos_;
    while (!atEnd() && text_[pos_] != '"') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) out += text_[pos_++];
      out += text_[pos_++];
    }
    ++pos_;
    return out;
  }

  void skipValue() {
    skipSpace();
    char c = peek();
    if (c == '"') {
      readString();
    } else if (c == '{' || c == '[') {
      int depth = 0;
      while (!atEnd()) {
        char d = peek();
        if (d == '"') {
          readString();
          continue;
        }
        if (d == '{' || d == '[') ++depth;
        if (d == '}' || d == ']') --depth;
        ++pos_;
        if (depth == 0) break;
      }
    } else {
      while (!atEnd() && peek() != ',' && peek() != ']' && peek() != '}' &&
             !std::isspace(static_cast<unsigned char>(peek())))
        ++pos_;
    }
  }

  // At '[': the offsets of its elements.
  std::vector<size_t> arrayElements() {
    std::vector<size_t> offsets;
    ++pos_;
    skipSpace();
    if (peek() == ']') return offsets;
    while (!atEnd()) {
      skipSpace();
      offsets.push_back(pos_);
      skipValue();
      skipSpace();
      if (peek() != ',') break;
      ++pos_;
    }
    return offsets;
  }

 private:
  const std::string& text_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<size_t> opsElementOffsets(const std::string& text) {
  Scanner s(text);
  s.skipSpace();
  if (s.peek() == '[') return s.arrayElements();
  if (s.peek() != '{') return {};
  s.advance();
  while (!s.atEnd()) {
    s.skipSpace();
    if (s.peek() != '"') return {};
    std::string key = s.readString();
    s.skipSpace();
    if (s.peek() != ':') return {};
    s.advance();
    s.skipSpace();
    if (key == "ops" && s.peek() == '[') return s.arrayElements();
    s.skipValue();
    s.skipSpace();
    if (s.peek() != ',') return {};
    s.advance();
  }
  return {};
}

SourcePos positionOf(const std::string& text, size_t offset, const std::string& file) {
  SourcePos p;
  p.file = file;
  p.line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < offset && i < text.size(); ++i)
    if (text[i] == '\n') {
      ++p.line;
      lineStart = i + 1;
    }
  p.col = static_cast<int>(offset - lineStart) + 1;
  return p;
}

}  // namespace tmetal::graph
