// scf.for, scf.if and scf.while: values carried across iterations and out of
// branches live in variables declared before the construct (one per
// register), assigned from what the regions yield. Conditions and bounds are
// scalars, uniform over the threadgroup, so barriers inside stay convergent.
#include <functional>
#include <utility>
#include <set>

#include "tmetal/codegen/kernel_lowering.h"
#include "tmetal/ir/op_traits.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::codegen {

using layout::LayoutPtr;
using layout::TensorMap;

RegisterTensor KernelLowering::declareCarried(const ir::Value* v, const LayoutPtr& l, const RegisterTensor* init) {
  std::string name = nameFor(v);
  int64_t n = TensorMap(l, v->type().shape()).numRegisters();
  RegisterTensor t = RegisterTensor::array(l, v->type().shape(), v->type().element(), name, n);
  if (n == 1 && init) {
    body_.line(declaration(v->type().element(), name, 1) + " = " + init->regs[0] + ";");
    return t;
  }
  body_.line(declaration(v->type().element(), name, n) + ";");
  if (init) copyRegisters(t, *init);
  return t;
}

void KernelLowering::copyRegisters(const RegisterTensor& dst, const RegisterTensor& src) {
  assignRegisters(dst, src, [](const std::string& v) { return v; });
}

void KernelLowering::convertRegisters(const RegisterTensor& dst, const RegisterTensor& src) {
  const std::string type = typeOf(dst.element);
  assignRegisters(dst, src, [&](const std::string& v) { return dialect_.convert(v, type); });
}

void KernelLowering::assignRegisters(const RegisterTensor& dst, const RegisterTensor& src,
                                     const std::function<std::string(const std::string&)>& value) {
  forEachRegister(
      static_cast<int64_t>(dst.size()),
      [&](const std::string& idx) -> std::optional<std::string> {
        std::optional<std::string> v = src.at(idx);
        if (!v || dst.arrayName.empty()) return std::nullopt;
        return dst.arrayName + "[" + idx + "] = " + value(*v) + ";";
      },
      [&](int64_t r) { return dst.regs[r] + " = " + value(src.regs[r]) + ";"; });
}

void KernelLowering::assignCarried(const ir::Operation& terminator, size_t firstOperand,
                                   const std::vector<RegisterTensor>& tensors, const std::vector<std::string>& scalars,
                                   const std::vector<const ir::Value*>& slots) {
  // A yield that passes carried values around (a swap) reads them before
  // any is overwritten: go through temporaries then.
  bool readsCarried = false;
  for (size_t i = firstOperand; i < terminator.numOperands(); ++i)
    for (const ir::Value* s : slots) readsCarried |= terminator.operand(i) == s;
  std::vector<RegisterTensor> sources;
  std::vector<std::string> scalarSources;
  for (size_t i = 0; i < slots.size(); ++i) {
    const ir::Value* v = terminator.operand(firstOperand + i);
    if (valuesInTiles_.count(slots[i])) {  // the tiles carry it (lowerFor)
      sources.push_back({});
      scalarSources.push_back("");
      continue;
    }
    if (v->type().isTensor()) {
      sources.push_back(tensorIn(v, layouts_.operandLayout(&terminator, firstOperand + i)));
      scalarSources.push_back("");
    } else {
      sources.push_back({});
      scalarSources.push_back(scalarOf(v));
    }
    if (readsCarried) {
      if (v->type().isTensor()) {
        sources.back() = declareCarried(v, sources.back().layout, &sources.back());
      } else {
        std::string tmp = newName("next");
        body_.line(typeOf(v->type()) + " " + tmp + " = " + scalarSources.back() + ";");
        scalarSources.back() = tmp;
      }
    }
  }
  for (size_t i = 0; i < slots.size(); ++i) {
    if (valuesInTiles_.count(slots[i])) continue;
    if (slots[i]->type().isTensor()) {
      if (sources[i].regs == tensors[i].regs) continue;  // yields itself unchanged
      copyRegisters(tensors[i], sources[i]);
    } else if (scalarSources[i] != scalars[i]) {
      body_.line(scalars[i] + " = " + scalarSources[i] + ";");
    }
  }
}

namespace {

// Loops whose trips combine nothing across threads are unrolled four times:
// the loads of four trips then issue before the first trip's arithmetic
// waits for its data. NVIDIA's compiler unrolls small loop bodies this way
// by itself but left the larger ones of row and norm kernels as one trip
// per iteration, which the hint took from 98.2 to 83.0 us (LayerNorm of
// 8192x4096) and 72.2 to 70.6 us (row sums of 16384x4096) on an H200
// (docs/codegen.md, "Loop unrolling"). A trip with a reduction, scan or
// dot synchronizes the threadgroup, so the next trip's loads cannot move
// above it and unrolling only adds code: a column sum with a reduction in
// its loop measured 30% slower unrolled by two.
bool unrollsByFour(const ir::Operation& loop) {
  bool synchronizes = false;
  ir::walk(*loop.region(0), [&](const ir::Operation* op) {
    const ir::OpKind k = op->kind();
    if (k == ir::OpKind::TtReduce || k == ir::OpKind::TtScan || k == ir::OpKind::TtDot) synchronizes = true;
  });
  return !synchronizes;
}

}  // namespace

