// tt.reduce in the layout's hierarchy:
//   1. each thread combines the registers it holds along the axis;
//   2. the lanes that hold different parts of the axis combine: with the
//      SIMD hardware's reduction (simd_sum, simd_max, ...) when the region is
//      one of those and the axis spans all 32 lanes, else with a
//      simd_shuffle_xor butterfly (any combiner, several operands; lower
//      lanes' values go first, so order-sensitive combiners see index order,
//      unless the order cannot matter: each operand pair combined by one
//      commutative op, or an integer argmax or argmin);
//   3. the SIMD groups that hold different parts combine through threadgroup
//      memory: one partial per group, one barrier, then every SIMD group
//      combines the partials with a shuffle butterfly (lane l holds group
//      l's partial) where all its lanes lie along the axis; else, where that
//      is many partials per thread, the threadgroup shares the combine (each
//      result element by neighbouring threads, then a second barrier), and
//      otherwise every thread combines them in group order; all threads
//      agree bit for bit;
// leaving the result in the slice of the operand's layout.
#include "tmetal/codegen/kernel_lowering.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::codegen {

using layout::LayoutPtr;
using layout::TensorMap;

void KernelLowering::lowerReduce(const ir::Operation& op) {
  size_t numOperands = op.numOperands();
  int axis = static_cast<int>(op.intAttr("axis"));
  std::vector<const RegisterTensor*> in;
  for (size_t i = 0; i < numOperands; ++i) in.push_back(&operandTensor(op, i));
  LayoutPtr l = in[0]->layout;
  TensorMap map(l, in[0]->shape);
  int ra = l->rootDims()[axis];
  std::vector<int64_t> resultShape = in[0]->shape;
  resultShape.erase(resultShape.begin() + axis);
  LayoutPtr resultLayout = layout::DistributedLayout::slice(l, axis);
  TensorMap result(resultLayout, resultShape);
  int64_t q = result.numRegisters();
  std::optional<SimdOp> simd = recognizeCombiner(op);
  // Lanes combine in index order unless the order cannot matter (as for
  // every combiner the hardware reduces).
  const bool commutative = combinerIsCommutative(op);

  // 1. Registers: for each result register, the operand registers along the
  // axis in index order.
  std::vector<std::vector<int64_t>> groups(q);
  for (int64_t r = 0; r < map.numRegisters(); ++r) {
    int64_t target = result.registerAt(sliceOffset(map.registerOffset(r), ra, result.rootRank()));
    if (target < 0) throw CompileError("internal error: reduction register without a result register");
    groups[target].push_back(r);
  }
  int64_t j = static_cast<int64_t>(groups[0].size());
  // An argmax (argmin) whose indices rise along the axis, as tl.argmax's
  // own do: in a thread's fold the accumulated element always has the
  // lower index, so the region's test of that is true there, and the fold
  // is a compare and a select a step, as in Triton (the target compiler
  // cannot see it through the chain of selects).
  const ir::Operation* indexInOrder = nullptr;
  if (const ir::Operation* test = j > 1 ? combinerIndexTest(op) : nullptr) {
    const analysis::AxisInfo& info = axis_.get(op.operand(1));
    if (info.rank() > axis && info.contiguity[axis] >= in[0]->shape[axis]) indexInOrder = test;
  }
  body_.comment("'tt.reduce' along axis " + std::to_string(axis) + " at " + op.loc().userPos().str() + ": " +
                std::to_string(j) + " register" + (j == 1 ? "" : "s") + " per thread");
  std::vector<std::string> acc;
  std::vector<RegisterTensor> accTensors;
  for (size_t i = 0; i < numOperands; ++i) {
    const ir::Value* res = op.result(i);
    std::string name = nameFor(res);
    const ir::Type& element = in[i]->element;
    if (q > 1) body_.line(declaration(element, name, q) + ";");
    acc.push_back(name);
    accTensors.push_back(RegisterTensor::array(resultLayout, resultShape, element, name, q));
  }
  auto accAt = [&](size_t i, const std::string& idx) { return q == 1 ? acc[i] : acc[i] + "[" + idx + "]"; };
  // The first value of an accumulator; a single one is declared with it.
  auto initialize = [&](size_t i, const std::string& idx, const std::string& value) {
    if (q == 1) return typeOf(in[i]->element) + " " + acc[i] + " = " + value + ";";
    return accAt(i, idx) + " = " + value + ";";
  };
  // Affine groups (register q*stepQ + k*stepJ) become loops.
  int64_t stepQ = q > 1 ? groups[1][0] - groups[0][0] : 0, stepJ = j > 1 ? groups[0][1] - groups[0][0] : 0;
  bool affine = groups[0][0] == 0;
  for (int64_t a = 0; a < q && affine; ++a)
    for (int64_t b = 0; b < j && affine; ++b) affine = groups[a][b] == a * stepQ + b * stepJ;
  for (const RegisterTensor* t : in) affine = affine && t->at("r").has_value();
  auto scaled = [](const std::string& var, int64_t step) {
    return step == 1 ? var : std::to_string(step) + " * " + var;
  };
  if (affine) {
    std::string qi = q > 1 ? "q" : "0";
    if (q > 1) body_.open(registerLoop("q", q));
    std::string first = q > 1 ? scaled("q", stepQ) : "0";
    for (size_t i = 0; i < numOperands; ++i) body_.line(initialize(i, qi, *in[i]->at(first)));
    if (j > 1) {
      std::string idx = (q > 1 ? scaled("q", stepQ) + " + " : "") + scaled("k", stepJ);
      std::vector<std::string> a, o;
      for (size_t i = 0; i < numOperands; ++i) {
        a.push_back(accAt(i, qi));
        o.push_back(*in[i]->at(idx));
      }
      std::vector<std::string> stmts = combineStatements(op, a, o, false, indexInOrder);
      std::string head = registerLoop("k", j, 1);
      if (stmts.size() == 1) {
        body_.line(head + " " + stmts[0]);
      } else {
        body_.open(head);
        for (const std::string& s : stmts) body_.line(s);
        body_.close();
      }
    }
    if (q > 1) body_.close();
  } else {
    for (int64_t a = 0; a < q; ++a) {
      std::string qi = std::to_string(a);
      for (size_t i = 0; i < numOperands; ++i) body_.line(initialize(i, qi, in[i]->regs[groups[a][0]]));
      for (int64_t b = 1; b < j; ++b) {
        std::vector<std::string> acs, o;
        for (size_t i = 0; i < numOperands; ++i) {
          acs.push_back(accAt(i, qi));
          o.push_back(in[i]->regs[groups[a][b]]);
        }
        for (const std::string& s : combineStatements(op, acs, o, false, indexInOrder)) body_.line(s);
      }
    }
  }
  // Applies `stmts(idx)` to every result register.
  auto forEachAcc = [&](const std::function<std::vector<std::string>(const std::string&)>& stmts) {
    std::vector<std::string> lines = stmts(q > 1 ? "q" : "0");
    if (q == 1) {
      for (const std::string& s : lines) body_.line(s);
      return;
    }
    std::string head = registerLoop("q", q);
    if (lines.size() == 1) {
      body_.line(head + " " + lines[0]);
      return;
    }
    body_.open(head);
    for (const std::string& s : lines) body_.line(s);
    body_.close();
  };

  // One butterfly step (xor mask `m`) on the variables `vars`, one per operand.
  auto butterflyStep = [&](const std::vector<std::string>& vars) {
    useBuiltin(Builtin::LaneIndex);
    std::string lane = dialect_.builtinName(Builtin::LaneIndex);
    std::vector<std::string> lines, o;
    for (size_t i = 0; i < numOperands; ++i) {
      ir::ScalarKind ki = in[i]->element.isScalar() ? in[i]->element.scalarKind() : ir::ScalarKind::I64;
      std::string other = acc[i] + "_other";
      lines.push_back(typeOf(in[i]->element) + " " + other + " = " + dialect_.simdShuffleXor(vars[i], ki, "m") + ";");
      o.push_back(other);
    }
    if (commutative) {
      for (const std::string& s : combineStatements(op, vars, o)) lines.push_back(s);
      return lines;
    }
    // The lane with the lower coordinate holds the lower indices.
    lines.push_back("if ((" + lane + " & m) != 0) {");
    for (const std::string& s : combineStatements(op, vars, o, true)) lines.push_back("  " + s);
    lines.push_back("} else {");
    for (const std::string& s : combineStatements(op, vars, o)) lines.push_back("  " + s);
    lines.push_back("}");
    return lines;
  };
  // Combines the accumulators of the lanes whose hardware lane indices differ
  // in the bits from `firstMask` up to (not including) `endMask`: a
  // simd_shuffle_xor butterfly after which every such lane holds the result.
  auto shuffleButterfly = [&](int firstMask, int endMask) {
    body_.open("for (uint m = " + std::to_string(firstMask) + "; m < " + std::to_string(endMask) + "; m *= 2)");
    forEachAcc([&](const std::string& idx) {
      std::vector<std::string> vars;
      for (size_t i = 0; i < numOperands; ++i) vars.push_back(accAt(i, idx));
      return butterflyStep(vars);
    });
    body_.close();
  };

  // 2. Lanes.
  nlohmann::json decision = {{"op", op.loc().userPos().str()}, {"axis", axis}, {"layout", l->str()},
                             {"registers_per_thread", j}};
  int lanes = map.distinctLanes(ra);
  int laneStride = map.laneStride(ra);
  if (lanes > 1) {
    ir::ScalarKind k = in[0]->element.isScalar() ? in[0]->element.scalarKind() : ir::ScalarKind::I64;
    if (simd && lanes == 32 && map.root().lanesPerSimd[ra] == 32 && dialect_.hasSimdReduce(*simd, k)) {
      forEachAcc([&](const std::string& idx) {
        return std::vector<std::string>{accAt(0, idx) + " = " + dialect_.simdReduce(*simd, accAt(0, idx), k) + ";"};
      });
      const std::string vote = *simd == SimdOp::And ? "simd_all" : "simd_any";
      decision["lanes"] = {{"count", lanes},
                           {"combine", k == ir::ScalarKind::I1 ? vote : std::string("simd_") + simdOpName(*simd)}};
    } else {
      shuffleButterfly(laneStride, laneStride * lanes);
      decision["lanes"] = {{"count", lanes}, {"combine", "simd_shuffle_xor butterfly"}};
    }
  }

  // 3. SIMD groups.
  int groupsAlong = map.distinctSimdGroups(ra);
  if (groupsAlong > 1) {
    int64_t numel = 1;
    for (int64_t e : resultShape) numel *= e;
    // Every SIMD group's partials at once take numel * G elements per
    // operand. Where those do not fit the threadgroup's memory, the groups
    // take turns on one slot per element instead: group g combines its
    // partials with what the groups before it left there, a barrier after
    // each turn (G - 1 more barriers), and then every thread reads the
    // results. (A tt.reduce is never in a loop body the lowering writes out
    // twice, so both copies cannot decide differently.)
    int64_t partialBytes = 0;
    for (size_t i = 0; i < numOperands; ++i)
      partialBytes += ThreadgroupMemory::roundedBytes(numel * groupsAlong, elementBytes(in[i]->element));
    const bool takeTurns = !threadgroupMemory_.hasRoomFor(partialBytes);
    std::vector<std::string> buffers;
    for (size_t i = 0; i < numOperands; ++i) {
      buffers.push_back(threadgroupBuffer(op, acc[i] + "_partials", in[i]->element,
                                          takeTurns ? numel : numel * groupsAlong,
                                          "partials of the reduction at " + op.loc().userPos().str()));
    }
    // One writer per (element, SIMD group): lane coordinate 0 along the
    // axis, a SIMD group that is not a replica, and owners elsewhere.
    std::vector<std::string> cond;
    if (map.root().lanesPerSimd[ra] > 1) cond.push_back(laneCoord(map, ra) + " == 0");
    std::string group = simdCoord(map, ra);
    if (map.root().simdsPerGroup[ra] > groupsAlong) cond.push_back(group + " < " + std::to_string(groupsAlong));
    for (int d = 0; d < map.rootRank(); ++d) {
      if (d == ra) continue;
      const layout::BlockedLayout& b = map.root();
      int64_t maxOffset = static_cast<int64_t>(b.lanesPerSimd[d] * b.simdsPerGroup[d] - 1) * b.sizePerThread[d];
      if (maxOffset >= map.rootShape()[d])
        cond.push_back(unwrappedOffset(map, d) + " < " + std::to_string(map.rootShape()[d]));
    }
    std::string at = bindBase(linearIndexBase(result), acc[0] + "_at", 2);
    std::vector<IndexTerm> terms = linearIndexTerms(result);
    auto slot = [&](const std::string& idx, const std::string& groupExpr) {
      std::string e = offsetExpr(at, terms, idx, q);
      if (numel == 1) return groupExpr;
      std::string g = groupExpr == "0" ? "" : parenthesized(groupExpr) + " * " + std::to_string(numel);
      if (g.empty()) return e;
      return e == "0" ? g : g + " + " + e;
    };
    barrierBeforeReuse();
    if (takeTurns) {
      cond.push_back(group + " == turn");
      std::string joined;
      for (const std::string& c : cond) joined += (joined.empty() ? "" : " && ") + c;
      body_.open("for (int turn = 0; turn < " + std::to_string(groupsAlong) + "; ++turn)");
      body_.open("if (" + joined + ")");
      forEachAcc([&](const std::string& idx) {
        std::vector<std::string> lines, a, o;
        for (size_t i = 0; i < numOperands; ++i) {
          a.push_back(accAt(i, idx));
          o.push_back(buffers[i] + "[" + slot(idx, "0") + "]");
        }
        lines.push_back("if (turn > 0) {");
        for (const std::string& st : combineStatements(op, a, o)) lines.push_back("  " + st);
        lines.push_back("}");
        for (size_t i = 0; i < numOperands; ++i) lines.push_back(o[i] + " = " + a[i] + ";");
        return lines;
      });
      body_.close();
      body_.line(dialect_.barrier());
      body_.close();
      forEachAcc([&](const std::string& idx) {
        std::vector<std::string> lines;
        for (size_t i = 0; i < numOperands; ++i)
          lines.push_back(accAt(i, idx) + " = " + buffers[i] + "[" + slot(idx, "0") + "];");
        return lines;
      });
      decision["simd_groups"] = {{"count", groupsAlong}, {"combine", "threadgroup memory, one SIMD group at a time"}};
    } else {
      std::string joined;
      for (const std::string& c : cond) joined += (joined.empty() ? "" : " && ") + c;
      if (!joined.empty()) body_.open("if (" + joined + ")");
      forEachAcc([&](const std::string& idx) {
        std::vector<std::string> lines;
        for (size_t i = 0; i < numOperands; ++i)
          lines.push_back(buffers[i] + "[" + slot(idx, group) + "] = " + accAt(i, idx) + ";");
        return lines;
      });
      if (!joined.empty()) body_.close();
      body_.line(dialect_.barrier());
      // Lane l of every SIMD group reads the partial of group l % groupsAlong,
      // and a butterfly over those lanes combines them: log2(groups) shuffles
      // instead of a serial chain of groups - 1 combines per thread. Measured
      // through the CUDA target (16384x16384 argmax along rows, H200): 651 ->
      // 524 us. Every lane of every group computes the same result in the same
      // order, so all threads agree bit for bit.
      // Only where every lane of a SIMD group holds the same result elements
      // (all lanes along the reduced axis); otherwise partners would mix
      // different outputs.
      const bool groupsPowerOfTwo = (groupsAlong & (groupsAlong - 1)) == 0;
      bool butterflyFits = map.root().lanesPerSimd[ra] == map.root().simdWidth() &&
                           groupsAlong <= map.root().simdWidth() && groupsPowerOfTwo;
      // Otherwise each thread would combine all G partials of each of its q
      // result registers, q * (G - 1) combines, every thread repeating the
      // work of the others along the axis. Where that is more than
      // kSerialPartialCombines, the threadgroup shares it: P = min(G, 32)
      // neighbouring threads take one result element, each combines G / P
      // neighbouring partials, a butterfly over the P joins them (lower
      // partials first), the first of the P writes the element to a second
      // buffer, and after a barrier every thread reads its results from there.
      // Measured through the CUDA target (float16 column argmax, H200):
      // docs/performance.md.
      constexpr int64_t kSerialPartialCombines = 8;
      const int64_t threads = int64_t(map.root().simdWidth()) * map.root().numSimdGroups();
      // The shared combine needs a second buffer; where the partials leave no
      // room for it, every thread combines its own (the kernel still fits).
      int64_t combinedBytes = 0;
      for (size_t i = 0; i < numOperands; ++i)
        combinedBytes += ThreadgroupMemory::roundedBytes(numel, elementBytes(in[i]->element));
      const bool shareCombine = !butterflyFits && groupsPowerOfTwo &&
                                q * (groupsAlong - 1) > kSerialPartialCombines && threads % groupsAlong == 0 &&
                                threadgroupMemory_.hasRoomFor(combinedBytes);
      if (butterflyFits) {
        useBuiltin(Builtin::LaneIndex);
        std::string partial = "(" + dialect_.builtinName(Builtin::LaneIndex) + " % " + std::to_string(groupsAlong) + ")";
        forEachAcc([&](const std::string& idx) {
          std::vector<std::string> lines;
          for (size_t i = 0; i < numOperands; ++i)
            lines.push_back(accAt(i, idx) + " = " + buffers[i] + "[" + slot(idx, partial) + "];");
          return lines;
        });
        shuffleButterfly(1, groupsAlong);
      } else if (shareCombine) {
        const int64_t P = std::min<int64_t>(groupsAlong, map.root().simdWidth());
        const int64_t perLane = groupsAlong / P, slots = threads / P, rounds = (numel + slots - 1) / slots;
        std::vector<std::string> combined;
        for (size_t i = 0; i < numOperands; ++i) {
          combined.push_back(threadgroupBuffer(op, acc[i] + "_combined", in[i]->element, numel,
                                               "combined partials of the reduction at " + op.loc().userPos().str()));
        }
        useBuiltin(Builtin::ThreadIndex);
        const std::string tid = "int(" + dialect_.builtinName(Builtin::ThreadIndex) + ")";
        const std::string N = std::to_string(numel), Ps = std::to_string(P);
        const std::string round = rounds > 1 ? " + round * " + std::to_string(slots) : "";
        if (rounds > 1) body_.open("for (int round = 0; round < " + std::to_string(rounds) + "; ++round)");
        else body_.open("");
        // Every lane of a SIMD group runs every round (the shuffles need them
        // all); a lane past the last element recomputes the last one and does
        // not write it.
        body_.line("int element = " + tid + " / " + Ps + round + ";");
        body_.line("int first = (" + tid + " % " + Ps + ") * " + std::to_string(perLane) + ";");
        body_.line("int at = element < " + N + " ? element : " + N + " - 1;");
        std::vector<std::string> vars, others;
        for (size_t i = 0; i < numOperands; ++i) {
          vars.push_back(newName(acc[i] + "_part"));
          body_.line(typeOf(in[i]->element) + " " + vars[i] + " = " + buffers[i] + "[first * " + N + " + at];");
          others.push_back(buffers[i] + "[(first + w) * " + N + " + at]");
        }
        if (perLane > 1) {
          body_.open("for (int w = 1; w < " + std::to_string(perLane) + "; ++w)");
          for (const std::string& st : combineStatements(op, vars, others)) body_.line(st);
          body_.close();
        }
        if (P > 1) {
          body_.open("for (uint m = 1; m < " + Ps + "; m *= 2)");
          for (const std::string& st : butterflyStep(vars)) body_.line(st);
          body_.close();
        }
        body_.open("if (" + tid + " % " + Ps + " == 0 && element < " + N + ")");
        for (size_t i = 0; i < numOperands; ++i) body_.line(combined[i] + "[element] = " + vars[i] + ";");
        body_.close();
        body_.close();
        body_.line(dialect_.barrier());
        forEachAcc([&](const std::string& idx) {
          std::vector<std::string> lines;
          for (size_t i = 0; i < numOperands; ++i)
            lines.push_back(accAt(i, idx) + " = " + combined[i] + "[" + slot(idx, "0") + "];");
          return lines;
        });
      } else {
        forEachAcc([&](const std::string& idx) {
          std::vector<std::string> lines, a, o;
          for (size_t i = 0; i < numOperands; ++i) {
            lines.push_back(accAt(i, idx) + " = " + buffers[i] + "[" + slot(idx, "0") + "];");
            a.push_back(accAt(i, idx));
            o.push_back(buffers[i] + "[" + slot(idx, "w") + "]");
          }
          std::vector<std::string> stmts = combineStatements(op, a, o);
          std::string head = "for (int w = 1; w < " + std::to_string(groupsAlong) + "; ++w)";
          if (stmts.size() == 1) {
            lines.push_back(head + " " + stmts[0]);
          } else {
            lines.push_back(head + " {");
            for (const std::string& s : stmts) lines.push_back("  " + s);
            lines.push_back("}");
          }
          return lines;
        });
      }
      decision["simd_groups"] = {
          {"count", groupsAlong},
          {"combine", butterflyFits  ? "threadgroup memory, then simd_shuffle_xor butterfly"
                      : shareCombine ? "threadgroup memory, combined by the whole threadgroup"
                                     : "threadgroup memory"}};
    }
  }
  decisions_["reductions"].push_back(decision);

  for (size_t i = 0; i < numOperands; ++i) {
    if (resultShape.empty())
      defineScalar(op.result(i), acc[i]);
    else
      defineTensor(op.result(i), accTensors[i]);
  }
}

}  // namespace tmetal::codegen
