// tt.dot of f16 or bf16 inputs on 8x8 SIMD-group matrices
// (simdgroup_half8x8 or simdgroup_bfloat8x8, and simdgroup_float8x8
// accumulators on Metal; tensor cores on CUDA): A and B go through
// threadgroup memory, and each SIMD group multiplies its share of C's 8x8
// tiles with simdgroup_multiply_accumulate over K. Layout assignment gives C
// the tiles' own register layout (layout::matrixAccumulatorLayout), so C's
// registers go into the tiles and come out of them where they are: as they
// are on CUDA, through one shuffle a tile on Metal (thread_elements()). C in
// any other layout goes through threadgroup memory. The accumulator of a
// loop (acc = tl.dot(a, b, acc)) stays in the tiles from before the loop to
// after it.
#include <algorithm>

#include "tmetal/codegen/kernel_lowering.h"
#include "tmetal/layout/layout_op_traits.h"

namespace tmetal::codegen {

using ir::ScalarKind;

namespace {

constexpr int64_t kTile = 8;  // the edge of a SIMD-group matrix
// Staged rows of A and B are 8 elements (16 bytes) longer than their data,
// so that the eight rows of a tile start in different memory banks: on the
// H100, a tile's rows 64 bytes apart made every load of it a four-way bank
// conflict. MLX pads its tiles for Apple GPUs the same way.
constexpr int64_t kRowPadding = 8;

// Elements of the A and B staging with K in chunks of `chunk` rows (chunk ==
// k: A as [m][k], B as [k][n]; else both K-outermost, [chunk][m] and
// [chunk][n]), rows padded; B's alone where A's tiles come from registers.
// (B by rows of K, [n][k], takes n * (k + 8) instead of k * (n + 8).)
int64_t stagedElements(int64_t m, int64_t n, int64_t k, int64_t chunk, bool stagesA = true,
                       bool bByColumns = false) {
  if (chunk == k)
    return (stagesA ? m * (k + kRowPadding) : 0) + (bByColumns ? n * (k + kRowPadding) : k * (n + kRowPadding));
  return chunk * (m + kRowPadding) + chunk * (n + kRowPadding);
}

// Threadgroup memory of the A and B staging, and of the f32 C staging where
// `stagesC`.
// (B's staging taken at the larger of its two shapes; A's left out where
// `stagesA` is false and K is whole.)
int64_t matrixStagingBytes(int64_t m, int64_t n, int64_t k, int64_t chunk, bool stagesC, bool stagesA) {
  const int64_t elements =
      std::max(stagedElements(m, n, k, chunk, stagesA), stagedElements(m, n, k, chunk, stagesA, true));
  return ThreadgroupMemory::roundedBytes(elements, 2) + (stagesC ? ThreadgroupMemory::roundedBytes(m * n, 4) : 0);
}

// The registers of a thread's elements (row, column) and (row, column + 1)
// in a matrix accumulator layout: the pair a tile's lane holds
// (layout::matrixAccumulatorLayout), `row` and `column` the tile's first.
std::pair<int64_t, int64_t> tileRegisters(const layout::TensorMap& map, int64_t row, int64_t column) {
  return {map.registerAt({row, column}), map.registerAt({row, column + 1})};
}

// The element of row-major index `index` in a staging of rows `rowLength`
// long, padded.
std::string paddedIndex(const std::string& index, int64_t rowLength) {
  const std::string i = "(" + index + ")";
  return i + " + " + i + " / " + std::to_string(rowLength) + " * " + std::to_string(kRowPadding);
}

}  // namespace

DotMatrixPlan planDotOnMatrices(int64_t m, int64_t n, int64_t k, int simdGroups,
                                const std::function<bool(int64_t bytes)>& fits, layout::MatrixGroups groups,
                                bool stagesA) {
  DotMatrixPlan plan;
  if (m % kTile || n % kTile || k % kTile || simdGroups < 1) return plan;
  // K whole, else the largest power-of-two chunk of whole tiles that fits.
  int64_t chunk = k;
  // C's registers are the tiles' when the caller gives their grid: no staging.
  const bool stagesC = groups.groupsM == 0;
  while (chunk >= kTile && (k % chunk || !fits(matrixStagingBytes(m, n, k, chunk, stagesC, stagesA || chunk < k))))
    chunk = chunk == k ? k / 2 : chunk / 2;
  if (chunk < kTile || chunk % kTile) return plan;
  const int64_t tilesM = m / kTile, tilesN = n / kTile;
  if (!groups.groupsM) groups = layout::chooseMatrixGroups(tilesM, tilesN, simdGroups, false);
  return {chunk, groups.groupsM, groups.groupsN, tilesM / groups.groupsM, tilesN / groups.groupsN};
}

ScalarKind KernelLowering::stagedKind(const ir::Operation& dot, size_t operand) {
  return layout::matrixOperandKind(dot, operand);  // 8-bit floats are widened to f16 by lowerDot
}

const DotMatrixPlan& KernelLowering::dotMatrixPlan(const ir::Operation& dot) {
  auto [planned, isNew] = dotMatrixPlans_.try_emplace(&dot);
  if (!isNew) return planned->second;  // the second copy of a loop body decides as the first
  const ir::Type& a = dot.operand(0)->type();
  const ir::Type& b = dot.operand(1)->type();
  const ScalarKind acc = dot.result(0)->type().element().scalarKind();
  if (!layout::hasMatrixOperands(dot) || (acc != ScalarKind::F32 && acc != ScalarKind::F16)) return planned->second;
  // The grid of C's registers when they are the tiles' (layout assignment
  // chose it), else the planner's own.
  const layout::LayoutPtr c = layouts_.home(dot.result(0));
  const layout::MatrixGroups groups =
      c && c->isBlocked() ? layout::matrixGroupsOf(c->blockedParams()) : layout::MatrixGroups{};
  // Where A's tiles come from its registers, only B is staged.
  DotMatrixPlan plan = planDotOnMatrices(
      a.shape()[0], b.shape()[1], a.shape()[1], layouts_.numWarps(),
      [&](int64_t bytes) { return threadgroupMemory_.hasRoomFor(bytes); }, groups, !aTilesFromRegisters(dot, groups));
  // Chunks of K stage A K-outermost, through its layout transposed.
  if (plan.chunk < a.shape()[1] && !layout::permuteLayout(layouts_.operandLayout(&dot, 0), {1, 0})) plan = {};
  return planned->second = plan;
}

const ir::Operation* KernelLowering::accumulatorDotOfLoop(const ir::Operation& loop, size_t i) {
  const ir::Block& body = *loop.region(0)->block(0);
  const ir::Value* carried = body.argument(1 + i);
  const ir::Value* next = body.terminator()->operand(i);
  const ir::Operation* dot = next->isBlockArgument() ? nullptr : next->definingOp();
  if (!dot || dot->kind() != ir::OpKind::TtDot || dot->parentBlock() != &body || dot->operand(2) != carried ||
      dot->result(0)->type().element().scalarKind() != ScalarKind::F32 || dotMatrixPlan(*dot).chunk == 0)
    return nullptr;
  // The dot alone reads the carried value, and the yield alone its result.
  int uses = 0;
  ir::walk(*loop.region(0), [&](const ir::Operation* op) {
    for (size_t j = 0; j < op->numOperands(); ++j) uses += op->operand(j) == carried || op->operand(j) == next;
  });
  return uses == 2 ? dot : nullptr;
}

bool KernelLowering::isZeroTensor(const RegisterTensor& c) const {
  return c.isUniform() && c.size() > 0 && c.regs[0] == zeroOf(c.element);
}

// A's tiles straight from A's registers where they hold them: every group
// along the rows, as C's tiles (P of the attention, whose registers are the
// first dot's C), in the type the tiles hold (not 8-bit floats).
bool KernelLowering::aTilesFromRegisters(const ir::Operation& dot, layout::MatrixGroups groups) const {
  const layout::LayoutPtr a = layouts_.operandLayout(&dot, 0);
  return groups.groupsN == 1 && groups.groupsM == layouts_.numWarps() && a && a->isBlocked() &&
         layout::matrixGroupsOf(a->blockedParams()) == groups &&
         dot.operand(0)->type().element().scalarKind() == stagedKind(dot);
}

KernelLowering::DotTiles KernelLowering::planDotTiles(const ir::Operation& dot, const layout::LayoutPtr& cLayout,
                                                      bool cZero, const ir::Value* result) {
  DotTiles t;
  t.plan = dotMatrixPlan(dot);
  const std::vector<int64_t>& shape = dot.result(0)->type().shape();
  t.m = shape[0];
  t.n = shape[1];
  t.cInRegisters = holdsTiles(t, cLayout) && dot.operand(2)->type().element().scalarKind() == ScalarKind::F32;
  t.resultInRegisters =
      holdsTiles(t, layouts_.home(result)) && result->type().element().scalarKind() == ScalarKind::F32;
  t.stagesC = !(cZero || t.cInRegisters) || !t.resultInRegisters;
  const bool stagesC = t.stagesC;
  const int64_t k = dot.operand(0)->type().shape()[1];
  const ir::Type staged = ir::Type::scalar(stagedKind(dot));
  const int stagedBytes = elementBytes(staged);
  t.aInRegisters = t.plan.chunk == k && aTilesFromRegisters(dot, {t.plan.groupsM, t.plan.groupsN});
  // B whose threads hold runs along K (attention's K^T, loaded by rows of
  // K) is staged as its transpose, [n][k], so that the runs are stored as
  // vectors; its tiles load transposed.
  const layout::LayoutPtr bLayout = layouts_.operandLayout(&dot, 1);
  t.bByColumns = t.plan.chunk == k && bLayout &&
                 layout::TensorMap(bLayout, dot.operand(1)->type().shape()).innermostDim() == 0;
  const int64_t abBytes = ThreadgroupMemory::roundedBytes(
      stagedElements(t.m, t.n, k, t.plan.chunk, !t.aInRegisters, t.bByColumns), stagedBytes);
  t.abElements = abBytes / stagedBytes;
  if (t.plan.chunk == k)
    t.alternatingBytes = std::max(stagesC ? ThreadgroupMemory::roundedBytes(t.m * t.n, 4) : 0, 2 * abBytes);
  return t;
}

// Double-buffered staging. A trip of a loop writes A and B to threadgroup
// memory, waits at a barrier, and multiplies from there; with one buffer, a
// second barrier first had to wait for every SIMD group's reads of the trip
// before. A loop's dot that stages A and B whole alternates between two
// buffers instead (its accumulator's dot, and every other dot of the body
// whose C stays in registers): the buffer a trip writes was last read two
// trips before, and every thread has finished those reads when it passes the
// barrier of the trip between. C's staging, where C is staged, is used only
// before the loop and after it and shares the two buffers' memory.
// 2048^3 f16 on an H100: 127 -> 119 us
// (bench/results/2026-11-27-h100-double-buffered-dots/).
KernelLowering::DotTiles KernelLowering::beginDotTiles(const ir::Operation& dot, bool acrossTrips, DotTiles t) {
  const ir::Type staged = ir::Type::scalar(stagedKind(dot));
  if (acrossTrips && t.alternatingBytes && threadgroupMemory_.hasRoomFor(t.alternatingBytes)) {
    t.bufC = threadgroupBuffer(dot, "tg_dot", ir::Type::f32(), t.alternatingBytes / 4,
                               "dot_c and two trips of dot_ab at " + dot.loc().userPos().str(), true);
    t.bufAB = threadgroupView(t.bufC, staged, "tg_dot_ab");
    t.trip = newName("dot_trip");
    body_.line("int " + t.trip + " = 0;");
  } else if (t.stagesC) {
    t.bufC = allocateStaging(dot, ir::Type::f32(), t.m * t.n, "dot_c");
  }
  useBuiltin(Builtin::SimdGroupIndex);
  t.group = "int(" + dialect_.builtinName(Builtin::SimdGroupIndex) + ")";
  t.m0 = newName("dot_m0");
  t.n0 = newName("dot_n0");
  body_.line("const int " + t.m0 + " = " + t.group + " / " + std::to_string(t.plan.groupsN) + " * " +
             std::to_string(kTile) + ";");
  body_.line("const int " + t.n0 + " = " + t.group + " % " + std::to_string(t.plan.groupsN) + " * " +
             std::to_string(kTile) + ";");
  t.tiles = newName("dot_c_tiles");
  body_.line(dialect_.matrixType(ScalarKind::F32) + " " + t.tiles + "[" + std::to_string(t.tileCount()) + "];");
  matricesUsed_ = true;
  return t;
}

bool KernelLowering::holdsTiles(const DotTiles& t, const layout::LayoutPtr& l) const {
  const layout::MatrixGroups groups{t.plan.groupsM, t.plan.groupsN};
  return l && l->isBlocked() && layout::matrixGroupsOf(l->blockedParams()) == groups &&
         groups.groupsM * groups.groupsN == layouts_.numWarps();
}

// Registers of `map` holding tile (i, j) of a group's block: elements
// (i * rowStep, j * columnStep) and the one after (matrixAccumulatorLayout).
std::pair<int64_t, int64_t> KernelLowering::DotTiles::registersOf(const layout::TensorMap& map, int64_t tile) const {
  return tileRegisters(map, tile / plan.tilesN * rowStep(), tile % plan.tilesN * columnStep());
}

std::string KernelLowering::fillATiles(const DotTiles& t, const RegisterTensor& a) {
  const int64_t kAll = a.shape[1] / kTile;
  const std::string tiles = newName("dot_a_registers");
  useBuiltin(Builtin::LaneIndex);
  body_.line(dialect_.matrixType(a.element.scalarKind()) + " " + tiles + "[" + std::to_string(t.plan.tilesM * kAll) +
             "];");
  const layout::TensorMap map = a.map();
  for (int64_t i = 0; i < t.plan.tilesM; ++i)
    for (int64_t kt = 0; kt < kAll; ++kt) {
      const auto [first, second] = tileRegisters(map, i * t.rowStep(), kt * kTile);
      body_.line(dialect_.matrixFromRegisters(tiles + "[" + std::to_string(i * kAll + kt) + "]", a.regs[first],
                                              a.regs[second], a.element.scalarKind()));
    }
  return tiles;
}

void KernelLowering::openTileGroups(const DotTiles& t) {
  if (t.someGroupsIdle(layouts_.numWarps()))
    body_.open("if (" + t.group + " < " + std::to_string(t.plan.groupsM * t.plan.groupsN) + ")");
}

void KernelLowering::closeTileGroups(const DotTiles& t) {
  if (t.someGroupsIdle(layouts_.numWarps())) body_.close();
}

void KernelLowering::openTileLoop(int64_t count, const std::string& index) {
  if (count == 1) {  // a scope
    body_.open("");
    body_.line("const int " + index + " = 0;");
    return;
  }
  body_.line(dialect_.loopUnrollHint(static_cast<int>(count)));
  body_.open("for (int " + index + " = 0; " + index + " < " + std::to_string(count) + "; ++" + index + ")");
}

std::string KernelLowering::DotTiles::rowInBlock(const std::string& t) const {
  return plan.tilesN == 1 ? t : t + " / " + std::to_string(plan.tilesN);
}

std::string KernelLowering::DotTiles::colInBlock(const std::string& t) const {
  return plan.tilesN == 1 ? "0" : t + " % " + std::to_string(plan.tilesN);
}

std::string KernelLowering::DotTiles::tileRow(const std::string& i) const {
  return plan.tilesM == 1 ? m0 : "(" + m0 + " + " + i + " * " + std::to_string(rowStep()) + ")";
}

std::string KernelLowering::DotTiles::tileColumn(const std::string& j) const {
  return plan.tilesN == 1 ? n0 : "(" + n0 + " + " + j + " * " + std::to_string(columnStep()) + ")";
}

std::string KernelLowering::DotTiles::cTile(const std::string& t) const {
  const std::string row = tileRow(rowInBlock(t));
  const std::string col = tileColumn(colInBlock(t));
  return bufC + " + " + row + " * " + std::to_string(n) + " + " + col;
}

void KernelLowering::initDotTiles(const DotTiles& t, const RegisterTensor& c) {
  const bool zero = isZeroTensor(c);
  if (!zero && t.cInRegisters) {
    useBuiltin(Builtin::LaneIndex);
    const layout::TensorMap map = c.map();
    for (int64_t tile = 0; tile < t.tileCount(); ++tile) {
      const auto [first, second] = t.registersOf(map, tile);
      body_.line(dialect_.matrixFromRegisters(t.tiles + "[" + std::to_string(tile) + "]", c.regs[first],
                                              c.regs[second], ScalarKind::F32));
    }
    return;
  }
  if (!zero) {
    barrierBeforeReuse();
    const bool narrow = c.element.scalarKind() != ScalarKind::F32;
    const std::string f32 = dialect_.scalarType(ScalarKind::F32);
    writeEachStaged(c, t.bufC, [&](const std::string& index, const std::string& value) {
      return t.bufC + "[" + index + "] = " + (narrow ? dialect_.convert(value, f32) : value) + ";";
    });
    body_.line(dialect_.barrier());
  }
  openTileGroups(t);
  const std::string i = newName("t");
  openTileLoop(t.tileCount(), i);
  if (zero)
    body_.line(t.tiles + "[" + i + "] = " + dialect_.matrixZero(ScalarKind::F32) + ";");
  else
    body_.line(dialect_.matrixLoad(t.tiles + "[" + i + "]", t.cTile(i), t.n, false, MatrixRole::Accumulator));
  body_.close();
  closeTileGroups(t);
  // The first trip stages A and B over C's staging without a barrier first.
  if (!zero && !t.bufAB.empty()) body_.line(dialect_.barrier());
}

void KernelLowering::multiplyDotTiles(const DotTiles& t, const ir::Operation& dot, const RegisterTensor& a,
                                      const RegisterTensor& b) {
  const int64_t m = t.m, n = t.n, k = a.shape[1], chunk = t.plan.chunk;
  const bool chunked = chunk < k;
  const bool doubled = !t.bufAB.empty();
  std::string bufAB;
  if (doubled) {
    bufAB = newName("dot_ab");
    body_.line(dialect_.threadgroupAlias(typeOf(a.element), bufAB,
                                         t.bufAB + " + " + t.trip + " * " + std::to_string(t.abElements)));
  } else {
    bufAB = allocateStaging(dot, a.element, stagedElements(m, n, k, chunk, !t.aInRegisters, t.bByColumns), "dot_ab");
  }
  // Rows of A as staged ([m][k] whole, [chunk][m] in chunks), then B's.
  const int64_t strideA = (chunked ? m : k) + kRowPadding, strideB = (t.bByColumns ? k : n) + kRowPadding;
  const int64_t atB = t.aInRegisters ? 0 : (chunked ? chunk : m) * strideA;
  const std::string bufB = "(" + bufAB + " + " + std::to_string(atB) + ")";
  // Loads tiles[0, count) of one K step, tile i from tilePointer(i), as
  // many a statement as the target loads at once: the j-th tile of group g
  // lies at groupPointer(g) + (j & 1) * step1 + (j >> 1) * step2.
  using PointerOf = std::function<std::string(const std::string&)>;
  auto loadTiles = [&](const std::string& tiles, int64_t count, const PointerOf& tilePointer,
                       const PointerOf& groupPointer, int64_t step1, int64_t step2, int64_t stride, bool transpose,
                       MatrixRole role) {
    const int64_t group = count % dialect_.matrixLoadGroup() == 0 ? dialect_.matrixLoadGroup() : 1;
    const std::string i = newName("i");
    openTileLoop(count / group, i);
    if (group == 1) {
      body_.line(dialect_.matrixLoad(tiles + "[" + i + "]", tilePointer(i), stride, transpose, role));
    } else {
      const std::string firstOfGroup = i + " * " + std::to_string(group);
      std::vector<std::string> named;
      for (int64_t j = 0; j < group; ++j) named.push_back(tiles + "[" + firstOfGroup + " + " + std::to_string(j) + "]");
      body_.line(dialect_.matrixLoadGroup(named, groupPointer(i), step1, step2, stride, transpose, role));
    }
    body_.close();
  };
  // A's tiles from its registers, all of K's: aAll[i * kAll + kt] is row i
  // of the group's tiles, K tile kt (filled before the loop for an A that
  // does not change in it).
  const int64_t kAll = k / kTile;
  const std::string aAll = !t.aTiles.empty() ? t.aTiles : t.aInRegisters ? fillATiles(t, a) : "";
  // K rows [0, rows) of the staged A and B.
  auto multiply = [&](int64_t rows) {
    openTileGroups(t);
    const bool pairs = t.plan.tilesM % 2 == 0 && dialect_.pairsMatrixMultiplies();
    // Two K tiles a statement where the target multiplies 16 deep (a lone
    // row of tiles too: half the instructions, the same zero rows).
    const int64_t kTiles = rows % 16 == 0 && dialect_.pairsMatrixMultipliesAlongK() ? 2 : 1;
    const std::string kk = newName("kk");
    // Registers of A are picked by kk: the trips written out.
    if (t.aInRegisters) body_.line(dialect_.loopUnrollHint(static_cast<int>(rows / (8 * kTiles))));
    body_.open("for (int " + kk + " = 0; " + kk + " < " + std::to_string(rows) + "; " + kk +
               " += " + std::to_string(8 * kTiles) + ")");
    const std::string aTiles = newName("dot_a_tiles"), bTiles = newName("dot_b_tiles");
    const std::string tileType = dialect_.matrixType(a.element.scalarKind());
    body_.line(tileType + " " + aTiles + "[" + std::to_string(kTiles * t.plan.tilesM) + "];");
    body_.line(tileType + " " + bTiles + "[" + std::to_string(kTiles * t.plan.tilesN) + "];");
    // The tiles of one K step in the order the multiplies take them, so
    // that a grouped load fills one multiply's operand registers: over two
    // K tiles, A's tiles of rows 2r and 2r + 1 are 4r, 4r + 1 (at kk) and
    // 4r + 2, 4r + 3 (at kk + 8) where rows go in pairs, else row i's are
    // 2i and 2i + 1; B's tiles of column c are 2c and 2c + 1 (tensor cores
    // take each operand in consecutive registers, and tiles loaded apart
    // cost a register copy each). One K tile: row i, column j.
    auto kPlus = [&](const std::string& kHalf) { return kHalf == "0" ? kk : "(" + kk + " + " + kHalf + " * 8)"; };
    const int64_t aRowStep = chunked ? t.rowStep() : t.rowStep() * strideA;
    const int64_t aKStep = 8 * (chunked ? strideA : 1);
    if (t.aInRegisters) {
      for (int64_t i = 0; i < kTiles * t.plan.tilesM; ++i) {
        const int64_t row = kTiles == 1 ? i : pairs ? i / 4 * 2 + i % 2 : i / 2;
        const int64_t kHalf = kTiles == 1 ? 0 : pairs ? i / 2 % 2 : i % 2;
        body_.line(aTiles + "[" + std::to_string(i) + "] = " + aAll + "[" + std::to_string(row * kAll + kHalf) +
                   " + " + kk + " / 8];");
      }
    } else {
      auto aTile = [&](const std::string& row, const std::string& k0) {
        return chunked ? bufAB + " + " + k0 + " * " + std::to_string(strideA) + " + " + t.tileRow(row)
                       : bufAB + " + " + t.tileRow(row) + " * " + std::to_string(strideA) + " + " + k0;
      };
      if (kTiles == 1)
        loadTiles(
            aTiles, t.plan.tilesM, [&](const std::string& i) { return aTile(i, kk); },
            [&](const std::string& g) { return aTile(g + " * 4", kk); }, aRowStep, 2 * aRowStep, strideA, chunked,
            MatrixRole::A);
      else if (pairs)
        loadTiles(
            aTiles, 2 * t.plan.tilesM,
            [&](const std::string& i) { return aTile(i + " / 4 * 2 + " + i + " % 2", kPlus(i + " / 2 % 2")); },
            [&](const std::string& g) { return aTile(g + " * 2", kk); }, aRowStep, aKStep, strideA, chunked,
            MatrixRole::A);
      else
        loadTiles(
            aTiles, 2 * t.plan.tilesM, [&](const std::string& i) { return aTile(i + " / 2", kPlus(i + " % 2")); },
            [&](const std::string& g) { return aTile(g + " * 2", kk); }, aKStep, aRowStep, strideA, chunked,
            MatrixRole::A);
    }
    auto bTile = [&](const std::string& column, const std::string& k0) {
      return t.bByColumns ? bufB + " + " + t.tileColumn(column) + " * " + std::to_string(strideB) + " + " + k0
                          : bufB + " + " + k0 + " * " + std::to_string(strideB) + " + " + t.tileColumn(column);
    };
    const int64_t bColumnStep = t.bByColumns ? t.columnStep() * strideB : t.columnStep();
    const int64_t bKStep = 8 * (t.bByColumns ? 1 : strideB);
    if (kTiles == 1)
      loadTiles(
          bTiles, t.plan.tilesN, [&](const std::string& j) { return bTile(j, kk); },
          [&](const std::string& g) { return bTile(g + " * 4", kk); }, bColumnStep, 2 * bColumnStep, strideB,
          t.bByColumns, MatrixRole::B);
    else
      loadTiles(
          bTiles, 2 * t.plan.tilesN, [&](const std::string& j) { return bTile(j + " / 2", kPlus(j + " % 2")); },
          [&](const std::string& g) { return bTile(g + " * 2", kk); }, bKStep, bColumnStep, strideB, t.bByColumns,
          MatrixRole::B);
    const std::string j = newName("t");
    const std::string tilesN = std::to_string(t.plan.tilesN);
    if (pairs) {
      // Tiles of rows 2r and 2r + 1 of the block and one column over one B tile.
      openTileLoop(t.tileCount() / 2, j);
      const std::string row = t.rowInBlock(j), col = t.colInBlock(j);
      const std::string top = "(" + row + ") * 2 * " + tilesN + " + " + col;
      const std::string c0 = t.tiles + "[" + top + "]", c1 = t.tiles + "[" + top + " + " + tilesN + "]";
      if (kTiles == 2) {
        auto aTile = [&](int h) { return aTiles + "[(" + row + ") * 4 + " + std::to_string(h) + "]"; };
        auto bTile = [&](int h) { return bTiles + "[(" + col + ") * 2 + " + std::to_string(h) + "]"; };
        body_.line(dialect_.matrixMultiplyAccumulatePairAlongK(c0, c1, aTile(0), aTile(1), aTile(2), aTile(3), bTile(0),
                                                               bTile(1)));
      } else {
        body_.line(dialect_.matrixMultiplyAccumulatePair(c0, c1, aTiles + "[(" + row + ") * 2]",
                                                         aTiles + "[(" + row + ") * 2 + 1]", bTiles + "[" + col + "]"));
      }
    } else if (kTiles == 2) {
      openTileLoop(t.tileCount(), j);
      const std::string tile = t.tiles + "[" + j + "]", row = t.rowInBlock(j), col = t.colInBlock(j);
      body_.line(dialect_.matrixMultiplyAccumulateAlongK(tile, aTiles + "[(" + row + ") * 2]",
                                                         aTiles + "[(" + row + ") * 2 + 1]", bTiles + "[(" + col + ") * 2]",
                                                         bTiles + "[(" + col + ") * 2 + 1]"));
    } else {
      openTileLoop(t.tileCount(), j);
      const std::string tile = t.tiles + "[" + j + "]";
      body_.line(dialect_.matrixMultiplyAccumulate(tile, aTiles + "[" + t.rowInBlock(j) + "]",
                                                   bTiles + "[" + t.colInBlock(j) + "]", tile));
    }
    body_.close();
    body_.close();
    closeTileGroups(t);
  };
  // Owners write `in`'s elements of row-major index [first, first + count)
  // (all of them when `first` is empty) to bufAB from element `at` on, in
  // rows `rowLength` long padded.
  auto stage = [&](const RegisterTensor& in, int64_t at, int64_t rowLength, const std::string& first, int64_t count) {
    auto element = [&](const std::string& index) {
      return (at ? std::to_string(at) + " + " : "") + paddedIndex(index, rowLength);
    };
    if (!first.empty()) {
      writeStagedRange(in, bufAB, first, count, element);
      return;
    }
    // A's rows start 16-byte aligned (strides a multiple of 8 elements), so
    // do B's after them.
    if (writeStagedVectors(in, bufAB, rowLength + kRowPadding, element)) return;
    writeEachStaged(in, bufAB, [&](const std::string& index, const std::string& value) {
      return bufAB + "[" + element(index) + "] = " + toStaged(value, in.element) + ";";
    });
  };

  if (chunked) {
    const std::string k0 = newName("k0");
    body_.open("for (int " + k0 + " = 0; " + k0 + " < " + std::to_string(k) + "; " + k0 + " += " +
               std::to_string(chunk) + ")");
    body_.line(dialect_.barrier());  // the previous trip's reads are done
    RegisterTensor aK = a;
    aK.layout = layout::permuteLayout(a.layout, {1, 0});
    aK.shape = {k, m};
    stage(aK, 0, m, k0 + " * " + std::to_string(m), chunk * m);
    stage(b, atB, n, k0 + " * " + std::to_string(n), chunk * n);
    body_.line(dialect_.barrier());
    multiply(chunk);
    body_.close();
  } else {
    // A staging of its own that no thread has read since a dot's staging
    // barrier earlier in the same block, which every thread passes every
    // trip (attention's P V after Q K^T), needs no barrier of its own: the
    // previous trip's reads of it came before that barrier.
    const ir::Block* block = dot.parentBlock();
    const auto sinceBarrier = stagedReadsSinceBarrier_.find(block);
    const bool mayBeRead = sinceBarrier == stagedReadsSinceBarrier_.end() || sinceBarrier->second.count(bufAB) ||
                           sharedBuffers_.count(bufAB);
    if (!doubled && mayBeRead) barrierBeforeReuse();
    if (!t.aInRegisters) stage(a, 0, k, "", 0);
    if (t.bByColumns) {
      RegisterTensor bT = b;
      bT.layout = layout::permuteLayout(b.layout, {1, 0});
      bT.shape = {n, k};
      stage(bT, atB, k, "", 0);
    } else {
      stage(b, atB, n, "", 0);
    }
    body_.line(dialect_.barrier());
    stagedReadsSinceBarrier_[block] = {bufAB};
    issueLoadsAhead(*dot.parentBlock());  // A's and B's registers are free
    multiply(k);
    if (doubled) body_.line(t.trip + " ^= 1;");
  }
}

RegisterTensor KernelLowering::finishDotTiles(const DotTiles& t, const ir::Value* v) {
  if (t.resultInRegisters) {
    useBuiltin(Builtin::LaneIndex);
    const std::string name = nameFor(v);
    const int64_t tiles = t.tileCount();
    RegisterTensor out = RegisterTensor::array(layouts_.home(v), v->type().shape(), ir::Type::f32(), name, 2 * tiles);
    body_.line(declaration(ir::Type::f32(), name, 2 * tiles) + ";");
    const layout::TensorMap map = out.map();
    for (int64_t tile = 0; tile < tiles; ++tile) {
      const auto [first, second] = t.registersOf(map, tile);
      body_.line(dialect_.matrixToRegisters(t.tiles + "[" + std::to_string(tile) + "]", out.regs[first],
                                            out.regs[second]));
    }
    return out;
  }
  // The tiles' threadgroup memory may have been lent to an op between (a
  // loop's body): its reads must be done.
  body_.line(dialect_.barrier());
  openTileGroups(t);
  const std::string i = newName("t");
  openTileLoop(t.tileCount(), i);
  body_.line(dialect_.matrixStore(t.tiles + "[" + i + "]", t.cTile(i), t.n));
  body_.close();
  closeTileGroups(t);
  body_.line(dialect_.barrier());
  const layout::LayoutPtr l = layouts_.home(v);
  RegisterTensor sum = readStaged(t.bufC, l, v->type().shape(), ir::Type::f32(), newName(nameFor(v) + "_f32"), 1, 0);
  if (v->type().element().scalarKind() == ScalarKind::F32) return sum;
  const std::string name = nameFor(v);
  const int64_t regs = static_cast<int64_t>(sum.size());
  RegisterTensor out = RegisterTensor::array(l, v->type().shape(), v->type().element(), name, regs);
  body_.line(declaration(v->type().element(), name, regs) + ";");
  convertRegisters(out, sum);
  return out;
}

void KernelLowering::recordDotOnMatrices(const ir::Operation& dot, const std::string& accumulator,
                                         int stagingBuffers) {
  const DotMatrixPlan& p = dotMatrixPlan(dot);
  const std::vector<int64_t>& a = dot.operand(0)->type().shape();
  decisions_["dots"].push_back({{"op", dot.loc().userPos().str()},
                                {"m", a[0]},
                                {"n", dot.result(0)->type().shape()[1]},
                                {"k", a[1]},
                                {"strategy", "simdgroup_matrix"},
                                {"simd_groups", {p.groupsM, p.groupsN}},
                                {"tiles_per_group", {p.tilesM, p.tilesN}},
                                {"k_chunk", p.chunk},
                                {"accumulator", accumulator},
                                {"staging_buffers", stagingBuffers}});
}

std::string KernelLowering::dotOnMatricesComment(const ir::Operation& dot, const std::string& accumulator) {
  const DotMatrixPlan& p = dotMatrixPlan(dot);
  const std::vector<int64_t>& a = dot.operand(0)->type().shape();
  const int64_t n = dot.result(0)->type().shape()[1];
  return "'tt.dot' " + std::to_string(a[0]) + "x" + std::to_string(n) + "x" + std::to_string(a[1]) + " at " +
         dot.loc().userPos().str() + ": 8x8 SIMD-group matrices, " + std::to_string(p.groupsM) + "x" +
         std::to_string(p.groupsN) + " SIMD groups of " + std::to_string(p.tilesM) + "x" + std::to_string(p.tilesN) +
         " tiles" + (p.chunk < a[1] ? ", K in chunks of " + std::to_string(p.chunk) : "") + "; " + accumulator;
}

bool KernelLowering::lowerDotOnMatrices(const ir::Operation& op, const RegisterTensor& a, const RegisterTensor& b) {
  const ir::Value* v = op.result(0);
  if (auto carried = loopAccumulatorTiles_.find(&op); carried != loopAccumulatorTiles_.end()) {
    body_.comment(dotOnMatricesComment(op, "the accumulator stays in the tiles"));
    recordDotOnMatrices(op, "tiles through the loop", carried->second.bufAB.empty() ? 1 : 2);
    multiplyDotTiles(carried->second, op, a, b);
    defineScalar(v, "");  // no registers: the loop's yield carries the tiles (lowerFor)
    return true;
  }
  if (dotMatrixPlan(op).chunk == 0) return false;
  const RegisterTensor c = operandTensor(op, 2);
  // A loop's dot whose C stays in registers has its tiles and two stagings
  // from before the loop (lowerFor).
  const auto inLoop = loopDotTiles_.find(&op);
  const DotTiles tiles = inLoop != loopDotTiles_.end() ? inLoop->second
                                                       : beginDotTiles(op, false, planDotTiles(op, c.layout, isZeroTensor(c), v));
  const bool inRegisters = !tiles.stagesC;
  body_.comment(dotOnMatricesComment(op, inRegisters ? "C in the tiles' registers" : "C through threadgroup memory"));
  recordDotOnMatrices(op, inRegisters ? "registers" : "threadgroup memory", tiles.bufAB.empty() ? 1 : 2);
  initDotTiles(tiles, c);
  multiplyDotTiles(tiles, op, a, b);
  defineTensor(v, finishDotTiles(tiles, v));
  return true;
}

}  // namespace tmetal::codegen
