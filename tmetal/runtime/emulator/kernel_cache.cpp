#include "tmetal/runtime/emulator/kernel_cache.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "tmetal/runtime/emulator/compiler_process.h"
#include "tmetal/runtime/emulator/content_hash.h"
#include "tmetal/runtime/emulator/embedded_shim_headers.h"
#include "tmetal/runtime/emulator/emulator_abi.h"
#include "tmetal/support/diagnostic.h"

namespace fs = std::filesystem;

namespace tmetal::runtime::emulator {
namespace {

// Flags for compiling MSL as C++. No fast-math: the emulator is a reference
// (IEEE results, NaNs kept); no FP contraction, so results do not depend on
// the host CPU; no strict aliasing, since MSL kernels reinterpret memory
// through pointer casts (one threadgroup array reused for several types);
// warnings off, since the emitted code is not ours to lint.
const std::vector<std::string>& baseFlags() {
  static const std::vector<std::string> flags = {"-std=c++20",
                                                 "-O2",
                                                 "-fPIC",
                                                 "-shared",
                                                 "-fvisibility=hidden",
                                                 "-fno-math-errno",
                                                 "-ffp-contract=off",
                                                 "-fno-strict-aliasing",
                                                 "-w",
                                                 "-fno-color-diagnostics",
                                                 "-ferror-limit=20"};
  return flags;
}

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void writeFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw CompileError("emulator: cannot write '" + path.string() + "'");
}

// A fresh private directory inside `parent`, named <prefix>XXXXXX.
fs::path makeTemporaryDirectory(const fs::path& parent, const std::string& prefix) {
  std::string pattern = (parent / (prefix + "XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw CompileError("emulator: cannot create a directory in '" + parent.string() + "': " + std::strerror(errno));
  return pattern;
}

void removeQuietly(const fs::path& path) {
  std::error_code ignored;
  fs::remove_all(path, ignored);
}

// The first line of `compiler --version`, which names the compiler's version
// for the cache key. Asked once per compiler and process.
std::string compilerIdentity(const std::string& compiler, const fs::path& cacheDir) {
  static std::mutex mutex;
  static std::map<std::string, std::string> identities;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = identities.find(compiler); it != identities.end()) return it->second;
  const fs::path scratch = makeTemporaryDirectory(cacheDir, "tmp-version-");
  ProcessResult result;
  try {
    result = runProcess({compiler, "--version"}, (scratch / "version.log").string());
  } catch (...) {
    removeQuietly(scratch);
    throw;
  }
  removeQuietly(scratch);
  if (!result.exitedNormally || result.exitCode != 0)
    throw CompileError("emulator: '" + compiler + " --version' failed:\n" + result.output);
  std::string identity = result.output.substr(0, result.output.find('\n'));
  identities[compiler] = identity;
  return identity;
}

// Installs the embedded shim headers under cacheDir/shim-<hash>/ (once per
// shim version) and returns that include directory.
fs::path installShim(const fs::path& cacheDir, std::string* shimHash) {
  std::string all;
  for (const auto& h : embeddedShimHeaders()) all += h.path + '\0' + h.text + '\0';
  *shimHash = contentHash(all).substr(0, 16);
  const fs::path target = cacheDir / ("shim-" + *shimHash);
  if (fs::exists(target / "metal_stdlib")) return target;

  const fs::path staging = makeTemporaryDirectory(cacheDir, "tmp-shim-");
  try {
    // mkdtemp made it private; the installed headers are readable by all, like the rest of the cache.
    fs::permissions(staging, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                 fs::perms::others_read | fs::perms::others_exec);
    for (const auto& h : embeddedShimHeaders()) {
      fs::create_directories((staging / h.path).parent_path());
      writeFile(staging / h.path, h.text);
    }
    // MSL's standard headers all lead to the shim.
    for (const char* name : {"metal_stdlib", "metal_math", "metal_atomic", "metal_simdgroup", "metal_compute"})
      writeFile(staging / name, "#include \"tmetal/runtime/emulator/msl_shim.h\"\n");
  } catch (...) {
    removeQuietly(staging);
    throw;
  }
  if (std::rename(staging.c_str(), target.c_str()) != 0) {
    // Another process installed the same shim first; theirs is identical.
    removeQuietly(staging);
    if (!fs::exists(target / "metal_stdlib"))
      throw CompileError("emulator: cannot install the shim headers into '" + target.string() + "'");
  }
  return target;
}

std::string truncated(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  return text.substr(0, limit) + "\n[... " + std::to_string(text.size() - limit) + " more bytes of compiler output]";
}

}  // namespace

std::string resolveCacheDir(const EmulatorOptions& options) {
  if (!options.cacheDir.empty()) return options.cacheDir;
  if (const char* dir = std::getenv("TMETAL_CACHE_DIR"); dir != nullptr && *dir) return dir;
  if (const char* home = std::getenv("HOME"); home != nullptr && *home)
    return (fs::path(home) / ".cache" / "tmetal" / "emulator").string();
  return (fs::temp_directory_path() / ("tmetal-emulator-cache-" + std::to_string(getuid()))).string();
}

CompiledKernelObject compileKernelObject(const std::string& translationUnit, const std::string& kernelName,
                                         const EmulatorOptions& options) {
  const fs::path cacheDir = resolveCacheDir(options);
  std::error_code error;
  fs::create_directories(cacheDir, error);
  if (error) throw CompileError("emulator: cannot create cache directory '" + cacheDir.string() + "': " + error.message());

  std::string compiler = options.compiler;
  if (compiler.empty()) {
    const char* fromEnvironment = std::getenv("TMETAL_EMULATOR_CXX");
    compiler = (fromEnvironment != nullptr && *fromEnvironment) ? fromEnvironment : "clang++";
  }
  std::string shimHash;
  const fs::path shimDir = installShim(cacheDir, &shimHash);

  std::vector<std::string> flags = baseFlags();
  flags.insert(flags.end(), options.extraCompilerFlags.begin(), options.extraCompilerFlags.end());
  std::string flagText;
  for (const auto& f : flags) flagText += (flagText.empty() ? "" : " ") + f;

  std::string source;
  source += "// tmetal emulator kernel object for '" + kernelName + "'\n";
  source += "// compiler: " + compiler + ": " + compilerIdentity(compiler, cacheDir) + "\n";
  source += "// flags: " + flagText + "\n";
  source += "// shim: " + shimHash + ", ABI " + std::to_string(TMETAL_EMULATOR_ABI_VERSION) + "\n";
  source += translationUnit;
  const std::string key = contentHash(source);
  const fs::path cachedObject = cacheDir / (key + ".so");
  const fs::path cachedSource = cacheDir / (key + ".cpp");
  if (fs::exists(cachedObject) && readFile(cachedSource) == source) return {cachedObject.string(), true};

  const fs::path work = makeTemporaryDirectory(cacheDir, "tmp-compile-");
  try {
    const fs::path unit = work / "kernel.cpp";
    const fs::path object = work / "kernel.so";
    writeFile(unit, source);
    std::vector<std::string> argv = {compiler};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {"-I", shimDir.string(), "-o", object.string(), unit.string()});
    const ProcessResult result = runProcess(argv, (work / "compiler.log").string());
    if (!result.exitedNormally || result.exitCode != 0 || !fs::exists(object)) {
      std::string why = result.exitedNormally ? "" : " (killed by signal " + std::to_string(result.signal) + ")";
      throw CompileError("emulator: " + compiler + " could not compile kernel '" + kernelName +
                         "' against the MSL shim" + why + ":\n" + truncated(result.output, 12000));
    }
    if (std::rename(unit.c_str(), cachedSource.c_str()) != 0 || std::rename(object.c_str(), cachedObject.c_str()) != 0)
      throw CompileError("emulator: cannot move the compiled kernel into the cache '" + cacheDir.string() +
                         "': " + std::strerror(errno));
  } catch (...) {
    removeQuietly(work);
    throw;
  }
  removeQuietly(work);
  return {cachedObject.string(), false};
}

}  // namespace tmetal::runtime::emulator
