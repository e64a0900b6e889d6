// Diagnostics: every user-facing failure in tmetal is a CompileError that
// carries where it happened (a source location, an op, or both), so the CLI
// and the Python plugin can print "file:line:col: error: message" and exit
// non-zero instead of crashing.
#pragma once

#include <cstdint>
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

// A kernel that needs more of a hardware resource than a threadgroup has
// (threadgroup memory, threads). Kept apart from other CompileErrors so that
// the Python plugin can raise it as Triton's OutOfResources, which
// triton.autotune catches to drop the config instead of failing.
class ResourceLimitError : public CompileError {
 public:
  ResourceLimitError(SourcePos pos, const std::string& message, std::string resource, int64_t required, int64_t limit)
      : CompileError(std::move(pos), message), resource_(std::move(resource)), required_(required), limit_(limit) {}

  const std::string& resource() const { return resource_; }  // "threadgroup memory" or "threads"
  int64_t required() const { return required_; }
  int64_t limit() const { return limit_; }

 private:
  std::string resource_;
  int64_t required_;
  int64_t limit_;
};

// Formats "pos: error: message" (or "error: message" when pos is unknown).
std::string formatDiagnostic(const SourcePos& pos, const std::string& message);

}  // namespace tmetal
