#include "tmetal/ir/text_syntax.h"

#include <cctype>

namespace tmetal::ir {

namespace {
bool isLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

bool isBareIdentStart(char c) { return isLetter(c) || c == '_'; }

bool isBareIdentChar(char c) { return isLetter(c) || isDigit(c) || c == '_' || c == '$' || c == '.'; }

bool isBareIdentifier(std::string_view text) {
  if (text.empty() || !isBareIdentStart(text[0])) return false;
  for (char c : text)
    if (!isBareIdentChar(c)) return false;
  return true;
}

bool isSuffixIdChar(char c) { return isLetter(c) || isDigit(c) || c == '$' || c == '.' || c == '_' || c == '-'; }

std::string quoteString(std::string_view text) {
  static const char* const kHex = "0123456789ABCDEF";
  std::string out = "\"";
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f && c != '"' && c != '\\') {
      out += c;
    } else {
      out += '\\';
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  }
  return out + "\"";
}

std::string symbolRef(std::string_view name) {
  return "@" + (isBareIdentifier(name) ? std::string(name) : quoteString(name));
}

std::string sanitizeValueName(std::string_view name) {
  std::string out;
  if (!name.empty() && isDigit(name[0])) out += '_';
  for (char c : name) out += isSuffixIdChar(c) ? c : '_';
  return out;
}

}  // namespace tmetal::ir
