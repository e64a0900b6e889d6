#include "tmetal/runtime/cuda/nvrtc_compiler.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <type_traits>

#include "tmetal/runtime/cuda/cuda_error.h"
#include "tmetal/runtime/cuda/dynamic_library.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::runtime::cuda {

namespace {

// The few NVRTC declarations tmetal needs (nvrtc.h), so that building needs
// no CUDA. The ABI has been stable since CUDA 7.
using nvrtcResult = int;
using nvrtcProgram = struct NvrtcProgramImpl*;
constexpr nvrtcResult kNvrtcSuccess = 0;
constexpr nvrtcResult kNvrtcErrorCompilation = 6;

struct NvrtcApi {
  std::unique_ptr<DynamicLibrary> library;
  const char* (*getErrorString)(nvrtcResult) = nullptr;
  nvrtcResult (*version)(int*, int*) = nullptr;
  nvrtcResult (*getNumSupportedArchs)(int*) = nullptr;
  nvrtcResult (*getSupportedArchs)(int*) = nullptr;
  nvrtcResult (*createProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*) = nullptr;
  nvrtcResult (*destroyProgram)(nvrtcProgram*) = nullptr;
  nvrtcResult (*compileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*getPTXSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*getPTX)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*getCUBINSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*getCUBIN)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*getProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*getProgramLog)(nvrtcProgram, char*) = nullptr;
  std::string loadError;  // why the library did not load; empty when it did
};

std::string envOr(const char* name, const std::string& fallback = "") {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

// Folders where a CUDA toolkit keeps its libraries, in the documented order.
std::vector<std::string> toolkitLibraryDirs() {
  std::vector<std::string> dirs;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    std::string root = envOr(var);
    if (!root.empty()) {
      dirs.push_back(root + "/lib64");
      dirs.push_back(root + "/lib");
    }
  }
  dirs.push_back("/usr/local/cuda/lib64");
  dirs.push_back("/usr/local/cuda/targets/x86_64-linux/lib");
  dirs.push_back("/usr/local/cuda/targets/sbsa-linux/lib");
  return dirs;
}

NvrtcApi* loadNvrtc() {
  auto* api = new NvrtcApi();  // never freed: see DynamicLibrary's destructor
  std::vector<std::string> candidates;
  // An explicit choice is the only candidate: falling back would hide a typo.
  std::string explicitPath = envOr("TMETAL_NVRTC_LIBRARY");
  if (!explicitPath.empty()) {
    candidates.push_back(explicitPath);
  } else {
    // Newest first; the unversioned libnvrtc.so exists only with the -dev files.
    for (const char* soname : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"})
      candidates.push_back(soname);
    for (const std::string& dir : toolkitLibraryDirs())
      for (const std::string& path : versionedLibrariesIn(dir, "libnvrtc")) candidates.push_back(path);
  }
  std::string tried;
  api->library = DynamicLibrary::openFirst(candidates, &tried);
  if (!api->library) {
    api->loadError = "NVRTC not found (libnvrtc.so.*): compiling CUDA C++ needs the CUDA toolkit's NVRTC; set "
                     "CUDA_HOME or TMETAL_NVRTC_LIBRARY. Tried:\n" + tried;
    return api;
  }
  auto bind = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(api->library->symbol(name));
    if (!fn && api->loadError.empty())
      api->loadError = api->library->resolvedPath() + " has no " + name + ": it is not a usable NVRTC";
  };
  bind(api->getErrorString, "nvrtcGetErrorString");
  bind(api->version, "nvrtcVersion");
  bind(api->getNumSupportedArchs, "nvrtcGetNumSupportedArchs");
  bind(api->getSupportedArchs, "nvrtcGetSupportedArchs");
  bind(api->createProgram, "nvrtcCreateProgram");
  bind(api->destroyProgram, "nvrtcDestroyProgram");
  bind(api->compileProgram, "nvrtcCompileProgram");
  bind(api->getPTXSize, "nvrtcGetPTXSize");
  bind(api->getPTX, "nvrtcGetPTX");
  bind(api->getCUBINSize, "nvrtcGetCUBINSize");
  bind(api->getCUBIN, "nvrtcGetCUBIN");
  bind(api->getProgramLogSize, "nvrtcGetProgramLogSize");
  bind(api->getProgramLog, "nvrtcGetProgramLog");
  return api;
}

