#include "tmetal/layout/layout_assignment.h"

#include <algorithm>
#include <set>

#include "tmetal/ir/op_traits.h"
#include "tmetal/layout/layout_op_traits.h"
#include "tmetal/layout/tensor_map.h"
#include "tmetal/support/diagnostic.h"
#include "tmetal/support/power_of_two.h"

namespace tmetal::layout {

using ir::OpKind;

namespace {

bool isTensor(const ir::Value* v) { return v->type().isTensor(); }

int elementBytes(const ir::Type& t) {
  const ir::Type& e = t.elementOrSelf();
  if (e.isPointer()) {
    if (!e.pointee().isScalar()) return 8;
    return std::max(1, e.pointee().bitWidth() / 8);
  }
  return std::max(1, e.bitWidth() / 8);
}


using UseList = std::unordered_map<const ir::Value*, std::vector<std::pair<const ir::Operation*, size_t>>>;

void collectUses(const ir::Region& region, UseList& uses) {
  ir::walk(region, [&](const ir::Operation* op) {
    for (size_t i = 0; i < op->numOperands(); ++i) uses[op->operand(i)].push_back({op, i});
  });
}

}  // namespace

// The passes that fill a LayoutAssignment. Kept out of the header: only the
// results are the contract.
class LayoutAssigner {
 public:
  using CarriedLayouts = std::unordered_map<const ir::Value*, LayoutPtr>;
  // `carried`: layouts chosen for loop-carried values by a run before
  // (pointersToCarryWhereRead).
  LayoutAssigner(LayoutAssignment& out, const ir::Function& fn, const analysis::AxisInfoAnalysis& axis,
                 CarriedLayouts carried = {})
      : out_(out), fn_(fn), axis_(axis), carriedLayouts_(std::move(carried)) {}

  void run() {
    collectUses(*fn_.body(), uses_);
    markRematerializable(*fn_.entry());
    chooseMemoryLayouts();
    visitBlock(*fn_.entry());
    propagateNeeds();
  }

  // Loop-carried pointer tensors to carry in another layout: one that a
  // load reads directly, advanced only by elementwise ops or tt.addptr,
  // whose loaded value this run issues in one other layout only (a
  // recomputed load: a row of indices loaded where it is expanded into a
  // column, Triton's test_indirect_matmul). Carried in the layout where it
  // is read, the loop converts no pointers through threadgroup memory per
  // trip (which also kept it from loading ahead).
  CarriedLayouts pointersToCarryWhereRead() const {
    CarriedLayouts moved;
    ir::walk(*fn_.body(), [&](const ir::Operation* loop) {
      if (loop->kind() != OpKind::ScfFor) return;
      const ir::Block& body = *loop->region(0)->block(0);
      for (size_t i = 1; i < body.numArguments(); ++i) {
        const ir::Value* arg = body.argument(i);
        if (!isTensor(arg) || !arg->type().element().isPointer()) continue;
        auto uses = uses_.find(arg);
        if (uses == uses_.end()) continue;
        const ir::Operation* load = nullptr;
        bool advancedOnly = true;
        for (auto [user, index] : uses->second) {
          if (user->kind() == OpKind::TtLoad && index == 0 && !load)
            load = user;
          else if (user->kind() != OpKind::TtAddPtr && !ir::isElementwise(user->kind()))
            advancedOnly = false;
        }
        if (!load || !advancedOnly || !isTensor(load->result(0))) continue;
        const ir::Value* loaded = load->result(0);
        auto in = out_.decided_.layouts.find(loaded);
        if (!out_.decided_.homeSkipped.count(loaded) || in == out_.decided_.layouts.end() || in->second.size() != 1)
          continue;
        const LayoutPtr& read = in->second[0];  // a load reads its pointers in its own layout
        if (!sameLayout(read, homeOf(arg))) moved[arg] = read;
      }
    });
    return moved;
  }

 private:
  // ---- rematerializable values -------------------------------------------
  void markRematerializable(const ir::Block& block) {
    for (const auto& op : block.ops()) {
      for (size_t r = 0; r < op->numRegions(); ++r)
        for (size_t b = 0; b < op->region(r)->numBlocks(); ++b) markRematerializable(*op->region(r)->block(b));
      if (op->numResults() != 1 || !isTensor(op->result(0)) || !isRematerializableKind(op->kind())) continue;
      bool allCheap = true;
      for (const ir::Value* v : op->operands())
        if (isTensor(v) && !out_.decided_.remat.count(v)) allCheap = false;
      if (allCheap) out_.decided_.remat.insert(op->result(0));
    }
  }
  bool cheap(const ir::Value* v) const { return out_.decided_.remat.count(v) > 0; }

  // ---- tt.dot on SIMD-group matrices --------------------------------------
  // The SIMD groups of a dot whose f16, bf16 or 8-bit float operands and f32
  // accumulator the lowering puts on 8x8 SIMD-group matrices (KernelLowering
  // ::dotMatrixPlan decides the rest: the threadgroup memory), where every
  // group gets tiles; {0, 0} otherwise.
  MatrixGroups matrixGroupsFor(const ir::Operation& dot) {
    const ir::Type& a = dot.operand(0)->type();
    const ir::Type& b = dot.operand(1)->type();
    if (!hasMatrixOperands(dot) || dot.result(0)->type().element().scalarKind() != ir::ScalarKind::F32) return {};
    const int64_t m = a.shape()[0], n = b.shape()[1], k = a.shape()[1];
    if (m % kMatrixTile || n % kMatrixTile || k % kMatrixTile) return {};
    const int warps = out_.options_.numWarps;
    const MatrixGroups g = chooseMatrixGroups(m / kMatrixTile, n / kMatrixTile, warps, chainedOrRowReduced(dot));
    return g.groupsM * g.groupsN == warps ? g : MatrixGroups{};
  }

