// The libdevice functions tmetal implements (libdevice.def): what a
// tt.extern_elementwise may call, with its argument and result types.
#pragma once

#include <string_view>
#include <vector>

#include "tmetal/ir/type.h"

namespace tmetal::ir {

enum class LibdeviceFn {
#define LIBDEVICE(id, name, symbol, code, ...) id,
#include "tmetal/ir/libdevice.def"
#undef LIBDEVICE
};

// A libdevice type: the TTIR element type and how its bits are read.
enum class LibdeviceType { F32, I32, U32, I64, U64 };

struct LibdeviceFunction {
  LibdeviceFn fn;
  std::string_view pythonName;  // triton.language.extra.libdevice.<name>
  std::string_view symbol;      // __nv_j0f
  std::string_view code;        // the C expression (libdevice.def)
  LibdeviceType result;
  std::vector<LibdeviceType> arguments;
};

const std::vector<LibdeviceFunction>& libdeviceFunctions();
const LibdeviceFunction* findLibdeviceFunction(std::string_view symbol);

ScalarKind libdeviceScalarKind(LibdeviceType t);  // F32 -> f32, I32/U32 -> i32, ...
bool isUnsigned(LibdeviceType t);
std::string_view libdeviceTypeName(LibdeviceType t);  // Triton's: fp32, int32, uint32, ...

}  // namespace tmetal::ir
