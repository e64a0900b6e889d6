// Structural equality of two modules: the same functions, arguments, ops,
// types, attributes (in any order), value wiring (each operand refers to the
// corresponding value), regions and, optionally, locations and value names.
// Used to check that printing and reading TTIR again gives back the same IR.
#pragma once

#include <string>

#include "tmetal/ir/module.h"

namespace tmetal::ir {

struct EquivalenceOptions {
  bool locations = true;
  bool names = true;  // Value::name() hints
};

// "" when equal, otherwise the first difference, e.g.
// "function @k, op #3 ('arith.addi'): operand 1 refers to a different value".
std::string firstDifference(const Module& a, const Module& b, const EquivalenceOptions& options = {});

}  // namespace tmetal::ir
