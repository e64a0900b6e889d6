#include "tmetal/graph/reduction_planner.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "tmetal/graph/byte_size_text.h"
#include "tmetal/graph/tensor_checks.h"
#include "tmetal/layout/blocked_layout_choice.h"
#include "tmetal/support/diagnostic.h"
#include "tmetal/support/power_of_two.h"

namespace tmetal::graph {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t saturatingMultiply(int64_t a, int64_t b) {
  int64_t r = checkedMultiply(a, b);
  return r < 0 ? std::numeric_limits<int64_t>::max() : r;
}

// Threadgroups of `size` threads that one wave holds: every core's resident
// slots filled once.
int64_t waveThreadgroups(const hw::HardwareProfile& p, int64_t size) {
  int64_t resident = p.maxResidentThreadsPerCore > 0 ? p.maxResidentThreadsPerCore : p.maxThreadsPerThreadgroup;
  return int64_t(p.gpuCores) * std::max<int64_t>(1, resident / size);
}

// Vector width for reading partials: 16 bytes of accumulators that divide
// `extent`; arg-reductions read (value, index) pairs one at a time.
int partialsVectorWidth(int64_t extent, int accBytes, Combiner c) {
  if (combinerCarriesIndex(c)) return 1;
  int width = std::max(1, layout::kMaxVectorBytes / accBytes);
  while (width > 1 && extent % width != 0) width /= 2;
  return width;
}

std::string laneCombine(int lanes, const hw::HardwareProfile& p, Combiner c) {
  std::optional<std::string> simd = simdIntrinsic(c);
  if (lanes == 1) return "each thread reduces its output alone";
  if (lanes == p.simdWidth && simd) return *simd + " across the SIMD group";
  int steps = 0;
  for (int l = 1; l < std::min(lanes, p.simdWidth); l *= 2) ++steps;
  std::string within = lanes >= p.simdWidth && simd
                           ? *simd + " in each SIMD group"
                           : fmt::format("{}-step shuffle-xor butterfly across {} lanes", steps,
                                         std::min(lanes, p.simdWidth));
  if (lanes <= p.simdWidth) return within;
  return within + fmt::format(", then {} SIMD-group partials through threadgroup memory", ceilDiv(lanes, p.simdWidth));
}

// Lanes that one 16-byte vector load each spreads over a full 128-byte line,
// and over 32 bytes.
constexpr int64_t kLineLanes = layout::kCoalescedRowBytes / layout::kMaxVectorBytes;
constexpr int64_t kThirtyTwoByteLanes = 32 / layout::kMaxVectorBytes;
// Trips per thread from which a column stage of 4-byte sums or maxima reads
// half the tuning's rows per trip (StagePlanner::columns, step 4b).
constexpr int64_t kTripsForHalfLoads = 16;

struct StagePlanner {
  const hw::HardwareProfile& p;
  Combiner combiner;
  const PlanTuning& tuning;
  std::vector<std::string>& decisions;
  int inputBytes;  // of the reduced elements

  int64_t wave() const { return waveThreads(p); }
  std::string waveText() const {
    return fmt::format("one wave of {} threads ({} cores x {} resident threads)", wave(), p.gpuCores,
                       p.maxResidentThreadsPerCore);
  }
  int64_t maxThreads() const { return floorPowerOfTwo(std::min<int64_t>(p.maxThreadsPerThreadgroup, tuning.maxThreads)); }
  // Arg-reductions give each thread twice the tuning's work along the
  // reduction: a long row's lane reads twice the vectors, a column thread
  // twice the rows per trip. Every step of their combines (across lanes,
  // SIMD groups and the threads of a column) moves a (value, index) pair,
  // so more elements per thread before the combine measured faster
  // (docs/planner.md, "Work per thread of arg-reductions").
  int workFactor() const { return combinerCarriesIndex(combiner) ? 2 : 1; }
  int64_t vectorsPerLane() const { return int64_t(workFactor()) * tuning.vectorsPerThread; }
  int64_t rowsPerTrip() const { return int64_t(workFactor()) * tuning.loadsPerTrip; }
  // Column stages of arg-reductions of 16-bit values take threadgroups of
  // half the tuning's threads: measured on an H200 against the 512 of the
  // defaults, every float16 argmax along columns ran faster (0.5-17%; the
  // 3-D argmax along its middle axis 70.1 -> 65.6 us), while float16
  // maxima, without indices, were as often slower (docs/planner.md,
  // "Threadgroups of arg-reduction columns").
  int64_t columnThreads() const {
    const int64_t most = maxThreads();
    return combinerCarriesIndex(combiner) && inputBytes == 2 ? std::max<int64_t>(p.simdWidth, most / 2) : most;
  }
  std::string workNote(const char* what, int64_t value, int tuned) const {
    return workFactor() == 1 ? "" : fmt::format(" ({} {}: twice the tuning's {} for an arg-reduction)", value, what, tuned);
  }
  // Partials per output when a stage is split: as many threadgroups as one
  // wave holds (never a wave and a fraction: the fraction would run alone),
  // at least two, at most one per sweep.
  // `perCore`: threadgroups a core really holds at once, when fewer than
  // its thread limit allows (0: as many as that allows).
  int64_t splitsFor(int64_t blocks, int64_t threadgroupSize, int64_t sweeps, int64_t perCore = 0) const {
    const int64_t waveGroups =
        perCore > 0 ? saturatingMultiply(p.gpuCores, perCore) : waveThreadgroups(p, threadgroupSize);
    return std::clamp<int64_t>(tuning.splitWaves * waveGroups / blocks, 2, sweeps);
  }

