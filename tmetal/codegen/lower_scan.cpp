// tt.scan (inclusive, optionally reversed) in the layout's hierarchy. Along
// the axis an element's position is (repetition, SIMD group, lane, place in
// the thread's block), slowest to fastest. For each repetition:
//   1. each thread scans its block sequentially;
//   2. lanes exchange block totals: simd_prefix_exclusive_sum/product where
//      the region is one of those, else a simd_shuffle_up (down, reversed)
//      scan of the totals for any combiner;
//   3. SIMD groups exchange their totals through threadgroup memory (each
//      written by the lane that holds it, the last in scan order); the
//      groups before and the lanes before are joined into one prefix that
//      each thread folds into its block once (the block's last element is
//      the lanes' inclusive scan itself), so a block of n elements costs n
//      combines after the exchanges, not 2n;
//   4. the total of the repetitions before is folded into this one.
// Every fold keeps the earlier elements on the left of the combiner, so
// order-sensitive combiners (a linear recurrence) are correct.
#include <map>

#include "tmetal/codegen/kernel_lowering.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::codegen {

using layout::LayoutPtr;
using layout::TensorMap;

namespace {
// The lanes' part of a scan's prefix for one line of a repetition.
struct LanePrefix {
  std::vector<std::string> before;     // the lanes before this one, combined (one per operand)
  std::vector<std::string> inclusive;  // with this thread's block too; empty after simd_prefix
  std::string exists;                  // whether any lane is before this one (shuffle scan only)
};
}  // namespace

