// Layout assignment: a distributed layout for every tensor value of a kernel
// under one MemoryLayout policy.
//
// Values are of two sorts:
//  - computed ones (loads, reductions, dots, loop-carried values, elementwise
//    ops of those, ...) have one home layout, where the op computes them;
//    a consumer that needs another layout gets a conversion through
//    threadgroup memory, done once right after the definition;
//  - rematerializable ones (constants, make_range, splat, and broadcast /
//    expand_dims / elementwise ops of those) have no home: they are computed
//    in each layout a consumer needs, which costs a few ALU ops instead of a
//    round trip through threadgroup memory.
//
// Homes come from anchors: loads take the policy's layout for their pointer
// tensor (COALESCED: from AxisInfo, aware of the reductions the loaded data
// flows into); elementwise ops follow their computed operands; reductions
// give slices of their operand's layout; expand_dims/broadcast keep their
// operand's mapping; loop-carried values take what the body yields (found by
// re-running the body until it is stable). Stores take the stored value's
// layout, so that a reduction's result is stored where it was computed.
#pragma once

#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tmetal/analysis/axis_info.h"
#include "tmetal/ir/module.h"
#include "tmetal/layout/blocked_layout_choice.h"
#include "tmetal/layout/distributed_layout.h"
#include "tmetal/layout/memory_layout.h"

namespace tmetal::layout {

struct LayoutOptions {
  MemoryLayout policy = MemoryLayout::COALESCED;
  int numWarps = 4;  // SIMD groups per threadgroup; threads = numWarps * 32
  // The threadgroup memory of the target; conversions chosen for speed alone
  // (a store's) are left out for tiles past half of it. 0: no limit.
  int64_t threadgroupMemoryBytes = 0;
};

class LayoutAssignment {
 public:
  // Throws CompileError for a num_warps that is not a power of two in [1, 32].
  LayoutAssignment(const ir::Function& fn, const analysis::AxisInfoAnalysis& axis, LayoutOptions options);
  ~LayoutAssignment();
  LayoutAssignment(LayoutAssignment&&) noexcept;

  MemoryLayout policy() const { return options_.policy; }
  int numWarps() const { return options_.numWarps; }

  // True for tensor values computed again in each layout they are needed in.
  bool isRematerializable(const ir::Value* v) const;
  // Where a computed tensor value is computed; null for scalars and
  // rematerializable values.
  LayoutPtr home(const ir::Value* v) const;
  // Every layout the value must be available in at its definition: the home
  // first (computed values, when homeMaterialized), then the layouts
  // consumers need. Empty for scalars and rematerializable values nobody uses.
  const std::vector<LayoutPtr>& layoutsOf(const ir::Value* v) const;
  // The layout in which `op` reads its tensor operand i; null for scalar
  // operands and for ops that read none in a layout (rematerializable ops
  // take theirs from the layout they are computed in, see below).
  LayoutPtr operandLayout(const ir::Operation* op, size_t i) const;

  // For a rematerializable op computed in `resultLayout`: the layout its
  // tensor operand i is read in (null for scalar operands).
  static LayoutPtr rematerializedOperandLayout(const ir::Operation& op, size_t i, const LayoutPtr& resultLayout);

  // The policy's layout for a tensor of this shape that no access anchors.
  LayoutPtr defaultLayout(const std::vector<int64_t>& shape) const;

  // True when the computed value `v` is computed again in `l` from its
  // operands (read in rematerializedOperandLayout(def, i, l)) instead of
  // being converted from its home: broadcast, expand_dims, elementwise ops
  // with one computed operand, and loads. Conversions so move to the
  // smallest tensor, and loads are issued in the layout their consumers read.
  bool isRecomputedIn(const ir::Value* v, const LayoutPtr& l) const;
  // Whether the value is computed in its home layout at all (false when no
  // consumer reads it there and every layout it is needed in is recomputed).
  bool homeMaterialized(const ir::Value* v) const;

  // Every computed value and the layouts other than its home it is
  // converted to (through threadgroup memory), in program order.
  struct Conversion {
    const ir::Value* value;
    LayoutPtr from;
    LayoutPtr to;
  };
  std::vector<Conversion> conversions() const;

 private:
  friend class LayoutAssigner;
  LayoutOptions options_;
  // What one run of the assigner decides; a second run starts from none of it.
  struct Decisions {
    std::unordered_set<const ir::Value*> remat;
    std::unordered_map<const ir::Value*, LayoutPtr> home;
    std::unordered_map<const ir::Value*, std::vector<LayoutPtr>> layouts;
    std::map<std::pair<const ir::Operation*, size_t>, LayoutPtr> operandLayouts;
    std::vector<const ir::Value*> definitionOrder;
    std::vector<std::pair<const ir::Value*, LayoutPtr>> recomputed;
    std::unordered_set<const ir::Value*> homeSkipped;
  };
  Decisions decided_;
  mutable std::map<std::vector<int64_t>, LayoutPtr> defaults_;
};

}  // namespace tmetal::layout
