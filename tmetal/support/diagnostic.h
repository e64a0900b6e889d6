// Diagnostics: every user-facing failure in tmetal is a CompileError that
// carries where it happened (a source location, an op, or both), so the CLI
// and the Python plugin can print "file:line:col: error: message" and exit
// non-zero instead of crashing.
#pragma once

#include <stdexcept>
#include <string>

namespace tmetal {

struct SourcePos {
  std::string file;  // empty when unknown
  int line = 0;      // 1-based; 0 when unknown
  int col = 0;       // 1-based; 0 when unknown

  bool known() const { return !file.empty() || line > 0; }
  // "file:line:col", or "" when unknown.
  std::string str() const;
};

class CompileError : public std::runtime_error {
 public:
  CompileError(SourcePos pos, const std::string& message);
  explicit CompileError(const std::string& message) : CompileError(SourcePos{}, message) {}

  const SourcePos& pos() const { return pos_; }
  const std::string& message() const { return message_; }

 private:
  SourcePos pos_;
  std::string message_;
};

// Formats "pos: error: message" (or "error: message" when pos is unknown).
std::string formatDiagnostic(const SourcePos& pos, const std::string& message);

}  // namespace tmetal