// Loads first. The unroll hint leaves the order of the four trips' code to
// the target compiler, and NVIDIA's interleaved element loads with the
// arithmetic of the trips before them: in the layout benchmark's 4x256
// float32 row sum under ROW_MAJOR, 17 of a group's 32 loads issued before
// the first addition waited for data. So where the body allows it, the
// lowering writes the four trips out itself: first, trip by trip, the
// loads and the ops their operands need; then, trip by trip, the rest. All
// 32 loads then issue first: 5.31 -> 4.74 us at 128x1024 and 93.4 -> 91.7
// us at 8192x8192 (H100, bench/results/2026-11-27-h100-loads-first/).
// Only for element loads (COALESCED reads elements of 4 bytes or more in
// such loops where they reduce along the contiguous dimension): with vector
// loads (`vec = other; if (mask) vec = load`) ptxas still gave the four
// trips' vectors the same registers and nothing changed (TILED's half2
// loads written out: 5.98 -> 6.43 us at 128x1024), and with them predicated
// as one PTX vector load each, the skinny graph reductions lost 4% and an
// online softmax 7%.
// The body must hold only ops that compute registers (no store, atomic,
// barrier, nested region, or value needed in a second layout, which a
// conversion may stage through threadgroup memory). Where a load reads a
// carried value (a pointer the loop advances), the loads part computes
// what the trip yields for it too, so that the next trip's loads have it.
// Metal's compiler gets the same order: nothing here is NVIDIA's.
std::optional<KernelLowering::LoadsFirstPlan> KernelLowering::loadsFirstPlan(const ir::Operation& loop) const {
  if (!ir::isRegisterOnlyLoop(loop)) return std::nullopt;
  const ir::Block& body = *loop.region(0)->block(0);
  for (size_t i = 0; i < body.numArguments(); ++i)
    if (!hasOneLayout(body.argument(i))) return std::nullopt;
  for (const auto& op : body.ops()) {
    for (size_t i = 0; i < op->numResults(); ++i)
      if (!hasOneLayout(op->result(i))) return std::nullopt;
    if (op->kind() == ir::OpKind::TtLoad && loadVectorWidth(*op) > 1) return std::nullopt;
  }
  return splitLoadsFromRest(loop);
}

bool KernelLowering::hasOneLayout(const ir::Value* v) const {
  if (!v->type().isTensor() || layouts_.isRematerializable(v)) return true;
  const std::vector<LayoutPtr>& ls = layouts_.layoutsOf(v);
  return ls.empty() || (ls.size() == 1 && layouts_.homeMaterialized(v));
}

std::optional<KernelLowering::LoadsFirstPlan> KernelLowering::splitLoadsFromRest(const ir::Operation& loop) const {
  const ir::Block& body = *loop.region(0)->block(0);
  std::set<const ir::Operation*> inLoads;
  std::vector<const ir::Value*> needed;
  for (const auto& op : body.ops()) {
    if (op->kind() != ir::OpKind::TtLoad) continue;
    inLoads.insert(op.get());
    for (const ir::Value* v : op->operands()) needed.push_back(v);
  }
  if (inLoads.empty()) return std::nullopt;
  // The loads part: the loads, what their operands need, and for each
  // carried value it reads, what the previous trip yields for it.
  const ir::Operation& yield = *body.terminator();
  LoadsFirstPlan plan;
  while (!needed.empty()) {
    const ir::Value* v = needed.back();
    needed.pop_back();
    if (v->definingBlock() != &body) continue;
    if (!v->isBlockArgument()) {
      if (inLoads.insert(v->definingOp()).second)
        for (const ir::Value* operand : v->definingOp()->operands()) needed.push_back(operand);
      continue;
    }
    if (v == body.argument(0) || !plan.argumentsRead.insert(v).second) continue;
    for (size_t i = 1; i < body.numArguments(); ++i)
      if (body.argument(i) == v) needed.push_back(yield.operand(i - 1));
  }
  for (const auto& op : body.ops()) {
    if (ir::isTerminator(op->kind())) continue;
    (inLoads.count(op.get()) ? plan.loads : plan.rest).push_back(op.get());
  }
  return plan;
}

void KernelLowering::emitLoadsFirstLoop(const ir::Operation& loop, const LoadsFirstPlan& plan,
                                        const std::string& ivName, const std::string& from, const std::string& to,
                                        const std::vector<RegisterTensor>& tensors,
                                        const std::vector<std::string>& scalars,
                                        const std::vector<const ir::Value*>& slots) {
  const ir::Block& body = *loop.region(0)->block(0);
  const ir::Operation& yield = *body.terminator();
  const ir::Value* iv = body.argument(0);
  const std::string ivType = typeOf(iv->type());
  const std::string step = parenthesized(scalarOf(loop.operand(2)));
  // No hint: the target compiler may unroll the written-out loop again.
  // NVIDIA's does, where the loads are plain, and the suite's pointer walk
  // needs it: 5.8 us, 8.1 with `#pragma unroll 1` (H100,
  // bench/results/2026-11-27-h100-no-second-unroll/).
  body_.open("for (" + ivType + " " + ivName + " = " + from + "; " + ivName + " < " + to + "; " + ivName +
             " += " + std::to_string(kUnrolledTrips) + " * " + step + ")");
  ++loopDepth_;
  struct Values {
    std::unordered_map<const ir::Value*, std::vector<RegisterTensor>> tensors;
    std::unordered_map<const ir::Value*, std::string> scalars;
  };
  const Values before{tensors_, scalars_};
  // The carried arguments of trip k: the carried variables in the first
  // trip, after it what the trip before yielded (where `previous` has it
  // yet: the loads part of a trip reads only what loads parts yield).
  auto bindArguments = [&](int k, const Values* previous) {
    for (size_t i = 0; i < slots.size(); ++i) {
      const ir::Value* arg = slots[i];
      if (k == 0) {
        tensors_.erase(arg);
        defineCarried(arg, tensors[i], scalars[i]);
        continue;
      }
      const ir::Value* next = yield.operand(i);
      if (!arg->type().isTensor()) {
        if (auto it = previous->scalars.find(next); it != previous->scalars.end()) scalars_[arg] = it->second;
        continue;
      }
      auto it = previous->tensors.find(next);
      if (it == previous->tensors.end()) continue;
      const RegisterTensor* same = nullptr;
      for (const RegisterTensor& t : it->second)
        if (layout::sameLayout(t.layout, tensors[i].layout)) same = &t;
      if (!same) throw CompileError("internal error: a value yielded by the loop at " + loop.loc().userPos().str() +
                                    " is not in its carried layout");
      tensors_[arg] = {*same};
    }
  };
  std::vector<std::string> ivNames{ivName};
  std::vector<Values> afterLoads, afterTrip;
  nlohmann::json describedOnce;
  for (int k = 0; k < kUnrolledTrips; ++k) {
    tensors_ = before.tensors;
    scalars_ = before.scalars;
    if (k > 0) {
      ivNames.push_back(newName(ivName));
      body_.line(ivType + " " + ivNames[k] + " = " + ivName + " + " + std::to_string(k) + " * " + step + ";");
    }
    defineScalar(iv, ivNames[k]);
    bindArguments(k, k > 0 ? &afterLoads[k - 1] : nullptr);
    if (k == 0)
      for (const ir::Value* s : slots) convertExtraLayouts(s);
    for (const ir::Operation* op : plan.loads) lowerOp(*op);
    afterLoads.push_back({tensors_, scalars_});
    if (k == 0) describedOnce = decisions_;  // the metadata describes the body once
  }
  decisions_ = describedOnce;
  for (int k = 0; k < kUnrolledTrips; ++k) {
    tensors_ = afterLoads[k].tensors;
    scalars_ = afterLoads[k].scalars;
    bindArguments(k, k > 0 ? &afterTrip[k - 1] : nullptr);
    for (const ir::Operation* op : plan.rest) lowerOp(*op);
    afterTrip.push_back({tensors_, scalars_});
    if (k == 0) describedOnce = decisions_;
  }
  decisions_ = describedOnce;
  assignCarried(yield, 0, tensors, scalars, slots);
  --loopDepth_;
  body_.close();
  tensors_ = before.tensors;
  scalars_ = before.scalars;
}

