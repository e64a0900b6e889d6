#include "tmetal/codegen/libdevice/libdevice_helpers.h"

#include <cctype>
#include <unordered_map>

#include "tmetal/codegen/c_emitter.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::codegen {

namespace {

// libdevice's add_rn, sub_rn and mul_rn promise an operation that is never
// fused into a multiply-add; CUDA has them as __fadd_rn & co. MSL has no such
// promise: these calls are the closest it has (the compiler may still inline
// and fuse them; unverified on Apple GPUs).
const std::vector<LibdeviceHelper>& nearestEvenHelpers() {
  static const std::vector<LibdeviceHelper> helpers = {
      {"tmetal_fadd_rn", {}, "@helper float tmetal_fadd_rn(float a, float b) { return a + b; }\n"},
      {"tmetal_fsub_rn", {}, "@helper float tmetal_fsub_rn(float a, float b) { return a - b; }\n"},
      {"tmetal_fmul_rn", {}, "@helper float tmetal_fmul_rn(float a, float b) { return a * b; }\n"},
  };
  return helpers;
}

}  // namespace

const std::vector<LibdeviceHelper>& libdeviceHelpers() {
  static const std::vector<LibdeviceHelper> all = [] {
    std::vector<LibdeviceHelper> v;
    for (const auto* group : {&nearestEvenHelpers(), &integerHelpers(), &besselHelpers(), &gammaErfHelpers(), &elementaryHelpers(),
                              &roundingHelpers()})
      v.insert(v.end(), group->begin(), group->end());
    return v;
  }();
  return all;
}

const LibdeviceHelper* findLibdeviceHelper(std::string_view name) {
  static const auto* byName = [] {
    auto* map = new std::unordered_map<std::string_view, const LibdeviceHelper*>;
    for (const LibdeviceHelper& h : libdeviceHelpers()) (*map)[h.name] = &h;
    return map;
  }();
  auto it = byName->find(name);
  return it == byName->end() ? nullptr : it->second;
}

std::string spellLibdeviceText(std::string_view text, const CEmitter& dialect) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '@') {
      out += text[i];
      continue;
    }
    size_t end = i + 1;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
    const std::string_view marker = text.substr(i + 1, end - i - 1);
    std::string spelled = dialect.libdeviceMarker(marker);
    if (spelled.empty()) throw CompileError("internal error: libdevice text uses the unknown marker @" + std::string(marker));
    out += spelled;
    i = end - 1;
  }
  return out;
}

}  // namespace tmetal::codegen
