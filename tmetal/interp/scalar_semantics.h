// What each arithmetic op does to one element. These are the definitions the
// backends are checked against, so each choice where LLVM leaves a result
// undefined is made here, once, and documented:
//   - integers wrap at their width (two's complement);
//   - division by zero gives all ones (-1) for divsi/divui/ceildivsi/floordivsi
//     and the dividend for remsi/remui; INT_MIN / -1 gives INT_MIN, remainder 0;
//   - shifts by the width or more give 0 (shli, shrui) or the sign fill (shrsi);
//   - fptosi/fptoui saturate to the target range and give 0 for NaN, as GPU
//     conversion instructions do;
//   - f16/bf16 ops compute in f32 and round once to the result type (exact for
//     + - * / sqrt, whose f32 result rounds correctly to these narrower types);
//     f32 ops compute in float, f64 ops in double; transcendental functions
//     use the C library in the same precision; math.fma on f16/bf16 is fused
//     in f32 and then rounded (two roundings);
//   - maxnumf/minnumf return the other operand when one is NaN, maximumf/
//     minimumf return NaN; all four order -0 below +0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tmetal/ir/operation.h"

namespace tmetal::interp {

// The value of the low `width` bits of `bits`, sign-extended (the interpreter's
// canonical form of an integer of that width).
int64_t wrapInt(uint64_t bits, int width);
// The low `width` bits of `value`, zero-extended: the unsigned reading.
uint64_t unsignedInt(int64_t value, int width);

// Integer binary ops: arith.addi ... arith.minui and tt.mulhiui.
// Returns nullopt when `op` is not one of them.
std::optional<int64_t> integerBinary(ir::OpKind op, int64_t a, int64_t b, int width);
// Float binary ops: arith.addf ... arith.minimumf, tt.precise_divf.
std::optional<double> floatBinary(ir::OpKind op, double a, double b, ir::ScalarKind kind);
// Float unary ops: arith.negf, the float math.* ops, tt.precise_sqrt.
std::optional<double> floatUnary(ir::OpKind op, double a, ir::ScalarKind kind);
// math.fma, computed fused in the precision of `kind` (f32 for f16/bf16, then rounded).
double floatFma(double a, double b, double c, ir::ScalarKind kind);

// arith.cmpi predicates; parsed once per op, applied per element.
enum class IntPredicate { Eq, Ne, Slt, Sle, Sgt, Sge, Ult, Ule, Ugt, Uge };
std::optional<IntPredicate> parseIntPredicate(const std::string& name);
bool compareInts(IntPredicate predicate, int64_t a, int64_t b, int width);

// arith.cmpf predicates: a relation, and the answer when an operand is NaN
// (false for the ordered o* predicates, true for the unordered u* ones).
struct FloatPredicate {
  enum class Relation { Always, Never, Eq, Ne, Lt, Le, Gt, Ge, Ordered } relation;
  bool resultIfUnordered;
};
std::optional<FloatPredicate> parseFloatPredicate(const std::string& name);
bool compareFloats(FloatPredicate predicate, double a, double b);

// fptosi / fptoui with saturation; NaN gives 0. Result in canonical form.
int64_t floatToInt(double value, int width, bool isSigned);

}  // namespace tmetal::interp
