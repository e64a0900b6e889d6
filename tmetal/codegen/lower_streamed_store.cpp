// Streamed stores: a tile loaded, perhaps transposed (tl.trans), and stored
// in another layout through threadgroup memory in pieces (it is more than
// the memory holds). Lowered as written, every thread would hold the loaded
// tile and the converted one across the pieces' barriers: 256 + 256
// registers a thread for a 256x128 float tile with 4 SIMD groups, which
// spill. Streamed, each piece's registers are loaded just before they are
// staged, and each store vector is stored a few vectors' reads after it is
// read back, so about a piece of each is live at a time, as in Triton, whose
// single staging lets the target compiler interleave the loads with the
// shared writes and the shared reads with the stores.
//
// The plan (before lowering): a tt.store whose value is a tt.load, or the
// tl.trans of one, used by nothing else, in the same block, with only ops
// between them that neither write memory nor stage anything themselves (so
// moving the load later, and the staging from the value's op to the store,
// changes nothing else); and a conversion to the store's layout that takes
// more than the threadgroup memory. The load then only declares its
// registers (deferred), the conversion waits for the store, and the store
// lowers the conversion with loads before each piece's writes and stores
// among its reads. Where the conversion does not go in pieces with register
// and thread parts on both sides (stageThrough), the loads are emitted
// before it, and the store follows it as usual.
#include <deque>

#include "tmetal/codegen/kernel_lowering.h"
#include "tmetal/ir/op_traits.h"