// The zero to three trips after the groups of four, loads first too, where
// the loads read no carried value (so that a trip's loads need only its
// induction variable): every trip's loads first, a trip that does not run
// loading at the last one's induction variable (elements the loop reads
// anyway, in bounds), then the rest of each trip that runs. Three trips
// left take one memory round trip rather than the two of a remainder loop
// unrolled twice.
void KernelLowering::emitLoadsFirstTail(const ir::Operation& loop, const LoadsFirstPlan& plan,
                                        const std::string& from, const std::string& trips,
                                        const std::vector<RegisterTensor>& tensors,
                                        const std::vector<std::string>& scalars,
                                        const std::vector<const ir::Value*>& slots) {
  const ir::Block& body = *loop.region(0)->block(0);
  const ir::Value* iv = body.argument(0);
  const std::string ivType = typeOf(iv->type());
  const std::string step = parenthesized(scalarOf(loop.operand(2)));
  const std::string left = newName(nameFor(iv) + "_left");
  body_.line(ivType + " " + left + " = " + trips + " % " + std::to_string(kUnrolledTrips) + ";");
  body_.open("if (" + left + " > 0)");
  const auto savedTensors = tensors_;
  const auto savedScalars = scalars_;
  const nlohmann::json describedOnce = decisions_;  // the metadata describes the body once
  std::vector<std::pair<decltype(tensors_), decltype(scalars_)>> afterLoads;
  std::string last;
  for (int k = 0; k < kUnrolledTrips - 1; ++k) {
    tensors_ = savedTensors;
    scalars_ = savedScalars;
    std::string ivk = newName(nameFor(iv));
    std::string at = from + (k == 0 ? "" : " + " + std::to_string(k) + " * " + step);
    body_.line(ivType + " " + ivk + " = " + (k == 0 ? at : left + " > " + std::to_string(k) + " ? " + at + " : " + last) +
               ";");
    last = ivk;
    defineScalar(iv, ivk);
    for (const ir::Operation* op : plan.loads) lowerOp(*op);
    afterLoads.emplace_back(tensors_, scalars_);
  }
  for (int k = 0; k < kUnrolledTrips - 1; ++k) {
    if (k > 0) body_.open("if (" + left + " > " + std::to_string(k) + ")");
    tensors_ = afterLoads[k].first;
    scalars_ = afterLoads[k].second;
    for (size_t i = 0; i < slots.size(); ++i) {
      tensors_.erase(slots[i]);
      defineCarried(slots[i], tensors[i], scalars[i]);
    }
    for (const ir::Operation* op : plan.rest) lowerOp(*op);
    assignCarried(*body.terminator(), 0, tensors, scalars, slots);
    if (k > 0) body_.close();
  }
  body_.close();
  decisions_ = describedOnce;
  tensors_ = savedTensors;
  scalars_ = savedScalars;
}

// Loads ahead. A trip of a loop with a tt.dot stages A and B in
// threadgroup memory between barriers, and no compiler moves the next
// trip's loads above a barrier: each trip waited for its loads from device
// memory with nothing else to do. So the loads are issued early, into
// registers the loop carries: before the loop those of the first trip, and
// in each trip those of the next (where there is one), which the dot issues
// once it has staged this trip's operands. The loads part is the same as
// above and holds only ops that compute registers in one layout; a loaded
// value read in another layout is converted where the rest of the trip
// begins. Moving a load earlier must not let it miss a write, so the rest
// of the body may not store, update atomically, assert, print or call.
// Triton's num_stages S (the loop's `tt.num_stages`, from
// `tl.range(..., num_stages=S)`, else the kernel's) asks for S - 1 trips in
// flight: 1 keeps the loop plain; 3, the default, loads two trips ahead
// (prefetchTrips).
int KernelLowering::pipelineStages(const ir::Operation& loop) const {
  if (const ir::Attribute* stages = loop.attr("tt.num_stages");
      stages && stages->kind() == ir::Attribute::Kind::Int)
    return static_cast<int>(stages->asInt());
  return options_.numStages;
}