const NvrtcApi& nvrtcApi() {
  static NvrtcApi* api = loadNvrtc();
  return *api;
}

const NvrtcApi& requireNvrtc() {
  const NvrtcApi& api = nvrtcApi();
  if (!api.loadError.empty()) throw CudaError(api.loadError);
  return api;
}

void check(const NvrtcApi& api, nvrtcResult r, const char* what) {
  if (r != kNvrtcSuccess) throw CudaError(std::string(what) + " failed: " + api.getErrorString(r));
}

// The include folder holding cuda_fp16.h, for an NVRTC without builtin
// copies of it; empty when none is found.
std::string fp16IncludeDir(const NvrtcApi& api) {
  std::vector<std::string> dirs;
  std::string explicitDir = envOr("TMETAL_CUDA_INCLUDE");
  if (!explicitDir.empty()) dirs.push_back(explicitDir);
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    std::string root = envOr(var);
    if (!root.empty()) dirs.push_back(root + "/include");
  }
  std::filesystem::path lib(api.library->resolvedPath());
  dirs.push_back((lib.parent_path().parent_path() / "include").string());
  dirs.push_back("/usr/local/cuda/include");
  std::error_code ec;
  for (const std::string& d : dirs)
    if (std::filesystem::exists(std::filesystem::path(d) / "cuda_fp16.h", ec)) return d;
  return "";
}

struct Program {
  const NvrtcApi& api;
  nvrtcProgram program = nullptr;
  ~Program() {
    if (program) api.destroyProgram(&program);
  }
};

struct Attempt {
  nvrtcResult result;
  std::string log;
  NvrtcOutput output;
};

Attempt compileOnce(const NvrtcApi& api, const std::string& source, const std::string& name,
                    const std::vector<std::string>& flags) {
  Program p{api};
  check(api, api.createProgram(&p.program, source.c_str(), name.c_str(), 0, nullptr, nullptr), "nvrtcCreateProgram");
  std::vector<const char*> argv;
  for (const std::string& f : flags) argv.push_back(f.c_str());
  Attempt a;
  a.result = api.compileProgram(p.program, static_cast<int>(argv.size()), argv.data());
  size_t logSize = 0;
  if (api.getProgramLogSize(p.program, &logSize) == kNvrtcSuccess && logSize > 1) {
    a.log.resize(logSize);
    api.getProgramLog(p.program, a.log.data());
    while (!a.log.empty() && (a.log.back() == '\0' || a.log.back() == '\n')) a.log.pop_back();
  }
  if (a.result != kNvrtcSuccess) return a;
  size_t size = 0;
  if (api.getPTXSize(p.program, &size) == kNvrtcSuccess && size > 1) {
    a.output.ptx.resize(size);
    check(api, api.getPTX(p.program, a.output.ptx.data()), "nvrtcGetPTX");
    a.output.ptx.resize(size - 1);  // the terminating NUL
  }
  if (api.getCUBINSize(p.program, &size) == kNvrtcSuccess && size > 0) {
    a.output.cubin.resize(size);
    check(api, api.getCUBIN(p.program, a.output.cubin.data()), "nvrtcGetCUBIN");
  }
  a.output.log = a.log;
  a.output.flags = flags;
  return a;
}

bool headerMissing(const Attempt& a) {
  return a.result == kNvrtcErrorCompilation && a.log.find("open source file") != std::string::npos;
}

