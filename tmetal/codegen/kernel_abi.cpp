#include "tmetal/codegen/kernel_abi.h"

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
  j["layouts"] = layouts;
  return j;
}

KernelMetadata KernelMetadata::fromJson(const nlohmann::json& j) {
  try {
    KernelMetadata m;
    m.target = j.at("target").get<std::string>();
    m.kernelName = j.at("kernel").get<std::string>();
    m.threadsPerThreadgroup = j.at("threads_per_threadgroup").get<int>();
    m.simdWidth = j.value("simd_width", 32);
    m.threadgroupMemoryBytes = j.value("threadgroup_memory_bytes", int64_t{0});
    for (const auto& p : j.at("params"))
      m.params.push_back({p.at("name").get<std::string>(), p.at("pointer").get<bool>(),
                          p.at("dtype").get<std::string>(), p.at("binding").get<int>()});
    for (const auto& b : j.at("builtins"))
      m.builtins.push_back({b.at("name").get<std::string>(), b.at("type").get<std::string>()});
    m.layouts = j.value("layouts", nlohmann::json::object());
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw CompileError(std::string("bad kernel metadata: ") + e.what());
  }
}

}  // namespace tmetal::codegen
