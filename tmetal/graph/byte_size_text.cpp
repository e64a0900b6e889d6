#include "tmetal/graph/byte_size_text.h"

#include <fmt/format.h>

namespace tmetal::graph {

std::string formatBytes(int64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < 1024 * 1024) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  if (bytes < int64_t(1024) * 1024 * 1024) return fmt::format("{:.1f} MiB", bytes / (1024.0 * 1024));
  return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024 * 1024));
}

}  // namespace tmetal::graph