void KernelLowering::lowerScan(const ir::Operation& op) {
  size_t numOperands = op.numOperands();
  int axis = static_cast<int>(op.intAttr("axis"));
  const ir::Attribute* rev = op.attr("reverse");
  bool reverse = rev && rev->asBool();
  std::vector<const RegisterTensor*> in;
  for (size_t i = 0; i < numOperands; ++i) in.push_back(&operandTensor(op, i));
  LayoutPtr l = in[0]->layout;
  TensorMap map(l, in[0]->shape);
  int ra = l->rootDims()[axis];
  std::vector<int64_t> lineShape = in[0]->shape;
  lineShape.erase(lineShape.begin() + axis);
  TensorMap lines(layout::DistributedLayout::slice(l, axis), lineShape);
  int64_t numLines = lines.numRegisters();
  int64_t tile = map.root().tile(ra);
  int64_t reps = map.repetitions(ra), block = map.blockElements(ra);
  std::optional<SimdOp> simd = recognizeCombiner(op);

  // at[line][rep][place] = register
  std::vector<std::vector<std::vector<int64_t>>> at(numLines, std::vector<std::vector<int64_t>>(reps, std::vector<int64_t>(block, -1)));
  for (int64_t r = 0; r < map.numRegisters(); ++r) {
    std::vector<int64_t> off = map.registerOffset(r);
    int64_t along = off[ra];
    int64_t q = lines.registerAt(sliceOffset(off, ra, lines.rootRank()));
    if (q < 0) throw CompileError("internal error: scan register without a line");
    at[q][along / tile][along % tile] = r;
  }
  body_.comment("'tt.scan' along axis " + std::to_string(axis) + (reverse ? " (reversed)" : "") + " at " +
                op.loc().userPos().str());
  std::vector<RegisterTensor> out;
  for (size_t i = 0; i < numOperands; ++i) {
    const ir::Value* res = op.result(i);
    std::string name = nameFor(res);
    RegisterTensor t = RegisterTensor::array(l, in[i]->shape, in[i]->element, name, map.numRegisters());
    body_.line(declaration(in[i]->element, name, map.numRegisters()) + ";");
    copyRegisters(t, *in[i]);
    out.push_back(t);
  }
  auto regsOf = [&](int64_t r) {
    std::vector<std::string> v;
    for (const RegisterTensor& t : out) v.push_back(t.regs[r]);
    return v;
  };
  auto emit = [&](const std::vector<std::string>& lines) {
    for (const std::string& s : lines) body_.line(s);
  };
  // Folds `prefix` (earlier elements) into register r: r = combine(prefix, r).
  auto foldInto = [&](const std::vector<std::string>& prefix, int64_t r) {
    return combineStatements(op, regsOf(r), prefix, true);
  };
  // Copies of `values` named after `hint` (one per operand).
  auto copies = [&](const std::vector<std::string>& values, const std::string& hint) {
    std::vector<std::string> names;
    for (size_t i = 0; i < numOperands; ++i) {
      names.push_back(newName(hint));
      body_.line(typeOf(in[i]->element) + " " + names[i] + " = " + values[i] + ";");
    }
    return names;
  };
  auto select = [&](const std::vector<std::string>& dst, const std::string& cond, const std::vector<std::string>& yes,
                    const std::vector<std::string>& no) {
    for (size_t i = 0; i < numOperands; ++i) body_.line(dst[i] + " = " + cond + " ? " + yes[i] + " : " + no[i] + ";");
  };
  // The prefix of the lanes before a thread's block (and where `groupsExist`
  // is not empty, of the groups before its SIMD group, `groupsBefore`),
  // folded into the block in one pass. From a shuffle scan, the block's last
  // element in scan order is the lanes' inclusive scan: no fold of its own.
  // The groups' part is joined by selects, not a branch, as Triton does: the
  // combines are few and the partials' reads need not wait for a branch.
  auto foldLanePrefix = [&](LanePrefix& prefix, const std::vector<int64_t>& regs, const std::string& groupsExist,
                            const std::vector<std::string>& groupsBefore = {}) {
    int64_t last = reverse ? 0 : block - 1;
    if (prefix.inclusive.empty()) {
      // simd_prefix: lane 0's prefix is the identity, so every lane folds.
      if (!groupsExist.empty()) {
        std::vector<std::string> joined = copies(groupsBefore, "joined");
        emit(combineStatements(op, joined, prefix.before));
        select(prefix.before, groupsExist, joined, prefix.before);
      }
      for (int64_t r : regs) emit(foldInto(prefix.before, r));
      return;
    }
    std::string cond = prefix.exists;
    if (!groupsExist.empty()) {
      if (block > 1) {
        std::vector<std::string> joined = copies(groupsBefore, "joined");
        emit(combineStatements(op, joined, prefix.before));
        for (size_t i = 0; i < numOperands; ++i)
          body_.line(prefix.before[i] + " = " + groupsExist + " ? (" + prefix.exists + " ? " + joined[i] + " : " +
                     groupsBefore[i] + ") : " + prefix.before[i] + ";");
      }
      std::vector<std::string> through = copies(groupsBefore, "through");
      emit(combineStatements(op, through, prefix.inclusive));
      select(prefix.inclusive, groupsExist, through, prefix.inclusive);
      cond = prefix.exists + " || " + groupsExist;
    }
    if (block > 1) {
      body_.open("if (" + cond + ")");
      for (int64_t w = 0; w < block; ++w)
        if (w != last) emit(foldInto(prefix.before, regs[w]));
      body_.close();
    }
    std::vector<std::string> lastRegs = regsOf(regs[last]);
    for (size_t i = 0; i < numOperands; ++i) body_.line(lastRegs[i] + " = " + prefix.inclusive[i] + ";");
  };

  int lanesAlong = map.distinctLanes(ra), groupsAlong = map.distinctSimdGroups(ra);
  bool crossThreads = lanesAlong > 1 || groupsAlong > 1 || reps > 1;
  std::vector<std::string> total, carry;
  auto arrays = [&](const std::string& hint) {
    std::vector<std::string> names;
    for (size_t i = 0; i < numOperands; ++i) {
      std::string n = newName(out[i].arrayName.empty() ? out[i].regs[0] + "_" + hint : out[i].arrayName + "_" + hint);
      body_.line(declaration(in[i]->element, n, numLines) + ";");
      names.push_back(n);
    }
    return names;
  };
  auto element = [&](const std::vector<std::string>& names, int64_t q) {
    std::vector<std::string> v;
    for (const std::string& n : names) v.push_back(numLines == 1 ? n : n + "[" + std::to_string(q) + "]");
    return v;
  };
  if (crossThreads) total = arrays("total");
  if (reps > 1) carry = arrays("carry");

  std::string laneAlong, groupAlong;
  if (lanesAlong > 1) {
    laneAlong = laneCoord(map, ra);
    if (map.root().lanesPerSimd[ra] > lanesAlong) laneAlong = "(" + laneAlong + ") % " + std::to_string(lanesAlong);
  }
  if (groupsAlong > 1) {
    groupAlong = simdCoord(map, ra);
    if (map.root().simdsPerGroup[ra] > groupsAlong) groupAlong = "(" + groupAlong + ") % " + std::to_string(groupsAlong);
  }
  std::string lane = dialect_.builtinName(Builtin::LaneIndex);
  int laneStride = map.laneStride(ra);
  int64_t lineElements = 1;
  for (int64_t x : lineShape) lineElements *= x;
  std::vector<std::string> buffers;
  if (groupsAlong > 1) {
    for (size_t i = 0; i < numOperands; ++i) {
      std::string hint = out[i].arrayName.empty() ? "scan_partials" : out[i].arrayName + "_partials";
      buffers.push_back(threadgroupBuffer(op, hint, in[i]->element, lineElements * groupsAlong,
                                          "partials of the scan at " + op.loc().userPos().str()));
    }
  }
  std::string lineBase = groupsAlong > 1 ? bindBase(linearIndexBase(lines), (out[0].arrayName.empty() ? "scan" : out[0].arrayName) + "_line", 2) : "";
  ir::ScalarKind k0 = in[0]->element.isScalar() ? in[0]->element.scalarKind() : ir::ScalarKind::I64;
  bool hardwarePrefix = simd && !reverse && numOperands == 1 && lanesAlong == 32 &&
                        map.root().lanesPerSimd[ra] == 32 && dialect_.hasSimdPrefix(*simd, k0);
  // Where a SIMD group's total goes after the lanes' exchange: to every lane
  // where only repetitions follow (they fold it in), else nowhere but the
  // lane that holds it, the last in scan order, which writes it to the
  // groups' partials (no broadcast).
  const bool totalInEveryLane = groupsAlong == 1 && reps > 1;
  const int64_t totalLane = reverse ? 0 : lanesAlong - 1;

  for (int64_t step = 0; step < reps; ++step) {
    int64_t rep = reverse ? reps - 1 - step : step;
    // 1. The thread's block, in scan order.
    for (int64_t q = 0; q < numLines; ++q) {
      for (int64_t s = 1; s < block; ++s) {
        int64_t w = reverse ? block - 1 - s : s, prev = reverse ? w + 1 : w - 1;
        emit(foldInto(regsOf(at[q][rep][prev]), at[q][rep][w]));
      }
      if (crossThreads) {
        int64_t last = at[q][rep][reverse ? 0 : block - 1];
        std::vector<std::string> t = element(total, q), v = regsOf(last);
        for (size_t i = 0; i < numOperands; ++i) body_.line(t[i] + " = " + v[i] + ";");
      }
    }
    // 2. Lanes. Where SIMD groups follow, the lanes' prefix waits for the
    // groups' (step 3) so that the two are folded in as one.
    std::vector<LanePrefix> lanePrefix(numLines);
    if (lanesAlong > 1) {
      useBuiltin(Builtin::LaneIndex);
      for (int64_t q = 0; q < numLines; ++q) {
        std::vector<std::string> t = element(total, q);
        LanePrefix& prefix = lanePrefix[q];
        if (hardwarePrefix) {
          std::string ex = newName("before");
          body_.line(typeOf(in[0]->element) + " " + ex + " = " + dialect_.simdPrefix(*simd, t[0], false) + ";");
          // The total as its own reduction, not the last lane's prefix plus
          // its block: that would wait for the prefix (on CUDA a shuffle
          // after the scan) before the partials' write.
          if (totalInEveryLane || groupsAlong > 1)
            body_.line(t[0] + " = " + dialect_.simdReduce(*simd, t[0], k0) + ";");
          prefix.before = {ex};
        } else {
          std::vector<std::string> y;
          for (size_t i = 0; i < numOperands; ++i) {
            prefix.inclusive.push_back(newName("inclusive"));
            y.push_back(newName("neighbour"));
            // With one element a thread the inclusive scan is all it needs.
            if (block > 1) prefix.before.push_back(newName("before"));
            body_.line(typeOf(in[i]->element) + " " + prefix.inclusive[i] + " = " + t[i] + ";");
          }
          const std::vector<std::string>& p = prefix.inclusive;
          std::string cond = reverse ? laneAlong + " + s < " + std::to_string(lanesAlong) : laneAlong + " >= s";
          body_.open("for (uint s = 1; s < " + std::to_string(lanesAlong) + "; s *= 2)");
          for (size_t i = 0; i < numOperands; ++i) {
            ir::ScalarKind ki = in[i]->element.isScalar() ? in[i]->element.scalarKind() : ir::ScalarKind::I64;
            std::string delta = laneStride == 1 ? "s" : "s * " + std::to_string(laneStride);
            body_.line(typeOf(in[i]->element) + " " + y[i] + " = " +
                       (reverse ? dialect_.simdShuffleDown(p[i], ki, delta) : dialect_.simdShuffleUp(p[i], ki, delta)) + ";");
          }
          // neighbour = combine(neighbour, inclusive), then a select: no
          // branch, no copy of the running value (a predicated combine).
          emit(combineStatements(op, y, p));
          select(p, cond, y, p);
          body_.close();
          // The lanes before this one (after it, reversed) and the whole SIMD group's total.
          std::string lastLane = reverse ? lane + " - " + (laneStride == 1 ? laneAlong : "(" + laneAlong + ") * " + std::to_string(laneStride))
                                         : lane + " + (" + std::to_string(lanesAlong - 1) + " - " + laneAlong + ")" +
                                               (laneStride == 1 ? "" : " * " + std::to_string(laneStride));
          for (size_t i = 0; i < numOperands; ++i) {
            ir::ScalarKind ki = in[i]->element.isScalar() ? in[i]->element.scalarKind() : ir::ScalarKind::I64;
            std::string delta = std::to_string(laneStride);
            if (block > 1)
              body_.line(typeOf(in[i]->element) + " " + prefix.before[i] + " = " +
                         (reverse ? dialect_.simdShuffleDown(p[i], ki, delta) : dialect_.simdShuffleUp(p[i], ki, delta)) + ";");
            if (totalInEveryLane) body_.line(t[i] + " = " + dialect_.simdBroadcast(p[i], ki, lastLane) + ";");
            else if (groupsAlong > 1) body_.line(t[i] + " = " + p[i] + ";");
          }
          prefix.exists = reverse ? laneAlong + " < " + std::to_string(lanesAlong - 1) : laneAlong + " > 0";
        }
        if (groupsAlong == 1) foldLanePrefix(prefix, at[q][rep], "");
      }
    }
    // 3. SIMD groups.
    if (groupsAlong > 1) {
      if (step > 0) body_.line(dialect_.barrier());
      else barrierBeforeReuse();
      std::vector<std::string> cond;
      if (map.root().lanesPerSimd[ra] > 1) cond.push_back(laneCoord(map, ra) + " == " + std::to_string(totalLane));
      if (map.root().simdsPerGroup[ra] > groupsAlong) cond.push_back(simdCoord(map, ra) + " < " + std::to_string(groupsAlong));
      for (int d = 0; d < map.rootRank(); ++d) {
        if (d == ra) continue;
        const layout::BlockedLayout& b = map.root();
        int64_t maxOffset = static_cast<int64_t>(b.lanesPerSimd[d] * b.simdsPerGroup[d] - 1) * b.sizePerThread[d];
        if (maxOffset >= map.rootShape()[d]) cond.push_back(unwrappedOffset(map, d) + " < " + std::to_string(map.rootShape()[d]));
      }
      std::string joined;
      for (const std::string& c : cond) joined += (joined.empty() ? "" : " && ") + c;
      auto slot = [&](int64_t q, const std::string& group) {
        std::string e = offsetExpr(lineBase, linearIndexConstant(lines, q));
        std::string g = group == "0" ? "" : parenthesized(group) +
                                                (lineElements == 1 ? "" : " * " + std::to_string(lineElements));
        if (g.empty()) return e;
        return e == "0" ? g : g + " + " + e;
      };
      if (!joined.empty()) body_.open("if (" + joined + ")");
      for (int64_t q = 0; q < numLines; ++q) {
        std::vector<std::string> t = element(total, q);
        for (size_t i = 0; i < numOperands; ++i) body_.line(buffers[i] + "[" + slot(q, groupAlong) + "] = " + t[i] + ";");
      }
      if (!joined.empty()) body_.close();
      body_.line(dialect_.barrier());
      // Each group's total is read once and folded in scan order; the running
      // value after the groups before this one is picked by a select, so the
      // fold is straight-line code (no loop bounded by the group index) and
      // the same chain gives the total over every group.
      std::vector<int64_t> order;
      for (int64_t k = 0; k < groupsAlong; ++k) order.push_back(reverse ? groupsAlong - 1 - k : k);
      for (int64_t q = 0; q < numLines; ++q) {
        std::vector<std::string> t = element(total, q);
        body_.open("");
        std::vector<std::vector<std::string>> groupTotal(groupsAlong);
        for (int64_t w : order) {
          for (size_t i = 0; i < numOperands; ++i) {
            groupTotal[w].push_back(newName("group_total"));
            body_.line(typeOf(in[i]->element) + " " + groupTotal[w][i] + " = " + buffers[i] + "[" + slot(q, std::to_string(w)) + "];");
          }
        }
        std::vector<std::string> running, before;
        for (size_t i = 0; i < numOperands; ++i) {
          running.push_back(newName("groups_running"));
          before.push_back(newName("groups_before"));
          body_.line(typeOf(in[i]->element) + " " + running[i] + " = " + groupTotal[order[0]][i] + ";");
          body_.line(typeOf(in[i]->element) + " " + before[i] + " = " + running[i] + ";");
        }
        for (int64_t k = 1; k < groupsAlong; ++k) {
          emit(combineStatements(op, running, groupTotal[order[k]]));
          if (k + 1 == groupsAlong) break;
          std::string here = groupAlong + " == " + std::to_string(order[k + 1]);
          for (size_t i = 0; i < numOperands; ++i)
            body_.line(before[i] + " = " + here + " ? " + running[i] + " : " + before[i] + ";");
        }
        std::string has = reverse ? groupAlong + " < " + std::to_string(groupsAlong - 1) : groupAlong + " > 0";
        if (lanesAlong > 1) {
          foldLanePrefix(lanePrefix[q], at[q][rep], has, before);
        } else {
          body_.open("if (" + has + ")");
          for (int64_t w = 0; w < block; ++w) emit(foldInto(before, at[q][rep][w]));
          body_.close();
        }
        // The repetition's total over every group.
        for (size_t i = 0; i < numOperands; ++i) body_.line(t[i] + " = " + running[i] + ";");
        body_.close();
      }
    }
    // 4. Repetitions before this one.
    if (reps > 1) {
      for (int64_t q = 0; q < numLines; ++q) {
        std::vector<std::string> c = element(carry, q), t = element(total, q);
        if (step == 0) {
          for (size_t i = 0; i < numOperands; ++i) body_.line(c[i] + " = " + t[i] + ";");
          continue;
        }
        for (int64_t w = 0; w < block; ++w) emit(foldInto(c, at[q][rep][w]));
        emit(combineStatements(op, c, t));
      }
    }
  }
  decisions_["scans"].push_back({{"op", op.loc().userPos().str()}, {"axis", axis}, {"layout", l->str()},
                                 {"lanes", lanesAlong}, {"simd_groups", groupsAlong}, {"repetitions", reps},
                                 {"lane_scan", hardwarePrefix ? "simd_prefix" : lanesAlong > 1 ? "simd_shuffle" : "none"}});
  for (size_t i = 0; i < numOperands; ++i) defineTensor(op.result(i), out[i]);
}

}  // namespace tmetal::codegen
