#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "tmetal/layout/blocked_layout_choice.h"
#include "tmetal/layout/distributed_layout.h"
#include "tmetal/layout/tensor_map.h"
#include "tmetal/support/diagnostic.h"

using namespace tmetal;
using namespace tmetal::layout;

namespace {

// Splits 2^log over `rank` dimensions at random.
std::vector<int> randomSplit(std::mt19937& rng, int rank, int log) {
  std::vector<int> v(rank, 1);
  for (int i = 0; i < log; ++i) v[rng() % rank] *= 2;
  return v;
}

BlockedLayout randomBlocked(std::mt19937& rng, int rank, int numSimds) {
  BlockedLayout b;
  b.sizePerThread = randomSplit(rng, rank, static_cast<int>(rng() % 4));
  b.lanesPerSimd = randomSplit(rng, rank, 5);
  int logSimds = 0;
  while ((1 << logSimds) < numSimds) ++logSimds;
  b.simdsPerGroup = randomSplit(rng, rank, logSimds);
  for (int d = 0; d < rank; ++d) b.order.push_back(d);
  std::shuffle(b.order.begin(), b.order.end(), rng);
  return b;
}

std::vector<int64_t> randomShape(std::mt19937& rng, int rank) {
  std::vector<int64_t> s;
  for (int d = 0; d < rank; ++d) s.push_back(int64_t{1} << (rng() % (rank == 3 ? 6 : 8)));  // 1 .. 128 (64 in 3-D)
  return s;
}

int64_t linear(const std::vector<int64_t>& index, const std::vector<int64_t>& shape) {
  int64_t l = 0;
  for (size_t d = 0; d < shape.size(); ++d) l = l * shape[d] + index[d];
  return l;
}

// Every element is held by exactly one owner (thread, register); every
// register of every thread holds an element in range; a thread's registers
// hold distinct elements; replicas hold elements some owner holds.
void checkCoversOnce(const TensorMap& map) {
  int64_t numel = 1;
  for (int64_t e : map.shape()) numel *= e;
  std::vector<int> owners(numel, 0);
  for (int t = 0; t < map.numThreads(); ++t) {
    std::set<int64_t> mine;
    for (int64_t r = 0; r < map.numRegisters(); ++r) {
      std::vector<int64_t> idx = map.tensorIndex(t, r);
      for (size_t d = 0; d < idx.size(); ++d) {
        ASSERT_GE(idx[d], 0);
        ASSERT_LT(idx[d], map.shape()[d]) << map.layout()->str();
      }
      int64_t l = linear(idx, map.shape());
      ASSERT_TRUE(mine.insert(l).second) << "thread " << t << " holds element " << l << " twice in "
                                         << map.layout()->str();
      if (map.isOwner(t)) ++owners[l];
      ASSERT_EQ(map.registerAt(map.registerOffset(r)), r);
    }
  }
  for (int64_t l = 0; l < numel; ++l)
    ASSERT_EQ(owners[l], 1) << "element " << l << " of " << map.layout()->str();
}

}  // namespace

TEST(TensorMap, RandomBlockedLayoutsCoverEveryElementOnce) {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 300; ++trial) {
    int rank = 1 + static_cast<int>(rng() % 3);
    int numSimds = 1 << (rng() % 4);
    LayoutPtr l = DistributedLayout::blocked(randomBlocked(rng, rank, numSimds));
    TensorMap map(l, randomShape(rng, rank));
    checkCoversOnce(map);
  }
}

TEST(TensorMap, RandomSliceLayoutsCoverEveryElementOnce) {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 200; ++trial) {
    int rank = 2 + static_cast<int>(rng() % 2);
    LayoutPtr parent = DistributedLayout::blocked(randomBlocked(rng, rank, 1 << (rng() % 3)));
    LayoutPtr l = DistributedLayout::slice(parent, static_cast<int>(rng() % rank));
    if (rank == 3 && rng() % 2) l = DistributedLayout::slice(l, static_cast<int>(rng() % 2));
    TensorMap map(l, randomShape(rng, l->rank()));
    checkCoversOnce(map);
  }
}