  // Whether another tt.dot of the dot's block reads what it computes or
  // computes what it reads, or a reduction along its rows follows it (the
  // attention's softmax between two dots).
  bool chainedOrRowReduced(const ir::Operation& dot) {
    const ir::Block* block = dot.parentBlock();
    std::vector<const ir::Value*> work{dot.result(0)};
    std::set<const ir::Value*> seen{dot.result(0)};
    while (!work.empty()) {
      const ir::Value* v = work.back();
      work.pop_back();
      for (auto [user, index] : uses_[v]) {
        if (user->parentBlock() != block) continue;
        if (user->kind() == OpKind::TtDot && user != &dot) return true;
        if (user->kind() == OpKind::TtReduce && user->intAttr("axis") == 1 && user->operand(index)->type().rank() == 2)
          return true;
        for (const ir::Value* r : user->results())
          if (seen.insert(r).second) work.push_back(r);
      }
    }
    std::vector<const ir::Operation*> defs{&dot};
    std::set<const ir::Operation*> visited{&dot};
    while (!defs.empty()) {
      const ir::Operation* op = defs.back();
      defs.pop_back();
      for (const ir::Value* v : op->operands()) {
        const ir::Operation* def = v->definingOp();
        if (!def || def->parentBlock() != block || !visited.insert(def).second) continue;
        if (def->kind() == OpKind::TtDot) return true;
        defs.push_back(def);
      }
    }
    return false;
  }

  // ---- anchors: the layouts of memory accesses ----------------------------
  // Axes of the reductions and scans that a loaded value flows into through
  // elementwise ops and loop-carried values of the same shape.
  std::vector<int> downstreamReducedAxes(const ir::Value* start) {
    std::set<int> axes;
    std::vector<const ir::Value*> work{start};
    std::set<const ir::Value*> seen{start};
    auto push = [&](const ir::Value* v) {
      if (v->type().isTensor() && v->type().shape() == start->type().shape() && seen.insert(v).second)
        work.push_back(v);
    };
    while (!work.empty()) {
      const ir::Value* v = work.back();
      work.pop_back();
      for (auto [user, index] : uses_[v]) {
        OpKind k = user->kind();
        if (k == OpKind::TtReduce || k == OpKind::TtScan) {
          axes.insert(static_cast<int>(user->intAttr("axis")));
        } else if (ir::isElementwise(k)) {
          push(user->result(0));
        } else if (k == OpKind::ScfYield) {
          const ir::Operation* parent = user->parentBlock()->parentOp();
          if (!parent) continue;
          if (index < parent->numResults()) push(parent->result(index));
          if (parent->kind() == OpKind::ScfFor) push(parent->region(0)->block(0)->argument(1 + index));
        } else if (k == OpKind::ScfFor && index >= 3) {
          push(user->region(0)->block(0)->argument(index - 2));
        }
      }
    }
    return {axes.begin(), axes.end()};
  }

  AccessHint accessHint(const ir::Operation& op) {
    const ir::Value* ptr = op.operand(0);
    const analysis::AxisInfo& info = axis_.get(ptr);
    int rank = ptr->type().rank();
    AccessHint hint;
    hint.elementBytes = elementBytes(ptr->type());
    // Fastest first: larger contiguity, then the later dimension (row-major).
    for (int d = rank - 1; d >= 0; --d) hint.order.push_back(d);
    std::stable_sort(hint.order.begin(), hint.order.end(),
                     [&](int a, int b) { return info.contiguity[a] > info.contiguity[b]; });
    int fastest = hint.order[0];
    int64_t contiguous = analysis::powerOfTwoDivisor(info.contiguity[fastest]);
    int64_t alignedElements = std::max<int64_t>(1, info.divisibility[fastest] / hint.elementBytes);
    hint.vectorElements = floorPowerOfTwo(
        std::min<int64_t>({contiguous, alignedElements, kMaxVectorAccessBytes / hint.elementBytes}));
    if (op.kind() == OpKind::TtLoad) {
      hint.reducedAxes = downstreamReducedAxes(op.result(0));
      const ir::Operation* parent = op.parentBlock()->parentOp();
      hint.inRegisterOnlyLoop = parent && ir::isRegisterOnlyLoop(*parent);
    }
    return hint;
  }

  // Whether `v` is computed elementwise from loads (and constants and
  // ranges) alone, so that it takes their layout, the one its store's group
  // chooses; not from a dot, reduction or loop, whose layout is their own
  // (attention's output: there, narrower runs would only narrow the loads of
  // K and V in its loop, 1.16x -> 1.05x of Triton on an H200).
  static bool computedFromLoads(const ir::Value* v) {
    std::vector<const ir::Value*> work{v};
    std::set<const ir::Value*> seen;
    while (!work.empty()) {
      const ir::Value* x = work.back();
      work.pop_back();
      if (!x->type().isTensor() || !seen.insert(x).second) continue;
      const ir::Operation* d = x->definingOp();
      if (!d) return false;
      if (d->kind() == OpKind::TtLoad) continue;
      const bool shapeOnly = d->kind() == OpKind::TtBroadcast || d->kind() == OpKind::TtExpandDims ||
                             d->kind() == OpKind::TtSplat || d->kind() == OpKind::TtMakeRange ||
                             d->kind() == OpKind::ArithConstant;
      if (!shapeOnly && !ir::isElementwise(d->kind())) return false;
      for (const ir::Value* o : d->operands()) work.push_back(o);
    }
    return true;
  }

