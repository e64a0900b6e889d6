// Prints kernel IR as TTIR in Triton 3.6's own syntax, which the TTIR reader
// reads back: the pretty form of every op of ops.def, the generic form for
// tt.reduce and tt.scan (as Triton prints them) and for any op whose operands,
// types or attributes do not fit its pretty form. Locations are printed
// inline (`loc("k.py":3:7)`) rather than as `#loc` aliases. The output
// depends only on the IR, so it is deterministic.
#pragma once

#include <string>

#include "tmetal/ir/module.h"

namespace tmetal::ir {

struct PrintOptions {
  bool locations = true;  // false: as Triton's str_nodebug() (no loc(...))
};

std::string printModule(const Module& module, const PrintOptions& options = {});

// Pieces of the syntax, also used in messages.
std::string printAttribute(const Attribute& attribute);
std::string printLocation(const Location& location);  // loc(...)

}  // namespace tmetal::ir