TEST(TensorMap, RegistersWalkTheThreadBlockThenRepetitions) {
  // 1-D, 4 elements per thread, 32 lanes, 2 SIMD groups: tile 256.
  LayoutPtr l = DistributedLayout::blocked({{4}, {32}, {2}, {0}});
  TensorMap map(l, {1024});
  EXPECT_EQ(map.numRegisters(), 16);
  EXPECT_EQ(map.tensorIndex(0, 0), std::vector<int64_t>{0});
  EXPECT_EQ(map.tensorIndex(0, 3), std::vector<int64_t>{3});
  EXPECT_EQ(map.tensorIndex(0, 4), std::vector<int64_t>{256});
  EXPECT_EQ(map.tensorIndex(1, 0), std::vector<int64_t>{4});
  EXPECT_EQ(map.tensorIndex(33, 1), std::vector<int64_t>{128 + 4 + 1});
}

TEST(TensorMap, SmallTensorsWrapIntoReplicas) {
  LayoutPtr l = DistributedLayout::blocked({{1}, {32}, {4}, {0}});
  TensorMap map(l, {64});
  EXPECT_EQ(map.numRegisters(), 1);
  EXPECT_TRUE(map.wraps(0));
  EXPECT_EQ(map.distinctLanes(0), 32);
  EXPECT_EQ(map.distinctSimdGroups(0), 2);
  EXPECT_EQ(map.tensorIndex(64 + 5, 0), std::vector<int64_t>{5});  // SIMD group 2 replicates group 0
  EXPECT_TRUE(map.isOwner(33));
  EXPECT_FALSE(map.isOwner(64 + 5));
}

TEST(DistributedLayout, SliceOfATrivialDimensionIsBlocked) {
  LayoutPtr p = DistributedLayout::blocked({{1, 4}, {1, 32}, {4, 1}, {1, 0}});
  LayoutPtr rows = DistributedLayout::slice(p, 1);
  EXPECT_TRUE(rows->isSlice());
  EXPECT_EQ(rows->str(), "slice{dim=1, parent=blocked{spt=[1,4], lanes=[1,32], simds=[4,1], order=[1,0]}}");
  LayoutPtr q = DistributedLayout::blocked({{1, 4}, {1, 32}, {1, 4}, {1, 0}});
  LayoutPtr cols = DistributedLayout::slice(q, 0);
  EXPECT_TRUE(cols->isBlocked());
  EXPECT_EQ(cols->str(), "blocked{spt=[4], lanes=[32], simds=[4], order=[0]}");
  // expand_dims undoes the reduction's slice.
  EXPECT_TRUE(sameLayout(insertDimension(rows, 1), p));
  // ... and a new trivial dimension slices back to the original.
  EXPECT_TRUE(sameLayout(DistributedLayout::slice(insertDimension(cols, 0), 0), cols));
}

TEST(DistributedLayout, InsertDimensionKeepsTheRegisterMapping) {
  LayoutPtr p = DistributedLayout::blocked({{2, 2, 1}, {4, 2, 4}, {1, 2, 2}, {2, 0, 1}});
  LayoutPtr s = DistributedLayout::slice(p, 1);  // rank 2, a real slice
  LayoutPtr e = insertDimension(s, 0);            // rank 3 again, new dim 0
  TensorMap a(s, {8, 4});
  TensorMap b(e, {1, 8, 4});
  ASSERT_EQ(a.numRegisters(), b.numRegisters());
  for (int t = 0; t < a.numThreads(); ++t)
    for (int64_t r = 0; r < a.numRegisters(); ++r) {
      std::vector<int64_t> i = a.tensorIndex(t, r);
      std::vector<int64_t> j = b.tensorIndex(t, r);
      EXPECT_EQ(j, (std::vector<int64_t>{0, i[0], i[1]}));
    }
}

static int64_t rowMajor(const std::vector<int64_t>& index, const std::vector<int64_t>& shape) {
  int64_t linear = 0;
  for (size_t d = 0; d < shape.size(); ++d) linear = linear * shape[d] + index[d];
  return linear;
}

