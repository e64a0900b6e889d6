// The reduction planner's decisions on shapes a reader can check by hand,
// including the two the analyzer shows as examples, and that its choices
// follow the hardware profile.
#include <gtest/gtest.h>

#include "tmetal/graph/reduction_planner.h"
#include "tmetal/support/diagnostic.h"

using namespace tmetal;
using namespace tmetal::graph;

namespace {
hw::HardwareProfile profile(const char* id) { return *hw::findHardwareProfile(id); }
ReductionPlan plan(std::vector<int64_t> shape, std::vector<int> axes, const char* hardware = "apple-generic",
                   ir::ScalarKind dtype = ir::ScalarKind::F32, Combiner c = Combiner::Sum,
                   std::vector<int64_t> strides = {}) {
  // The default tuning, whatever TMETAL_PLAN_TUNING says.
  return planReduction({shape, strides, axes, dtype, c, PlanTuning{}}, profile(hardware));
}
std::string planError(std::vector<int64_t> shape, std::vector<int> axes, std::vector<int64_t> strides = {},
                      ir::ScalarKind dtype = ir::ScalarKind::F32) {
  try {
    planReduction({shape, strides, axes, dtype, Combiner::Sum, PlanTuning{}}, profile("apple-generic"));
  } catch (const CompileError& e) {
    return e.message();
  }
  return "no error";
}
}  // namespace

TEST(GraphReductionPlanner, LargeSumOverOneAxisRunsInTwoStages) {
  // tt.sum:[1048576]:0 on the generic profile (8 cores x 3072 resident threads).
  ReductionPlan p = plan({1048576}, {0});
  EXPECT_EQ(p.kind, ReductionKind::All);
  ASSERT_TRUE(p.twoStage());
  const ReductionStage& first = p.stages[0];
  EXPECT_EQ(first.kernel, "all_reduce_partials");
  EXPECT_EQ(first.vectorWidth, 4);
  EXPECT_EQ(first.threadgroupSize, 512);  // the default tuning's largest threadgroup
  EXPECT_EQ(first.simdgroupsPerThreadgroup, 16);
  EXPECT_EQ(first.lanesPerOutput, 512);
  EXPECT_EQ(first.vectorsPerTrip, 2);     // two independent float4 loads per trip
  EXPECT_EQ(first.loadsPerTrip(), 2);
  EXPECT_EQ(first.sweeps, 256);          // 262144 vectors / (512 lanes x 2)
  EXPECT_EQ(first.splits, 48);           // one wave of threadgroups: 8 cores x 3072 / 512
  EXPECT_EQ(first.threadgroups, 48);
  EXPECT_EQ(first.iterations, 6);        // ceil(256 / 48)
  EXPECT_EQ(first.elementsPerThread, 6 * 2 * 4);
  EXPECT_EQ(p.partialsPerOutput(), 48);
  const ReductionStage& second = p.stages[1];
  EXPECT_EQ(second.kernel, "reduce_partials_rows");
  EXPECT_EQ(second.reduceCount, 48);
  EXPECT_EQ(second.threadgroups, 1);
  EXPECT_EQ(second.vectorWidth, 4);
  EXPECT_EQ(second.lanesPerOutput, 16);  // 12 vectors: the next power of two
  EXPECT_EQ(p.inputBytes, 4 << 20);
  EXPECT_TRUE(p.fitsInLastLevelCache);
}

TEST(GraphReductionPlanner, ShortRowsPackManyRowsPerThreadgroup) {
  // tt.max:[4194304,32]:1: 8 vectors per row, so 8 lanes per row (one
  // 128-byte line); the rows fill the GPU many times over, so each thread
  // takes two rows' vectors per trip: 64 slots x 2 = 128 rows per threadgroup.
  ReductionPlan p = plan({4194304, 32}, {1}, "apple-generic", ir::ScalarKind::F32, Combiner::Max);
  EXPECT_EQ(p.kind, ReductionKind::Row);
  ASSERT_FALSE(p.twoStage());
  const ReductionStage& s = p.stages[0];
  EXPECT_EQ(s.kernel, "row_reduce_lanes_per_row");
  EXPECT_EQ(s.lanesPerOutput, 8);
  EXPECT_EQ(s.outputsPerThread, 2);
  EXPECT_EQ(s.vectorsPerTrip, 1);
  EXPECT_EQ(s.outputsPerThreadgroup, 128);
  EXPECT_EQ(s.threadgroupSize, 512);
  EXPECT_EQ(s.threadgroups, 32768);
  EXPECT_EQ(s.iterations, 1);
  EXPECT_EQ(s.combine, "3-step shuffle-xor butterfly across 8 lanes");
  EXPECT_EQ(s.threadgroupMemoryBytes, 0);
  EXPECT_EQ(s.minThreadgroupsPerCore, 0);  // rows leave it to the compiler
}

