// The lexical rules of MLIR's textual form that the TTIR printer and the TTIR
// reader must agree on: which characters make a bare identifier or a value
// name, and how strings are escaped.
#pragma once

#include <string>
#include <string_view>

namespace tmetal::ir {

// bare-id ::= (letter | '_') (letter | digit | '_' | '$' | '.')*
bool isBareIdentStart(char c);
bool isBareIdentChar(char c);
bool isBareIdentifier(std::string_view text);

// The characters after '%', '#' or '^': digits only, or a letter or one of
// "$._-" followed by letters, digits and "$._-".
bool isSuffixIdChar(char c);

// A string literal as MLIR writes it: quotes around; '"', '\\' and every
// non-printable byte as `\XX` (two hex digits), which any MLIR reader accepts.
std::string quoteString(std::string_view text);

// A symbol reference: `@name`, or `@"name"` when it is not a bare identifier.
std::string symbolRef(std::string_view name);

// A value name hint made printable: characters outside the suffix-id set
// become '_', and a leading digit gets a '_' before it (so that it cannot
// clash with the numbered values %0, %1, ...).
std::string sanitizeValueName(std::string_view name);

}  // namespace tmetal::ir