// What the join lowering relies on: register r of the pairs is half r % 2 of
// register r / 2, in every thread; and a split of such pairs gives the
// layout back.
TEST(DistributedLayout, PairDimensionInterleavesTheRegisters) {
  std::mt19937 rng(41);
  for (int trial = 0; trial < 300; ++trial) {
    int rank = 1 + static_cast<int>(rng() % 3);
    LayoutPtr l = DistributedLayout::blocked(randomBlocked(rng, rank, 1 << (rng() % 3)));
    std::vector<int64_t> shape = randomShape(rng, rank);
    std::vector<int64_t> pairShape = shape;
    pairShape.push_back(2);
    LayoutPtr pairs = appendPairDimension(l);
    TensorMap halves(l, shape), joined(pairs, pairShape);
    ASSERT_EQ(joined.numRegisters(), 2 * halves.numRegisters()) << l->str();
    for (int t = 0; t < halves.numThreads(); ++t)
      for (int64_t r = 0; r < joined.numRegisters(); ++r) {
        std::vector<int64_t> expected = halves.tensorIndex(t, r / 2);
        expected.push_back(r % 2);
        ASSERT_EQ(joined.tensorIndex(t, r), expected) << l->str() << " thread " << t << " register " << r;
      }
    EXPECT_TRUE(sameLayout(dropPairDimension(pairs), l)) << l->str();
  }
  // Pairs spread over lanes cannot be split in registers.
  EXPECT_EQ(dropPairDimension(DistributedLayout::blocked({{4, 1}, {16, 2}, {1, 1}, {1, 0}})), nullptr);
}

// Every (thread, register) of `l` over `from` holds the element of the
// same row-major index as it does in `r` over `to`.
void expectSameElements(const LayoutPtr& l, const std::vector<int64_t>& from, const LayoutPtr& r,
                        const std::vector<int64_t>& to) {
  TensorMap a(l, from), c(r, to);
  ASSERT_EQ(a.numRegisters(), c.numRegisters()) << l->str() << " -> " << r->str();
  for (int t = 0; t < a.numThreads(); ++t)
    for (int64_t q = 0; q < a.numRegisters(); ++q)
      ASSERT_EQ(rowMajor(a.tensorIndex(t, q), from), rowMajor(c.tensorIndex(t, q), to))
          << l->str() << " -> " << r->str() << " thread " << t << " register " << q;
}

// A reshape layout, where there is one, keeps every element in its register.
TEST(DistributedLayout, ReshapeLayoutKeepsEveryRegister) {
  std::mt19937 rng(43);
  int found = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    int rank = 2 + static_cast<int>(rng() % 2);
    BlockedLayout b = randomBlocked(rng, rank, 1 << (rng() % 3));
    // The last dimension fastest, as the reshapes this handles need.
    b.order.erase(std::find(b.order.begin(), b.order.end(), rank - 1));
    b.order.insert(b.order.begin(), rank - 1);
    LayoutPtr l = DistributedLayout::blocked(b);
    std::vector<int64_t> from = randomShape(rng, rank);
    std::vector<int64_t> to(from.begin(), from.end() - 2);
    if (rng() % 2) {
      to.push_back(from[rank - 2] * from[rank - 1]);
    } else {
      int64_t piece = int64_t{1} << (rng() % 3);
      if (from[rank - 1] % piece) continue;
      to = from;
      to.back() = from[rank - 1] / piece;
      to.push_back(piece);
    }
    LayoutPtr r = reshapeLayout(l, from, to);
    if (!r) continue;
    ++found;
    ASSERT_NO_FATAL_FAILURE(expectSameElements(l, from, r, to));
  }
  EXPECT_GT(found, 200);
}

