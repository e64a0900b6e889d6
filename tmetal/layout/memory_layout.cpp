#include "tmetal/layout/memory_layout.h"

#include <algorithm>
#include <cctype>

namespace tmetal::layout {

const std::vector<MemoryLayout>& allMemoryLayouts() {
  static const std::vector<MemoryLayout> all = {MemoryLayout::DEFAULT, MemoryLayout::ROW_MAJOR,
                                                MemoryLayout::COLUMN_MAJOR, MemoryLayout::TILED,
                                                MemoryLayout::COALESCED};
  return all;
}

const char* memoryLayoutName(MemoryLayout l) {
  switch (l) {
    case MemoryLayout::DEFAULT: return "DEFAULT";
    case MemoryLayout::ROW_MAJOR: return "ROW_MAJOR";
    case MemoryLayout::COLUMN_MAJOR: return "COLUMN_MAJOR";
    case MemoryLayout::TILED: return "TILED";
    case MemoryLayout::COALESCED: return "COALESCED";
  }
  return "?";
}

std::optional<MemoryLayout> parseMemoryLayout(const std::string& text) {
  std::string upper = text;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  for (MemoryLayout l : allMemoryLayouts())
    if (upper == memoryLayoutName(l) || upper == std::to_string(static_cast<int>(l))) return l;
  return std::nullopt;
}

}  // namespace tmetal::layout
