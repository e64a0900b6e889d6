#include "tmetal/codegen/kernel_abi.h"

#include <limits>
#include <optional>

#include "tmetal/support/diagnostic.h"

namespace tmetal::codegen {

nlohmann::json KernelMetadata::toJson() const {
  nlohmann::json j;
  j["target"] = target;
  j["kernel"] = kernelName;
  j["threads_per_threadgroup"] = threadsPerThreadgroup;
  j["simd_width"] = simdWidth;
  j["threadgroup_memory_bytes"] = threadgroupMemoryBytes;
  j["params"] = nlohmann::json::array();
  for (const auto& p : params)
    j["params"].push_back({{"name", p.name}, {"pointer", p.isPointer}, {"dtype", p.dtype}, {"binding", p.binding}});
  j["builtins"] = nlohmann::json::array();
  for (const auto& b : builtins) j["builtins"].push_back({{"name", b.name}, {"type", b.type}});
  if (!assertions.empty()) {
    j["assertions"] = nlohmann::json::array();
    for (const auto& a : assertions)
      j["assertions"].push_back(
          {{"message", a.message}, {"file", a.file}, {"line", a.line}, {"col", a.col}, {"shape", a.shape}});
  }
  if (!prints.empty()) {
    j["prints"] = nlohmann::json::array();
    for (const auto& p : prints) {
      nlohmann::json operands = nlohmann::json::array();
      for (const auto& o : p.operands)
        operands.push_back({{"type", o.type}, {"float", o.isFloat}, {"pointer", o.isPointer}, {"signed", o.isSigned},
                            {"bits", o.bits}, {"shape", o.shape}});
      j["prints"].push_back({{"prefix", p.prefix}, {"hex", p.hex}, {"operands", operands}});
    }
  }
  j["layouts"] = layouts;
  return j;
}

namespace {

// The integer `key` of `j` (`fallback` when absent and one is given), which
// must lie in [lo, hi]: nlohmann's get<int>() would wrap a larger number, so
// that 2^32 + 64 threads per threadgroup read as 64.
int64_t integerField(const nlohmann::json& j, const char* key, int64_t lo, int64_t hi,
                     std::optional<int64_t> fallback = std::nullopt) {
  if (fallback && !j.contains(key)) return *fallback;
  const nlohmann::json& v = j.at(key);
  const bool fits = v.is_number_integer() && (v.is_number_unsigned() ? v.get<uint64_t>() <= uint64_t(hi)
                                                                      : v.get<int64_t>() >= lo && v.get<int64_t>() <= hi);
  if (!fits)
    throw CompileError(std::string("bad kernel metadata: '") + key + "' must be an integer from " + std::to_string(lo) +
                       " to " + std::to_string(hi) + ", got " + v.dump());
  return v.get<int64_t>();
}

constexpr int64_t kIntMax = std::numeric_limits<int>::max();

}  // namespace

KernelMetadata KernelMetadata::fromJson(const nlohmann::json& j) {
  try {
    KernelMetadata m;
    m.target = j.at("target").get<std::string>();
    m.kernelName = j.at("kernel").get<std::string>();
    m.threadsPerThreadgroup = static_cast<int>(integerField(j, "threads_per_threadgroup", 0, kIntMax));
    m.simdWidth = static_cast<int>(integerField(j, "simd_width", 0, kIntMax, 32));
    m.threadgroupMemoryBytes =
        integerField(j, "threadgroup_memory_bytes", 0, std::numeric_limits<int64_t>::max(), int64_t{0});
    for (const auto& p : j.at("params"))
      m.params.push_back({p.at("name").get<std::string>(), p.at("pointer").get<bool>(),
                          p.at("dtype").get<std::string>(), static_cast<int>(integerField(p, "binding", 0, kIntMax))});
    for (const auto& b : j.at("builtins"))
      m.builtins.push_back({b.at("name").get<std::string>(), b.at("type").get<std::string>()});
    if (j.contains("assertions"))
      for (const auto& a : j.at("assertions"))
        m.assertions.push_back({a.at("message").get<std::string>(), a.at("file").get<std::string>(),
                                static_cast<int>(integerField(a, "line", 0, kIntMax)),
                                static_cast<int>(integerField(a, "col", 0, kIntMax)),
                                a.value("shape", std::vector<int64_t>{})});
    if (j.contains("prints"))
      for (const auto& p : j.at("prints")) {
        KernelPrint print{p.at("prefix").get<std::string>(), p.at("hex").get<bool>(), {}};
        for (const auto& o : p.at("operands"))
          print.operands.push_back({o.at("type").get<std::string>(), o.at("float").get<bool>(),
                                    o.at("pointer").get<bool>(), o.at("signed").get<bool>(),
                                    static_cast<int>(integerField(o, "bits", 1, 64)),
                                    o.at("shape").get<std::vector<int64_t>>()});
        m.prints.push_back(std::move(print));
      }
    m.layouts = j.value("layouts", nlohmann::json::object());
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw CompileError(std::string("bad kernel metadata: ") + e.what());
  }
}

}  // namespace tmetal::codegen