std::optional<KernelLowering::LoadsFirstPlan> KernelLowering::prefetchPlan(const ir::Operation& loop) const {
  if (pipelineStages(loop) <= 1) return std::nullopt;
  const ir::Block& body = *loop.region(0)->block(0);
  bool hasDot = false;
  for (const auto& op : body.ops()) hasDot |= op->kind() == ir::OpKind::TtDot;
  if (!hasDot) return std::nullopt;
  std::optional<LoadsFirstPlan> plan = splitLoadsFromRest(loop);
  if (!plan) return std::nullopt;
  for (const ir::Operation* op : plan->loads) {
    if (!ir::computesRegistersOnly(*op)) return std::nullopt;
    if (op->kind() != ir::OpKind::TtLoad) {
      for (const ir::Value* r : op->results())
        if (!hasOneLayout(r)) return std::nullopt;
      continue;
    }
    const ir::Value* loaded = op->result(0);
    if (!loaded->type().isTensor() || layouts_.isRematerializable(loaded) || !layouts_.homeMaterialized(loaded))
      return std::nullopt;
  }
  const ir::Operation& yield = *body.terminator();
  for (const ir::Value* arg : plan->argumentsRead) {
    if (!hasOneLayout(arg)) return std::nullopt;
    if (!arg->type().isTensor()) continue;
    // The next trip's loads read what this trip yields, in the carried layout.
    for (size_t i = 1; i < body.numArguments(); ++i) {
      const ir::Value* next = yield.operand(i - 1);
      if (body.argument(i) == arg && next->type().isTensor() &&
          (layouts_.isRematerializable(next) || !layout::sameLayout(layouts_.home(next), layouts_.home(arg))))
        return std::nullopt;
    }
  }
  bool writes = false;
  auto check = [&](const ir::Operation* op) {
    switch (op->kind()) {
      case ir::OpKind::TtStore:
      case ir::OpKind::TtAtomicRMW:
      case ir::OpKind::TtAtomicCAS:
      case ir::OpKind::TtAssert:
      case ir::OpKind::TtPrint:
      case ir::OpKind::TtCall:
      case ir::OpKind::GpuBarrier: writes = true; break;
      default: break;
    }
  };
  for (const ir::Operation* op : plan->rest) {
    check(op);
    for (size_t r = 0; r < op->numRegions(); ++r) ir::walk(*op->region(r), check);
  }
  if (writes) return std::nullopt;
  return plan;
}

// Two trips ahead (num_stages 3, Triton's default). Loading only the next
// trip, each trip still waits for loads issued half a trip before (after
// the staging), and a loop of few trips waits for each trip's loads in
// turn. Two trips ahead, the first two trips' loads issue together before
// the loop, and each later trip's a whole trip before it stages them: the
// loop carries a second set of registers, moved into the first where the
// trip after next issues (by then the loads it holds have had a trip to
// arrive). That trip's addresses come from the loads part run once more
// without its loads (what advances the carried pointers), so they may not
// depend on a loaded value (a pointer chase): such a loop loads one trip
// ahead.
int KernelLowering::prefetchTrips(const ir::Operation& loop, const LoadsFirstPlan& plan,
                                  std::vector<const ir::Operation*>* addressing) const {
  constexpr int kMostTripsAhead = 2;
  const int trips = std::min(pipelineStages(loop) - 1, kMostTripsAhead);
  if (trips < 2) return trips;
  // The ops of the loads part that compute what it yields for the carried
  // values it reads.
  const ir::Block& body = *loop.region(0)->block(0);
  const ir::Operation& yield = *body.terminator();
  const std::set<const ir::Operation*> part(plan.loads.begin(), plan.loads.end());
  std::set<const ir::Operation*> needed;
  std::vector<const ir::Value*> work;
  for (size_t i = 1; i < body.numArguments(); ++i)
    if (plan.argumentsRead.count(body.argument(i))) work.push_back(yield.operand(i - 1));
  while (!work.empty()) {
    const ir::Operation* op = work.back()->definingOp();
    work.pop_back();
    if (!op || !part.count(op) || !needed.insert(op).second) continue;
    if (op->kind() == ir::OpKind::TtLoad) return 1;  // a pointer chase
    for (const ir::Value* v : op->operands()) work.push_back(v);
  }
  for (const ir::Operation* op : plan.loads)
    if (needed.count(op)) addressing->push_back(op);
  return trips;
}