  // Rows: `outputs` reductions of `reduce` elements each, contiguous along
  // the reduce index in vectors of `vector`.
  ReductionStage rows(int64_t outputs, int64_t reduce, int vector, int accBytes, bool allowSplit,
                      const std::string& stageName) {
    ReductionStage s;
    s.shape = StageShape::Rows;
    s.outputs = outputs;
    s.reduceCount = reduce;
    s.vectorWidth = vector;
    s.accumulatorBytes = accBytes;
    const int64_t vectors = reduce / vector;
    const int simd = p.simdWidth;
    const int64_t most = maxThreads();
    const int64_t rowLanes = nextPowerOfTwo(vectors);  // one vector per lane covers the row

    // 1. Lanes per output (a power of two): enough that each reads about
    // tuning.vectorsPerThread vectors, at least a 128-byte line's worth, and
    // more while the outputs alone would leave the GPU short of one wave.
    // Arg-reductions of rows a line covers take half the lanes, each reading
    // two vectors (a trip apart), down to 32 bytes of the row per trip: every
    // step of their lane combine moves a (value, index) pair, and one step
    // fewer measured faster (docs/planner.md, "Short rows").
    int64_t leastLanes = std::min(rowLanes, kLineLanes);
    if (combinerCarriesIndex(combiner) && rowLanes <= kLineLanes)
      leastLanes = std::max(std::min(rowLanes, kThirtyTwoByteLanes), rowLanes / 2);
    int64_t lanes = std::clamp(nextPowerOfTwo(ceilDiv(vectors, vectorsPerLane())), leastLanes,
                               std::min(most, rowLanes));
    const int64_t byWork = lanes;
    while (saturatingMultiply(outputs, lanes) < wave() && lanes < std::min(most, rowLanes)) lanes *= 2;
    decisions.push_back(
        lanes == byWork
            ? fmt::format("{}: {} vectors of {} per output: {} lane{} per output, about {} vectors each{}", stageName,
                          vectors, vector, lanes, lanes == 1 ? "" : "s", ceilDiv(vectors, lanes),
                          workNote("vectors per lane", vectorsPerLane(), tuning.vectorsPerThread))
            : fmt::format("{}: {} vectors of {} per output: {} lanes per output (not {}: {} outputs x {} lanes would "
                          "not fill {})",
                          stageName, vectors, vector, lanes, byWork, outputs, byWork, waveText()));
    s.lanesPerOutput = static_cast<int>(lanes);

    // 2. Independent loads per trip: along the row when the lanes are whole
    // SIMD groups, else over several outputs per thread (short rows), as
    // long as the threads still fill one wave.
    if (lanes >= simd) {
      s.vectorsPerTrip = static_cast<int>(std::min<int64_t>(tuning.loadsPerTrip, nextPowerOfTwo(ceilDiv(vectors, lanes))));
    } else {
      const int64_t spare = saturatingMultiply(outputs, lanes) / wave();
      s.outputsPerThread = static_cast<int>(std::clamp<int64_t>(floorPowerOfTwo(std::max<int64_t>(1, spare)), 1,
                                                                 tuning.loadsPerTrip));
    }
    s.sweeps = ceilDiv(vectors, lanes * s.vectorsPerTrip);
    decisions.push_back(s.outputsPerThread > 1
                            ? fmt::format("{}: {} loads per trip: each thread reads {} outputs", stageName,
                                          s.loadsPerTrip(), s.outputsPerThread)
                            : fmt::format("{}: {} load{} per trip: each lane reads {} vector{} of its row per sweep, "
                                          "{} sweep{}",
                                          stageName, s.loadsPerTrip(), s.loadsPerTrip() == 1 ? "" : "s",
                                          s.vectorsPerTrip, s.vectorsPerTrip == 1 ? "" : "s", s.sweeps,
                                          s.sweeps == 1 ? "" : "s"));

    // 3. Output slots per threadgroup: as many as fit (whole SIMD groups),
    // halved while the grid would not fill one wave of threadgroups of that
    // size, so that small problems still spread over every core. A split
    // stage keeps full threadgroups and adds splits instead.
    const int64_t groups = ceilDiv(outputs, s.outputsPerThread);  // thread slots the outputs need
    const bool split = allowSplit && saturatingMultiply(groups, lanes) < wave() && s.sweeps > 1;
    const int64_t mostSlots = std::max<int64_t>(1, most / lanes);
    const int64_t leastSlots = std::min(mostSlots, std::max<int64_t>(1, simd / lanes));
    int64_t slots = mostSlots;
    while (!split && slots > leastSlots && ceilDiv(groups, slots) < waveThreadgroups(p, slots * lanes))
      slots = std::max(leastSlots, slots / 2);
    slots = std::min(slots, groups);
    s.outputsPerThreadgroup = slots * s.outputsPerThread;
    s.threadsX = static_cast<int>(slots * lanes);
    s.threadsY = 1;
    s.threadgroupSize = s.threadsX;
    s.simdgroupsPerThreadgroup = static_cast<int>(ceilDiv(s.threadgroupSize, simd));
    s.outputBlocks = ceilDiv(outputs, s.outputsPerThreadgroup);
    s.splits = split ? splitsFor(s.outputBlocks, s.threadgroupSize, s.sweeps) : 1;
    if (split)
      decisions.push_back(fmt::format(
          "{}: {} output{} x {} lanes = {} threads, less than {}: each output is split over {} threadgroups taking "
          "turns over its {} sweeps (one wave of threadgroups); a second stage combines their partials",
          stageName, outputs, outputs == 1 ? "" : "s", lanes, groups * lanes, waveText(), s.splits, s.sweeps));
    else if (allowSplit)
      decisions.push_back(saturatingMultiply(groups, lanes) >= wave()
                              ? fmt::format("{}: {} thread slots x {} lanes = {} threads fill {}: no second stage",
                                            stageName, groups, lanes, groups * lanes, waveText())
                              : fmt::format("{}: the lanes read each output in {} sweep{}: no second stage",
                                            stageName, s.sweeps, s.sweeps == 1 ? "" : "s"));
    s.threadgroups = s.outputBlocks * s.splits;
    s.iterations = ceilDiv(s.sweeps, s.splits);
    s.elementsPerThread = s.iterations * s.loadsPerTrip() * vector;
    s.threadgroupMemoryBytes = lanes > simd ? ceilDiv(lanes, simd) * s.outputsPerThreadgroup * accBytes : 0;
    s.combine = laneCombine(static_cast<int>(lanes), p, combiner);
    decisions.push_back(fmt::format("{}: {} output{} ({} slot{} x {} lanes) = {} threads per threadgroup, {} "
                                    "threadgroup{}",
                                    stageName, s.outputsPerThreadgroup, s.outputsPerThreadgroup == 1 ? "" : "s",
                                    slots, slots == 1 ? "" : "s", lanes, s.threadgroupSize, s.threadgroups,
                                    s.threadgroups == 1 ? "" : "s"));
    return s;
  }

