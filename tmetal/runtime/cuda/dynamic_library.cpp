#include "tmetal/runtime/cuda/dynamic_library.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace tmetal::runtime::cuda {

std::unique_ptr<DynamicLibrary> DynamicLibrary::openFirst(const std::vector<std::string>& candidates,
                                                          std::string* tried) {
  for (const std::string& candidate : candidates) {
    // RTLD_LOCAL: the CUDA libraries' symbols stay out of the global
    // namespace, where they could clash with a CUDA the host program links.
    void* handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle) return std::unique_ptr<DynamicLibrary>(new DynamicLibrary(handle, candidate));
    if (tried) {
      const char* why = dlerror();
      *tried += "  " + (why ? std::string(why) : candidate + ": not loadable") + "\n";
    }
  }
  return nullptr;
}

DynamicLibrary::~DynamicLibrary() {
  // The driver and NVRTC are never unloaded: CUDA's own teardown at process
  // exit expects its library to be there still.
}

void* DynamicLibrary::symbol(const char* name) const { return dlsym(handle_, name); }

std::string DynamicLibrary::resolvedPath() const {
  struct link_map* map = nullptr;
  if (dlinfo(handle_, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) return map->l_name;
  return name_;
}

namespace {

// "13" -> {13}, "12.4" -> {12, 4}; empty when the text is not a version.
std::vector<int> parseVersion(const std::string& text) {
  std::vector<int> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t dot = text.find('.', start);
    std::string part = text.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.empty() || !std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) return {};
    parts.push_back(std::stoi(part));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

}  // namespace

std::vector<std::string> versionedLibrariesIn(const std::string& directory, const std::string& stem) {
  std::vector<std::pair<std::vector<int>, std::string>> found;
  std::error_code ec;
  std::string prefix = stem + ".so.";
  for (const auto& entry : std::filesystem::directory_iterator(directory, ec)) {
    std::string file = entry.path().filename().string();
    if (file.rfind(prefix, 0) != 0) continue;
    std::vector<int> version = parseVersion(file.substr(prefix.size()));
    if (!version.empty()) found.emplace_back(version, entry.path().string());
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<std::string> paths;
  for (auto& [version, path] : found) paths.push_back(std::move(path));
  return paths;
}

}  // namespace tmetal::runtime::cuda
