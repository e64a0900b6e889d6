// Indented lines of generated source. Blocks open with a header line ending
// in "{" and close with "}", so that the output reads like hand-written C.
#pragma once

#include <string>
#include <vector>

namespace tmetal::codegen {

// `expr` as an operand of a binary operator: in parentheses unless it is a
// single name or literal (the generated expressions space their operators).
inline std::string parenthesized(const std::string& expr) {
  return expr.find(' ') == std::string::npos ? expr : "(" + expr + ")";
}

class CodeBuffer {
 public:
  explicit CodeBuffer(int indent = 0) : indent_(indent) {}

  void line(const std::string& text);
  void blank();
  // "header {" and one level deeper.
  void open(const std::string& header);
  // One level shallower and "}" (or "} trailer").
  void close(const std::string& trailer = "");
  // "} header {": closes a block and opens the next at the same depth.
  void continueBlock(const std::string& header);
  void comment(const std::string& text);  // "// text", split on newlines
  // Appends another buffer's lines at this buffer's current depth.
  void append(const CodeBuffer& other);

  int indent() const { return indent_; }
  bool empty() const { return lines_.empty(); }
  std::string str() const;

 private:
  int indent_;
  std::vector<std::string> lines_;
};

}  // namespace tmetal::codegen
