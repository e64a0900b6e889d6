// Where things start in JSON text, so that diagnostics about one op of an
// ops file can name its line and column (the JSON library keeps no positions).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tmetal/support/diagnostic.h"

namespace tmetal::graph {

// Byte offsets of the elements of the ops list: the top-level array, or the
// array under the top-level "ops" key. Expects text that already parsed as
// JSON; returns what it found before anything unexpected.
std::vector<size_t> opsElementOffsets(const std::string& text);

// 1-based line and column (in bytes) of a byte offset.
SourcePos positionOf(const std::string& text, size_t offset, const std::string& file);

}  // namespace tmetal::graph
