#include "tmetal/graph/operation_spec.h"

#include <cctype>
#include <limits>

namespace tmetal::graph {

namespace {

class SpecParser {
 public:
  explicit SpecParser(const std::string& spec) : s_(spec) {}

  [[noreturn]] void fail(const std::string& message, size_t at) const {
    throw CompileError(SourcePos{kOperationSource, 1, static_cast<int>(at) + 1}, message);
  }
  [[noreturn]] void fail(const std::string& message) const { fail(message, pos_); }

  bool atEnd() const { return pos_ >= s_.size(); }
  char peek() const { return atEnd() ? '\0' : s_[pos_]; }
  void skipSpace() {
    while (!atEnd() && s_[pos_] == ' ') ++pos_;
  }
  void expect(char c, const std::string& what) {
    skipSpace();
    if (peek() != c) fail("expected " + what + atText());
    ++pos_;
  }
  std::string atText() const {
    return atEnd() ? " at the end" : std::string(" at '") + s_.substr(pos_, 12) + "'";
  }

  std::string type() {
    size_t start = pos_;
    while (!atEnd() && s_[pos_] != ':') ++pos_;
    std::string t = s_.substr(start, pos_ - start);
    if (t.empty()) fail("expected an op type such as tt.sum before ':'", start);
    return t;
  }

  int64_t integer() {
    skipSpace();
    size_t start = pos_;
    if (peek() == '-' || peek() == '+') ++pos_;
    if (!std::isdigit(static_cast<unsigned char>(peek()))) {
      size_t end = start;
      while (end < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '_')) ++end;
      if (end > start && std::isalpha(static_cast<unsigned char>(s_[start])))
        fail("symbolic dimension '" + s_.substr(start, end - start) +
                 "' in --operation; give every dimension as an integer",
             start);
      fail("expected an integer" + atText(), start);
    }
    while (std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
    std::string digits = s_.substr(start, pos_ - start);
    try {
      size_t used = 0;
      long long v = std::stoll(digits, &used);
      return static_cast<int64_t>(v);
    } catch (const std::out_of_range&) {
      fail("integer " + digits + " does not fit in 64 bits", start);
    }
  }

  // "[d0, d1, ...]"
  std::vector<int64_t> list() {
    expect('[', "'['");
    std::vector<int64_t> out;
    skipSpace();
    if (peek() == ']') {
      ++pos_;
      return out;
    }
    for (;;) {
      out.push_back(integer());
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      expect(']', "',' or ']'");
      return out;
    }
  }

  std::vector<std::vector<int64_t>> shapes() {
    std::vector<std::vector<int64_t>> out;
    for (;;) {
      out.push_back(list());
      skipSpace();
      if (peek() != ',') return out;
      ++pos_;
    }
  }

  GraphOp parse(size_t index) {
    GraphOp op;
    op.index = index;
    op.pos = SourcePos{kOperationSource, 1, 1};
    op.type = type();
    expect(':', "':' and the input shapes, as in tt.sum:[1024,512]:1");
    op.inputShapes = shapes();
    skipSpace();
    if (peek() == ':') {
      ++pos_;
      skipSpace();
      if (peek() == '[') {
        op.axes = list();
        op.axisWasList = true;
      } else if (!atEnd() && peek() != ':') {
        op.axes = std::vector<int64_t>{integer()};
      }
      skipSpace();
      if (peek() == ':') {
        ++pos_;
        size_t start = pos_;
        op.dtype = s_.substr(start);
        if (op.dtype.empty()) fail("expected a dtype such as float32 after ':'", start);
        pos_ = s_.size();
      }
    }
    skipSpace();
    if (!atEnd()) fail("unexpected text" + atText());
    return op;
  }

 private:
  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace

GraphOp parseOperationSpec(const std::string& spec, size_t index) { return SpecParser(spec).parse(index); }

}  // namespace tmetal::graph
