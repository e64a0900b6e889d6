// Reads TTIR as Triton 3.6 prints it (`str(module)` with locations and named
// values, or `module.str_nodebug()`) into kernel IR.
//
// What the reader guarantees:
//  - every op is one of ops.def, with its attributes stored as ops.def says;
//    any other op is `file:line:col: error: unsupported op 'x.y'`;
//  - operand types agree with the types written in the text;
//  - every op, function and argument has a location: its `loc(...)` (aliases
//    resolved), or, where the text has none, its own position in the text;
//    scf.for's and scf.while's block arguments, whose location the syntax
//    cannot show, take their op's;
//  - value names: Value::name() keeps the name written (`%offs_2` gives
//    "offs_2"); numbered values (`%3`) and values named like the printer's
//    default for block arguments (`%arg3`) get "";
//  - scf.yield that MLIR leaves out (scf.for without iter_args, scf.if
//    without results) is put back, with the loop's or branch's location;
//  - bad input of any kind is a CompileError `file:line:col: error: ...`:
//    the reader does not crash, hang, or recurse without bound.
// The result is not verified; call ir::verify() for that.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "tmetal/ir/module.h"

namespace tmetal::frontend {

std::unique_ptr<ir::Module> parseTtir(std::string_view text, const std::string& filename);

}  // namespace tmetal::frontend