  // Memory accesses of one shape and one dimension order share a layout, so
  // that the values they load and store meet without conversions; the
  // vector width is the widest any of them allows (each access still
  // vectorizes only as far as its own alignment permits).
  void chooseMemoryLayouts() {
    struct Group {
      std::vector<int64_t> shape;
      AccessHint hint;
      std::vector<const ir::Operation*> ops;
    };
    std::vector<Group> groups;
    ir::walk(*fn_.body(), [&](const ir::Operation* op) {
      OpKind k = op->kind();
      if (k != OpKind::TtLoad && k != OpKind::TtStore && k != OpKind::TtAtomicRMW && k != OpKind::TtAtomicCAS) return;
      if (!isTensor(op->operand(0)) || op->operand(0)->type().element().isBlockPointer()) return;
      AccessHint h = accessHint(*op);
      if (k == OpKind::TtStore && computedFromLoads(op->operand(1))) h.storedElementBytes = h.elementBytes;
      const std::vector<int64_t>& shape = op->operand(0)->type().shape();
      for (Group& g : groups) {
        if (g.shape == shape && g.hint.order == h.order) {
          g.hint.vectorElements = std::max(g.hint.vectorElements, h.vectorElements);
          g.hint.elementBytes = std::min(g.hint.elementBytes, h.elementBytes);
          g.hint.storedElementBytes = std::max(g.hint.storedElementBytes, h.storedElementBytes);
          g.hint.inRegisterOnlyLoop = g.hint.inRegisterOnlyLoop && h.inRegisterOnlyLoop;
          for (int a : h.reducedAxes)
            if (std::find(g.hint.reducedAxes.begin(), g.hint.reducedAxes.end(), a) == g.hint.reducedAxes.end())
              g.hint.reducedAxes.push_back(a);
          g.ops.push_back(op);
          return;
        }
      }
      groups.push_back({shape, h, {op}});
    });
    for (Group& g : groups) {
      std::sort(g.hint.reducedAxes.begin(), g.hint.reducedAxes.end());
      LayoutPtr l = DistributedLayout::blocked(chooseBlockedLayout(out_.options_.policy, g.shape,
                                                                   out_.options_.numWarps, g.hint));
      for (const ir::Operation* op : g.ops) memoryLayout_[op] = l;
    }
  }

  LayoutPtr reductionLayout(const ir::Operation& op) {
    AccessHint hint;
    hint.elementBytes = elementBytes(op.operand(0)->type());
    hint.reducedAxes = {static_cast<int>(op.intAttr("axis"))};
    return DistributedLayout::blocked(chooseBlockedLayout(out_.options_.policy, op.operand(0)->type().shape(),
                                                          out_.options_.numWarps, hint));
  }

  // Whether storing from `home` would scatter what the addresses keep
  // together: its threads run fastest along a dimension in which the
  // addresses are less contiguous than along the one the store's own layout
  // runs along (a transposed tile stored row-major). A warp's store then
  // touches a line per element or two, where through the store's layout
  // (one conversion through threadgroup memory, as Triton's coalescing
  // inserts) it writes whole lines.
  bool scattersStore(const ir::Operation& op, const LayoutPtr& home) const {
    LayoutPtr memory = memoryLayoutOf(op);
    if (!memory || !home->isBlocked() || !memory->isBlocked() || home->rank() < 2) return false;
    const analysis::AxisInfo& info = axis_.get(op.operand(0));
    const int homeFastest = home->blockedParams().order[0];
    const int memoryFastest = memory->blockedParams().order[0];
    return info.contiguity[memoryFastest] > info.contiguity[homeFastest];
  }

  // Whether converting `v` for its store stages it in a few pieces: a tile
  // of at most four times the threadgroup memory (eight pieces of half of
  // it; the lowering takes what the kernel's other buffers leave). On an
  // H200 a 256x128 float32 transpose tile, four pieces, took 150 us with 8
  // SIMD groups and 768 us with 4 (its 256 registers a thread spill),
  // stored scattered 971 and 1143 us (bench/results/
  // 2026-11-28-h200-transpose-piece-bits). A dot's result,
  // or a loop's that a dot accumulates, leaves its matrices through a
  // staging of the whole tile instead: at most half the memory, beside the
  // dot's own staging.
  bool stagingFits(const ir::Value* v) const {
    const int64_t limit = out_.options_.threadgroupMemoryBytes;
    const int64_t bytes = v->type().numElements() * elementBytes(v->type());
    return limit == 0 || (accumulatedByDot(v) ? 2 * bytes <= limit : bytes <= 4 * limit);
  }

  // The store's layout for a conversion staged in pieces (a tile past the
  // threadgroup memory) of elements narrower than 32 bits: lanes along the
  // contiguous dimension only as far as one 128-byte line, the rest across
  // the next dimension, and as many elements across as fill a word. With all
  // 32 lanes along it (512 bytes of halves in vectors of 8) the staging's
  // top index bits, which pick the piece, were lane bits of the readers: a
  // quarter of each SIMD group read all its registers in each piece while
  // the rest waited, an element at a time (a 256x256 float16 transpose with
  // 4 SIMD groups: 2048 shared loads a thread in nvcc's SASS). Across, they
  // are the readers' register bits, every thread reads a quarter of its
  // registers a piece, and in 32-bit words (readStagedWords): 256. A SIMD
  // group's store still writes whole 128-byte lines. Float32 tiles keep the
  // layout they were measured with (bench/results/2026-11-28-h200-tile-transposes/).
  LayoutPtr pieceableStoreLayout(const ir::Operation& op) const {
    const LayoutPtr memory = memoryLayoutOf(op);
    if (!memory || !memory->isBlocked()) return memory;
    const ir::Value* v = op.operand(1);
    const int elementSize = elementBytes(v->type());
    const int64_t bytes = v->type().numElements() * elementSize;
    if (elementSize >= 4 || out_.options_.threadgroupMemoryBytes == 0 ||
        bytes <= out_.options_.threadgroupMemoryBytes)
      return memory;
    BlockedLayout b = memory->blockedParams();
    const std::vector<int64_t>& shape = v->type().shape();
    if (b.rank() != 2) return memory;
    const int fastest = b.order[0], next = b.order[1];
    const int64_t rowBytes = int64_t{b.sizePerThread[fastest]} * elementSize;
    int move = b.lanesPerSimd[fastest];
    while (move > 1 && rowBytes * (b.lanesPerSimd[fastest] / move) < layout::kCoalescedRowBytes) move /= 2;
    while (move > 1 && shape[next] < int64_t{b.tile(next)} * move) move /= 2;
    b.lanesPerSimd[fastest] /= move;
    b.lanesPerSimd[next] *= move;
    const int across = 4 / elementSize;
    if (b.sizePerThread[next] == 1 && shape[next] >= int64_t{b.tile(next)} * across) b.sizePerThread[next] = across;
    if (b == memory->blockedParams()) return memory;
    b.validate();
    return DistributedLayout::blocked(b);
  }

