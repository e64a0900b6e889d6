#include "tmetal/runtime/emulator/kernel_object_loader.h"

#include <dlfcn.h>

#include <map>
#include <mutex>

#include "tmetal/support/diagnostic.h"

namespace tmetal::runtime::emulator {

std::shared_ptr<const LoadedKernelObject> loadKernelObject(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const LoadedKernelObject>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = loaded.find(path); it != loaded.end()) return it->second;

  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw CompileError("emulator: cannot load kernel object '" + path + "': " + (why ? why : "unknown error"));
  }
  using BindFunction = int (*)(const tmetal_emu_abi::Hooks*);
  auto bind = reinterpret_cast<BindFunction>(dlsym(handle, TMETAL_EMULATOR_BIND_SYMBOL));
  auto entry = reinterpret_cast<ThreadEntry>(dlsym(handle, TMETAL_EMULATOR_ENTRY_SYMBOL));
  if (bind == nullptr || entry == nullptr)
    throw CompileError("emulator: kernel object '" + path + "' lacks the emulator's entry points");
  const int version = bind(&emulatorHooks());
  if (version != TMETAL_EMULATOR_ABI_VERSION)
    throw CompileError("emulator: kernel object '" + path + "' was built for emulator ABI " + std::to_string(version) +
                       ", this runtime speaks " + std::to_string(TMETAL_EMULATOR_ABI_VERSION));
  auto object = std::make_shared<LoadedKernelObject>(LoadedKernelObject{path, handle, entry});
  loaded[path] = object;
  return object;
}

}  // namespace tmetal::runtime::emulator
