#include "tmetal/runtime/emulator/dtype_bytes.h"

#include <map>

namespace tmetal::runtime::emulator {

int dtypeBytes(const std::string& dtype) {
  static const std::map<std::string, int> sizes = {
      {"i1", 1},  {"i8", 1},  {"u8", 1},  {"i16", 2}, {"u16", 2}, {"i32", 4},  {"u32", 4},
      {"i64", 8}, {"u64", 8}, {"f16", 2}, {"bf16", 2}, {"f32", 4}, {"f64", 8},
  };
  if (auto it = sizes.find(dtype); it != sizes.end()) return it->second;
  if (dtype.rfind("f8", 0) == 0) return 1;  // f8E4M3FN, f8E5M2, f8E4M3FNUZ, ...: bytes in MSL (uchar)
  return 0;
}

}  // namespace tmetal::runtime::emulator
