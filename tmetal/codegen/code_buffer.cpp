#include "tmetal/codegen/code_buffer.h"

#include <sstream>

namespace tmetal::codegen {

void CodeBuffer::line(const std::string& text) {
  if (text.empty()) {
    lines_.emplace_back();
    return;
  }
  lines_.push_back(std::string(2 * indent_, ' ') + text);
}

void CodeBuffer::blank() {
  if (!lines_.empty() && !lines_.back().empty()) lines_.emplace_back();
}

void CodeBuffer::open(const std::string& header) {
  line(header.empty() ? "{" : header + " {");
  ++indent_;
}

void CodeBuffer::close(const std::string& trailer) {
  --indent_;
  line(trailer.empty() ? "}" : "} " + trailer);
}

void CodeBuffer::continueBlock(const std::string& header) {
  --indent_;
  line("} " + header + " {");
  ++indent_;
}

void CodeBuffer::comment(const std::string& text) {
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l)) line(l.empty() ? "//" : "// " + l);
}

void CodeBuffer::append(const CodeBuffer& other) {
  std::string pad(2 * indent_, ' ');
  for (const std::string& l : other.lines_) lines_.push_back(l.empty() ? l : pad + l);
}

std::string CodeBuffer::str() const {
  std::string out;
  for (const std::string& l : lines_) out += l + "\n";
  return out;
}

}  // namespace tmetal::codegen