// Merging any two neighbouring dimensions: where a layout comes back (the
// first held only as repetitions, or whole runs of the second in each
// thread), every register keeps its element. Half
// the trials move the first dimension's run, lanes and SIMD groups to the
// second, and half put it right after the second in order, so that the
// merge applies often.
TEST(DistributedLayout, ReshapeLayoutMergingNeighbouringDimensionsKeepsEveryRegister) {
  std::mt19937 rng(53);
  int found = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    int rank = 2 + static_cast<int>(rng() % 3);
    BlockedLayout b = randomBlocked(rng, rank, 1 << (rng() % 3));
    const int d = static_cast<int>(rng() % (rank - 1));
    if (rng() % 2) {
      b.sizePerThread[d + 1] *= b.sizePerThread[d];
      b.lanesPerSimd[d + 1] *= b.lanesPerSimd[d];
      b.simdsPerGroup[d + 1] *= b.simdsPerGroup[d];
      b.sizePerThread[d] = b.lanesPerSimd[d] = b.simdsPerGroup[d] = 1;
    }
    if (rng() % 2) {
      b.order.erase(std::find(b.order.begin(), b.order.end(), d));
      b.order.insert(std::find(b.order.begin(), b.order.end(), d + 1) + 1, d);
    }
    LayoutPtr l = DistributedLayout::blocked(b);
    std::vector<int64_t> from = randomShape(rng, rank);
    std::vector<int64_t> to;
    for (int k = 0; k < rank; ++k) {
      if (k == d + 1) continue;
      to.push_back(k == d ? from[d] * from[d + 1] : from[k]);
    }
    LayoutPtr r = reshapeLayout(l, from, to);
    if (!r) continue;
    ++found;
    ASSERT_NO_FATAL_FAILURE(expectSameElements(l, from, r, to));
  }
  EXPECT_GT(found, 60);
  // [2, 32, 64] blocks of a [64, 64] tile (Triton's reshape_matmul): the 2 only repeated.
  const LayoutPtr blocks = DistributedLayout::blocked({{1, 1, 8}, {1, 4, 8}, {1, 4, 1}, {2, 1, 0}});
  const LayoutPtr merged = reshapeLayout(blocks, {2, 32, 64}, {64, 64});
  ASSERT_NE(merged, nullptr);
  EXPECT_EQ(merged->str(), "blocked{spt=[1,8], lanes=[4,8], simds=[4,1], order=[1,0]}");
  // Whole runs of a middle dimension merged into the one before it.
  const LayoutPtr runs = DistributedLayout::blocked({{1, 4, 2}, {4, 1, 8}, {2, 1, 2}, {2, 1, 0}});
  const LayoutPtr longer = reshapeLayout(runs, {8, 4, 16}, {32, 16});
  ASSERT_NE(longer, nullptr);
  EXPECT_EQ(longer->str(), "blocked{spt=[4,2], lanes=[4,8], simds=[2,2], order=[1,0]}");
  ASSERT_NO_FATAL_FAILURE(expectSameElements(runs, {8, 4, 16}, longer, {32, 16}));
}

// Without the order condition a merge keeps each thread's elements, in
// other registers: registerPermutation finds, for every register of the
// result, the one register of the operand that holds its element in every
// thread. dot_scaled's A packed along M ([M/2, 2, K], the pairs fastest,
// then K) is the case that needs it.
TEST(DistributedLayout, ReshapeLayoutKeepingThreadsOnlyRenamesRegisters) {
  std::mt19937 rng(61);
  int found = 0, renamed = 0;
  for (int trial = 0; trial < 300; ++trial) {
    int rank = 2 + static_cast<int>(rng() % 3);
    BlockedLayout b = randomBlocked(rng, rank, 1 << (rng() % 3));
    const int d = static_cast<int>(rng() % (rank - 1));
    if (rng() % 2) {
      b.sizePerThread[d + 1] *= b.lanesPerSimd[d + 1] * b.simdsPerGroup[d + 1];
      b.lanesPerSimd[d + 1] = b.simdsPerGroup[d + 1] = 1;
    }
    std::shuffle(b.order.begin(), b.order.end(), rng);
    std::vector<int64_t> from = randomShape(rng, rank), to;
    if (rng() % 2) from[d + 1] = b.sizePerThread[d + 1];
    for (int k = 0; k < rank; ++k)
      if (k != d + 1) to.push_back(k == d ? from[d] * from[d + 1] : from[k]);
    LayoutPtr l = DistributedLayout::blocked(b);
    LayoutPtr r = reshapeLayoutKeepingThreads(l, from, to);
    if (!r) continue;
    ++found;
    const TensorMap a(l, from), c(r, to);
    std::optional<std::vector<int64_t>> perm = registerPermutation(a, c);
    ASSERT_TRUE(perm.has_value()) << l->str() << " -> " << r->str();
    ASSERT_EQ(static_cast<int64_t>(perm->size()), c.numRegisters());
    for (int t = 0; t < a.numThreads(); ++t)
      for (int64_t q = 0; q < c.numRegisters(); ++q)
        ASSERT_EQ(rowMajor(a.tensorIndex(t, (*perm)[q]), from), rowMajor(c.tensorIndex(t, q), to))
            << l->str() << " -> " << r->str() << " thread " << t << " register " << q;
    for (int64_t q = 0; q < c.numRegisters(); ++q) renamed += (*perm)[q] != q;
  }
  EXPECT_GT(found, 30);
  EXPECT_GT(renamed, 0);
  // [32, 2, 64] in registers of pairs, then K, then M/2 -> [64, 64].
  const LayoutPtr pairs = DistributedLayout::blocked({{1, 2, 4}, {2, 1, 16}, {4, 1, 1}, {1, 2, 0}});
  EXPECT_EQ(reshapeLayout(pairs, {32, 2, 64}, {64, 64}), nullptr);
  const LayoutPtr rows = reshapeLayoutKeepingThreads(pairs, {32, 2, 64}, {64, 64});
  ASSERT_NE(rows, nullptr);
  EXPECT_EQ(rows->str(), "blocked{spt=[2,4], lanes=[2,16], simds=[4,1], order=[1,0]}");
  std::optional<std::vector<int64_t>> perm = registerPermutation(TensorMap(pairs, {32, 2, 64}), TensorMap(rows, {64, 64}));
  ASSERT_TRUE(perm.has_value());
  // The pair (row 2i + j) was the fastest register; now K's four are.
  EXPECT_EQ(std::vector<int64_t>(perm->begin(), perm->begin() + 8), (std::vector<int64_t>{0, 2, 4, 6, 1, 3, 5, 7}));
  // Layouts whose threads hold other elements have no renaming.
  EXPECT_FALSE(registerPermutation(TensorMap(rows, {64, 64}),
                                   TensorMap(DistributedLayout::blocked({{4, 2}, {16, 2}, {1, 4}, {0, 1}}), {64, 64}))
                   .has_value());
}