  static bool accumulatedByDot(const ir::Value* v) {
    const ir::Operation* def = v->definingOp();
    if (def && def->kind() == OpKind::ScfFor)
      def = def->region(0)->block(0)->terminator()->operand(v->index())->definingOp();
    return def && def->kind() == OpKind::TtDot;
  }

  LayoutPtr memoryLayoutOf(const ir::Operation& op) const {
    auto it = memoryLayout_.find(&op);
    return it == memoryLayout_.end() ? nullptr : it->second;
  }

  // ---- homes, in program order -------------------------------------------
  LayoutPtr homeOf(const ir::Value* v) const {
    auto it = out_.decided_.home.find(v);
    return it == out_.decided_.home.end() ? nullptr : it->second;
  }
  void setHome(const ir::Value* v, LayoutPtr l) {
    if (!isTensor(v)) return;
    if (!out_.decided_.home.count(v)) out_.decided_.definitionOrder.push_back(v);
    out_.decided_.home[v] = std::move(l);
  }
  void setOperand(const ir::Operation& op, size_t i, LayoutPtr l) {
    if (!isTensor(op.operand(i))) return;
    out_.decided_.operandLayouts[{&op, i}] = std::move(l);
  }
  void setAllOperands(const ir::Operation& op, const LayoutPtr& l) {
    for (size_t i = 0; i < op.numOperands(); ++i) setOperand(op, i, l);
  }
  // The home of a computed operand, or null (rematerializable, scalar, or a
  // loop-carried value whose layout is not decided yet).
  LayoutPtr computedHome(const ir::Value* v) const { return cheap(v) ? nullptr : homeOf(v); }
  LayoutPtr homeOrDefault(const ir::Value* v) const {
    LayoutPtr h = computedHome(v);
    return h ? h : out_.defaultLayout(v->type().shape());
  }

  void visitBlock(const ir::Block& block) {
    for (const auto& op : block.ops()) visitOp(*op);
  }

