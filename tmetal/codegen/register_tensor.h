// The registers of one tensor value in one layout, as the emitted code
// spells them. Register r is `regs[r]`: an element of an array declared for
// the value, a scalar variable, or an expression shared with other values
// (a splatted scalar, a constant, the registers of a broadcast operand).
// Keeping expressions rather than copies is what makes broadcast,
// expand_dims and splat cost no code.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tmetal/ir/type.h"
#include "tmetal/layout/tensor_map.h"

namespace tmetal::codegen {

// One digit of a mixed-radix register index: ((r / divisor) % modulus) * multiplier.
struct IndexTerm {
  int64_t divisor = 1;
  int64_t modulus = 1;
  int64_t multiplier = 1;
};

// The lvalue a pointer expression points at: base[offset] for &base[offset],
// *p otherwise.
std::string dereference(const std::string& pointer);

// The C expression of sum of terms applied to `index` (a loop variable
// running over [0, count)), without the no-op parts; and its value.
std::string renderIndexTerms(const std::vector<IndexTerm>& terms, const std::string& index, int64_t count);
int64_t evaluateIndexTerms(const std::vector<IndexTerm>& terms, int64_t index);

struct RegisterTensor {
  layout::LayoutPtr layout;
  std::vector<int64_t> shape;
  ir::Type element;       // the tensor's element type
  // Set when regs[r] == arrayName[index(r)] for every r, where index is the
  // identity (indexMap empty) or the sum of indexMap's terms: a broadcast
  // reads its operand's array through such a map.
  std::string arrayName;
  std::vector<IndexTerm> indexMap;
  std::vector<std::string> regs;
  // A tensor of pointers base + offsets (tt.addptr of a splatted pointer)
  // is kept as its scalar base and its offsets: register r is spelled
  // &base[offsets[r]], and memory accesses read base[offsets[r]] - the way a
  // Metal programmer indexes a buffer - instead of an array of pointers.
  std::string pointerBase;
  std::shared_ptr<const RegisterTensor> pointerOffsets;

  size_t size() const { return regs.size(); }
  bool isUniform() const;  // every register is the same expression
  layout::TensorMap map() const { return layout::TensorMap(layout, shape); }

  // The register at a symbolic index (a loop variable): arrayName[index] for
  // plain arrays, the shared expression for uniform ones, nullopt otherwise.
  std::optional<std::string> at(const std::string& index) const;
  // Elements of the tensor (the product of its shape).
  int64_t numElements() const;

  // The array index of register `index` (a C expression over a loop variable).
  std::string mappedIndex(const std::string& index) const;

  static RegisterTensor array(layout::LayoutPtr layout, std::vector<int64_t> shape, ir::Type element,
                              const std::string& name, int64_t count);
  static RegisterTensor pointerInto(layout::LayoutPtr layout, std::vector<int64_t> shape, ir::Type element,
                                    const std::string& base, RegisterTensor offsets);
  static RegisterTensor uniform(layout::LayoutPtr layout, std::vector<int64_t> shape, ir::Type element,
                                const std::string& expr, int64_t count);
};

}  // namespace tmetal::codegen
