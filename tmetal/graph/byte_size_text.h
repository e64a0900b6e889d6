// Byte counts as people read them: "512 B", "16.0 KiB", "4.0 MiB".
#pragma once

#include <cstdint>
#include <string>

namespace tmetal::graph {

std::string formatBytes(int64_t bytes);

}  // namespace tmetal::graph
