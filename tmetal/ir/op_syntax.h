// How each op of ops.def is written in Triton's pretty TTIR syntax. The
// printer and the reader both dispatch on this one table, so that what one
// writes the other reads. Each family's layout, as Triton 3.6 prints it:
#pragma once

#include <string>

#include "tmetal/ir/operation.h"

namespace tmetal::ir {

enum class OpSyntax {
  Constant,        // arith.constant {attrs}? 7 : i32 | 1.0 : f32 | true | dense<..> : tensor<..>
  SameType,        // arith.addf %a, %b fastmath<fast>? {attrs}? : T   (all operands and result T;
                   // overflow<nsw>? for integer ops)
  Compare,         // arith.cmpi slt, %a, %b fastmath<..>? {attrs}? : T   (result: T with i1)
  Select,          // arith.select %c, %a, %b {attrs}? : [C,] T
  Cast,            // arith.extsi %x {attrs}? : A to B
  Arrow,           // tt.splat %x {attrs}? : A -> B   (tt.join/cat: %a, %b; tt.split: 2 results;
                   // tt.histogram: %x [, %mask])
  Reshape,         // tt.reshape %x allow_reorder? efficient_layout? {attrs}? : A -> B
  FpToFp,          // tt.fp_to_fp %x {attrs}? [, rounding = rtne] : A -> B
  ProgramDim,      // tt.get_program_id x {attrs}? : i32
  ResultTypeOnly,  // tt.make_range {end = 8 : i32, start = 0 : i32} : tensor<8xi32>; ub.poison : i32
  OperandTypeOnly, // tt.unsplat %x {attrs}? : tensor<1xi32> (result: its element); llvm.intr.assume %c : i1
  AddPtr,          // tt.addptr %p, %o {attrs}? : P, O
  Load,            // tt.load %p [, %mask [, %other]] cacheModifier = cg? evictionPolicy = x? {attrs}? : P
  Store,           // tt.store %p, %v [, %mask] cacheModifier = ..? evictionPolicy = ..? {attrs}? : P
  AtomicRMW,       // tt.atomic_rmw fadd, acq_rel, gpu, %p, %v [, %m] {attrs}? : (P, V[, M]) -> R
  AtomicCAS,       // tt.atomic_cas acq_rel, gpu, %p, %cmp, %v {attrs}? : (P, C, V) -> R
  Dot,             // tt.dot %a, %b, %c [, inputPrecision = tf32] {attrs}? : A * B -> C
  DotScaled,       // tt.dot_scaled %a [scale %sa], %b [scale %sb], %c lhs = e2m1 rhs = bf16 {attrs}?
                   //   : A[, SA] * B[, SB] -> C
  MakeTensorPtr,   // tt.make_tensor_ptr %base, [%shape..], [%strides..], [%offsets..] {order = ..} : <tensor<..>>
  Advance,         // tt.advance %p, [%offsets..] {attrs}? : <tensor<..>>
  Functional,      // tt.extern_elementwise %a, %b {attrs} : (A, B) -> R
  Gather,          // tt.gather %src[%indices] {axis = 0 : i32} : (S, I) -> R
  Call,            // tt.call @callee(%a, %b) {attrs}? : (A, B) -> R
  ClampF,          // tt.clampf %x, %lo, %hi, propagateNan = none {attrs}? : T
  Print,           // tt.print " prefix" {hex = false, isSigned = array<i32: 0>} [: %a, %b : A, B]
  Assert,          // tt.assert %cond, "message" {attrs}? : C
  Terminator,      // tt.return / scf.yield {attrs}? [%a, %b : A, B]; gpu.barrier {attrs}?
  RegionReturn,    // tt.reduce.return %a, %b {attrs}? : A, B
  Condition,       // scf.condition(%c) {attrs}? [%a, %b : A, B]
  For,             // scf.for %iv = %lb to %ub step %s [iter_args(%x = %init, ..) -> (T, ..)] : i32 {..}
  If,              // scf.if %c [-> (T, ..)] {..} [else {..}]
  While,           // scf.while (%x = %init, ..) : (T, ..) -> (R, ..) {..} do {^bb0(..): ..}
  Generic,         // "tt.reduce"(%a) <{axis = 0 : i32}> ({^bb0(..): ..}) : (A) -> R
  FunctionOp,      // tt.func: a Function of the module, not an Operation
};

OpSyntax opSyntax(OpKind kind);

// Triton 3.6 spells tt.make_block_ptr (ops.def's name) "tt.make_tensor_ptr".
// The name an op is printed under, and the ops.def name of a written name.
std::string writtenOpName(const Operation& op);
std::string canonicalOpName(const std::string& written);

// How many operands an op of the SameType family takes (1, 2 or 3).
size_t sameTypeArity(OpKind kind);

// What tt.load reads (and tt.store writes) through a pointer-like type: the
// pointee of a pointer (a tensor for a block pointer), or a tensor of
// pointees for a tensor of pointers. False for any other type.
bool loadedType(const Type& pointerLike, Type& loaded);

}  // namespace tmetal::ir
