#include "tmetal/support/diagnostic.h"

namespace tmetal {

std::string SourcePos::str() const {
  if (!known()) return "";
  std::string out = file.empty() ? "<unknown>" : file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (col > 0) out += ":" + std::to_string(col);
  }
  return out;
}

std::string formatDiagnostic(const SourcePos& pos, const std::string& message) {
  if (!pos.known()) return "error: " + message;
  return pos.str() + ": error: " + message;
}

CompileError::CompileError(SourcePos pos, const std::string& message)
    : std::runtime_error(formatDiagnostic(pos, message)), pos_(std::move(pos)), message_(message) {}

}  // namespace tmetal