  void visitOp(const ir::Operation& op) {
    if (ir::isTerminator(op.kind())) return;  // the owner of the region handles it
    if (op.numResults() == 1 && cheap(op.result(0))) return;
    switch (op.kind()) {
      case OpKind::TtLoad: {
        if (!isTensor(op.result(0))) return;
        // Where its pointers are carried in the layout it is read in
        // (pointersToCarryWhereRead), issued there at home. Block pointers
        // have no pointer tensor to take an access from.
        LayoutPtr l = chosenCarriedLayout(op.operand(0));
        if (!l) l = memoryLayoutOf(op);
        if (!l) l = out_.defaultLayout(op.result(0)->type().shape());
        setHome(op.result(0), l);
        setAllOperands(op, l);
        return;
      }
      case OpKind::TtStore: {
        if (!isTensor(op.operand(1))) return;
        LayoutPtr l = computedHome(op.operand(1));
        // Converted to the store's own layout where that stages the tile in
        // a few pieces (stagingFits); a larger one is stored as it is,
        // scattered (a warp's store then touches a line per element: an
        // 8192^2 float32 transpose in 128x128 tiles took 1226 us so against
        // 350 us in two pieces a tile on an H200,
        // bench/results/2026-11-28-h200-transpose-pieces/).
        if (l && scattersStore(op, l) && stagingFits(op.operand(1))) l = pieceableStoreLayout(op);
        if (!l) l = memoryLayoutOf(op);
        if (!l) l = out_.defaultLayout(op.operand(1)->type().shape());
        setAllOperands(op, l);
        return;
      }
      case OpKind::TtAtomicRMW:
      case OpKind::TtAtomicCAS:
        if (!isTensor(op.operand(0))) return;
        setHome(op.result(0), memoryLayoutOf(op));
        setAllOperands(op, memoryLayoutOf(op));
        return;
      case OpKind::TtMapElementwise: {
        // Elementwise over several results: one layout for all of them.
        LayoutPtr l;
        for (const ir::Value* v : op.operands())
          if (!l) l = computedHome(v);
        if (!l) l = out_.defaultLayout(op.operand(0)->type().shape());
        setAllOperands(op, l);
        for (const ir::Value* r : op.results()) setHome(r, l);
        return;
      }
      case OpKind::TtReduce:
      case OpKind::TtScan: {
        LayoutPtr l;
        for (const ir::Value* v : op.operands())
          if (!l) l = computedHome(v);
        if (!l) l = reductionLayout(op);
        setAllOperands(op, l);
        int axis = static_cast<int>(op.intAttr("axis"));
        for (const ir::Value* r : op.results())
          setHome(r, op.kind() == OpKind::TtScan ? l : DistributedLayout::slice(l, axis));
        return;
      }
      case OpKind::TtBroadcast: {
        LayoutPtr l = computedHome(op.operand(0));
        if (!l) l = out_.defaultLayout(op.result(0)->type().shape());
        setHome(op.result(0), l);
        setOperand(op, 0, l);
        return;
      }
      case OpKind::TtExpandDims: {
        int axis = static_cast<int>(op.intAttr("axis"));
        LayoutPtr in = computedHome(op.operand(0));
        LayoutPtr l = in ? insertDimension(in, axis) : out_.defaultLayout(op.result(0)->type().shape());
        setHome(op.result(0), l);
        setOperand(op, 0, in ? in : DistributedLayout::slice(l, axis));
        return;
      }
      case OpKind::TtTrans: {
        LayoutPtr in = homeOrDefault(op.operand(0));
        const ir::Attribute* order = op.attr("order");
        LayoutPtr l = order ? permuteLayout(in, std::vector<int>(order->ints().begin(), order->ints().end())) : nullptr;
        if (!l) l = out_.defaultLayout(op.result(0)->type().shape());
        setHome(op.result(0), l);
        setOperand(op, 0, in);
        return;
      }
      case OpKind::TtJoin: {
        // Both operands where a is; each thread then holds the pairs it makes
        // (no data moves), as Triton's join does.
        LayoutPtr in = homeOrDefault(op.operand(0));
        LayoutPtr l = appendPairDimension(in);
        if (!l) break;
        setOperand(op, 0, in);
        setOperand(op, 1, in);
        setHome(op.result(0), l);
        return;
      }
      case OpKind::TtReshape: {
        LayoutPtr in = homeOrDefault(op.operand(0));
        const std::vector<int64_t>& from = op.operand(0)->type().shape();
        const std::vector<int64_t>& shape = op.result(0)->type().shape();
        LayoutPtr l = reshapeLayout(in, from, shape);
        // Each thread keeping its elements in other registers: renamed.
        if (!l) l = reshapeLayoutKeepingThreads(in, from, shape);
        if (!l) {
          // Through memory: into the layout of the store that writes the
          // result, if one does (its vectors), unless the default keeps every
          // register where it is and the store's does not (the lowering
          // checks that too, and then moves nothing).
          if (const LayoutPtr store = storeLayoutOf(op.result(0))) {
            const TensorMap held(in, from);
            if (sameRegisters(held, TensorMap(store, shape)) ||
                !sameRegisters(held, TensorMap(out_.defaultLayout(shape), shape)))
              l = store;
          }
        }
        if (!l) break;
        setOperand(op, 0, in);
        setHome(op.result(0), l);
        return;
      }
      case OpKind::TtSplit: {
        LayoutPtr in = homeOrDefault(op.operand(0));
        LayoutPtr l = dropPairDimension(in);
        if (!l) break;  // the pairs are spread over threads: through memory
        setOperand(op, 0, in);
        for (const ir::Value* r : op.results()) setHome(r, l);
        return;
      }
      case OpKind::TtDot: {
        // The accumulator is where the work happens; COALESCED gives it the
        // registers of the SIMD-group matrices the dot runs on, else a
        // register tile for FMAs (A and B are read through threadgroup
        // memory, so their layouts do not constrain it).
        const std::vector<int64_t>& shape = op.result(0)->type().shape();
        LayoutPtr l, a = homeOrDefault(op.operand(0));
        if (resolvePolicy(out_.options_.policy) == MemoryLayout::COALESCED && shape.size() == 2) {
          const MatrixGroups groups = matrixGroupsFor(op);
          l = DistributedLayout::blocked(groups.groupsM ? matrixAccumulatorLayout(groups)
                                                        : chooseDotLayout(shape, out_.options_.numWarps));
          // With every group along the rows, A's tiles come from registers
          // laid out as C's (lower_dot_matrix.cpp), for an A from outside
          // the dot's block (attention's Q, computed before the loop), which
          // is converted to that once, there. An A computed in the block or
          // carried by its loop (an argument of the block) would be
          // converted every trip: it is staged as usual.
          const bool fromOutside = op.operand(0)->definingBlock() != op.parentBlock();
          if (groups.groupsN == 1 && fromOutside &&
              matrixOperandKind(op, 0) == op.operand(0)->type().element().scalarKind())
            a = l;
        } else {
          l = computedHome(op.operand(2));
        }
        if (!l) l = out_.defaultLayout(shape);
        setHome(op.result(0), l);
        setOperand(op, 0, a);
        setOperand(op, 1, homeOrDefault(op.operand(1)));
        setOperand(op, 2, l);
        return;
      }
      case OpKind::TtGather: {
        // Each result register reads the source at its index register.
        // Indices computed from ranges alone have no layout of their own:
        // the gather then takes that of a value it meets in an elementwise
        // op (a scale spread over a dot operand, decompose_dot_scaled.h),
        // so that neither is converted.
        LayoutPtr l = computedHome(op.operand(1));
        if (!l) l = partnerHome(op.result(0));
        if (!l) l = out_.defaultLayout(op.result(0)->type().shape());
        setOperand(op, 0, homeOrDefault(op.operand(0)));
        setOperand(op, 1, l);
        setHome(op.result(0), l);
        return;
      }
      case OpKind::TtHistogram: {
        // The mask must number its elements as the values do.
        LayoutPtr l = homeOrDefault(op.operand(0));
        for (size_t i = 0; i < op.numOperands(); ++i) setOperand(op, i, l);
        setHome(op.result(0), out_.defaultLayout(op.result(0)->type().shape()));
        return;
      }
      case OpKind::ScfFor:
        return visitFor(op);
      case OpKind::ScfIf:
        return visitIf(op);
      case OpKind::ScfWhile:
        return visitWhile(op);
      default:
        break;
    }
    if (ir::isElementwise(op.kind()) && op.numResults() == 1 && isTensor(op.result(0))) {
      LayoutPtr l;
      for (const ir::Value* v : op.operands())
        if (!l && isTensor(v)) l = computedHome(v);
      if (!l) l = out_.defaultLayout(op.result(0)->type().shape());
      setHome(op.result(0), l);
      setAllOperands(op, l);
      return;
    }
    // Everything else (reshape, join, split, cat, calls, ...):
    // results in the default layout of their shape, operands where they are.
    for (size_t i = 0; i < op.numOperands(); ++i)
      if (isTensor(op.operand(i))) setOperand(op, i, homeOrDefault(op.operand(i)));
    for (const ir::Value* r : op.results())
      if (isTensor(r)) setHome(r, out_.defaultLayout(r->type().shape()));
  }

