// The code generator lowers one function, so a kernel's calls are replaced by
// copies of the bodies they call: functions Triton keeps out of line
// (`@triton.jit(noinline=True)`), which the Metal compiler would inline
// anyway. The interpreter runs calls as they are.
#pragma once

#include <memory>

#include "tmetal/ir/module.h"

namespace tmetal::ir {

// Whether `fn`'s body holds a tt.call.
bool hasCalls(const Function& fn);

// A copy of `kernel`, a function of `module`, whose tt.calls (also those in
// the bodies it copies) are replaced by the callee's body. Throws
// CompileError at a call that recurses.
std::unique_ptr<Function> inlineCalls(const Module& module, const Function& kernel);

}  // namespace tmetal::ir
