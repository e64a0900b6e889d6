#include "tmetal/ir/libdevice.h"

#include <unordered_map>

namespace tmetal::ir {

const std::vector<LibdeviceFunction>& libdeviceFunctions() {
  using enum LibdeviceType;
  static const std::vector<LibdeviceFunction> functions = {
#define LIBDEVICE(id, name, symbol, code, result, ...) {LibdeviceFn::id, name, symbol, code, result, {__VA_ARGS__}},
#include "tmetal/ir/libdevice.def"
#undef LIBDEVICE
  };
  return functions;
}

const LibdeviceFunction* findLibdeviceFunction(std::string_view symbol) {
  static const auto* bySymbol = [] {
    auto* map = new std::unordered_map<std::string_view, const LibdeviceFunction*>;
    for (const LibdeviceFunction& f : libdeviceFunctions()) (*map)[f.symbol] = &f;
    return map;
  }();
  auto it = bySymbol->find(symbol);
  return it == bySymbol->end() ? nullptr : it->second;
}

ScalarKind libdeviceScalarKind(LibdeviceType t) {
  switch (t) {
    case LibdeviceType::F32: return ScalarKind::F32;
    case LibdeviceType::I32:
    case LibdeviceType::U32: return ScalarKind::I32;
    case LibdeviceType::I64:
    case LibdeviceType::U64: return ScalarKind::I64;
  }
  return ScalarKind::F32;
}

bool isUnsigned(LibdeviceType t) { return t == LibdeviceType::U32 || t == LibdeviceType::U64; }

std::string_view libdeviceTypeName(LibdeviceType t) {
  switch (t) {
    case LibdeviceType::F32: return "fp32";
    case LibdeviceType::I32: return "int32";
    case LibdeviceType::U32: return "uint32";
    case LibdeviceType::I64: return "int64";
    case LibdeviceType::U64: return "uint64";
  }
  return "?";
}

}  // namespace tmetal::ir
