#include "tmetal/analysis/axis_info.h"

#include <algorithm>
#include <numeric>
#include <sstream>

#include "tmetal/analysis/axis_info_transfer.h"

namespace tmetal::analysis {

using ir::OpKind;

int64_t powerOfTwoDivisor(int64_t v) {
  if (v == 0) return AxisInfo::kMaxDivisibility;
  uint64_t u = static_cast<uint64_t>(v < 0 ? -v : v);
  uint64_t p = u & (~u + 1);
  return std::min<int64_t>(static_cast<int64_t>(p), AxisInfo::kMaxDivisibility);
}

AxisInfo AxisInfo::unknown(int rank) {
  rank = std::max(1, rank);
  AxisInfo i;
  i.contiguity.assign(rank, 1);
  i.divisibility.assign(rank, 1);
  i.constancy.assign(rank, 1);
  return i;
}

AxisInfo AxisInfo::join(const AxisInfo& a, const AxisInfo& b) {
  if (a.rank() != b.rank()) return unknown(a.rank());
  AxisInfo out = unknown(a.rank());
  for (int d = 0; d < a.rank(); ++d) {
    out.contiguity[d] = std::gcd(a.contiguity[d], b.contiguity[d]);
    out.divisibility[d] = std::min(a.divisibility[d], b.divisibility[d]);
    out.constancy[d] = std::gcd(a.constancy[d], b.constancy[d]);
  }
  if (a.constantValue == b.constantValue) out.constantValue = a.constantValue;
  return out;
}

int64_t AxisInfo::divisibilityAtRuns(int d, int64_t run, int64_t unitBytes) const {
  int64_t c = contiguity[d];
  if (c <= 1 || run % c == 0) return divisibility[d];
  // Runs shorter than the contiguous runs start inside them, at offsets that
  // are multiples of `run` elements.
  return std::min(divisibility[d], powerOfTwoDivisor(run * unitBytes));
}

int64_t AxisInfo::divisibilityOfAll() const {
  // A statement about every element needs a dimension without contiguous
  // runs; any such dimension's divisibility covers all elements.
  int64_t best = 1;
  for (int d = 0; d < rank(); ++d)
    if (contiguity[d] == 1) best = std::max(best, divisibility[d]);
  if (constantValue) best = std::max(best, powerOfTwoDivisor(*constantValue));
  return best;
}

std::string AxisInfo::str() const {
  auto list = [](const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  std::string s = "contiguity=" + list(contiguity) + " divisibility=" + list(divisibility) +
                  " constancy=" + list(constancy);
  if (constantValue) s += " constant=" + std::to_string(*constantValue);
  return s;
}

AxisInfoAnalysis::AxisInfoAnalysis(const ir::Function& fn) {
  for (size_t i = 0; i < fn.numArguments(); ++i) {
    AxisInfo a = AxisInfo::unknown(fn.argument(i)->type().rank());
    for (auto& d : a.divisibility) d = std::min(powerOfTwoDivisor(fn.argDivisibility(i)), AxisInfo::kMaxDivisibility);
    set(fn.argument(i), a);
  }
  visitBlock(*fn.entry());
}

const AxisInfo& AxisInfoAnalysis::get(const ir::Value* v) const {
  auto it = info_.find(v);
  if (it != info_.end()) return it->second;
  int rank = v->type().rank();
  auto u = unknownByRank_.find(rank);
  if (u == unknownByRank_.end()) u = unknownByRank_.emplace(rank, AxisInfo::unknown(rank)).first;
  return u->second;
}

void AxisInfoAnalysis::set(const ir::Value* v, AxisInfo info) { info_[v] = std::move(info); }

void AxisInfoAnalysis::visitBlock(const ir::Block& block) {
  for (const auto& op : block.ops()) visitOp(*op);
}

void AxisInfoAnalysis::visitOp(const ir::Operation& op) {
  switch (op.kind()) {
    case OpKind::ScfFor:
      return visitFor(op);
    case OpKind::ScfIf:
      return visitIf(op);
    case OpKind::ScfWhile:
      return visitWhile(op);
    default:
      break;
  }
  // Combiner regions (tt.reduce, tt.scan) work on scalars nobody asks about;
  // visit them only so that their values have entries.
  for (size_t r = 0; r < op.numRegions(); ++r)
    for (size_t b = 0; b < op.region(r)->numBlocks(); ++b) visitBlock(*op.region(r)->block(b));
  if (op.numResults() == 0) return;
  std::vector<const AxisInfo*> operands;
  for (const ir::Value* v : op.operands()) operands.push_back(&get(v));
  if (op.kind() == OpKind::TtReduce || op.kind() == OpKind::TtScan || op.kind() == OpKind::TtMapElementwise ||
      op.numResults() > 1) {
    for (const ir::Value* r : op.results()) set(r, AxisInfo::unknown(r->type().rank()));
    return;
  }
  set(op.result(0), transferAxisInfo(op, operands));
}

namespace {
constexpr int kMaxFixpointRounds = 8;

std::vector<AxisInfo> joinAll(const std::vector<AxisInfo>& a, const std::vector<AxisInfo>& b) {
  std::vector<AxisInfo> out;
  for (size_t i = 0; i < a.size(); ++i) out.push_back(AxisInfo::join(a[i], b.at(i)));
  return out;
}
}  // namespace

// Loop-carried values start from their initial values and are joined with
// what the body yields until nothing changes; after a bounded number of
// rounds they fall back to "unknown", which is always sound.
void AxisInfoAnalysis::visitFor(const ir::Operation& op) {
  const ir::Block& body = *op.region(0)->block(0);
  const AxisInfo& lb = get(op.operand(0));
  const AxisInfo& step = get(op.operand(2));
  AxisInfo iv = AxisInfo::unknown(0);
  iv.divisibility[0] = std::min(lb.divisibilityOfAll(), step.divisibilityOfAll());
  set(body.argument(0), iv);
  size_t numIters = op.numOperands() - 3;
  std::vector<AxisInfo> carried;
  for (size_t i = 0; i < numIters; ++i) carried.push_back(get(op.operand(3 + i)));
  for (int round = 0;; ++round) {
    for (size_t i = 0; i < numIters; ++i) set(body.argument(1 + i), carried[i]);
    visitBlock(body);
    std::vector<AxisInfo> yielded;
    const ir::Operation* yield = body.terminator();
    for (size_t i = 0; i < numIters; ++i) yielded.push_back(get(yield->operand(i)));
    std::vector<AxisInfo> next = joinAll(carried, yielded);
    if (next == carried) break;
    if (round == kMaxFixpointRounds) {
      for (size_t i = 0; i < numIters; ++i) next[i] = AxisInfo::unknown(body.argument(1 + i)->type().rank());
      carried = next;
      for (size_t i = 0; i < numIters; ++i) set(body.argument(1 + i), carried[i]);
      visitBlock(body);
      break;
    }
    carried = next;
  }
  for (size_t i = 0; i < numIters; ++i) set(op.result(i), carried[i]);
}

void AxisInfoAnalysis::visitIf(const ir::Operation& op) {
  std::vector<std::vector<AxisInfo>> branches;
  for (size_t r = 0; r < op.numRegions(); ++r) {
    if (op.region(r)->numBlocks() == 0) continue;
    const ir::Block& b = *op.region(r)->block(0);
    visitBlock(b);
    std::vector<AxisInfo> yielded;
    if (const ir::Operation* y = b.terminator())
      for (const ir::Value* v : y->operands()) yielded.push_back(get(v));
    branches.push_back(yielded);
  }
  for (size_t i = 0; i < op.numResults(); ++i) {
    AxisInfo joined = branches.size() > 0 && i < branches[0].size() ? branches[0][i]
                                                                     : AxisInfo::unknown(op.result(i)->type().rank());
    for (size_t b = 1; b < branches.size(); ++b)
      if (i < branches[b].size()) joined = AxisInfo::join(joined, branches[b][i]);
    set(op.result(i), joined);
  }
}

void AxisInfoAnalysis::visitWhile(const ir::Operation& op) {
  const ir::Block& before = *op.region(0)->block(0);
  const ir::Block& after = *op.region(1)->block(0);
  std::vector<AxisInfo> carried;
  for (const ir::Value* v : op.operands()) carried.push_back(get(v));
  auto runOnce = [&]() {
    for (size_t i = 0; i < carried.size(); ++i) set(before.argument(i), carried[i]);
    visitBlock(before);
    const ir::Operation* cond = before.terminator();
    for (size_t i = 1; i < cond->numOperands(); ++i) set(after.argument(i - 1), get(cond->operand(i)));
    visitBlock(after);
    std::vector<AxisInfo> yielded;
    for (const ir::Value* v : after.terminator()->operands()) yielded.push_back(get(v));
    return yielded;
  };
  for (int round = 0;; ++round) {
    std::vector<AxisInfo> next = joinAll(carried, runOnce());
    if (next == carried) break;
    if (round == kMaxFixpointRounds) {
      for (size_t i = 0; i < carried.size(); ++i) carried[i] = AxisInfo::unknown(before.argument(i)->type().rank());
      runOnce();
      break;
    }
    carried = next;
  }
  const ir::Operation* cond = before.terminator();
  for (size_t i = 0; i < op.numResults(); ++i) set(op.result(i), get(cond->operand(i + 1)));
}

}  // namespace tmetal::analysis