  static constexpr int kMaxLoopRounds = 4;

  // What a loop-carried value becomes: what the body yields when that is
  // computed (so that a conversion, if any, happens once before the loop),
  // else the initial value's home, else the default.
  LayoutPtr carriedLayout(const ir::Value* yielded, const LayoutPtr& current, const ir::Value* slot) const {
    if (LayoutPtr y = computedHome(yielded)) return y;
    if (current) return current;
    return out_.defaultLayout(slot->type().shape());
  }

  static bool sameAll(const std::vector<LayoutPtr>& a, const std::vector<LayoutPtr>& b) {
    for (size_t i = 0; i < a.size(); ++i)
      if (!sameLayout(a[i], b[i])) return false;
    return true;
  }

  // The home of a value that `v` meets in an elementwise op, following `v`
  // through elementwise ops of one operand (conversions, shifts of it) to
  // the first that has another operand of its shape with a home.
  LayoutPtr partnerHome(const ir::Value* v) const {
    std::vector<const ir::Value*> frontier{v};
    for (int depth = 0; depth < 16 && !frontier.empty(); ++depth) {
      std::vector<const ir::Value*> next;
      for (const ir::Value* x : frontier) {
        auto it = uses_.find(x);
        if (it == uses_.end()) continue;
        for (auto [user, index] : it->second) {
          if (!ir::isElementwise(user->kind()) || user->numResults() != 1) continue;
          for (size_t i = 0; i < user->numOperands(); ++i)
            if (i != index && user->operand(i)->type().isTensor() &&
                user->operand(i)->type().shape() == v->type().shape())
              if (LayoutPtr h = computedHome(user->operand(i))) return h;
          next.push_back(user->result(0));
        }
      }
      frontier = std::move(next);
    }
    return nullptr;
  }

  // The access layout of a store that writes `v` as it is, if one does.
  LayoutPtr storeLayoutOf(const ir::Value* v) const {
    auto it = uses_.find(v);
    if (it == uses_.end()) return nullptr;
    for (auto [user, index] : it->second)
      if (user->kind() == OpKind::TtStore && index == 1)
        if (LayoutPtr l = memoryLayoutOf(*user)) return l;
    return nullptr;
  }

  // The layout of the load or store that reads through a loop-carried
  // pointer tensor (the body's argument `arg`) directly, if one does: the
  // pointers then live in it, so that the loop converts nothing per trip
  // (`a_ptrs += BLOCK_K` in a matmul's K loop), only their initial values once.
  LayoutPtr memoryLayoutThrough(const ir::Value* arg) const {
    if (!isTensor(arg) || !arg->type().element().isPointer()) return nullptr;
    auto it = uses_.find(arg);
    if (it == uses_.end()) return nullptr;
    for (auto [user, index] : it->second)
      if ((user->kind() == OpKind::TtLoad || user->kind() == OpKind::TtStore) && index == 0)
        if (LayoutPtr l = memoryLayoutOf(*user)) return l;
    return nullptr;
  }

  LayoutPtr chosenCarriedLayout(const ir::Value* arg) const {
    auto it = carriedLayouts_.find(arg);
    return it == carriedLayouts_.end() ? nullptr : it->second;
  }

  void visitFor(const ir::Operation& op) {
    const ir::Block& body = *op.region(0)->block(0);
    size_t n = op.numOperands() - 3;
    std::vector<LayoutPtr> carried(n);
    for (size_t i = 0; i < n; ++i) {
      carried[i] = chosenCarriedLayout(body.argument(1 + i));
      if (!carried[i]) carried[i] = memoryLayoutThrough(body.argument(1 + i));
      if (!carried[i]) carried[i] = computedHome(op.operand(3 + i));
    }
    for (int round = 0;; ++round) {
      for (size_t i = 0; i < n; ++i) setHome(body.argument(1 + i), carried[i]);
      visitBlock(body);
      std::vector<LayoutPtr> next(n);
      const ir::Operation* yield = body.terminator();
      for (size_t i = 0; i < n; ++i) {
        if (!isTensor(body.argument(1 + i))) continue;
        next[i] = chosenCarriedLayout(body.argument(1 + i));
        if (!next[i]) next[i] = carriedLayout(yield->operand(i), carried[i], body.argument(1 + i));
      }
      bool stable = sameAll(next, carried);
      carried = next;
      if (stable) break;
      if (round == kMaxLoopRounds) {
        for (size_t i = 0; i < n; ++i) setHome(body.argument(1 + i), carried[i]);
        visitBlock(body);
        break;
      }
    }
    const ir::Operation* yield = body.terminator();
    for (size_t i = 0; i < n; ++i) {
      setOperand(op, 3 + i, carried[i]);
      setOperand(*yield, i, carried[i]);
      setHome(op.result(i), carried[i]);
    }
  }