// Removing a dimension of extent 1 that holds one element, lane and SIMD
// group, and inserting one anywhere, keep every register; [128, 256] ->
// [1, 128, 256] (a tile stored through a 3-D descriptor) moves nothing.
TEST(DistributedLayout, ReshapeLayoutOfUnitDimensionsKeepsEveryRegister) {
  std::mt19937 rng(59);
  int found = 0;
  for (int trial = 0; trial < 500; ++trial) {
    int rank = 1 + static_cast<int>(rng() % 3);
    LayoutPtr l = DistributedLayout::blocked(randomBlocked(rng, rank, 1 << (rng() % 3)));
    std::vector<int64_t> from = randomShape(rng, rank), to;
    for (int64_t e : from)
      if (e != 1 || rng() % 2) to.push_back(e);
    to.insert(to.begin() + static_cast<int>(rng() % (to.size() + 1)), 1);
    LayoutPtr r = reshapeLayout(l, from, to);
    if (!r) continue;
    ++found;
    ASSERT_NO_FATAL_FAILURE(expectSameElements(l, from, r, to));
    if (LayoutPtr back = reshapeLayout(r, to, from)) ASSERT_NO_FATAL_FAILURE(expectSameElements(r, to, back, from));
  }
  EXPECT_GT(found, 250);
  const LayoutPtr tile = DistributedLayout::blocked({{1, 8}, {2, 16}, {4, 1}, {1, 0}});
  const LayoutPtr stored = reshapeLayout(tile, {128, 256}, {1, 128, 256});
  ASSERT_NE(stored, nullptr);
  EXPECT_EQ(stored->str(), "blocked{spt=[1,1,8], lanes=[1,2,16], simds=[1,4,1], order=[2,1,0]}");
}

