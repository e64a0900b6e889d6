// The CUDA runtime's error: the driver or NVRTC is missing, no GPU is there,
// a CUDA call failed, or a kernel failed on the GPU. Source that NVRTC
// rejects is a CompileError (tmetal/support/diagnostic.h) instead, since it
// is the emitter's fault and not the machine's.
#pragma once

#include <stdexcept>
#include <string>

namespace tmetal::runtime::cuda {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tmetal::runtime::cuda