  void visitIf(const ir::Operation& op) {
    std::vector<const ir::Operation*> yields;
    for (size_t r = 0; r < op.numRegions(); ++r) {
      if (op.region(r)->numBlocks() == 0) continue;
      visitBlock(*op.region(r)->block(0));
      yields.push_back(op.region(r)->block(0)->terminator());
    }
    for (size_t i = 0; i < op.numResults(); ++i) {
      if (!isTensor(op.result(i))) continue;
      LayoutPtr l;
      for (const ir::Operation* y : yields)
        if (!l) l = computedHome(y->operand(i));
      if (!l) l = out_.defaultLayout(op.result(i)->type().shape());
      for (const ir::Operation* y : yields) setOperand(*y, i, l);
      setHome(op.result(i), l);
    }
  }

  void visitWhile(const ir::Operation& op) {
    const ir::Block& before = *op.region(0)->block(0);
    const ir::Block& after = *op.region(1)->block(0);
    size_t n = op.numOperands();
    const ir::Operation* cond = before.terminator();
    size_t m = cond->numOperands() - 1;
    std::vector<LayoutPtr> carried(n), passed(m);
    for (size_t i = 0; i < n; ++i) carried[i] = computedHome(op.operand(i));
    for (int round = 0;; ++round) {
      for (size_t i = 0; i < n; ++i) setHome(before.argument(i), carried[i]);
      visitBlock(before);
      for (size_t j = 0; j < m; ++j) {
        if (!isTensor(cond->operand(1 + j))) continue;
        passed[j] = homeOrDefault(cond->operand(1 + j));
        setHome(after.argument(j), passed[j]);
      }
      visitBlock(after);
      const ir::Operation* yield = after.terminator();
      std::vector<LayoutPtr> next(n);
      for (size_t i = 0; i < n; ++i)
        if (isTensor(before.argument(i))) next[i] = carriedLayout(yield->operand(i), carried[i], before.argument(i));
      bool stable = sameAll(next, carried);
      carried = next;
      if (stable || round == kMaxLoopRounds) {
        if (!stable) {
          for (size_t i = 0; i < n; ++i) setHome(before.argument(i), carried[i]);
          visitBlock(before);
          visitBlock(after);
        }
        break;
      }
    }
    const ir::Operation* yield = after.terminator();
    for (size_t i = 0; i < n; ++i) {
      setOperand(op, i, carried[i]);
      setOperand(*yield, i, carried[i]);
    }
    for (size_t j = 0; j < m; ++j) {
      setOperand(*cond, 1 + j, passed[j]);
      setHome(op.result(j), passed[j]);
    }
  }

  // ---- the layouts each value must exist in --------------------------------
  // A computed value needed in a layout other than its home is computed again
  // there when that is cheaper than converting it: broadcast and expand_dims
  // (the operand is smaller, so the conversion moves to it), elementwise ops
  // with one computed operand (the conversion moves up the chain), and loads
  // (re-issued in the layout their consumers read, as Triton's
  // rematerialization does, instead of a round trip through threadgroup
  // memory). Everything else is converted.
  bool recomputable(const ir::Value* v) const {
    const ir::Operation* def = v->definingOp();
    if (!def || def->numResults() != 1) return false;
    switch (def->kind()) {
      case OpKind::TtBroadcast:
      case OpKind::TtExpandDims:
        return true;
      case OpKind::TtLoad:
        return isTensor(def->operand(0)) && !def->operand(0)->type().element().isBlockPointer();
      default:
        break;
    }
    if (!ir::isElementwise(def->kind()) || def->kind() == OpKind::TtExternElementwise) return false;
    int computed = 0;
    for (const ir::Value* o : def->operands()) computed += isTensor(o) && !cheap(o);
    return computed == 1;
  }

  // A load is issued again in another layout only if that layout reads its
  // contiguous dimension fastest, so the reads stay coalesced (a transposed
  // read goes through a conversion instead).
  bool worthRecomputingIn(const ir::Value* v, const LayoutPtr& l) const {
    const ir::Operation* def = v->definingOp();
    if (def->kind() != OpKind::TtLoad) return true;
    const analysis::AxisInfo& info = axis_.get(def->operand(0));
    int contiguous = 0;
    for (int d = 1; d < info.rank(); ++d)
      if (info.contiguity[d] >= info.contiguity[contiguous]) contiguous = d;
    // The fastest dimension the tensor has (a slice drops some of the root's).
    const std::vector<int>& dims = l->rootDims();
    for (int d : l->root().order) {
      auto it = std::find(dims.begin(), dims.end(), d);
      if (it != dims.end()) return it - dims.begin() == contiguous;
    }
    return false;
  }

  void needOperandsOf(const ir::Operation* op) {
    for (size_t i = 0; i < op->numOperands(); ++i) {
      auto it = out_.decided_.operandLayouts.find({op, i});
      if (it != out_.decided_.operandLayouts.end()) need(op->operand(i), it->second);
    }
  }

  // Demand-driven: a value is computed in a layout only if something reads
  // it there, so that a load whose consumers all read it elsewhere is issued
  // only where they read it.
  void need(const ir::Value* v, const LayoutPtr& l) {
    if (!l || !isTensor(v)) return;
    std::vector<LayoutPtr>& have = requested_[v];
    for (const LayoutPtr& h : have)
      if (sameLayout(h, l)) return;
    have.push_back(l);
    const ir::Operation* def = v->definingOp();
    if (!cheap(v)) {
      if (!recomputable(v)) return;  // computed where it stands; its operands are already needed
      if (sameLayout(l, out_.decided_.home.at(v))) return needOperandsOf(def);
      if (!worthRecomputingIn(v, l)) return needOperandsOf(def);  // converted from the home, which must exist
      out_.decided_.recomputed.push_back({v, l});
    }
    for (size_t i = 0; i < def->numOperands(); ++i)
      need(def->operand(i), LayoutAssignment::rematerializedOperandLayout(*def, i, l));
  }