void KernelLowering::emitPrefetchingLoop(const ir::Operation& loop, const LoadsFirstPlan& plan,
                                         const std::string& ivName, const std::vector<RegisterTensor>& tensors,
                                         const std::vector<std::string>& scalars,
                                         const std::vector<const ir::Value*>& slots) {
  const ir::Block& body = *loop.region(0)->block(0);
  const ir::Operation& yield = *body.terminator();
  const ir::Value* iv = body.argument(0);
  const std::string ivType = typeOf(iv->type());
  const std::string lower = scalarOf(loop.operand(0)), upper = scalarOf(loop.operand(1));
  const std::string step = scalarOf(loop.operand(2));
  std::vector<const ir::Operation*> loads;
  for (const ir::Operation* op : plan.loads)
    if (op->kind() == ir::OpKind::TtLoad) loads.push_back(op);
  std::vector<const ir::Operation*> addressing;
  const int trips = prefetchTrips(loop, plan, &addressing);
  body_.comment(trips == 1 ? "the loads of each trip issue in the trip before, into these registers"
                           : "the loads of each trip issue two trips before, into these registers");
  decisions_["prefetching_loops"].push_back(
      {{"op", loop.loc().userPos().str()}, {"loads_ahead", loads.size()}, {"trips_ahead", trips}});
  // A value from vector loads waits for its trip in 32-bit words of two
  // 16-bit or four 8-bit elements, as the loads deliver them: ptxas gives a
  // 16-bit value kept in a variable a register of its own (the 2048^3 f16
  // matmul took 150 registers a thread so, 118 in words). Element loads
  // stay elements: packing them waits for their data right after they
  // issue (matmul_f16_f32acc: 6.3 us packed, H100). `ahead` holds the next
  // trip's loads, `further` (two trips ahead) the trip after next's.
  std::vector<WaitingLoad> ahead, further;
  for (const ir::Operation* load : loads) ahead.push_back(declareWaitingLoad(*load));
  if (trips == 2)
    for (const ir::Operation* load : loads) further.push_back(declareWaitingLoad(*load));
  // The loads part as it is, once more (the metadata describes it once: in
  // the trip's copy that loads).
  auto loadInto = [&](const std::vector<WaitingLoad>& into) {
    for (const ir::Operation* op : plan.loads)
      op->kind() == ir::OpKind::TtLoad ? lowerLoad(*op) : lowerOp(*op);
    for (size_t i = 0; i < loads.size(); ++i) storeWaitingLoad(into[i], home(loads[i]->result(0)));
  };
  // What the loads part just lowered yields for the carried values it
  // reads: their values in the trip after.
  using Yielded = std::pair<std::vector<std::pair<const ir::Value*, RegisterTensor>>,
                            std::vector<std::pair<const ir::Value*, std::string>>>;
  auto yielded = [&]() {
    Yielded next;
    for (size_t i = 0; i < slots.size(); ++i) {
      if (!plan.argumentsRead.count(slots[i])) continue;
      if (slots[i]->type().isTensor())
        next.first.emplace_back(slots[i], tensorIn(yield.operand(i), layouts_.home(slots[i])));
      else
        next.second.emplace_back(slots[i], scalarOf(yield.operand(i)));
    }
    return next;
  };
  auto bind = [&](const Yielded& values) {
    for (const auto& [arg, t] : values.first) tensors_[arg] = {t};
    for (const auto& [arg, s] : values.second) scalars_[arg] = s;
  };
  const auto outside = std::make_pair(tensors_, scalars_);
  const nlohmann::json decided = decisions_;
  body_.open("if (" + lower + " < " + upper + ")");
  defineScalar(iv, lower);
  for (size_t i = 0; i < slots.size(); ++i) defineCarried(slots[i], tensors[i], scalars[i]);
  // Each copy of the loads part computes its values anew: it starts from
  // the values before it, with the carried ones bound to its trip's.
  const auto entry = std::make_pair(tensors_, scalars_);
  loadInto(ahead);
  if (trips == 2) {
    const Yielded second = yielded();
    const std::string ivSecond = newName(ivName + "_second");
    body_.line(ivType + " " + ivSecond + " = " + lower + " + " + parenthesized(step) + ";");
    body_.open("if (" + ivSecond + " < " + upper + ")");
    std::tie(tensors_, scalars_) = entry;
    bind(second);
    defineScalar(iv, ivSecond);
    loadInto(further);
    body_.close();
  }
  body_.close();
  std::tie(tensors_, scalars_) = outside;
  decisions_ = decided;

  body_.open("for (" + ivType + " " + ivName + " = " + lower + "; " + ivName + " < " + upper + "; " + ivName +
             " += " + step + ")");
  ++loopDepth_;
  defineScalar(iv, ivName);
  for (size_t i = 0; i < slots.size(); ++i) defineCarried(slots[i], tensors[i], scalars[i]);
  for (const ir::Value* s : slots) convertExtraLayouts(s);
  const auto atTop = std::make_pair(tensors_, scalars_);
  // This trip's part: its loads are what the trips before loaded.
  const nlohmann::json beforeTrip = decisions_;
  size_t waiting = 0;  // loads keeps plan.loads' order
  for (const ir::Operation* op : plan.loads) {
    if (op->kind() == ir::OpKind::TtLoad)
      defineTensor(op->result(0), readWaitingLoad(ahead[waiting++], op->result(0)));
    else
      lowerOp(*op);
  }
  decisions_ = beforeTrip;
  const Yielded next = yielded();
  const std::string ivNext = newName(ivName + "_next");
  body_.line(ivType + " " + ivNext + " = " + ivName + " + " + parenthesized(step) + ";");
  // The next trips' part, from what this trip yields: issued by the dot once
  // this trip's operands are in threadgroup memory, so that their registers
  // and the next trip's are not live at once (lower_dot*.cpp).
  auto previous = std::move(loadsAhead_);
  // The dot calling it holds references into tensors_: the trip's values
  // move aside (their nodes, and so those references, stay valid) and back.
  loadsAhead_ = {&body, [&, ivNext, atTop, next]() {
                   auto tripTensors = std::move(tensors_);
                   auto tripScalars = std::move(scalars_);
                   std::tie(tensors_, scalars_) = atTop;
                   bind(next);
                   defineScalar(iv, ivNext);
                   if (trips == 1) {
                     body_.open("if (" + ivNext + " < " + upper + ")");
                     loadInto(ahead);
                     body_.close();
                   } else {
                     // Moved on every path, whether or not a next trip
                     // reads them: under the condition, NVIDIA's compiler
                     // copied each register up to four times.
                     for (size_t i = 0; i < loads.size(); ++i) moveWaitingLoad(ahead[i], further[i]);
                     const std::string ivAfter = newName(ivName + "_after");
                     body_.line(ivType + " " + ivAfter + " = " + ivNext + " + " + parenthesized(step) + ";");
                     body_.open("if (" + ivAfter + " < " + upper + ")");
                     for (const ir::Operation* op : addressing) lowerOp(*op);
                     const Yielded after = yielded();
                     std::tie(tensors_, scalars_) = atTop;
                     bind(after);
                     defineScalar(iv, ivAfter);
                     loadInto(further);
                     body_.close();
                   }
                   tensors_ = std::move(tripTensors);
                   scalars_ = std::move(tripScalars);
                 }};
  for (const ir::Operation* load : loads) convertExtraLayouts(load->result(0));
  for (const ir::Operation* op : plan.rest) lowerOp(*op);
  // A dot that stages K in chunks left them: after it, they still come
  // before the next trip's dot.
  issueLoadsAhead(body);
  loadsAhead_ = std::move(previous);
  assignCarried(yield, 0, tensors, scalars, slots);
  --loopDepth_;
  body_.close();
}