namespace tmetal::codegen {

using ir::OpKind;
using layout::LayoutPtr;

namespace {

// Store vectors read ahead of the one stored (see lowerStreamedStore): with
// up to four SIMD groups a threadgroup, a thread needs more of its reads in
// flight than with eight, which have twice the threads to cover for each
// other. Swept on an H200 over six tile transposes, 2 to 16 ahead
// (bench/results/2026-11-28-h200-tile-transposes/): every tile with four
// SIMD groups was fastest at 12 or within 1% of it (8%-17% faster than at
// 4), both with eight at 2 to 4 (3%-11% slower at 12).
int64_t streamedVectorsAhead(int simdGroups) { return simdGroups <= 4 ? 12 : 4; }

// Ops that may come between the streamed load and its store: they write no
// memory and stage nothing of their own.
bool movesNothing(const ir::Operation& op) {
  if (op.numRegions() > 0) return false;
  switch (op.kind()) {
    case OpKind::ArithConstant:
    case OpKind::TtMakeRange:
    case OpKind::TtSplat:
    case OpKind::TtBroadcast:
    case OpKind::TtExpandDims:
    case OpKind::TtAddPtr:
    case OpKind::TtGetProgramId:
    case OpKind::TtGetNumPrograms:
    case OpKind::LlvmAssume: return true;
    default: return ir::isElementwise(op.kind());
  }
}

}  // namespace

void KernelLowering::planStreamedStores() {
  std::unordered_map<const ir::Value*, int> uses;
  ir::walk(*fn_.body(), [&](const ir::Operation* op) {
    for (const ir::Value* v : op->operands()) ++uses[v];
  });
  ir::walk(*fn_.body(), [&](const ir::Operation* store) {
    if (store->kind() != OpKind::TtStore || !store->operand(1)->type().isTensor()) return;
    const ir::Value* value = store->operand(1);
    const ir::Operation* producer = value->definingOp();
    if (!producer || uses[value] != 1) return;
    const ir::Operation* load = producer->kind() == OpKind::TtTrans ? producer->operand(0)->definingOp() : producer;
    if (!load || load->kind() != OpKind::TtLoad || uses[load->result(0)] != 1) return;
    const ir::Block* block = store->parentBlock();
    if (load->parentBlock() != block || producer->parentBlock() != block) return;
    // The value in its home layout and the store's, converted (not
    // recomputed); the load in its home layout only.
    const std::vector<LayoutPtr>& layouts = layouts_.layoutsOf(value);
    const LayoutPtr storeLayout = layouts_.operandLayout(store, 1);
    if (layouts.size() != 2 || !layout::sameLayout(layouts[1], storeLayout) ||
        layouts_.isRecomputedIn(value, layouts[1]) || !layouts_.homeMaterialized(value) ||
        layouts_.isRematerializable(value))
      return;
    if (producer != load) {
      // The transpose only renames the loaded registers (lowerTrans): a
      // staging of its own would read them before they are loaded.
      const ir::Attribute* order = producer->attr("order");
      if (!order || layouts_.layoutsOf(load->result(0)).size() != 1) return;
      LayoutPtr permuted = layout::permuteLayout(layouts_.home(load->result(0)),
                                                 std::vector<int>(order->ints().begin(), order->ints().end()));
      if (!permuted || !layout::sameLayout(permuted, layouts[0])) return;
    }
    // Nothing between the load and the store that writes memory or stages.
    bool between = false;
    for (const auto& op : block->ops()) {
      if (op.get() == load) {
        between = true;
        continue;
      }
      if (op.get() == store) break;
      if (!between || op.get() == producer) continue;
      if (!movesNothing(*op)) return;
      for (const ir::Value* r : op->results())
        if (r->type().isTensor() && layouts_.layoutsOf(r).size() > 1 && !layouts_.isRematerializable(r)) return;
    }
    // Only a staging in pieces is streamed.
    const ir::Type& element = value->type().element();
    if (!element.isScalar() || element.isPointer()) return;
    int64_t count = 1;
    for (int64_t d : value->type().shape()) count *= d;
    if (threadgroupMemory_.canHold(*store, count, elementBytes(element))) return;
    streamedStores_.insert(store);
    streamedLoads_.insert(load);
    streamedValues_.insert(value);
  });
}

void KernelLowering::emitDeferredLoads(const std::function<bool(const std::string&)>& which) {
  // The registers to load now, by load.
  std::map<const ir::Operation*, std::set<int64_t>> now;
  for (auto it = deferredLoads_.begin(); it != deferredLoads_.end();) {
    if (which && !which(it->first)) {
      ++it;
      continue;
    }
    now[it->second.op].insert(it->second.reg);
    it = deferredLoads_.erase(it);
  }
  for (const auto& [op, taken] : now) {
    const std::set<int64_t>& regs = taken;
    const RegisterTensor* mask = op->numOperands() > 1 ? &operandTensor(*op, 1) : nullptr;
    const RegisterTensor* other = op->numOperands() > 2 ? &operandTensor(*op, 2) : nullptr;
    loadRegisters(*op, home(op->result(0)), operandTensor(*op, 0), mask, other,
                  [&](int64_t r) { return regs.count(r) > 0; });
  }
}

void KernelLowering::lowerStreamedStore(const ir::Operation& op) {
  const ir::Value* value = op.operand(1);
  const RegisterTensor& ptr = operandTensor(op, 0);
  const RegisterTensor* mask = op.numOperands() > 2 ? &operandTensor(op, 2) : nullptr;
  const RegisterTensor& source = home(value);
  const LayoutPtr to = layouts_.operandLayout(&op, 1);
  const layout::TensorMap storeMap(to, source.shape);
  const ir::Type& element = value->type().element();
  const int storeVector = vectorWidth(op, storeMap, elementBytes(element), mask ? op.operand(2) : nullptr);
  recordAccess(op, "store", storeMap, storeVector, mask ? op.operand(2) : nullptr);
  const std::string name = source.arrayName.empty() ? source.regs[0] : source.arrayName;
  decisions_["conversions"].push_back({{"value", name}, {"from", source.layout->str()}, {"to", to->str()},
                                       {"loc", value->definingOp()->loc().userPos().str()}, {"streamed", true}});
  StreamedStaging hooks;
  // The load's registers are the staged tile's (a transposed layout numbers
  // them alike).
  const ir::Operation* producer = value->definingOp();
  const ir::Operation* load = producer->kind() == OpKind::TtTrans ? producer->operand(0)->definingOp() : producer;
  hooks.writeVector = loadVectorWidth(*load);
  hooks.readVector = storeVector;
  hooks.beforeWrite = [&](const RegisterTensor& written, const std::function<bool(int64_t)>& only) {
    std::set<std::string> names;
    for (int64_t r = 0; r < static_cast<int64_t>(written.regs.size()); ++r)
      if (only(r)) names.insert(written.regs[r]);
    emitDeferredLoads([&](const std::string& reg) { return names.count(reg) > 0; });
  };
  // Each store vector once the last of its registers this piece reads is
  // read and streamedVectorsAhead more vectors after it (so that the
  // target compiler has reads in flight without holding the whole piece),
  // the rest after the piece's last read.
  std::deque<std::pair<int64_t, int64_t>> pending;  // read vectors not yet stored: first and last register
  const int64_t ahead = streamedVectorsAhead(layouts_.numWarps());
  hooks.afterRead = [&, vector = int64_t{storeVector}](const RegisterTensor& read,
                                                        const std::function<bool(int64_t)>& only, int64_t r) {
    auto storeOldest = [&] {
      const int64_t first = pending.front().first, last = pending.front().second;
      pending.pop_front();
      RegisterTensor stored = read;
      stored.layout = to;
      stored.shape = source.shape;
      storeRegisters(op, ptr, stored, mask, [&](int64_t s) { return s >= first && s <= last && only(s); });
    };
    if (r < 0) {
      while (!pending.empty()) storeOldest();
      return;
    }
    const int64_t first = r - r % vector;
    for (int64_t later = r + 1; later < first + vector; ++later)
      if (only(later)) return;
    pending.emplace_back(first, r);
    if (static_cast<int64_t>(pending.size()) > ahead) storeOldest();
  };
  streamed_ = std::move(hooks);
  // The staging is the store's: it happens here, and the error for a tile
  // that does not fit names the store. Lowered aside: where it did not go in
  // pieces with the hooks (a renaming, a staging of higher rank, of the whole
  // tile, or pieces that do not split), it read the tile whole, so the loads
  // come first, and the store after it.
  CodeBuffer outer = std::move(body_);
  body_ = CodeBuffer();
  RegisterTensor converted = convertLayout(op, source, to, name + "_cvt");
  const bool streamed = streamed_->used;
  streamed_.reset();
  CodeBuffer conversion = std::move(body_);
  body_ = std::move(outer);
  emitDeferredLoads([&](const std::string& reg) { return deferredLoads_.at(reg).op == load; });
  body_.append(conversion);
  if (!streamed) storeRegisters(op, ptr, converted, mask);
}

}  // namespace tmetal::codegen