  // Columns: `outputs` reductions whose outputs are contiguous in runs of
  // `inner`; thread x owns `vector` neighbouring outputs, threads y split
  // the `reduce` rows.
  ReductionStage columns(int64_t outputs, int64_t inner, int64_t reduce, int vector, int accBytes, bool allowSplit,
                         const std::string& stageName) {
    ReductionStage s;
    s.shape = StageShape::Columns;
    s.outputs = outputs;
    s.innerOutputs = inner;
    s.reduceCount = reduce;
    s.vectorWidth = vector;
    s.accumulatorBytes = accBytes;
    const int simd = p.simdWidth;
    const int64_t most = columnThreads();
    if (most < maxThreads())
      decisions.push_back(fmt::format("{}: at most {} threads per threadgroup, half the tuning's {} for an "
                                      "arg-reduction of 16-bit values",
                                      stageName, most, maxThreads()));

    // 1. Lanes along the outputs: the run's vectors, up to a threadgroup,
    // fewer (down to a 128-byte line per row) while the output blocks would
    // not give every core a threadgroup of the wave: more blocks then share
    // the outputs instead of more splits, whose partials cost a second pass.
    const int64_t runs = outputs / inner;
    const int64_t widest = std::min(most, nextPowerOfTwo(ceilDiv(inner, vector)));
    auto blocksOf = [&](int64_t lanes) { return saturatingMultiply(runs, ceilDiv(inner, lanes * vector)); };
    auto narrowed = [&](int64_t least) {
      int64_t lanes = widest;
      while (lanes > std::min(least, most) && blocksOf(lanes) < waveThreadgroups(p, most)) lanes /= 2;
      return lanes;
    };
    // 2. Threads along the reduction: the rest of the threadgroup, as long
    // as every thread's accumulators fit in threadgroup memory for the final
    // combine, and never more rows than there are.
    auto rowLimit = [&](int64_t lanes) {
      const int64_t byMemory = p.threadgroupMemoryBytes / (lanes * vector * accBytes);
      return floorPowerOfTwo(std::max<int64_t>(1, std::min<int64_t>(most / lanes, byMemory)));
    };
    auto rowsOfThreads = [&](int64_t lanes) { return std::min(rowLimit(lanes), floorPowerOfTwo(reduce)); };
    // 3. Independent loads per trip: each thread reads that many rows.
    auto loadsPerTrip = [&](int64_t rows) { return std::min(rowsPerTrip(), nextPowerOfTwo(ceilDiv(reduce, rows))); };
    auto sweepsOf = [&](int64_t rows) { return ceilDiv(reduce, rows * loadsPerTrip(rows)); };
    // 4's test: the output blocks leave the GPU short of one wave and the
    // rows take more than one sweep.
    auto shortOfWaveWith = [&](int64_t blocks, int64_t threadgroupSize, int64_t sweeps) {
      return allowSplit && saturatingMultiply(blocks, threadgroupSize) < wave() && sweeps > 1;
    };
    int64_t tx = narrowed(tuning.columnLanes > 0 ? tuning.columnLanes : kLineLanes);
    // A stage of sums or maxima that will be split anyway (step 4) reads
    // 256 bytes of each row instead: measured on an H200, float32 column
    // sums and maxima of 16384x16384 ran 1.3% faster so (with half or twice
    // the threadgroups alike), while float32 and float16 argmax lost up to
    // 3%, and a stage that one line keeps whole would gain a second stage
    // (docs/planner.md, "Row segments of column stages").
    const bool splitsAnyway = !combinerCarriesIndex(combiner) &&
                              shortOfWaveWith(blocksOf(tx), tx * rowsOfThreads(tx), sweepsOf(rowsOfThreads(tx)));
    if (tuning.columnLanes == 0 && splitsAnyway && tx < 2 * kLineLanes) {
      tx = narrowed(2 * kLineLanes);
      decisions.push_back(fmt::format("{}: split in any case, so {} lanes (up to 256 bytes of each row) rather than a "
                                      "128-byte line's {}",
                                      stageName, tx, kLineLanes));
    }
    const int64_t tyLimit = rowLimit(tx);
    const int64_t ty = rowsOfThreads(tx);
    s.threadsX = static_cast<int>(tx);
    s.threadsY = static_cast<int>(ty);
    s.threadgroupSize = static_cast<int>(tx * ty);
    s.simdgroupsPerThreadgroup = static_cast<int>(ceilDiv(s.threadgroupSize, simd));
    s.outputsPerThreadgroup = tx * vector;
    s.outputBlocks = blocksOf(tx);
    s.vectorsPerTrip = static_cast<int>(loadsPerTrip(ty));
    s.sweeps = sweepsOf(ty);
    decisions.push_back(fmt::format(
        "{}: {} lane{} x {} outputs each along the contiguous run of {}; {} threads along the {} reduced rows (at "
        "most {} within {} threads and {} bytes of threadgroup memory), {} row{} each per trip{}: {} sweep{}",
        stageName, tx, tx == 1 ? "" : "s", vector, inner, ty, reduce, tyLimit, most, p.threadgroupMemoryBytes,
        s.vectorsPerTrip, s.vectorsPerTrip == 1 ? "" : "s",
        workNote("rows at most", rowsPerTrip(), tuning.loadsPerTrip), s.sweeps, s.sweeps == 1 ? "" : "s"));

    // 4. Split the rows over several threadgroups when the output blocks
    // alone leave the GPU short of one wave. An arg-reduction whose stage
    // keeps two threadgroups per core (step 5) gets them in the registers
    // of two: each thread's (value, index) accumulators and loads fill the
    // 64 registers a thread has then (NVIDIA's compiler, "Splits of
    // arg-reduction columns" in docs/planner.md), so its wave is two
    // threadgroups per core and a split counted by the thread limit would
    // run in two waves. A tuning that sets the residency (resident=N) sets
    // it instead, and the split stays counted by the thread limit. Such a
    // stage whose output blocks alone take 90% or more of that wave's
    // threadgroup slots does not split: its second stage (about 2 us and a
    // launch on the H200) costs more than the few idle slots ("Splits of
    // arg-reduction columns" in docs/planner.md).
    const int resident = p.maxResidentThreadsPerCore;
    const bool twoPerCore = ty > 1 && resident >= 2 * s.threadgroupSize;
    const int64_t argPerCore = twoPerCore && combinerCarriesIndex(combiner) && tuning.residentThreadgroups == 0 ? 2 : 0;
    const int64_t argWave = saturatingMultiply(p.gpuCores, argPerCore);
    const bool fillsArgWave = argPerCore > 0 && saturatingMultiply(s.outputBlocks, 10) >= saturatingMultiply(argWave, 9);
    s.splits = 1;
    const int64_t threads = saturatingMultiply(s.outputBlocks, s.threadgroupSize);
    const bool shortOfWave = shortOfWaveWith(s.outputBlocks, s.threadgroupSize, s.sweeps);
    if (shortOfWave && !fillsArgWave) {
      s.splits = splitsFor(s.outputBlocks, s.threadgroupSize, s.sweeps, argPerCore);
      decisions.push_back(fmt::format(
          "{}: {} output block{} x {} threads = {} threads, less than {}: the rows are split over {} threadgroups "
          "taking turns over the {} sweeps (one wave of threadgroups{}); a second stage combines their partials",
          stageName, s.outputBlocks, s.outputBlocks == 1 ? "" : "s", s.threadgroupSize, threads, waveText(), s.splits,
          s.sweeps, argPerCore ? ", two per core for an arg-reduction" : ""));
    } else if (shortOfWave) {
      decisions.push_back(fmt::format("{}: {} output blocks fill 90% or more of one wave of {} threadgroups (two per "
                                      "core for an arg-reduction): no second stage",
                                      stageName, s.outputBlocks, argWave));
    } else if (allowSplit) {
      decisions.push_back(threads >= wave()
                              ? fmt::format("{}: {} output blocks x {} threads = {} threads fill {}: no second stage",
                                            stageName, s.outputBlocks, s.threadgroupSize, threads, waveText())
                              : fmt::format("{}: the threads read the rows in {} sweep{}: no second stage", stageName,
                                            s.sweeps, s.sweeps == 1 ? "" : "s"));
    }
    s.threadgroups = s.outputBlocks * s.splits;
    s.iterations = ceilDiv(s.sweeps, s.splits);
    // 4b. A stage of 4-byte sums, maxima or the like (not an arg-reduction)
    // whose threads along the rows take 16 trips or more reads half the
    // tuning's rows per trip, in twice the trips; its threadgroups and
    // splits stay. On an H100 the float32 column sums and maxima of
    // 16384x16384 ran 1.2% faster so, of 512x512x512 along the middle axis
    // 1.3%, while one thread along the 32 rows of 32x4194304 lost 1% and
    // float16 columns up to 1.5% (docs/planner.md, "Rows per trip of float32
    // columns").
    if (!combinerCarriesIndex(combiner) && inputBytes == 4 && ty > 1 && s.vectorsPerTrip > 1 &&
        s.iterations >= kTripsForHalfLoads) {
      s.vectorsPerTrip /= 2;
      s.sweeps = ceilDiv(reduce, ty * s.vectorsPerTrip);
      s.iterations = ceilDiv(s.sweeps, s.splits);
      decisions.push_back(fmt::format("{}: {} row{} per trip in {} trips (half the tuning's rows per trip: 4-byte "
                                      "sums or the like, {} trips or more)",
                                      stageName, s.vectorsPerTrip, s.vectorsPerTrip == 1 ? "" : "s", s.iterations,
                                      kTripsForHalfLoads));
    }
    s.elementsPerThread = s.iterations * s.loadsPerTrip() * vector;
    s.threadgroupMemoryBytes = ty > 1 ? ty * tx * vector * accBytes : 0;
    s.combine = ty > 1 ? fmt::format("{} rows of accumulators combined through threadgroup memory", ty)
                       : "each thread reduces its outputs alone";
    // 5. Two threadgroups per core: the combine through threadgroup memory
    // ends every threadgroup behind barriers, and a second one resident
    // keeps loads in flight meanwhile. Left alone, NVIDIA's compiler spends
    // registers until one 512-thread threadgroup fills a core (83 per
    // thread for float16 argmax); the hint caps them (docs/planner.md).
    if (twoPerCore) {
      s.minThreadgroupsPerCore = 2;
      decisions.push_back(fmt::format("{}: at least 2 threadgroups per core, so that one's loads overlap the other's "
                                      "combine through threadgroup memory",
                                      stageName));
    }
    decisions.push_back(fmt::format("{}: {} x {} = {} threads per threadgroup, {} threadgroup{}", stageName, tx, ty,
                                    s.threadgroupSize, s.threadgroups, s.threadgroups == 1 ? "" : "s"));
    return s;
  }
};

// Whether a stage's trips are written out rather than looped over. Both
// limits are measured on an H200 (docs/planner.md, "Trips written out"):
// rows of up to 4 trips gain (arg-reductions of short rows most); longer
// rows lost up to 11 points where the written-out float16 argmax needed
// more registers than a core's four threadgroups leave. Columns gain with
// up to 32 trips where they keep exactly two threadgroups per core (the
// compiled kernel may then use 64 registers a thread, which the written-out
// loads fit in) and lost where they would have kept more. Columns of one
// thread along the rows (no threadgroup combine) that widen each element
// (float16 sums accumulate in float32) gain with up to 16 trips: a widening
// trip does more work per load, and looped, no load of the next trip is in
// flight during it; the same columns of float32 sums and maxima lost 2-3
// points written out.
constexpr int64_t kMostRowTrips = 4, kMostColumnTrips = 32, kMostWideningColumnTrips = 16;
bool writeOutTrips(const ReductionStage& s, bool widens) {
  if (s.iterations <= 1) return true;
  if (s.shape == StageShape::Rows) return s.iterations <= kMostRowTrips;
  if (widens && s.threadsY == 1) return s.iterations <= kMostWideningColumnTrips;
  return s.minThreadgroupsPerCore == 2 && s.iterations <= kMostColumnTrips;
}

std::string stage0Kernel(ReductionKind kind, const ReductionStage& s, const hw::HardwareProfile& p) {
  if (kind == ReductionKind::Column) return s.splits > 1 ? "col_reduce_partials" : "col_reduce_tiles";
  if (kind == ReductionKind::All) return s.splits > 1 ? "all_reduce_partials" : "all_reduce_one_threadgroup";
  std::string prefix = kind == ReductionKind::General ? "general_reduce" : "row_reduce";
  if (s.splits > 1) return prefix + "_partials";
  if (s.lanesPerOutput == 1) return prefix + "_thread_per_row";
  if (s.lanesPerOutput < p.simdWidth) return prefix + "_lanes_per_row";
  if (s.lanesPerOutput == p.simdWidth) return prefix + "_simdgroup_per_row";
  return prefix + "_threadgroup_per_row";
}

void checkDtype(ir::ScalarKind dtype, const hw::HardwareProfile& p) {
  if (dtype == ir::ScalarKind::F64 && !p.fp64)
    throw CompileError(std::string("float64 is not supported on ") + p.name + ": Metal has no 64-bit float type");
  if (dtype == ir::ScalarKind::BF16 && !p.bfloat)
    throw CompileError(std::string("bfloat16 is not supported on ") + p.name);
}

}  // namespace

