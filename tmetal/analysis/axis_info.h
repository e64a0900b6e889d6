// AxisInfo: what is known at compile time about the elements of an integer or
// pointer value, per dimension. It is what lets the layout engine issue
// 16-byte vector accesses and know that a mask is uniform over a vector.
//
// For dimension d of a value (scalars count as one dimension of size 1):
//   contiguity[d]   = C: along d the value splits into aligned runs of C
//                     elements (indices [kC, kC+C)) whose values increase by
//                     exactly 1 (pointers: by one element).
//   divisibility[d] = D: the first element of every such run is divisible by
//                     D (a power of two). When C == 1 every element is.
//                     Pointers count in bytes, integers in units.
//   constancy[d]    = K: along d the value splits into aligned runs of K
//                     equal elements.
// The same meaning as Triton's AxisInfo; the transfer rules are our own and
// stay conservative where Triton's would not be sound (for example a mask
// `x <= n` is not uniform over aligned runs, `x < n` is).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "tmetal/ir/module.h"

namespace tmetal::analysis {

struct AxisInfo {
  std::vector<int64_t> contiguity;
  std::vector<int64_t> divisibility;
  std::vector<int64_t> constancy;
  std::optional<int64_t> constantValue;  // every element equals this

  // The divisibility cap: large enough for any alignment decision, small
  // enough that products of two never overflow.
  static constexpr int64_t kMaxDivisibility = int64_t{1} << 30;

  // Nothing known: every field 1 for each of `rank` dimensions (rank 0 -> 1).
  static AxisInfo unknown(int rank);
  // Information that holds for both a and b (the lattice join).
  static AxisInfo join(const AxisInfo& a, const AxisInfo& b);

  int rank() const { return static_cast<int>(contiguity.size()); }
  // Divisibility that holds for the elements at indices that are multiples
  // of `run` along d (run a power of two). Inside a contiguous run such an
  // element is run * unitBytes past the run's start (unitBytes: the pointee
  // size for pointers, 1 for integers).
  int64_t divisibilityAtRuns(int d, int64_t run, int64_t unitBytes = 1) const;
  // Divisibility that holds for every element.
  int64_t divisibilityOfAll() const;

  bool operator==(const AxisInfo& o) const = default;
  // "contiguity=[128] divisibility=[16] constancy=[1]" (+ " constant=5").
  std::string str() const;
};

// Largest power of two dividing v, capped at kMaxDivisibility (0 -> the cap).
int64_t powerOfTwoDivisor(int64_t v);

class AxisInfoAnalysis {
 public:
  // Analyses every op of the function, including nested regions.
  explicit AxisInfoAnalysis(const ir::Function& fn);

  // The information of v; unknown() for values without integer or pointer
  // meaning (floats) or that were never reached.
  const AxisInfo& get(const ir::Value* v) const;

 private:
  void visitBlock(const ir::Block& block);
  void visitOp(const ir::Operation& op);
  void visitFor(const ir::Operation& op);
  void visitIf(const ir::Operation& op);
  void visitWhile(const ir::Operation& op);
  void set(const ir::Value* v, AxisInfo info);

  std::unordered_map<const ir::Value*, AxisInfo> info_;
  mutable std::unordered_map<int, AxisInfo> unknownByRank_;
};

}  // namespace tmetal::analysis
