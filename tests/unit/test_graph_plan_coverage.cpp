// Property test of the reduction planner's index mapping: for thousands of
// random shapes, strides, axes, dtypes and hardware profiles, enumerating
// every (stage, threadgroup, thread, iteration, vector lane) of the plan
// must read every input element exactly once, for the output it belongs to,
// and every partial exactly once in the second stage. It also checks what
// the kernels rely on: one accumulator per thread and vector lane, each
// partial written by one threadgroup, vectors contiguous and aligned in
// memory, and the launch within the profile's limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "tmetal/graph/reduction_planner.h"
#include "tmetal/support/power_of_two.h"
#include "tmetal/graph/tensor_checks.h"
#include "tmetal/hw/hardware_profile.h"

using namespace tmetal;
using namespace tmetal::graph;

namespace {

// A deliberately tiny GPU, so that small shapes reach every branch of the
// planner: several SIMD groups per threadgroup, several outputs per
// threadgroup, splits and second stages, threadgroup-memory limits.
hw::HardwareProfile tinyProfile() {
  hw::HardwareProfile p = *hw::findHardwareProfile("apple-generic");
  p.id = "tiny";
  p.name = "tiny test GPU";
  p.gpuCores = 2;
  p.simdWidth = 4;
  p.maxThreadsPerThreadgroup = 16;
  p.threadgroupMemoryBytes = 256;
  p.maxResidentThreadsPerCore = 32;
  return p;
}

struct Case {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  std::vector<int> axes;
  ir::ScalarKind dtype;
  Combiner combiner;
  PlanTuning tuning = PlanTuning{};
};

std::string describe(const Case& c, const hw::HardwareProfile& p) {
  std::string axes;
  for (int a : c.axes) axes += std::to_string(a) + " ";
  return "shape " + shapeText(c.shape) + " strides " + shapeText(c.strides) + " axes " + axes + "dtype " +
         ir::scalarName(c.dtype) + " combiner " + combinerName(c.combiner) + " tuning " + c.tuning.text() + " on " +
         p.id;
}

Case randomCase(std::mt19937_64& rng) {
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Case c;
  const int rank = uniform(1, 4);
  const int64_t budget = 2048;
  int64_t elements = 1;
  for (int d = 0; d < rank; ++d) {
    // Mostly small dimensions, some size 1, some long ones while the budget lasts.
    int64_t dim = uniform(0, 9) == 0 ? 1 : uniform(2, rank <= 2 ? 48 : 12);
    if (rank == 1 && uniform(0, 2) == 0) dim = uniform(50, 2000);
    dim = std::max<int64_t>(1, std::min<int64_t>(dim, budget / elements));
    c.shape.push_back(dim);
    elements *= dim;
  }
  // Strides: row-major, a permuted dense layout, padded rows, or a broadcast.
  std::vector<int> memoryOrder(rank);
  std::iota(memoryOrder.begin(), memoryOrder.end(), 0);  // slowest first
  int style = uniform(0, 19);
  if (style >= 12 && style < 16) std::shuffle(memoryOrder.begin(), memoryOrder.end(), rng);
  c.strides.assign(rank, 0);
  int64_t stride = 1;
  for (int i = rank - 1; i >= 0; --i) {
    int d = memoryOrder[i];
    c.strides[d] = stride;
    stride *= c.shape[d];
    if (style >= 16 && style < 19 && i == rank - 1) stride += uniform(1, 3);  // padded rows
  }
  if (style == 19) c.strides[uniform(0, rank - 1)] = 0;  // a broadcast dimension
  if (style == 11) c.strides[rank - 1] = 2;               // a strided view: no unit stride
  // Axes: a non-empty random subset.
  for (int d = 0; d < rank; ++d)
    if (uniform(0, 1)) c.axes.push_back(d);
  if (c.axes.empty()) c.axes.push_back(uniform(0, rank - 1));
  const ir::ScalarKind dtypes[] = {ir::ScalarKind::F32, ir::ScalarKind::F16, ir::ScalarKind::BF16,
                                   ir::ScalarKind::I8,  ir::ScalarKind::I32, ir::ScalarKind::I64,
                                   ir::ScalarKind::I1};
  c.dtype = dtypes[uniform(0, 6)];
  const Combiner combiners[] = {Combiner::Sum, Combiner::Mean,   Combiner::Max, Combiner::Min, Combiner::Prod,
                                Combiner::ArgMax, Combiner::ArgMin, Combiner::Any, Combiner::All};
  c.combiner = combiners[uniform(0, 8)];
  // Every tuning must keep the mapping exact; the defaults half the time.
  if (uniform(0, 1)) {
    c.tuning.loadsPerTrip = 1 << uniform(0, 3);
    c.tuning.vectorsPerThread = 1 << uniform(0, 5);
    c.tuning.maxThreads = 32 << uniform(0, 5);
  }
  return c;
}

// The output an input element belongs to, computed without the plan:
// row-major over the kept dimensions.
int64_t expectedOutput(const Case& c, int64_t inputIndex) {
  std::vector<int64_t> coords(c.shape.size());
  for (int d = static_cast<int>(c.shape.size()) - 1; d >= 0; --d) {
    coords[d] = inputIndex % c.shape[d];
    inputIndex /= c.shape[d];
  }
  int64_t out = 0;
  for (size_t d = 0; d < c.shape.size(); ++d)
    if (!std::binary_search(c.axes.begin(), c.axes.end(), static_cast<int>(d))) out = out * c.shape[d] + coords[d];
  return out;
}

void checkLaunch(const ReductionStage& s, const hw::HardwareProfile& p, const std::string& where) {
  ASSERT_GE(s.threadgroupSize, 1) << where;
  ASSERT_LE(s.threadgroupSize, p.maxThreadsPerThreadgroup) << where;
  ASSERT_EQ(s.threadgroupSize, s.threadsX * s.threadsY) << where;
  ASSERT_LE(s.threadgroupMemoryBytes, p.threadgroupMemoryBytes) << where;
  ASSERT_EQ(s.threadgroups, s.outputBlocks * s.splits) << where;
  ASSERT_EQ(s.reduceCount % s.vectorWidth, s.shape == StageShape::Rows ? 0 : s.reduceCount % s.vectorWidth) << where;
  // The stage kernel's tile is a power of two of loads per trip.
  ASSERT_TRUE(isPowerOfTwo(s.loadsPerTrip())) << where;
  ASSERT_GE(s.loadsPerTrip(), 1) << where;
  ASSERT_EQ(s.iterations * s.loadsPerTrip() * s.vectorWidth, s.elementsPerThread) << where;
  if (s.shape == StageShape::Rows) {
    ASSERT_EQ(s.threadsX * s.outputsPerThread, s.outputsPerThreadgroup * s.lanesPerOutput) << where;
    // Lanes of one output form a power-of-two group: inside one SIMD group,
    // or whole SIMD groups, as the butterfly / threadgroup combine needs.
    ASSERT_TRUE(isPowerOfTwo(s.lanesPerOutput)) << where;
    // Loads go along the row only for whole SIMD groups of lanes, and over
    // several outputs only for shorter rows; never both.
    if (s.vectorsPerTrip > 1) ASSERT_GE(s.lanesPerOutput, p.simdWidth) << where;
    if (s.outputsPerThread > 1) ASSERT_LT(s.lanesPerOutput, p.simdWidth) << where;
  } else {
    ASSERT_EQ(s.outputsPerThread, 1) << where;
    ASSERT_TRUE(isPowerOfTwo(s.threadsX)) << where;
    ASSERT_TRUE(isPowerOfTwo(s.threadsY)) << where;
  }
}

// Stage 0: every input element exactly once, for its own output; one
// accumulator per (thread, vector lane); each partial slot owned by one
// threadgroup and never empty; vectors contiguous and aligned.
void checkFirstStage(const Case& c, const ReductionPlan& plan, const std::string& where) {
  const ReductionStage& s = plan.stages[0];
  int64_t elements = 1;
  for (int64_t d : c.shape) elements *= d;
  std::vector<int> seen(elements, 0);
  std::map<std::pair<int64_t, int64_t>, int64_t> slotOwner;  // (output, partial) -> threadgroup
  for (int64_t g = 0; g < s.threadgroups; ++g) {
    std::map<std::pair<int64_t, int64_t>, int64_t> slotGroup;  // slot -> the lane group (Rows) that writes it
    for (int64_t t = 0; t < s.threadgroupSize; ++t)
      for (int k = 0; k < s.loadsPerTrip(); ++k)
      for (int v = 0; v < s.vectorWidth; ++v) {
        std::optional<std::pair<int64_t, int64_t>> accumulator;
        for (int64_t i = 0; i < s.iterations; ++i) {
          std::optional<StageElement> e = s.locate(g, t, i, k, v);
          if (!e) continue;
          ASSERT_GE(e->output, 0) << where;
          ASSERT_LT(e->output, plan.outputCount) << where;
          ASSERT_GE(e->reduce, 0) << where;
          ASSERT_LT(e->reduce, plan.reduceCount) << where;
          ASSERT_GE(e->partial, 0) << where;
          ASSERT_LT(e->partial, s.splits) << where;
          const int64_t index = plan.inputIndex(e->output, e->reduce);
          ASSERT_GE(index, 0) << where;
          ASSERT_LT(index, elements) << where;
          ++seen[index];
          ASSERT_EQ(plan.logicalOutput(e->output), expectedOutput(c, index)) << where << " element " << index;
          std::pair<int64_t, int64_t> slot{e->output, e->partial};
          if (accumulator)
            ASSERT_EQ(*accumulator, slot) << where << ": one load of a thread feeds two accumulators";
          accumulator = slot;
          auto [owner, inserted] = slotOwner.emplace(slot, g);
          ASSERT_EQ(owner->second, g) << where << ": a partial written by two threadgroups";
          if (s.shape == StageShape::Rows) {
            auto [group, fresh] = slotGroup.emplace(slot, t / s.lanesPerOutput);
            ASSERT_EQ(group->second, t / s.lanesPerOutput) << where << ": lanes of one output not grouped";
          }
          // Vector lanes v > 0 read the elements right after lane 0's, and
          // lane 0 starts aligned, so one vector load serves them all.
          if (v > 0) {
            std::optional<StageElement> first = s.locate(g, t, i, k, 0);
            ASSERT_TRUE(first.has_value()) << where;
            ASSERT_EQ(plan.inputOffset(e->output, e->reduce), plan.inputOffset(first->output, first->reduce) + v)
                << where << ": vector not contiguous";
          } else if (s.vectorWidth > 1) {
            ASSERT_EQ(plan.inputOffset(e->output, e->reduce) % s.vectorWidth, 0) << where << ": vector misaligned";
          }
        }
      }
  }
  for (int64_t i = 0; i < elements; ++i) ASSERT_EQ(seen[i], 1) << where << ": input element " << i;
  ASSERT_EQ(static_cast<int64_t>(slotOwner.size()), plan.outputCount * s.splits)
      << where << ": some partial slot is never written";
}

// Stage 1 of a two-stage plan: every partial exactly once, for its output,
// each output finished by one threadgroup; partial offsets a bijection.
void checkSecondStage(const ReductionPlan& plan, const std::string& where) {
  const ReductionStage& first = plan.stages[0];
  const ReductionStage& s = plan.stages[1];
  ASSERT_EQ(s.splits, 1) << where;
  ASSERT_EQ(s.outputs, plan.outputCount) << where;
  ASSERT_EQ(s.reduceCount, first.splits) << where;
  const int64_t partials = plan.outputCount * first.splits;
  std::vector<int> seen(partials, 0);
  std::set<int64_t> offsets;
  std::map<int64_t, int64_t> outputOwner;
  for (int64_t g = 0; g < s.threadgroups; ++g)
    for (int64_t t = 0; t < s.threadgroupSize; ++t)
      for (int64_t i = 0; i < s.iterations; ++i)
        for (int k = 0; k < s.loadsPerTrip(); ++k)
        for (int v = 0; v < s.vectorWidth; ++v) {
          std::optional<StageElement> e = s.locate(g, t, i, k, v);
          if (!e) continue;
          ASSERT_LT(e->output, plan.outputCount) << where;
          ASSERT_LT(e->reduce, first.splits) << where;
          ASSERT_EQ(e->partial, 0) << where;
          ++seen[e->output * first.splits + e->reduce];
          offsets.insert(plan.partialOffset(e->output, e->reduce));
          auto [owner, inserted] = outputOwner.emplace(e->output, g);
          ASSERT_EQ(owner->second, g) << where << ": an output finished by two threadgroups";
        }
  for (int64_t i = 0; i < partials; ++i) ASSERT_EQ(seen[i], 1) << where << ": partial " << i;
  ASSERT_EQ(static_cast<int64_t>(offsets.size()), partials) << where;
  ASSERT_GE(*offsets.begin(), 0) << where;
  ASSERT_LT(*offsets.rbegin(), partials) << where;
}

void checkPlan(const Case& c, const hw::HardwareProfile& p) {
  const std::string where = describe(c, p);
  ReductionPlan plan = planReduction({c.shape, c.strides, c.axes, c.dtype, c.combiner, c.tuning}, p);
  ASSERT_EQ(plan.layout.policy, layout::MemoryLayout::COALESCED) << where;
  ASSERT_TRUE(plan.stages.size() == 1 || plan.stages.size() == 2) << where;
  ASSERT_EQ(plan.twoStage(), plan.stages[0].splits > 1) << where;
  for (const ReductionStage& s : plan.stages) checkLaunch(s, p, where);
  checkFirstStage(c, plan, where);
  if (plan.twoStage()) checkSecondStage(plan, where);
}

}  // namespace