KernelLowering::WaitingLoad KernelLowering::declareWaitingLoad(const ir::Operation& load) {
  WaitingLoad w;
  const ir::Value* v = load.result(0);
  const ir::Type& element = v->type().element();
  const int64_t count = TensorMap(layouts_.home(v), v->type().shape()).numRegisters();
  const int bits = element.isScalar() && element.scalarKind() != ir::ScalarKind::I1 ? element.bitWidth() : 32;
  // Each word within one vector: vectors are runs of consecutive registers.
  if ((bits == 16 || bits == 8) && loadVectorWidth(load) % (32 / bits) == 0) w.perWord = 32 / bits;
  if (w.perWord == 1) {
    w.plain = declareCarried(v, layouts_.home(v));
    return w;
  }
  w.words = newName(nameFor(v) + "_words");
  w.wordCount = count / w.perWord;
  // An array even of one word (declaration() would spell a scalar).
  body_.line(typeOf(ir::Type::i32()) + " " + w.words + "[" + std::to_string(w.wordCount) + "];");
  return w;
}

void KernelLowering::moveWaitingLoad(const WaitingLoad& to, const WaitingLoad& from) {
  if (to.perWord == 1) return copyRegisters(to.plain, from.plain);
  body_.line(registerLoop("w", to.wordCount) + " " + to.words + "[w] = " + from.words + "[w];");
}

void KernelLowering::storeWaitingLoad(const WaitingLoad& w, const RegisterTensor& t) {
  if (w.perWord == 1) return copyRegisters(w.plain, t);
  const std::string pack = dialect_.vectorType(t.element.scalarKind(), w.perWord);
  const std::string word = dialect_.scalarType(ir::ScalarKind::I32);
  for (size_t i = 0; i < t.size() / w.perWord; ++i) {
    std::string packed = pack + "(";
    for (int k = 0; k < w.perWord; ++k) packed += (k ? ", " : "") + t.regs[i * w.perWord + k];
    body_.line(w.words + "[" + std::to_string(i) + "] = " + dialect_.bitcast(packed + ")", word) + ";");
  }
}

RegisterTensor KernelLowering::readWaitingLoad(const WaitingLoad& w, const ir::Value* v) {
  const LayoutPtr l = layouts_.home(v);
  if (w.perWord == 1) return declareCarried(v, l, &w.plain);
  const int64_t count = TensorMap(l, v->type().shape()).numRegisters();
  RegisterTensor t = RegisterTensor::array(l, v->type().shape(), v->type().element(), nameFor(v), count);
  body_.line(declaration(t.element, t.arrayName, count) + ";");
  const std::string pack = dialect_.vectorType(t.element.scalarKind(), w.perWord);
  for (int64_t r = 0; r < count; ++r)
    body_.line(t.regs[r] + " = " +
               dialect_.vectorElement(dialect_.bitcast(w.words + "[" + std::to_string(r / w.perWord) + "]", pack),
                                      static_cast<int>(r % w.perWord)) +
               ";");
  return t;
}

void KernelLowering::issueLoadsAhead(const ir::Block& block) {
  if (loadsAhead_.second && loadsAhead_.first == &block) std::exchange(loadsAhead_, {}).second();
}

bool KernelLowering::tripsAreMultipleOfFour(const ir::Operation& loop) const {
  std::optional<int64_t> step = axis_.get(loop.operand(2)).constantValue;
  if (!step || *step <= 0) return false;
  std::optional<int64_t> lower = axis_.get(loop.operand(0)).constantValue;
  std::optional<int64_t> upper = axis_.get(loop.operand(1)).constantValue;
  if (lower && upper) return *upper <= *lower || ((*upper - *lower - 1) / *step + 1) % 4 == 0;
  // Both bounds multiples of 4 * step: (upper - lower) / step trips.
  int64_t group = 4 * *step;
  return (group & (group - 1)) == 0 && knownMultiple(loop, loop.operand(0), group) &&
         knownMultiple(loop, loop.operand(1), group);
}

void KernelLowering::beginBodyCopies() {
  BodyCopies copies;
  copies.tensors = tensors_;
  copies.scalars = scalars_;
  bodyCopies_.push_back(std::move(copies));
}

void KernelLowering::secondBodyCopy() {
  // The first copy's values went out of scope with it.
  BodyCopies& copies = bodyCopies_.back();
  tensors_ = copies.tensors;
  scalars_ = copies.scalars;
  copies.decisions = decisions_;
  copies.replaying = true;
}

void KernelLowering::endBodyCopies() {
  decisions_ = std::move(bodyCopies_.back().decisions);
  bodyCopies_.pop_back();
}