std::string PlanTuning::text() const {
  std::string text = fmt::format("loads={},vectors={},threads={}", loadsPerTrip, vectorsPerThread, maxThreads);
  if (residentThreadgroups > 0) text += fmt::format(",resident={}", residentThreadgroups);
  if (splitWaves != 1) text += fmt::format(",waves={}", splitWaves);
  if (columnLanes > 0) text += fmt::format(",lanes={}", columnLanes);
  return text;
}

PlanTuning parsePlanTuning(const std::string& text, const std::string& where) {
  PlanTuning t;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    int* field = key == "loads"      ? &t.loadsPerTrip
                 : key == "vectors"  ? &t.vectorsPerThread
                 : key == "threads"  ? &t.maxThreads
                 : key == "resident" ? &t.residentThreadgroups
                 : key == "waves"    ? &t.splitWaves
                 : key == "lanes"    ? &t.columnLanes
                                     : nullptr;
    if (!field)
      throw CompileError(fmt::format("{}: unknown key '{}' (known: loads, vectors, threads, resident, waves, lanes)", where, key));
    int value = 0;
    const std::string digits = eq == std::string::npos ? "" : item.substr(eq + 1);
    bool ok = !digits.empty() && digits.size() <= 5 &&
              std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (ok) value = std::stoi(digits);
    if (key == "resident") {  // any count: a core holds 3 threadgroups of 512 as well as 2 or 4
      if (!ok || value > 32)
        throw CompileError(fmt::format("{}: '{}' needs a count of threadgroups per core from 0 (the planner's rule) "
                                       "to 32, as in resident=4",
                                       where, item));
    } else if (key == "lanes") {
      if (!ok || value > 1024 || (value > 0 && !isPowerOfTwo(value)))
        throw CompileError(fmt::format("{}: '{}' needs 0 (the planner's rule) or a power of two from 1 to 1024, as "
                                       "in lanes=16",
                                       where, item));
    } else {
      const int lo = key == "threads" ? 32 : 1, hi = key == "threads" ? 1024 : key == "waves" ? 16 : 64;
      if (!ok || value < lo || value > hi || !isPowerOfTwo(value))
        throw CompileError(fmt::format("{}: '{}' needs a power of two from {} to {}, as in {}={}", where, item, lo, hi,
                                       key, lo * 4 <= hi ? lo * 4 : lo));
    }
    *field = value;
  }
  return t;
}