TEST(GraphPlanCoverage, RandomReductionsCoverEveryElementExactlyOnce) {
  std::mt19937_64 rng(20240611);
  const hw::HardwareProfile tiny = tinyProfile();
  const std::vector<hw::HardwareProfile> real = {*hw::findHardwareProfile("apple-generic"),
                                                 *hw::findHardwareProfile("m1-ultra"), *hw::findHardwareProfile("h100")};
  std::map<std::string, int> variants;  // how often each kernel variant was exercised
  int twoStage = 0;
  for (int n = 0; n < 3000; ++n) {
    Case c = randomCase(rng);
    const hw::HardwareProfile& p = n % 5 == 4 ? real[(n / 5) % real.size()] : tiny;
    checkPlan(c, p);
    if (HasFatalFailure()) return;
    ReductionPlan plan = planReduction({c.shape, c.strides, c.axes, c.dtype, c.combiner, c.tuning}, p);
    for (const ReductionStage& s : plan.stages) ++variants[s.kernel];
    twoStage += plan.twoStage();
  }
  // The random cases must actually reach every variant, or the property
  // says little.
  for (const char* kernel :
       {"all_reduce_one_threadgroup", "all_reduce_partials", "row_reduce_thread_per_row", "row_reduce_lanes_per_row",
        "row_reduce_simdgroup_per_row", "row_reduce_threadgroup_per_row", "row_reduce_partials", "col_reduce_tiles",
        "col_reduce_partials", "general_reduce_lanes_per_row", "reduce_partials_rows", "reduce_partials_columns"})
    EXPECT_GT(variants[kernel], 0) << kernel << " never planned";
  EXPECT_GT(twoStage, 100);
}

TEST(GraphPlanCoverage, LargeShapesOnRealProfiles) {
  const std::vector<Case> cases = {
      {{1 << 20}, {1}, {0}, ir::ScalarKind::F32, Combiner::Sum},
      {{1 << 16, 32}, {32, 1}, {1}, ir::ScalarKind::F32, Combiner::Max},
      {{7, 100003}, {100003, 1}, {1}, ir::ScalarKind::F16, Combiner::Sum},
      {{300000, 3}, {3, 1}, {0}, ir::ScalarKind::F32, Combiner::Sum},
      {{4096, 100}, {100, 1}, {0}, ir::ScalarKind::I32, Combiner::ArgMax},
      {{64, 64, 64}, {4096, 64, 1}, {0, 2}, ir::ScalarKind::BF16, Combiner::Mean},
      {{1000, 999}, {1, 1000}, {1}, ir::ScalarKind::F32, Combiner::Min},
  };
  for (const char* id : {"apple-generic", "m3-max", "m1-ultra", "h200"})
    for (const Case& c : cases) {
      checkPlan(c, *hw::findHardwareProfile(id));
      if (HasFatalFailure()) return;
    }
}