// Splitting the last dimension into two or three, at any place of it in
// the order and at any piece size (its run, lanes, SIMD groups and
// repetitions each going to the piece first): every register keeps its
// element.
TEST(DistributedLayout, ReshapeLayoutSplitsKeepEveryRegister) {
  std::mt19937 rng(47);
  int found = 0, acrossLanes = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    int rank = 1 + static_cast<int>(rng() % 3);
    LayoutPtr l = DistributedLayout::blocked(randomBlocked(rng, rank, 1 << (rng() % 3)));
    std::vector<int64_t> from = randomShape(rng, rank);
    from.back() = int64_t{1} << (4 + rng() % 8);  // 16 .. 2048
    std::vector<int64_t> to(from.begin(), from.end() - 1);
    int64_t rest = from.back();
    std::vector<int64_t> pieces;
    for (int k = 0, n = 1 + static_cast<int>(rng() % 2); k < n; ++k) {
      int64_t piece = std::min<int64_t>(rest, int64_t{1} << (rng() % 7));
      pieces.insert(pieces.begin(), piece);
      rest /= piece;
    }
    to.push_back(rest);
    to.insert(to.end(), pieces.begin(), pieces.end());
    LayoutPtr r = reshapeLayout(l, from, to);
    if (!r) continue;
    ++found;
    const BlockedLayout& b = r->blockedParams();
    acrossLanes += b.lanesPerSimd.back() > 1 && b.lanesPerSimd[b.rank() - 2] > 1;
    ASSERT_NO_FATAL_FAILURE(expectSameElements(l, from, r, to));
  }
  EXPECT_GT(found, 1000);
  EXPECT_GT(acrossLanes, 100);  // splits through the lanes, not only through a thread's run
  // A flat block of 2048 (four a thread) as 32 rows of 64, then as 2 x 16 x 64.
  LayoutPtr flat = DistributedLayout::blocked({{4}, {32}, {4}, {0}});
  EXPECT_EQ(reshapeLayout(flat, {2048}, {32, 64})->str(),
            "blocked{spt=[1,4], lanes=[2,16], simds=[4,1], order=[1,0]}");
  EXPECT_EQ(reshapeLayout(flat, {2048}, {2, 16, 64})->str(),
            "blocked{spt=[1,1,4], lanes=[1,2,16], simds=[1,4,1], order=[2,1,0]}");
  // A layout whose threads repeat elements along the split dimension: none.
  EXPECT_EQ(reshapeLayout(DistributedLayout::blocked({{4}, {32}, {4}, {0}}), {64}, {4, 16}), nullptr);
}

TEST(DistributedLayout, RejectsBadParameters) {
  try {
    DistributedLayout::blocked({{3}, {32}, {1}, {0}});
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_EQ(e.message(), "blocked layout blocked{spt=[3], lanes=[32], simds=[1], order=[0]}: every parameter must "
                           "be a power of two");
  }
  try {
    TensorMap(DistributedLayout::blocked({{1}, {32}, {1}, {0}}), {100});
    FAIL();
  } catch (const CompileError& e) {
    EXPECT_EQ(e.message(), "tensor of shape 100: every extent must be a power of two");
  }
}

TEST(BlockedLayoutChoice, CoalescedVectorizesAndKeepsThreadsBusy) {
  AccessHint h{{0}, 4, 4, {}};
  EXPECT_EQ(chooseBlockedLayout(MemoryLayout::COALESCED, {1024}, 4, h).str(),
            "blocked{spt=[4], lanes=[32], simds=[4], order=[0]}");
  // 256 elements over 128 threads: two per thread, a float2.
  EXPECT_EQ(chooseBlockedLayout(MemoryLayout::COALESCED, {256}, 4, h).str(),
            "blocked{spt=[2], lanes=[32], simds=[4], order=[0]}");
  // DEFAULT is COALESCED.
  EXPECT_EQ(chooseBlockedLayout(MemoryLayout::DEFAULT, {256}, 4, h), chooseBlockedLayout(MemoryLayout::COALESCED, {256}, 4, h));
}

TEST(BlockedLayoutChoice, CoalescedRowReductionOrdersSimdGroupsByAccessWidth) {
  // Rows read in float4: the SIMD groups go along the row first, as far as
  // it has room (256 floats: 2 groups of 32 lanes x 4), then to the rows.
  AccessHint h{{1, 0}, 4, 4, {1}};
  EXPECT_EQ(chooseBlockedLayout(MemoryLayout::COALESCED, {8, 256}, 4, h).str(),
            "blocked{spt=[1,4], lanes=[1,32], simds=[2,2], order=[1,0]}");
  EXPECT_EQ(chooseBlockedLayout(MemoryLayout::COALESCED, {8, 512}, 4, h).str(),
            "blocked{spt=[1,4], lanes=[1,32], simds=[1,4], order=[1,0]}");
  // Rows read one element at a time: the kept rows first, so that each
  // row's sum stays inside one SIMD group.
  AccessHint scalar{{1, 0}, 1, 4, {1}};
  EXPECT_EQ(chooseBlockedLayout(MemoryLayout::COALESCED, {8, 128}, 4, scalar).str(),
            "blocked{spt=[1,1], lanes=[1,32], simds=[4,1], order=[1,0]}");
}