void KernelLowering::lowerFor(const ir::Operation& op) {
  const ir::Block& body = *op.region(0)->block(0);
  size_t n = op.numOperands() - 3;
  std::vector<RegisterTensor> tensors(n);
  std::vector<std::string> scalars(n);
  std::vector<const ir::Value*> slots;
  // Accumulators of dots on SIMD-group matrices stay in the dots' tiles
  // from before the loop to after it (lower_dot_matrix.cpp).
  std::vector<const ir::Operation*> dotsInTiles(n, nullptr);
  for (size_t i = 0; i < n; ++i) {
    const ir::Value* arg = body.argument(1 + i);
    slots.push_back(arg);
    const ir::Value* init = op.operand(3 + i);
    if (arg->type().isTensor() && (dotsInTiles[i] = accumulatorDotOfLoop(op, i))) {
      body_.comment("the accumulator " + nameFor(arg) + " in the tiles of " +
                    dotOnMatricesComment(*dotsInTiles[i], "from here to the end of the loop"));
      const RegisterTensor initial = operandTensor(op, 3 + i);
      const DotTiles tiles = beginDotTiles(
          *dotsInTiles[i], true, planDotTiles(*dotsInTiles[i], initial.layout, isZeroTensor(initial), op.result(i)));
      initDotTiles(tiles, initial);
      loopAccumulatorTiles_[dotsInTiles[i]] = tiles;
      valuesInTiles_.insert(arg);
      valuesInTiles_.insert(dotsInTiles[i]->result(0));
    } else if (arg->type().isTensor()) {
      tensors[i] = declareCarried(arg, layouts_.home(arg), &operandTensor(op, 3 + i));
    } else {
      scalars[i] = nameFor(arg);
      body_.line(typeOf(arg->type()) + " " + scalars[i] + " = " + scalarOf(init) + ";");
    }
  }
  // The body's other dots whose C stays in registers (attention's two)
  // alternate between two stagings of A and B too, declared here.
  std::vector<const ir::Operation*> dotsWithStagings;
  for (const auto& inner : body.ops()) {
    const ir::Operation* dot = inner.get();
    if (dot->kind() != ir::OpKind::TtDot || loopAccumulatorTiles_.count(dot)) continue;
    DotTiles planned = planDotTiles(*dot, layouts_.operandLayout(dot, 2), false, dot->result(0));
    if (!planned.plan.chunk || !planned.cInRegisters || !planned.resultInRegisters || !planned.alternatingBytes ||
        !threadgroupMemory_.hasRoomFor(planned.alternatingBytes)) {
      // Planned again where it is lowered, with the memory the dots before
      // it have taken by then.
      dotMatrixPlans_.erase(dot);
      continue;
    }
    body_.comment("two stagings of " + dotOnMatricesComment(*dot, "C in the tiles' registers"));
    DotTiles tiles = beginDotTiles(*dot, true, std::move(planned));
    // Layout assignment gives A the tiles' layout only from outside the
    // body (an enclosing loop's arguments included): filled once, here.
    if (tiles.aInRegisters && dot->operand(0)->definingBlock() != &body)
      tiles.aTiles = fillATiles(tiles, operandTensor(*dot, 0));
    loopDotTiles_[dot] = tiles;
    dotsWithStagings.push_back(dot);
  }
  const ir::Value* iv = body.argument(0);
  std::string ivType = typeOf(iv->type());
  std::string lower = scalarOf(op.operand(0)), upper = scalarOf(op.operand(1)), step = scalarOf(op.operand(2));
  // One loop over [from, upper): the body, with the induction variable named
  // ivName, after the hint line when there is one.
  auto emitLoop = [&](const std::string& hint, const std::string& ivName, const std::string& from,
                      const std::string& to) {
    if (!hint.empty()) body_.line(hint);
    body_.open("for (" + ivType + " " + ivName + " = " + from + "; " + ivName + " < " + to + "; " + ivName +
               " += " + step + ")");
    defineScalar(iv, ivName);
    for (size_t i = 0; i < n; ++i) defineCarried(slots[i], tensors[i], scalars[i]);
    ++loopDepth_;
    for (const ir::Value* s : slots) convertExtraLayouts(s);
    lowerBlock(body);
    assignCarried(*body.terminator(), 0, tensors, scalars, slots);
    --loopDepth_;
    body_.close();
  };
  std::string ivName = nameFor(iv);
  const bool unrolled = unrollsByFour(op);
  std::optional<LoadsFirstPlan> loadsFirst = unrolled ? loadsFirstPlan(op) : std::nullopt;
  // The groups of four trips, over [lower, to).
  auto emitGroups = [&](const std::string& to) {
    if (loadsFirst)
      emitLoadsFirstLoop(op, *loadsFirst, ivName, lower, to, tensors, scalars, slots);
    else
      emitLoop(dialect_.loopUnrollHint(kUnrolledTrips), ivName, lower, to);
  };
  if (!unrolled) {
    std::optional<LoadsFirstPlan> prefetch = prefetchPlan(op);
    for (size_t i = 0; prefetch && i < n; ++i)  // loads never read an accumulator, but check
      if (dotsInTiles[i] && prefetch->argumentsRead.count(slots[i])) prefetch.reset();
    if (prefetch)
      emitPrefetchingLoop(op, *prefetch, ivName, tensors, scalars, slots);
    else
      emitLoop("", ivName, lower, upper);
  } else if (tripsAreMultipleOfFour(op)) {
    emitGroups(upper);
  } else {
    // The trips up to the last multiple of four, unrolled four times, then
    // the zero to three left in a loop of their own, unrolled twice: three
    // trips left take two memory round trips rather than the three of the
    // one-trip remainder loop the target compiler makes of a single loop
    // (small LayerNorm on an H200: 3.6 -> 3.4 us; docs/codegen.md). A trip
    // count known to be a multiple of four keeps the single loop above: the
    // remainder's code would only cost registers.
    std::string trips = newName(ivName + "_trips"), mainEnd = newName(ivName + "_main_end");
    std::string offset = lower == "0" ? "" : " - " + parenthesized(lower);
    body_.line(ivType + " " + trips + " = " + upper + " > " + lower + " ? (" + upper + offset + " - 1) / " +
               parenthesized(step) + " + 1 : 0;");
    const std::string group = std::to_string(kUnrolledTrips);
    body_.line(ivType + " " + mainEnd + " = " + (lower == "0" ? "" : lower + " + ") + trips + " / " + group + " * (" +
               group + " * " + parenthesized(step) + ");");
    beginBodyCopies();
    emitGroups(mainEnd);
    secondBodyCopy();
    if (loadsFirst && loadsFirst->argumentsRead.empty())
      emitLoadsFirstTail(op, *loadsFirst, mainEnd, trips, tensors, scalars, slots);
    else
      emitLoop(dialect_.loopUnrollHint(2), nameFor(iv), mainEnd, upper);
    endBodyCopies();
  }
  // A loop that runs again (inside another loop) starts its trips over at
  // the first staging, which its last trip may have been reading.
  bool alternates = false;
  for (const ir::Operation* dot : dotsWithStagings) {
    alternates = alternates || !loopDotTiles_.at(dot).bufAB.empty();
    loopDotTiles_.erase(dot);
  }
  for (const ir::Operation* dot : dotsInTiles)
    alternates = alternates || (dot && !loopAccumulatorTiles_.at(dot).bufAB.empty());
  bool runsAgain = false;
  for (const ir::Operation* outer = op.parentBlock()->parentOp(); outer;
       outer = outer->parentBlock() ? outer->parentBlock()->parentOp() : nullptr)
    runsAgain = runsAgain || outer->kind() == ir::OpKind::ScfFor || outer->kind() == ir::OpKind::ScfWhile;
  if (alternates && runsAgain) body_.line(dialect_.barrier());
  for (size_t i = 0; i < n; ++i) {
    if (dotsInTiles[i]) {
      defineTensor(op.result(i), finishDotTiles(loopAccumulatorTiles_.at(dotsInTiles[i]), op.result(i)));
      loopAccumulatorTiles_.erase(dotsInTiles[i]);
    } else {
      defineCarried(op.result(i), tensors[i], scalars[i]);
    }
  }
}

