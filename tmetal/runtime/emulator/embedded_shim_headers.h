// The emulator's shim headers (msl_shim.h, emulator_abi.h), compiled into the
// library by embed_headers.cmake. The kernel compiler writes them into the
// cache directory and points clang at them.
#pragma once

#include <string>
#include <vector>

namespace tmetal::runtime::emulator {

struct EmbeddedHeader {
  std::string path;  // relative to the include root, e.g. "tmetal/runtime/emulator/msl_shim.h"
  std::string text;
};

const std::vector<EmbeddedHeader>& embeddedShimHeaders();

}  // namespace tmetal::runtime::emulator