TEST(BlockedLayoutChoice, CoalescedRunsAreOneVectorOfTheWidestStoredElement) {
  // Halves read and written in 16-byte vectors would give each thread eight
  // elements; where float32 values of the same layout are stored too, four,
  // so that each of those stores is one 16-byte vector a lane.
  AccessHint halves{{0}, 8, 2, {}};
  EXPECT_EQ(chooseBlockedLayout(MemoryLayout::COALESCED, {1024}, 4, halves).str(),
            "blocked{spt=[8], lanes=[32], simds=[4], order=[0]}");
  AccessHint withFloatStore = halves;
  withFloatStore.storedElementBytes = 4;
  EXPECT_EQ(chooseBlockedLayout(MemoryLayout::COALESCED, {1024}, 4, withFloatStore).str(),
            "blocked{spt=[4], lanes=[32], simds=[4], order=[0]}");
  withFloatStore.storedElementBytes = 2;  // halves stored only: unchanged
  EXPECT_EQ(chooseBlockedLayout(MemoryLayout::COALESCED, {1024}, 4, withFloatStore).str(),
            "blocked{spt=[8], lanes=[32], simds=[4], order=[0]}");
}

TEST(BlockedLayoutChoice, CoalescedColumnReductionKeepsRowsCoalesced) {
  // Reducing axis 0 of a row-major tile: 128-byte rows over 8 lanes of
  // float4, the other 4 lanes and the SIMD groups along the reduced axis.
  AccessHint h{{1, 0}, 4, 4, {0}};
  EXPECT_EQ(chooseBlockedLayout(MemoryLayout::COALESCED, {64, 128}, 4, h).str(),
            "blocked{spt=[1,4], lanes=[4,8], simds=[1,4], order=[1,0]}");
  AccessHint unaligned{{1, 0}, 1, 4, {0}};
  EXPECT_EQ(chooseBlockedLayout(MemoryLayout::COALESCED, {64, 32}, 4, unaligned).str(),
            "blocked{spt=[1,1], lanes=[1,32], simds=[4,1], order=[1,0]}");
}

TEST(BlockedLayoutChoice, PoliciesGiveDifferentLayouts) {
  AccessHint h{{1, 0}, 4, 4, {}};
  std::map<std::string, MemoryLayout> seen;
  for (MemoryLayout p : {MemoryLayout::COALESCED, MemoryLayout::ROW_MAJOR, MemoryLayout::COLUMN_MAJOR, MemoryLayout::TILED}) {
    std::string s = chooseBlockedLayout(p, {64, 64}, 4, h).str();
    EXPECT_FALSE(seen.count(s)) << memoryLayoutName(p) << " repeats " << memoryLayoutName(seen[s]) << ": " << s;
    seen[s] = p;
  }
  EXPECT_EQ(chooseBlockedLayout(MemoryLayout::ROW_MAJOR, {64, 64}, 4, h).str(),
            "blocked{spt=[1,1], lanes=[1,32], simds=[4,1], order=[1,0]}");
  EXPECT_EQ(chooseBlockedLayout(MemoryLayout::COLUMN_MAJOR, {64, 64}, 4, h).str(),
            "blocked{spt=[1,1], lanes=[32,1], simds=[1,4], order=[0,1]}");
  EXPECT_EQ(chooseBlockedLayout(MemoryLayout::TILED, {64, 64}, 4, h).str(),
            "blocked{spt=[2,2], lanes=[4,8], simds=[2,2], order=[1,0]}");
  std::set<std::string> oneD;
  for (MemoryLayout p : {MemoryLayout::COALESCED, MemoryLayout::ROW_MAJOR, MemoryLayout::COLUMN_MAJOR, MemoryLayout::TILED})
    oneD.insert(chooseBlockedLayout(p, {2048}, 4, AccessHint{{0}, 2, 4, {}}).str());
  EXPECT_EQ(oneD.size(), 4u);
}