TEST(GraphReductionPlanner, SmallAllReduceIsOneThreadgroup) {
  // Up to one sweep of a full threadgroup (512 lanes x 2 loads x 4 floats)
  // needs no second stage: the same 4096-element threshold MLX uses for float32.
  ReductionPlan p = plan({4096}, {0});
  EXPECT_FALSE(p.twoStage());
  EXPECT_EQ(p.stages[0].kernel, "all_reduce_one_threadgroup");
  EXPECT_EQ(p.stages[0].threadgroupSize, 512);
  EXPECT_TRUE(plan({4100}, {0}).twoStage());
  // float16 vectors hold 8 elements, so the threshold doubles.
  EXPECT_FALSE(plan({8192}, {0}, "apple-generic", ir::ScalarKind::F16).twoStage());
}

TEST(GraphReductionPlanner, RowVariantsFollowTheRowLength) {
  EXPECT_EQ(plan({65536, 4}, {1}).stages[0].kernel, "row_reduce_thread_per_row");
  // 32 vectors per row: 4 lanes would read 8 vectors each, but a load of
  // the lanes should cover a 128-byte line: 8 lanes.
  EXPECT_EQ(plan({65536, 128}, {1}).stages[0].kernel, "row_reduce_lanes_per_row");
  EXPECT_EQ(plan({65536, 128}, {1}).stages[0].lanesPerOutput, 8);
  ReductionPlan wide = plan({65536, 1024}, {1});
  EXPECT_EQ(wide.stages[0].kernel, "row_reduce_simdgroup_per_row");
  EXPECT_EQ(wide.stages[0].lanesPerOutput, 32);
  EXPECT_EQ(wide.stages[0].vectorsPerTrip, 2);
  EXPECT_EQ(wide.stages[0].sweeps, 4);  // 256 vectors / (32 lanes x 2)
  EXPECT_EQ(wide.stages[0].combine, "simd_sum across the SIMD group");
  // Rows of 16384 floats: 512 lanes (the threadgroup), SIMD-group partials
  // through threadgroup memory.
  ReductionPlan longer = plan({8192, 16384}, {1});
  EXPECT_EQ(longer.stages[0].kernel, "row_reduce_threadgroup_per_row");
  EXPECT_EQ(longer.stages[0].lanesPerOutput, 512);
  EXPECT_EQ(longer.stages[0].combine,
            "simd_sum in each SIMD group, then 16 SIMD-group partials through threadgroup memory");
  // Few rows: more lanes per row while the rows leave the GPU short of a wave.
  EXPECT_EQ(plan({16, 4096}, {1}).stages[0].lanesPerOutput, 512);
  // Few long rows: split each row, a second stage adds the partials.
  ReductionPlan few = plan({8, 1 << 20}, {1});
  EXPECT_EQ(few.stages[0].kernel, "row_reduce_partials");
  EXPECT_EQ(few.partialsPerOutput(), 6);  // 8 blocks; one wave holds 48 threadgroups of 512
}

