#include "tmetal/runtime/emulator/emulator.h"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string_view>

#include "tmetal/codegen/debug_buffer.h"
#include "tmetal/runtime/emulator/dtype_bytes.h"
#include "tmetal/runtime/emulator/grid_runner.h"
#include "tmetal/runtime/emulator/kernel_cache.h"
#include "tmetal/runtime/emulator/kernel_object_loader.h"
#include "tmetal/runtime/emulator/msl_source_rewrite.h"
#include "tmetal/runtime/emulator/sanitized_launch.h"
#include "tmetal/runtime/emulator/trampoline.h"
#include "tmetal/support/diagnostic.h"
#include "tmetal/support/grid_limits.h"

namespace tmetal::runtime::emulator {
namespace {

unsigned unsignedFromEnvironment(const char* name, unsigned fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == 0) return fallback;
  char* end = nullptr;
  const unsigned long value = std::strtoul(text, &end, 10);
  return (end != nullptr && *end == 0) ? static_cast<unsigned>(value) : fallback;
}

constexpr int kMaxThreadsPerThreadgroup = 1024;  // Apple GPUs (docs: DESIGN.md, facts)
constexpr int kMaxSimdWidth = 64;                // simd_ballot's vote holds 64 lanes
constexpr const char* kDebugBufferName = "debug buffer";

void checkMetadata(const codegen::KernelMetadata& md) {
  if (md.target != "metal")
    throw CompileError("emulator: kernel '" + md.kernelName + "' targets '" + md.target +
                       "'; the emulator runs Metal kernels");
  if (md.threadsPerThreadgroup < 1 || md.threadsPerThreadgroup > kMaxThreadsPerThreadgroup)
    throw CompileError("emulator: kernel '" + md.kernelName + "' asks for " + std::to_string(md.threadsPerThreadgroup) +
                       " threads per threadgroup; Metal allows 1 to " + std::to_string(kMaxThreadsPerThreadgroup));
  if (md.simdWidth < 1 || md.simdWidth > kMaxSimdWidth)
    throw CompileError("emulator: kernel '" + md.kernelName + "' has SIMD width " + std::to_string(md.simdWidth) +
                       "; the emulator supports 1 to " + std::to_string(kMaxSimdWidth));
}

// Metal refuses to dispatch more threads per threadgroup than a kernel
// declares with [[max_total_threads_per_threadgroup(N)]] (its pipeline's
// maxTotalThreadsPerThreadgroup is then N), so the emulator does too.
void checkDeclaredThreadgroupSize(const std::string& msl, const codegen::KernelMetadata& md) {
  static const std::string attribute = "[[max_total_threads_per_threadgroup(";
  const size_t at = msl.find(attribute);
  if (at == std::string::npos) return;
  const char* digits = msl.c_str() + at + attribute.size();
  char* end = nullptr;
  const unsigned long declared = std::strtoul(digits, &end, 10);
  if (end == digits || std::string_view(end).substr(0, 3) != ")]]")
    throw CompileError("emulator: kernel '" + md.kernelName +
                       "': [[max_total_threads_per_threadgroup(...)]] takes one integer literal");
  if (static_cast<unsigned long>(md.threadsPerThreadgroup) > declared)
    throw CompileError("emulator: kernel '" + md.kernelName + "' declares [[max_total_threads_per_threadgroup(" +
                       std::to_string(declared) + ")]] but its metadata asks for " +
                       std::to_string(md.threadsPerThreadgroup) +
                       " threads per threadgroup; Metal refuses such a dispatch");
}

std::string parameterList(const codegen::KernelMetadata& md) {
  std::string out;
  for (const auto& p : md.params) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

// Argument i's description for messages: "argument 1 ('y_ptr')".
std::string argumentName(const codegen::KernelMetadata& md, size_t i) {
  return "argument " + std::to_string(i) + " ('" + md.params[i].name + "')";
}

void checkArguments(const codegen::KernelMetadata& md, const std::vector<ArgSlot>& args) {
  if (args.size() != md.params.size())
    throw EmulatorError("emulator: kernel '" + md.kernelName + "' takes " + std::to_string(md.params.size()) +
                        " arguments (" + parameterList(md) + "), got " + std::to_string(args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    const codegen::KernelParam& p = md.params[i];
    const ArgSlot& a = args[i];
    const int bytes = dtypeBytes(p.dtype);
    if (p.isPointer && !a.isBuffer())
      throw EmulatorError("emulator: " + argumentName(md, i) + " of kernel '" + md.kernelName +
                          "' is a pointer to " + p.dtype + " and needs a buffer, got a scalar");
    if (!p.isPointer && a.isBuffer())
      throw EmulatorError("emulator: " + argumentName(md, i) + " of kernel '" + md.kernelName + "' is a " + p.dtype +
                          " scalar, got a buffer");
    if (p.isPointer && a.bytes() % static_cast<size_t>(bytes) != 0)
      throw EmulatorError("emulator: " + argumentName(md, i) + " of kernel '" + md.kernelName + "' has " +
                          std::to_string(a.bytes()) + " bytes, not a whole number of " + std::to_string(bytes) +
                          "-byte " + p.dtype + " elements");
    if (p.isPointer && a.bytes() > 0 && a.data() == nullptr)
      throw EmulatorError("emulator: " + argumentName(md, i) + " of kernel '" + md.kernelName +
                          "' is a null buffer of " + std::to_string(a.bytes()) + " bytes");
    if (!p.isPointer && a.bytes() != static_cast<size_t>(bytes))
      throw EmulatorError("emulator: " + argumentName(md, i) + " of kernel '" + md.kernelName + "' is a " +
                          std::to_string(bytes) + "-byte " + p.dtype + " scalar, got " + std::to_string(a.bytes()) +
                          " bytes");
  }
}

}  // namespace

EmulatorOptions EmulatorOptions::fromEnvironment() {
  EmulatorOptions options;
  options.sanitize = unsignedFromEnvironment("TMETAL_EMULATOR_SANITIZE", 0) != 0;
  options.timeoutSeconds = unsignedFromEnvironment("TMETAL_EMULATOR_TIMEOUT", 0);
  options.workerThreads = unsignedFromEnvironment("TMETAL_EMULATOR_THREADS", 0);
  return options;
}

ArgSlot ArgSlot::buffer(void* data, size_t bytes, std::string name) {
  ArgSlot slot;
  slot.isBuffer_ = true;
  slot.data_ = data;
  slot.bufferBytes_ = bytes;
  slot.name_ = std::move(name);
  return slot;
}

ArgSlot ArgSlot::scalarBytes(const void* bytes, size_t size) {
  ArgSlot slot;
  const auto* begin = static_cast<const unsigned char*>(bytes);
  slot.scalar_.assign(begin, begin + size);
  return slot;
}

EmulatorKernel compile(const std::string& msl, const codegen::KernelMetadata& metadata, const EmulatorOptions& options) {
  checkMetadata(metadata);
  checkDeclaredThreadgroupSize(msl, metadata);
  const std::string trampoline = generateTrampoline(metadata);
  EmulatorKernel kernel;
  kernel.metadata_ = metadata;
  kernel.options_ = options;
  kernel.sourceName_ = metadata.kernelName + ".metal";
  // #line makes clang's diagnostics (and __LINE__ in the shim's call-site
  // macros) refer to the emitted MSL's own lines.
  std::string unit = "#include <metal_stdlib>\n";
  unit += "#line 1 \"" + kernel.sourceName_ + "\"\n";
  unit += rewriteMslForShim(msl);
  unit += "\n#line 1 \"tmetal-emulator-trampoline.cpp\"\n";
  unit += trampoline;
  const CompiledKernelObject compiled = compileKernelObject(unit, metadata.kernelName, options);
  kernel.sharedObjectPath_ = compiled.sharedObjectPath;
  kernel.fromCache_ = compiled.fromCache;
  kernel.object_ = loadKernelObject(compiled.sharedObjectPath);
  return kernel;
}

void launch(const EmulatorKernel& kernel, const std::vector<ArgSlot>& args, std::array<uint32_t, 3> grid) {
  const codegen::KernelMetadata& md = kernel.metadata_;
  if (kernel.object_ == nullptr) throw EmulatorError("emulator: launch of a kernel that was not compiled");
  checkArguments(md, args);
  if (std::string problem = gridProblem({grid[0], grid[1], grid[2]}); !problem.empty())
    throw EmulatorError("emulator: kernel '" + md.kernelName + "': " + problem);
  if (uint64_t(grid[0]) * grid[1] * grid[2] == 0) return;  // an empty grid runs nothing, as on Metal

  // A kernel with asserts or prints takes the debug buffer after its arguments.
  std::vector<int32_t> debug(codegen::debugBufferWords(md));
  std::vector<ArgSlot> slots = args;
  if (md.takesDebugBuffer()) {
    codegen::prepareDebugBuffer(md, debug.data());
    slots.push_back(ArgSlot::buffer(debug.data(), debug.size() * sizeof(int32_t), kDebugBufferName));
  }

  // Scalars travel as copies with room for any alignment their type needs.
  struct alignas(16) ScalarCell {
    unsigned char bytes[16];
  };
  std::vector<std::vector<ScalarCell>> scalars(slots.size());
  std::vector<void*> pointers(slots.size(), nullptr);
  std::vector<std::string> names(slots.size());
  for (size_t i = 0; i < slots.size(); ++i) {
    const ArgSlot& slot = slots[i];
    names[i] = !slot.name().empty() ? slot.name() : md.params[i].name;
    if (slot.isBuffer()) {
      pointers[i] = slot.data();
    } else {
      scalars[i].resize((slot.bytes() + sizeof(ScalarCell) - 1) / sizeof(ScalarCell) + 1);
      std::memcpy(scalars[i].data(), slot.scalarValue().data(), slot.bytes());
      pointers[i] = scalars[i].data();
    }
  }

  GridLaunch gridLaunch;
  gridLaunch.entry = kernel.object_->entry;
  gridLaunch.args = pointers.data();
  gridLaunch.grid = grid;
  gridLaunch.threadsPerThreadgroup = static_cast<uint32_t>(md.threadsPerThreadgroup);
  gridLaunch.simdWidth = static_cast<uint32_t>(md.simdWidth);
  gridLaunch.sourceName = kernel.sourceName_;
  gridLaunch.fiberStackBytes = kernel.options_.fiberStackBytes;
  gridLaunch.workerThreads = kernel.options_.workerThreads;
  if (kernel.options_.sanitize)
    runGridSanitized(gridLaunch, pointers, slots, names, kernel.options_.timeoutSeconds);
  else
    runGrid(gridLaunch);
  if (md.takesDebugBuffer()) codegen::reportDebugBuffer(md, debug.data(), debug.size(), std::cout);
}

}  // namespace tmetal::runtime::emulator