  void propagateNeeds() {
    ir::walk(*fn_.body(), [&](const ir::Operation* op) {
      if (op->numResults() == 1 && isTensor(op->result(0)) && (cheap(op->result(0)) || recomputable(op->result(0))))
        return;  // computed on demand
      needOperandsOf(op);
    });
    for (const ir::Value* v : out_.decided_.definitionOrder) {
      if (cheap(v) || !out_.decided_.home.at(v)) continue;
      const LayoutPtr& home = out_.decided_.home.at(v);
      const std::vector<LayoutPtr>& req = requested_[v];
      bool homeRead = !recomputable(v);
      for (const LayoutPtr& l : req) homeRead |= sameLayout(l, home) || !out_.isRecomputedIn(v, l);
      std::vector<LayoutPtr>& out = out_.decided_.layouts[v];
      if (homeRead)
        out.push_back(home);
      else
        out_.decided_.homeSkipped.insert(v);
      for (const LayoutPtr& l : req)
        if (!sameLayout(l, home)) out.push_back(l);
    }
    for (auto& [v, req] : requested_)
      if (cheap(v)) out_.decided_.layouts[v] = req;
  }

  std::unordered_map<const ir::Value*, std::vector<LayoutPtr>> requested_;
  LayoutAssignment& out_;
  const ir::Function& fn_;
  const analysis::AxisInfoAnalysis& axis_;
  const CarriedLayouts carriedLayouts_;
  UseList uses_;
  std::unordered_map<const ir::Operation*, LayoutPtr> memoryLayout_;
};

LayoutAssignment::LayoutAssignment(const ir::Function& fn, const analysis::AxisInfoAnalysis& axis,
                                   LayoutOptions options)
    : options_(options) {
  int w = options_.numWarps;
  if (w < 1 || w > 32 || (w & (w - 1)) != 0)
    throw CompileError("num_warps must be a power of two between 1 and 32, got " + std::to_string(w));
  LayoutAssigner::CarriedLayouts moved;
  {
    LayoutAssigner first(*this, fn, axis);
    first.run();
    moved = first.pointersToCarryWhereRead();
  }
  if (moved.empty()) return;
  // Once more with those pointers carried where they are read.
  decided_ = {};
  LayoutAssigner(*this, fn, axis, std::move(moved)).run();
}

LayoutAssignment::~LayoutAssignment() = default;
LayoutAssignment::LayoutAssignment(LayoutAssignment&&) noexcept = default;

bool LayoutAssignment::isRematerializable(const ir::Value* v) const { return decided_.remat.count(v) > 0; }

LayoutPtr LayoutAssignment::home(const ir::Value* v) const {
  if (decided_.remat.count(v)) return nullptr;
  auto it = decided_.home.find(v);
  return it == decided_.home.end() ? nullptr : it->second;
}

const std::vector<LayoutPtr>& LayoutAssignment::layoutsOf(const ir::Value* v) const {
  static const std::vector<LayoutPtr> none;
  auto it = decided_.layouts.find(v);
  return it == decided_.layouts.end() ? none : it->second;
}

LayoutPtr LayoutAssignment::operandLayout(const ir::Operation* op, size_t i) const {
  auto it = decided_.operandLayouts.find({op, i});
  return it == decided_.operandLayouts.end() ? nullptr : it->second;
}

LayoutPtr LayoutAssignment::rematerializedOperandLayout(const ir::Operation& op, size_t i,
                                                        const LayoutPtr& resultLayout) {
  if (!op.operand(i)->type().isTensor()) return nullptr;
  switch (op.kind()) {
    case OpKind::TtExpandDims:
      return DistributedLayout::slice(resultLayout, static_cast<int>(op.intAttr("axis")));
    case OpKind::TtSplat:
    case OpKind::TtMakeRange:
    case OpKind::ArithConstant:
      return nullptr;
    default:
      return resultLayout;  // elementwise ops and broadcast read the same mapping
  }
}

LayoutPtr LayoutAssignment::defaultLayout(const std::vector<int64_t>& shape) const {
  auto it = defaults_.find(shape);
  if (it != defaults_.end()) return it->second;
  LayoutPtr l = DistributedLayout::blocked(chooseBlockedLayout(options_.policy, shape, options_.numWarps, {}));
  defaults_[shape] = l;
  return l;
}

std::vector<LayoutAssignment::Conversion> LayoutAssignment::conversions() const {
  std::vector<Conversion> out;
  for (const ir::Value* v : decided_.definitionOrder) {
    if (decided_.remat.count(v) || decided_.homeSkipped.count(v)) continue;
    const std::vector<LayoutPtr>& ls = layoutsOf(v);
    for (size_t i = 1; i < ls.size(); ++i)
      if (!isRecomputedIn(v, ls[i])) out.push_back({v, ls[0], ls[i]});
  }
  return out;
}

bool LayoutAssignment::isRecomputedIn(const ir::Value* v, const LayoutPtr& l) const {
  for (const auto& [value, layout] : decided_.recomputed)
    if (value == v && sameLayout(layout, l)) return true;
  return false;
}

bool LayoutAssignment::homeMaterialized(const ir::Value* v) const {
  return home(v) && !decided_.homeSkipped.count(v);
}

}  // namespace tmetal::layout