TEST(GraphReductionPlanner, FloatColumnsSweptManyTimesReadHalfTheRowsPerTrip) {
  // 16384x16384 along axis 0 on an H100: 32 threads along the rows, split
  // over 2 threadgroups, 128 trips of 2 rows. Float32 sums and maxima read 1
  // row per trip in 256 trips; float16 ones and arg-reductions keep theirs
  // (2, and twice that).
  const ReductionPlan sums = plan({16384, 16384}, {0}, "h100");
  EXPECT_EQ(sums.stages[0].vectorsPerTrip, 1);
  EXPECT_EQ(sums.stages[0].iterations, 256);
  EXPECT_EQ(sums.stages[0].splits, 2);
  EXPECT_EQ(plan({16384, 16384}, {0}, "h100", ir::ScalarKind::F32, Combiner::Max).stages[0].vectorsPerTrip, 1);
  EXPECT_EQ(plan({16384, 16384}, {0}, "h100", ir::ScalarKind::F16).stages[0].vectorsPerTrip, 2);
  EXPECT_EQ(plan({16384, 16384}, {0}, "h100", ir::ScalarKind::F32, Combiner::ArgMax).stages[0].vectorsPerTrip, 4);
  // The middle axis of 512x512x512: 8 threads along 512 rows, 32 trips.
  EXPECT_EQ(plan({512, 512, 512}, {1}, "h100").stages[0].vectorsPerTrip, 1);
  // One thread along the 32 rows of 32x4194304: 2 rows per trip, 16 trips.
  const ReductionPlan skinny = plan({32, 1 << 22}, {0}, "h100");
  EXPECT_EQ(skinny.stages[0].threadsY, 1);
  EXPECT_EQ(skinny.stages[0].vectorsPerTrip, 2);
  // 512 rows on 32 threads: 4 trips of 2 rows, fewer than 16: 2 rows per
  // trip; 2048 rows take 16 trips, then 32 of 1 row.
  EXPECT_EQ(plan({512, 16384}, {0}, "h100").stages[0].vectorsPerTrip, 2);
  EXPECT_EQ(plan({2048, 16384}, {0}, "h100").stages[0].vectorsPerTrip, 1);
  EXPECT_EQ(plan({2048, 16384}, {0}, "h100").stages[0].iterations, 32);
  // A tuning's loads=4 becomes 2 for such a stage.
  PlanTuning four;
  four.loadsPerTrip = 4;
  EXPECT_EQ(planReduction({{16384, 16384}, {}, {0}, ir::ScalarKind::F32, Combiner::Sum, four}, profile("h100"))
                .stages[0]
                .vectorsPerTrip,
            2);
}

TEST(GraphReductionPlanner, ColumnsAndStridedInputs) {
  ReductionPlan cols = plan({4096, 256}, {0});
  EXPECT_EQ(cols.kind, ReductionKind::Column);
  EXPECT_EQ(cols.stages[0].shape, StageShape::Columns);
  // 64 vectors along the run would be one block; lanes shrink so that more
  // blocks share the cores. Even 8 blocks of 8 lanes (a 128-byte line)
  // would leave cores idle, so the rows are split in any case, and a split
  // stage of sums keeps 16 lanes (256 bytes of each row): 4 blocks, split
  // 12 ways.
  EXPECT_EQ(cols.stages[0].threadsX, 16);  // 16 lanes x 4 outputs = 64 neighbouring outputs
  EXPECT_EQ(cols.stages[0].vectorWidth, 4);
  EXPECT_EQ(cols.stages[0].threadsY, 32);
  EXPECT_EQ(cols.stages[0].threadgroups, 48);
  EXPECT_EQ(cols.stages[1].threadsX, 8);  // the final stage never splits: a line
  // 128 rows: 8 lanes and 64 rows of threads take them in one sweep and one
  // stage; 16 lanes would leave 32 rows of threads, two sweeps and a split.
  ReductionPlan fewRows = plan({128, 1024}, {0}, "h200");
  EXPECT_FALSE(fewRows.twoStage());
  EXPECT_EQ(fewRows.stages[0].threadsX, 8);
  EXPECT_EQ(fewRows.stages[0].threadsY, 64);
  // Arg-reductions shrink down to 8 lanes in any case, and a tuning's
  // lanes=N sets the floor for any combiner.
  EXPECT_EQ(plan({4096, 256}, {0}, "apple-generic", ir::ScalarKind::F32, Combiner::ArgMax).stages[0].threadsX, 8);
  PlanTuning lineLanes;
  lineLanes.columnLanes = 8;
  EXPECT_EQ(planReduction({{4096, 256}, {}, {0}, ir::ScalarKind::F32, Combiner::Sum, lineLanes}, profile("apple-generic"))
                .stages[0]
                .threadsX,
            8);
  // Split 12 ways, each thread takes 6 trips of 2 rows: too few trips for
  // float32 columns to read half as many rows per trip.
  EXPECT_EQ(cols.stages[0].iterations, 6);
  EXPECT_EQ(cols.stages[0].vectorsPerTrip, 2);
  // Its 32 rows of threads combine through threadgroup memory: two
  // threadgroups per core overlap that with loads.
  EXPECT_EQ(cols.stages[0].minThreadgroupsPerCore, 2);
  // A wide run keeps its lanes: 512 lanes x 4 outputs, 2 rows per trip.
  ReductionPlan skinny = plan({32, 1 << 22}, {0}, "h200");
  EXPECT_FALSE(skinny.twoStage());
  EXPECT_EQ(skinny.stages[0].threadsX, 512);
  EXPECT_EQ(skinny.stages[0].threadsY, 1);
  EXPECT_EQ(skinny.stages[0].iterations, 16);
  EXPECT_EQ(skinny.stages[0].minThreadgroupsPerCore, 0);  // no threadgroup-memory combine
  // The tuning's resident=N overrides the rule for the first stage only,
  // within what a core can hold (2048 threads on an H200: 4 of 512).
  PlanTuning resident;
  resident.residentThreadgroups = 3;
  ReductionPlan asked = planReduction({{32, 1 << 22}, {}, {1}, ir::ScalarKind::F32, Combiner::Sum, resident},
                                      profile("h200"));
  ASSERT_TRUE(asked.twoStage());
  EXPECT_EQ(asked.stages[0].minThreadgroupsPerCore, 3);
  EXPECT_EQ(asked.stages[1].minThreadgroupsPerCore, 0);
  EXPECT_EQ(asked.tuning.text(), "loads=2,vectors=8,threads=512,resident=3");
  resident.residentThreadgroups = 32;
  EXPECT_EQ(planReduction({{32, 1 << 22}, {}, {1}, ir::ScalarKind::F32, Combiner::Sum, resident}, profile("h200"))
                .stages[0]
                .minThreadgroupsPerCore,
            4);
  // Reducing the contiguous axis of a column-major buffer is a row reduction.
  EXPECT_EQ(plan({256, 4096}, {0}, "apple-generic", ir::ScalarKind::F32, Combiner::Sum, {1, 256}).kind,
            ReductionKind::Row);
  // A long, narrow column needs partials.
  ReductionPlan narrow = plan({1 << 20, 4}, {0});
  EXPECT_EQ(narrow.stages[0].kernel, "col_reduce_partials");
  EXPECT_EQ(narrow.stages[1].kernel, "reduce_partials_columns");
  // No unit stride: a gather, one element at a time.
  ReductionPlan general = plan({64, 64}, {1}, "apple-generic", ir::ScalarKind::F32, Combiner::Sum, {256, 2});
  EXPECT_EQ(general.kind, ReductionKind::General);
  EXPECT_EQ(general.stages[0].vectorWidth, 1);
}

