// Compiled kernels, cached by content. A cache entry is <key>.so beside
// <key>.cpp, the exact file that was compiled (a header naming the compiler,
// its flags and the shim version, then the translation unit); <key> hashes
// that file. A hit requires the stored .cpp to equal the new one byte for
// byte. Entries are compiled in a private temporary directory and renamed
// into place (.cpp first, then .so), so processes compiling the same kernel
// at once never see a partial file; the last rename wins with identical
// content. The shim headers live in shim-<hash>/, installed the same way.
#pragma once

#include <string>

#include "tmetal/runtime/emulator/emulator.h"

namespace tmetal::runtime::emulator {

struct CompiledKernelObject {
  std::string sharedObjectPath;
  bool fromCache = false;
};

// options.cacheDir, else $TMETAL_CACHE_DIR, else $HOME/.cache/tmetal/emulator.
std::string resolveCacheDir(const EmulatorOptions& options);

// Compiles `translationUnit` (C++ that includes <metal_stdlib>) into a shared
// object, or finds it in the cache. Throws CompileError with the compiler's
// diagnostics when it does not compile.
CompiledKernelObject compileKernelObject(const std::string& translationUnit, const std::string& kernelName,
                                         const EmulatorOptions& options);

}  // namespace tmetal::runtime::emulator
