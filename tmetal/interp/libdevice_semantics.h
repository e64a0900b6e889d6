// What each libdevice function (ir/libdevice.def) computes, for the
// interpreter: the reference the generated helpers are checked against. The
// float functions are evaluated in double (long double where double cancels
// or overflows) and rounded once to float, so that they are correctly
// rounded or within an ulp of it; directed roundings use the host FPU's
// rounding modes. Integers arrive and leave in the interpreter's canonical
// form (sign-extended to 64 bits).
#pragma once

#include <functional>

#include "tmetal/interp/runtime_value.h"
#include "tmetal/ir/libdevice.h"

namespace tmetal::interp {

std::function<Element(const Element* operands)> libdeviceSemantics(const ir::LibdeviceFunction& f);

}  // namespace tmetal::interp