TEST(BlockedLayoutChoice, EveryPolicyUsesAllThreadsOfEveryShape) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    int rank = 1 + static_cast<int>(rng() % 3);
    std::vector<int64_t> shape = randomShape(rng, rank);
    int numSimds = 1 << (rng() % 4);
    for (MemoryLayout p : allMemoryLayouts()) {
      AccessHint h;
      h.vectorElements = 1 << (rng() % 3);
      BlockedLayout b = chooseBlockedLayout(p, shape, numSimds, h);
      EXPECT_EQ(b.simdWidth(), 32) << b.str();
      EXPECT_EQ(b.numSimdGroups(), numSimds) << b.str();
      checkCoversOnce(TensorMap(DistributedLayout::blocked(b), shape));
    }
  }
}

// SIMD groups over C's 8x8 tiles: as many as divide them, squarest blocks;
// all along the rows when asked and the rows divide; none when no grid uses
// every group evenly is left to the caller (fewer groups come back).
TEST(BlockedLayoutChoice, MatrixGroupsCoverTheTilesEvenly) {
  EXPECT_EQ(chooseMatrixGroups(8, 8, 4, false), (MatrixGroups{2, 2}));
  EXPECT_EQ(chooseMatrixGroups(4, 2, 4, false), (MatrixGroups{2, 2}));
  EXPECT_EQ(chooseMatrixGroups(4, 4, 4, true), (MatrixGroups{4, 1}));
  EXPECT_EQ(chooseMatrixGroups(2, 8, 4, true), (MatrixGroups{1, 4}));  // 2 rows of tiles for 4 groups
  EXPECT_EQ(chooseMatrixGroups(2, 2, 8, false), (MatrixGroups{2, 2}));  // four groups idle
  EXPECT_EQ(chooseMatrixGroups(3, 5, 4, false), (MatrixGroups{3, 1}));
}

// The tiles' register layout: lane 4g + t holds (g, 2t) and (g, 2t + 1) of
// each of its group's tiles, group (i, j) the tiles (i + a * gM, j + b * gN),
// a tile's two registers after the previous tile's.
TEST(BlockedLayoutChoice, MatrixAccumulatorLayoutIsTheTilesRegisters) {
  const BlockedLayout b = matrixAccumulatorLayout({2, 2});
  EXPECT_EQ(b.str(), "blocked{spt=[1,2], lanes=[8,4], simds=[2,2], order=[1,0]}");
  EXPECT_EQ(matrixGroupsOf(b), (MatrixGroups{2, 2}));
  EXPECT_EQ(matrixGroupsOf(chooseDotLayout({32, 16}, 4)), MatrixGroups{});
  const TensorMap map(DistributedLayout::blocked(b), {32, 32});  // 2x2 tiles a group
  checkCoversOnce(map);
  const int lane = 4 * 5 + 3, group = 1 * 2 + 0;  // g = 5, t = 3; group (1, 0)
  const int thread = group * 32 + lane;
  for (int tileRow = 0; tileRow < 2; ++tileRow)
    for (int tileColumn = 0; tileColumn < 2; ++tileColumn)
      for (int e = 0; e < 2; ++e) {
        const int64_t r = 2 * (tileRow * 2 + tileColumn) + e;
        const std::vector<int64_t> expected{(1 + 2 * tileRow) * 8 + 5, (0 + 2 * tileColumn) * 8 + 6 + e};
        EXPECT_EQ(map.tensorIndex(thread, r), expected) << "register " << r;
      }
}

TEST(BlockedLayoutChoice, DotAccumulatorsGetRegisterTiles) {
  EXPECT_EQ(chooseDotLayout({64, 64}, 4).str(), "blocked{spt=[4,4], lanes=[2,16], simds=[4,1], order=[1,0]}");
  EXPECT_EQ(chooseDotLayout({32, 16}, 4).str(), "blocked{spt=[1,4], lanes=[8,4], simds=[4,1], order=[1,0]}");
  std::mt19937 rng(11);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<int64_t> shape = randomShape(rng, 2);
    int numSimds = 1 << (rng() % 4);
    BlockedLayout b = chooseDotLayout(shape, numSimds);
    EXPECT_EQ(b.simdWidth(), 32);
    EXPECT_EQ(b.numSimdGroups(), numSimds);
    checkCoversOnce(TensorMap(DistributedLayout::blocked(b), shape));
  }
}
