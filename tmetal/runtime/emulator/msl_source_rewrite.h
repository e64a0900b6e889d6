// The one textual step between emitted MSL and clang: MSL syntax that no
// header can express in C++ is rewritten token by token, keeping every line
// where it was so that clang's diagnostics point at the emitted source.
//
//  * `threadgroup` is both a storage class and a pointer qualifier in MSL. A
//    variable declaration (`threadgroup float buf[256];`, `threadgroup uint n;`)
//    becomes TMETAL_THREADGROUP_STORAGE (static thread_local: one copy per OS
//    thread = per running threadgroup); in a pointer, reference, cast or
//    parameter type it becomes TMETAL_THREADGROUP_ADDRESS_SPACE (nothing).
//    The rule: following the qualifier, skip the type's names, `::` and
//    template arguments; a `*`, `&`, `(` or `)` next means a pointer-like type,
//    anything else a variable - unless the qualifier sits inside parentheses
//    (a parameter list or a cast), which is never a variable declaration.
//  * Half literals (`1.0h`, `2h`) become `half(1.0f)`, `half(2)`.
// Comments, string and character literals are left alone.
#pragma once

#include <string>

namespace tmetal::runtime::emulator {

std::string rewriteMslForShim(const std::string& msl);

}  // namespace tmetal::runtime::emulator