TEST(GraphReductionPlanner, ArgReductionsCarryIndices) {
  ReductionPlan p = plan({1 << 20}, {0}, "apple-generic", ir::ScalarKind::F32, Combiner::ArgMax);
  EXPECT_EQ(p.stages[0].accumulatorBytes, 8);  // float value + int32 index
  EXPECT_EQ(p.stages[1].vectorWidth, 1);       // (value, index) pairs are read one at a time
  EXPECT_EQ(p.stages[0].combine,
            "5-step shuffle-xor butterfly across 32 lanes, then 16 SIMD-group partials through threadgroup memory");
  // A split column stage counts its wave in the two threadgroups per core
  // it asks for when it carries indices: 132 cores x 2 on an H200, where a
  // maximum of the same shape counts 132 x 4 (2048 threads of 512). The
  // float16 argmax takes threadgroups of 256 threads, half the tuning's 512.
  ReductionPlan argColumns = plan({1 << 22, 32}, {0}, "h200", ir::ScalarKind::F16, Combiner::ArgMax);
  EXPECT_EQ(argColumns.stages[0].threadgroupSize, 256);
  EXPECT_EQ(argColumns.stages[1].threadgroupSize, 256);
  EXPECT_EQ(argColumns.stages[0].minThreadgroupsPerCore, 2);
  EXPECT_EQ(argColumns.partialsPerOutput(), 264);
  EXPECT_EQ(argColumns.stages[0].iterations, 63);
  EXPECT_FALSE(argColumns.stages[0].tripsWrittenOut);
  ReductionPlan maxColumns = plan({1 << 22, 32}, {0}, "h200", ir::ScalarKind::F16, Combiner::Max);
  EXPECT_EQ(maxColumns.stages[0].threadgroupSize, 512);
  EXPECT_EQ(maxColumns.stages[0].minThreadgroupsPerCore, 2);
  EXPECT_EQ(maxColumns.partialsPerOutput(), 528);
  // Float32 arg-reductions and float16 ones along rows keep the tuning's 512.
  EXPECT_EQ(plan({1 << 22, 32}, {0}, "h200", ir::ScalarKind::F32, Combiner::ArgMax).stages[0].threadgroupSize, 512);
  EXPECT_EQ(plan({4096, 4096}, {1}, "h200", ir::ScalarKind::F16, Combiner::ArgMax).stages[0].threadgroupSize, 512);
  // A tuning that sets the residency leaves the split to the thread limit:
  // 132 cores x 2048 threads / 256.
  PlanTuning residentTwo;
  residentTwo.residentThreadgroups = 2;
  EXPECT_EQ(planReduction({{1 << 22, 32}, {}, {0}, ir::ScalarKind::F16, Combiner::ArgMax, residentTwo}, profile("h200"))
                .partialsPerOutput(),
            1056);
  // Output blocks that take 90% or more of that wave's slots keep one
  // stage: 8192 float32 columns in blocks of 32 make 256 of 264 on an H200.
  // Maxima keep the split (their wave is 528 threadgroups), and so does
  // float16 argmax, whose 128 blocks (64 columns each) take half the wave.
  EXPECT_FALSE(plan({8192, 8192}, {0}, "h200", ir::ScalarKind::F32, Combiner::ArgMax).twoStage());
  EXPECT_EQ(plan({8192, 8192}, {0}, "h200", ir::ScalarKind::F32, Combiner::ArgMax).stages[0].threadgroups, 256);
  EXPECT_TRUE(plan({8192, 8192}, {0}, "h200", ir::ScalarKind::F32, Combiner::Max).twoStage());
  EXPECT_EQ(plan({8192, 8192}, {0}, "h200", ir::ScalarKind::F16, Combiner::ArgMax).partialsPerOutput(), 2);
  // Sums of float16 accumulate in float32.
  EXPECT_EQ(plan({1024}, {0}, "apple-generic", ir::ScalarKind::F16).accumulator, ir::ScalarKind::F32);
}

