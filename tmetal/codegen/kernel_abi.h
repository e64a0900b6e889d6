// The contract between the emitters and the runtimes (emulator, Metal, CUDA):
// how an emitted kernel's parameters are laid out, and the metadata JSON that
// travels beside the source. Everything a launcher needs is here, so no
// runtime parses the generated source.
//
// Emitted kernels take, in order:
//   1. one parameter per kernel argument, in the TTIR function's order:
//        pointers  -> `device T* name [[buffer(i)]]`
//        scalars   -> `constant T& name [[buffer(i)]]`
//      where i is the argument's position (its binding);
//   2. the builtins listed in `builtins`, in that order (MSL attribute names:
//      threadgroup_position_in_grid, threadgroups_per_grid,
//      thread_position_in_threadgroup, thread_index_in_threadgroup,
//      thread_index_in_simdgroup, simdgroup_index_in_threadgroup), each typed
//      `uint3` or `uint` as `builtins[k].type` says.
//   Between the two, when `assertions` or `prints` is not empty (tt.assert,
//   tt.print), one more buffer: `device int* [[buffer(n)]]` with n the
//   number of arguments, the debug buffer (debug_buffer.h) that the launcher
//   prepares before the launch and reads after it. Metal has neither a
//   device-side assert nor printf, so both report through it.
// Threadgroup memory is declared inside the kernel body, so launchers never
// size it; threadgroup_memory_bytes is reported for limits and profiling.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tmetal::codegen {

struct KernelParam {
  std::string name;      // the TTIR argument name ("x_ptr"), or "arg<i>" when unnamed
  bool isPointer = false;
  std::string dtype;     // element type for pointers, value type for scalars: "f32", "i32", "f16", ...
  int binding = 0;       // buffer index
};

// A tt.assert of the kernel, numbered by its position in `assertions`.
struct KernelAssertion {
  std::string message;  // the user's message ("" when none was given)
  std::string file;     // the user's source position of the assert
  int line = 0;
  int col = 0;
  std::vector<int64_t> shape;  // the condition's shape; empty for a scalar condition
};

// A tt.print of the kernel, numbered by its position in `prints`.
struct KernelPrintOperand {
  std::string type;  // the element type as TTIR spells it ("f32", "i16", "!tt.ptr<f32>")
  bool isFloat = false;
  bool isPointer = false;
  bool isSigned = true;
  int bits = 32;
  std::vector<int64_t> shape;  // empty for a scalar
};
struct KernelPrint {
  std::string prefix;  // as Triton's frontend made it (" x: ")
  bool hex = false;
  std::vector<KernelPrintOperand> operands;
};

struct KernelBuiltin {
  std::string name;  // MSL attribute name, e.g. "threadgroup_position_in_grid"
  std::string type;  // "uint3" or "uint"
};

struct KernelMetadata {
  std::string target;        // "metal" or "cuda"
  std::string kernelName;    // the entry point's name in the emitted source
  int threadsPerThreadgroup = 0;  // num_warps * 32
  int simdWidth = 32;
  int64_t threadgroupMemoryBytes = 0;
  std::vector<KernelParam> params;
  std::vector<KernelBuiltin> builtins;
  std::vector<KernelAssertion> assertions;
  std::vector<KernelPrint> prints;
  // Whether the kernel takes the debug buffer (it has assertions or prints).
  bool takesDebugBuffer() const { return !assertions.empty() || !prints.empty(); }
  nlohmann::json layouts = nlohmann::json::object();  // layout decisions, for readers and tools

  nlohmann::json toJson() const;
  static KernelMetadata fromJson(const nlohmann::json& j);  // throws CompileError on a bad document
};

}  // namespace tmetal::codegen