// "" when NVRTC's builtin headers have cuda_fp16.h and cuda_bf16.h (CUDA
// 12.x NVRTCs do; 13.0's does not), else "--include-path=<folder>". Found
// out once, by compiling a probe: NVRTC's version says nothing about how it
// was packaged.
std::string fp16IncludeFlag(const NvrtcApi& api, const std::string& arch) {
  static std::once_flag once;
  static std::string flag;
  static std::string error;
  std::call_once(once, [&] {
    const std::string probe = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n";
    std::vector<std::string> base = {"--gpu-architecture=" + arch, "--std=c++17"};
    Attempt builtin = compileOnce(api, probe, "tmetal_fp16_probe.cu", base);
    if (!headerMissing(builtin)) return;
    std::string dir = fp16IncludeDir(api);
    if (dir.empty()) {
      error = "NVRTC " + nvrtcVersion() + " has no builtin cuda_fp16.h, and no CUDA include folder holding it was "
              "found: set CUDA_HOME or TMETAL_CUDA_INCLUDE\n" + builtin.log;
      return;
    }
    base.push_back("--include-path=" + dir);
    Attempt withDir = compileOnce(api, probe, "tmetal_fp16_probe.cu", base);
    if (withDir.result != kNvrtcSuccess)
      error = "NVRTC " + nvrtcVersion() + " cannot compile cuda_fp16.h from " + dir +
              " (a CUDA of another version? set TMETAL_CUDA_INCLUDE):\n" + withDir.log;
    else
      flag = "--include-path=" + dir;
  });
  if (!error.empty()) throw CudaError(error);
  return flag;
}

}  // namespace

bool nvrtcAvailable(std::string* why) {
  const NvrtcApi& api = nvrtcApi();
  if (why) *why = api.loadError;
  return api.loadError.empty();
}

std::string nvrtcVersion() {
  const NvrtcApi& api = requireNvrtc();
  int major = 0, minor = 0;
  check(api, api.version(&major, &minor), "nvrtcVersion");
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string nvrtcLibraryPath() { return requireNvrtc().library->resolvedPath(); }

std::vector<int> nvrtcSupportedArchs() {
  const NvrtcApi& api = requireNvrtc();
  int n = 0;
  check(api, api.getNumSupportedArchs(&n), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(static_cast<size_t>(n));
  if (n > 0) check(api, api.getSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  return archs;
}

NvrtcOutput compileWithNvrtc(const std::string& source, const std::string& name, const NvrtcOptions& options) {
  const NvrtcApi& api = requireNvrtc();
  // The architecture must be one NVRTC knows, or its error says little.
  if (options.arch.rfind("sm_", 0) != 0 && options.arch.rfind("compute_", 0) != 0)
    throw CudaError("NVRTC architecture '" + options.arch + "': expected sm_XY or compute_XY");
  int archNumber = std::atoi(options.arch.c_str() + options.arch.find('_') + 1);
  std::vector<int> known = nvrtcSupportedArchs();
  if (std::find(known.begin(), known.end(), archNumber) == known.end()) {
    std::string list;
    for (int a : known) list += (list.empty() ? "" : ", ") + std::to_string(a);
    throw CudaError("NVRTC " + nvrtcVersion() + " (" + nvrtcLibraryPath() + ") cannot compile for " + options.arch +
                    "; it knows the architectures " + list);
  }
  // IEEE division and square roots, no flush to zero: the defaults, spelled
  // out because precise math is what metal::precise promises too.
  std::vector<std::string> flags = {"--gpu-architecture=" + options.arch, "--std=c++17", "--ftz=false",
                                    "--prec-div=true", "--prec-sqrt=true", "--generate-line-info"};
  flags.insert(flags.end(), options.extraFlags.begin(), options.extraFlags.end());

  std::string includeFlag = fp16IncludeFlag(api, options.arch);
  if (!includeFlag.empty()) flags.push_back(includeFlag);
  Attempt a = compileOnce(api, source, name, flags);
  if (a.result == kNvrtcErrorCompilation)
    throw CompileError(SourcePos{name, 0, 0}, "NVRTC " + nvrtcVersion() + " rejected the CUDA source (" +
                                                  options.arch + "):\n" + a.log);
  check(api, a.result, "nvrtcCompileProgram");
  return a.output;
}

}  // namespace tmetal::runtime::cuda
