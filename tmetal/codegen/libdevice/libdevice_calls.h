// tt.extern_elementwise calls of libdevice functions (ir/libdevice.def),
// lowered to the C expression of the table with the target's spellings, and
// the helper functions those expressions need, emitted once before the kernel.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "tmetal/codegen/c_emitter.h"
#include "tmetal/ir/libdevice.h"
#include "tmetal/ir/operation.h"

namespace tmetal::codegen {

// Whether every helper `f`'s expression calls exists (the others are refused
// as not implemented yet).
bool libdeviceImplemented(const ir::LibdeviceFunction& f);

class LibdeviceCalls {
 public:
  explicit LibdeviceCalls(const CEmitter& dialect) : dialect_(dialect) {}

  // The call of `f` on `args` (expressions of the TTIR operand types), as an
  // expression of the TTIR result type.
  std::string call(const ir::Operation& op, const ir::LibdeviceFunction& f, const std::vector<std::string>& args);

  // The helper functions used so far, each after the helpers it calls.
  std::string helpers() const;

 private:
  void require(std::string_view helper);
  std::string cType(ir::LibdeviceType t) const;

  const CEmitter& dialect_;
  std::set<std::string, std::less<>> emitted_;
  std::vector<std::string> definitions_;  // in dependency order
};

}  // namespace tmetal::codegen
