// CUDA C++ to GPU code with NVRTC, loaded at run time (dlopen), so that no
// CUDA is needed to build tmetal. Used by the cuda device (cubin for the
// device's compute capability) and by the GPU-less CI check that every
// kernel of the suite compiles (tests/unit/test_codegen_cuda_nvrtc.cpp).
//
// The library is $TMETAL_NVRTC_LIBRARY when set, else the first that loads
// of: the versioned libnvrtc.so.N found by the dynamic loader (LD_LIBRARY_PATH, the
// ld.so cache); libnvrtc.so.N in $CUDA_HOME/lib64, $CUDA_PATH/lib64,
// /usr/local/cuda/lib64 and /usr/local/cuda/targets/<arch>-linux/lib.
// cuda_fp16.h and cuda_bf16.h come from NVRTC's builtin headers where it has
// them (a probe compilation finds out once per process; NVRTC 13.0 has
// none), else from the first include folder holding cuda_fp16.h of:
// $TMETAL_CUDA_INCLUDE, $CUDA_HOME/include, $CUDA_PATH/include,
// <NVRTC's folder>/../include, /usr/local/cuda/include.
#pragma once

#include <string>
#include <vector>

#include "tmetal/runtime/cuda/cuda_error.h"

namespace tmetal::runtime::cuda {

struct NvrtcOptions {
  // The GPU architecture: "sm_90" gives a cubin (and PTX) for that chip,
  // "compute_90" PTX alone.
  std::string arch = "sm_90";
  std::vector<std::string> extraFlags;
};

struct NvrtcOutput {
  std::string ptx;            // empty when NVRTC gave none
  std::vector<char> cubin;    // empty for a compute_XX arch
  std::string log;            // NVRTC's warnings (empty when there were none)
  std::vector<std::string> flags;  // the options NVRTC was given
};

// Compiles `source` (named `name` in NVRTC's messages). Throws CompileError
// with NVRTC's log when the source does not compile, CudaError when NVRTC
// cannot be loaded or does not know the architecture.
NvrtcOutput compileWithNvrtc(const std::string& source, const std::string& name, const NvrtcOptions& options = {});

// Whether NVRTC loads; when it does not, `why` says what was tried.
bool nvrtcAvailable(std::string* why = nullptr);
// "13.0"; the library's path. Both throw CudaError when NVRTC is missing.
std::string nvrtcVersion();
std::string nvrtcLibraryPath();
// The architectures this NVRTC compiles for, as numbers (75, 80, 90, ...).
std::vector<int> nvrtcSupportedArchs();

}  // namespace tmetal::runtime::cuda