void KernelLowering::lowerIf(const ir::Operation& op) {
  size_t n = op.numResults();
  std::vector<RegisterTensor> tensors(n);
  std::vector<std::string> scalars(n);
  std::vector<const ir::Value*> slots;
  for (size_t i = 0; i < n; ++i) {
    const ir::Value* r = op.result(i);
    slots.push_back(r);
    if (r->type().isTensor()) {
      tensors[i] = declareCarried(r, layouts_.home(r));
    } else {
      scalars[i] = nameFor(r);
      body_.line(typeOf(r->type()) + " " + scalars[i] + ";");
    }
  }
  body_.open("if (" + scalarOf(op.operand(0)) + ")");
  const ir::Block& thenBlock = *op.region(0)->block(0);
  lowerBlock(thenBlock);
  if (n > 0) assignCarried(*thenBlock.terminator(), 0, tensors, scalars, slots);
  if (op.numRegions() > 1 && op.region(1)->numBlocks() > 0) {
    const ir::Block& elseBlock = *op.region(1)->block(0);
    if (!(elseBlock.ops().size() == 1 && n == 0)) {
      body_.continueBlock("else");
      lowerBlock(elseBlock);
      if (n > 0) assignCarried(*elseBlock.terminator(), 0, tensors, scalars, slots);
    }
  }
  body_.close();
  for (size_t i = 0; i < n; ++i) defineCarried(op.result(i), tensors[i], scalars[i]);
}

void KernelLowering::lowerWhile(const ir::Operation& op) {
  const ir::Block& before = *op.region(0)->block(0);
  const ir::Block& after = *op.region(1)->block(0);
  const ir::Operation& cond = *before.terminator();
  size_t n = op.numOperands(), m = op.numResults();
  std::vector<RegisterTensor> carried(n), results(m);
  std::vector<std::string> carriedScalars(n), resultScalars(m);
  std::vector<const ir::Value*> carriedSlots, resultSlots;
  for (size_t i = 0; i < n; ++i) {
    const ir::Value* arg = before.argument(i);
    carriedSlots.push_back(arg);
    if (arg->type().isTensor()) {
      carried[i] = declareCarried(arg, layouts_.home(arg), &operandTensor(op, i));
    } else {
      carriedScalars[i] = nameFor(arg);
      body_.line(typeOf(arg->type()) + " " + carriedScalars[i] + " = " + scalarOf(op.operand(i)) + ";");
    }
  }
  for (size_t j = 0; j < m; ++j) {
    const ir::Value* r = op.result(j);
    resultSlots.push_back(r);
    if (r->type().isTensor()) {
      results[j] = declareCarried(r, layouts_.home(r));
    } else {
      resultScalars[j] = nameFor(r);
      body_.line(typeOf(r->type()) + " " + resultScalars[j] + ";");
    }
  }
  body_.open("while (true)");
  ++loopDepth_;
  for (size_t i = 0; i < n; ++i) defineCarried(carriedSlots[i], carried[i], carriedScalars[i]);
  for (const ir::Value* s : carriedSlots) convertExtraLayouts(s);
  lowerBlock(before);
  // The condition's values are both the results (when it fails) and the
  // after region's arguments (when it holds).
  assignCarried(cond, 1, results, resultScalars, resultSlots);
  body_.line("if (!" + scalarOf(cond.operand(0)) + ") break;");
  for (size_t j = 0; j < m; ++j) {
    const ir::Value* a = after.argument(j);
    if (results[j].regs.empty()) {
      defineScalar(a, resultScalars[j]);
    } else {
      RegisterTensor t = results[j];
      t.layout = layouts_.home(a);
      defineTensor(a, t);
    }
    convertExtraLayouts(a);
  }
  lowerBlock(after);
  assignCarried(*after.terminator(), 0, carried, carriedScalars, carriedSlots);
  --loopDepth_;
  body_.close();
  for (size_t j = 0; j < m; ++j) defineCarried(op.result(j), results[j], resultScalars[j]);
}

void KernelLowering::defineCarried(const ir::Value* v, const RegisterTensor& tensor, const std::string& scalar) {
  if (tensor.regs.empty())
    defineScalar(v, scalar);
  else
    defineTensor(v, tensor);
}

}  // namespace tmetal::codegen