PlanTuning planTuningFromEnvironment() {
  const char* text = std::getenv("TMETAL_PLAN_TUNING");
  return text ? parsePlanTuning(text, "TMETAL_PLAN_TUNING") : PlanTuning{};
}

int64_t waveThreads(const hw::HardwareProfile& p) {
  int64_t resident = p.maxResidentThreadsPerCore > 0 ? p.maxResidentThreadsPerCore : p.maxThreadsPerThreadgroup;
  return int64_t(p.gpuCores) * resident;
}

ReductionPlan planReduction(const ReductionRequest& request, const hw::HardwareProfile& profile) {
  ReductionPlan plan;
  plan.shape = request.shape;
  const int64_t elements = checkShape(plan.shape);
  plan.strides = request.strides.empty() ? layout::rowMajorStrides(plan.shape) : request.strides;
  checkStrides(plan.strides, plan.shape);
  if (request.axes.empty()) throw CompileError("a reduction needs at least one axis");
  std::vector<int64_t> axesAsWritten(request.axes.begin(), request.axes.end());
  plan.axes = normalizeAxes(axesAsWritten, plan.shape);
  checkDtype(request.dtype, profile);
  plan.dtype = request.dtype;
  plan.combiner = request.combiner;
  plan.hardware = profile.id;
  const int elementBytes = scalarBytes(plan.dtype);

  layout::TensorAccess access{plan.shape, plan.strides, elementBytes, plan.axes, std::nullopt};
  plan.layout = layout::choosePolicy(layout::AccessPattern::Reduction, access, profile);
  const std::vector<int>& run = plan.layout.contiguousDims;
  auto inRun = [&](int d) { return std::find(run.begin(), run.end(), d) != run.end(); };
  auto reduced = [&](int d) { return std::binary_search(plan.axes.begin(), plan.axes.end(), d); };

  // Output and reduce spaces. Dimensions outside the contiguous run go
  // first (kept ones in logical order, reduced ones by falling stride); the
  // run goes last, outermost first, so that consecutive indices walk memory.
  std::vector<int> keptDims, reducedDims;
  for (int d = 0; d < static_cast<int>(plan.shape.size()); ++d) {
    if (plan.shape[d] == 1 || inRun(d)) continue;
    (reduced(d) ? reducedDims : keptDims).push_back(d);
  }
  std::stable_sort(reducedDims.begin(), reducedDims.end(),
                   [&](int a, int b) { return plan.strides[a] > plan.strides[b]; });
  for (auto it = run.rbegin(); it != run.rend(); ++it) (reduced(*it) ? reducedDims : keptDims).push_back(*it);
  for (int d : keptDims) {
    plan.outputSpace.dims.push_back(d);
    plan.outputSpace.sizes.push_back(plan.shape[d]);
  }
  for (int d : reducedDims) {
    plan.reduceSpace.dims.push_back(d);
    plan.reduceSpace.sizes.push_back(plan.shape[d]);
  }
  plan.outputCount = plan.outputSpace.count();
  plan.reduceCount = plan.reduceSpace.count();

  // Kind: from what the unit-stride run is.
  if (plan.outputCount == 1) {
    plan.kind = ReductionKind::All;
    plan.decisions.push_back("kind all: every dimension of size > 1 is reduced, one output");
  } else if (!run.empty() && plan.layout.contiguousRunReduced) {
    plan.kind = ReductionKind::Row;
    plan.decisions.push_back(fmt::format("kind row: the contiguous run is reduced; {} outputs of {} elements",
                                         plan.outputCount, plan.reduceCount));
  } else if (!run.empty()) {
    plan.kind = ReductionKind::Column;
    plan.decisions.push_back(fmt::format(
        "kind column: the contiguous run is kept; {} outputs, neighbouring ones adjacent in memory, {} elements each",
        plan.outputCount, plan.reduceCount));
  } else {
    plan.kind = ReductionKind::General;
    plan.decisions.push_back(fmt::format("kind general: no dimension has unit stride; {} outputs of {} elements",
                                         plan.outputCount, plan.reduceCount));
  }
  const int vector = plan.layout.vectorWidth;
  plan.decisions.push_back(fmt::format("vector width {} ({} bytes): the widest access up to {} bytes that divides the "
                                       "contiguous run of {} and keeps vectors aligned",
                                       vector, plan.layout.vectorBytes, layout::kMaxVectorBytes,
                                       plan.layout.contiguousElements));

  plan.accumulator = accumulatorKind(plan.combiner, plan.dtype);
  const int accBytes = accumulatorBytes(plan.combiner, plan.dtype, plan.reduceCount);
  plan.tuning = request.tuning;
  plan.decisions.push_back("work per thread: " + plan.tuning.text() + " (docs/planner.md)");
  StagePlanner planner{profile, plan.combiner, plan.tuning, plan.decisions, scalarBytes(plan.dtype)};

  ReductionStage first =
      plan.kind == ReductionKind::Column
          ? planner.columns(plan.outputCount, plan.layout.contiguousElements, plan.reduceCount, vector, accBytes, true,
                            "stage 1")
          : planner.rows(plan.outputCount, plan.reduceCount, vector, accBytes, true, "stage 1");
  first.kernel = stage0Kernel(plan.kind, first, profile);
  if (plan.tuning.residentThreadgroups > 0) {
    const int most = std::max(1, profile.maxResidentThreadsPerCore / first.threadgroupSize);
    first.minThreadgroupsPerCore = std::min(plan.tuning.residentThreadgroups, most);
    plan.decisions.push_back(fmt::format("stage 1: {} threadgroup{} per core, as the tuning asks (resident={}; a core "
                                         "holds at most {} of {} threads)",
                                         first.minThreadgroupsPerCore, first.minThreadgroupsPerCore == 1 ? "" : "s",
                                         plan.tuning.residentThreadgroups, most, first.threadgroupSize));
  }
  // The first stage widens what it reads where the accumulator is wider
  // than the input; the second reads accumulators.
  const bool widens = scalarBytes(plan.accumulator) > scalarBytes(plan.dtype);
  first.tripsWrittenOut = writeOutTrips(first, widens);
  plan.stages.push_back(first);

  if (first.splits > 1) {
    // The partials are laid out so that the second stage reads them the way
    // the first wrote them: [output][partial] after rows, [partial][output]
    // after columns. Both are contiguous, so the second stage is a plain
    // row or column reduction of them that never splits again.
    const int64_t partials = first.splits;
    ReductionStage second;
    if (first.shape == StageShape::Rows) {
      second = planner.rows(plan.outputCount, partials, partialsVectorWidth(partials, accBytes, plan.combiner),
                            accBytes, false, "stage 2");
      second.kernel = "reduce_partials_rows";
    } else {
      second = planner.columns(plan.outputCount, plan.outputCount, partials,
                               partialsVectorWidth(plan.outputCount, accBytes, plan.combiner), accBytes, false,
                               "stage 2");
      second.kernel = "reduce_partials_columns";
    }
    second.tripsWrittenOut = writeOutTrips(second, false);
    plan.stages.push_back(second);
  }
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    const ReductionStage& s = plan.stages[i];
    if (s.iterations > 1)
      plan.decisions.push_back(
          s.tripsWrittenOut
              ? fmt::format("stage {}: the {} trips are written out one after another (no loop)", i + 1, s.iterations)
              : fmt::format("stage {}: a loop over {} trips ({})", i + 1, s.iterations,
                            s.shape == StageShape::Rows
                                ? fmt::format("rows are written out up to {} trips", kMostRowTrips)
                                : fmt::format("columns are written out up to {} trips, with two threadgroups per core, "
                                              "and up to {} with one thread along the rows where the accumulator "
                                              "is wider than the input",
                                              kMostColumnTrips, kMostWideningColumnTrips)));
  }
  if (plan.combiner == Combiner::Mean)
    plan.decisions.push_back(fmt::format("mean: the last stage divides each sum by {}", plan.reduceCount));
  for (const ReductionStage& s : plan.stages)
    if (s.threadgroups > kMaxThreadgroupsPerDispatch)
      throw CompileError(fmt::format("the reduction needs {} threadgroups, more than one dispatch allows ({})",
                                     s.threadgroups, kMaxThreadgroupsPerDispatch));

  // Bytes in flight: a wave of threads, each with its trip's loads issued
  // before their first use. Little's law turns that into the memory latency
  // peak bandwidth tolerates; the decision trail shows the figure.
  const double inFlightBytes =
      double(waveThreads(profile)) * plan.stages.front().loadsPerTrip() * layout::kMaxVectorBytes;
  plan.decisions.push_back(fmt::format(
      "bandwidth: one wave with {} 16-byte load{} per thread in flight holds {}, enough for {} GB/s up to a memory "
      "latency of {:.1f} us",
      plan.stages.front().loadsPerTrip(), plan.stages.front().loadsPerTrip() == 1 ? "" : "s",
      formatBytes(static_cast<int64_t>(inFlightBytes)), profile.dramBandwidthGBs,
      inFlightBytes / (profile.dramBandwidthGBs * 1e3)));

  plan.inputBytes = saturatingMultiply(elements, elementBytes);
  plan.dramMicroseconds = double(plan.inputBytes) / (profile.dramBandwidthGBs * 1e3);
  plan.fitsInLastLevelCache = plan.inputBytes <= profile.lastLevelCacheBytes;
  return plan;
}

}  // namespace tmetal::graph
