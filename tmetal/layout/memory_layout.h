// MemoryLayout: the user-visible layout policy family. Each policy resolves,
// per tensor, to a concrete distributed layout (see the layout assignment);
// this file only names the policies.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tmetal::layout {

enum class MemoryLayout : int {
  DEFAULT = 0,
  ROW_MAJOR = 1,
  COLUMN_MAJOR = 2,
  TILED = 4,
  COALESCED = 8,
};

// "COALESCED", "ROW_MAJOR", ...
const char* memoryLayoutName(MemoryLayout l);
// Accepts the upper-case names, lower-case spellings ("row_major",
// "coalesced") and the numeric values ("8"). nullopt when unknown.
std::optional<MemoryLayout> parseMemoryLayout(const std::string& text);
const std::vector<MemoryLayout>& allMemoryLayouts();

}  // namespace tmetal::layout