TEST(GraphReductionPlanner, PartialsFollowTheProfile) {
  // One wave of threadgroups decides the partials: cores x resident threads / 512.
  EXPECT_EQ(plan({1 << 22}, {0}, "m1").partialsPerOutput(), 48);        // 8 cores x 6
  EXPECT_EQ(plan({1 << 22}, {0}, "m3-max").partialsPerOutput(), 240);   // 40 x 6
  EXPECT_EQ(plan({1 << 22}, {0}, "m1-ultra").partialsPerOutput(), 384); // 64 x 6
  EXPECT_EQ(plan({1 << 22}, {0}, "h100").partialsPerOutput(), 528);     // 132 SMs x 2048 / 512
  // The time bound and the cache figure come from the profile too.
  ReductionPlan big = plan({1 << 26}, {0}, "m4-max");
  EXPECT_DOUBLE_EQ(big.dramMicroseconds, double(int64_t(1) << 28) / (546 * 1e3));
  EXPECT_FALSE(big.fitsInLastLevelCache);
}

TEST(GraphReductionPlanner, RefusesWhatItCannotPlan) {
  EXPECT_EQ(planError({8}, {}), "a reduction needs at least one axis");
  EXPECT_EQ(planError({8, 8}, {2}), "axis 2 is out of range for the rank-2 input [8, 8] (valid: -2..1)");
  EXPECT_EQ(planError({}, {0}), "input shape is empty; a tensor needs at least one dimension");
  EXPECT_EQ(planError({8, 0}, {0}), "dimension 1 of [8, 0] is 0; dimensions must be positive");
  EXPECT_EQ(planError({int64_t(1) << 40, int64_t(1) << 40}, {0}), "element count of [1099511627776, 1099511627776] overflows 64 bits");
  EXPECT_EQ(planError({8, 8}, {0}, {8}), "1 strides given for the rank-2 input [8, 8]");
  EXPECT_EQ(planError({8}, {0}, {}, ir::ScalarKind::F64),
            "float64 is not supported on Generic Apple GPU (M1-class baseline): Metal has no 64-bit float type");
  // 2^48 rows of one vector: 1024 rows per threadgroup (512 threads x 2
  // rows) still leave 2^38 threadgroups.
  EXPECT_EQ(planError({int64_t(1) << 48, 2}, {1}),
            "the reduction needs 274877906944 threadgroups, more than one dispatch allows (2147483647)");
}
