// A shared library opened with dlopen at run time. The CUDA runtime loads the
// CUDA driver (libcuda.so.1) and NVRTC (libnvrtc.so.*) this way, so that
// tmetal builds and runs on machines without CUDA; only the cuda device and
// the NVRTC checks need them.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace tmetal::runtime::cuda {

class DynamicLibrary {
 public:
  // Opens the first of `candidates` (file names searched the dlopen way, or
  // paths) that loads. nullptr when none does; `tried` then lists each
  // candidate with dlerror()'s reason, one per line.
  static std::unique_ptr<DynamicLibrary> openFirst(const std::vector<std::string>& candidates, std::string* tried);
  ~DynamicLibrary();
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  // The symbol's address, or nullptr when the library lacks it.
  void* symbol(const char* name) const;
  // The candidate that loaded, and the file it resolved to.
  const std::string& name() const { return name_; }
  std::string resolvedPath() const;

 private:
  DynamicLibrary(void* handle, std::string name) : handle_(handle), name_(std::move(name)) {}
  void* handle_;
  std::string name_;
};

// Files in `directory` named `<stem>.so.<version>` (e.g. libnvrtc.so.13,
// libnvrtc.so.12.4), newest version first; none when the folder is missing.
std::vector<std::string> versionedLibrariesIn(const std::string& directory, const std::string& stem);

}  // namespace tmetal::runtime::cuda
