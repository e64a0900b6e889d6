// tt.dot of f16 inputs on 8x8 SIMD-group matrices (simdgroup_half8x8 and
// simdgroup_float8x8 on Metal, tensor cores on CUDA): A, B and C go through
// threadgroup memory, each SIMD group multiplies a block of C's 8x8 tiles
// with simdgroup_multiply_accumulate over K, stores them back, and every
// thread reads its registers of the result. Metal's tiles may be loaded
// from and stored to threadgroup memory only (which lanes hold which
// elements is not documented), so the accumulator makes that round trip
// once per tt.dot rather than living in a tile layout across a loop.
#include <algorithm>
#include <cstdlib>

#include "tmetal/codegen/kernel_lowering.h"

namespace tmetal::codegen {

using ir::ScalarKind;

namespace {

constexpr int64_t kTile = 8;  // the edge of a SIMD-group matrix

// Bytes of threadgroup memory of the A and B staging and the f32 C staging
// for K in chunks of `chunk` rows (chunk == k: A and B whole).
int64_t matrixStagingBytes(int64_t m, int64_t n, int64_t chunk) {
  return ThreadgroupMemory::roundedBytes(chunk * (m + n), 2) + ThreadgroupMemory::roundedBytes(m * n, 4);
}

}  // namespace

DotMatrixPlan planDotOnMatrices(int64_t m, int64_t n, int64_t k, int simdGroups,
                                const std::function<bool(int64_t bytes)>& fits) {
  DotMatrixPlan plan;
  if (m % kTile || n % kTile || k % kTile || simdGroups < 1) return plan;
  // K whole, else the largest power-of-two chunk of whole tiles that fits.
  int64_t chunk = k;
  while (chunk >= kTile && (k % chunk || !fits(matrixStagingBytes(m, n, chunk))))
    chunk = chunk == k ? k / 2 : chunk / 2;
  if (chunk < kTile || chunk % kTile) return plan;
  // The SIMD groups as a grid over C's tiles, each taking a block of them:
  // as many groups as divide the tiles evenly, then the squarest blocks
  // (fewest tile loads per multiply).
  const int64_t tilesM = m / kTile, tilesN = n / kTile;
  for (int64_t gm = 1; gm <= std::min<int64_t>(tilesM, simdGroups); ++gm) {
    if (tilesM % gm) continue;
    for (int64_t gn = 1; gm * gn <= simdGroups && gn <= tilesN; ++gn) {
      if (tilesN % gn) continue;
      const int64_t bm = tilesM / gm, bn = tilesN / gn;
      const bool better = gm * gn > plan.groupsM * plan.groupsN ||
                          (gm * gn == plan.groupsM * plan.groupsN && bm + bn < plan.tilesM + plan.tilesN);
      if (plan.groupsM == 0 || better) plan = {chunk, int(gm), int(gn), bm, bn};
    }
  }
  return plan;
}

bool KernelLowering::lowerDotOnMatrices(const ir::Operation& op, const RegisterTensor& a, const RegisterTensor& b,
                                        const RegisterTensor& c) {
  const ir::Value* v = op.result(0);
  const ScalarKind acc = v->type().element().scalarKind();
  if (a.shape.size() != 2 || a.element.scalarKind() != ScalarKind::F16 || b.element.scalarKind() != ScalarKind::F16 ||
      (acc != ScalarKind::F32 && acc != ScalarKind::F16))
    return false;
  const int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  // One plan per op, so that the second copy of an unrolled loop body makes
  // the choice (and takes the buffers) of the first.
  auto [planned, isNew] = dotMatrixPlans_.try_emplace(&op);
  if (isNew)
    planned->second = planDotOnMatrices(m, n, k, layouts_.numWarps(),
                                        [&](int64_t bytes) { return threadgroupMemory_.hasRoomFor(bytes); });
  const DotMatrixPlan plan = planned->second;
  if (plan.chunk == 0) return false;
  matricesUsed_ = true;

  const bool chunked = plan.chunk < k;
  const int usedGroups = plan.groupsM * plan.groupsN;
  body_.comment("'tt.dot' " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " at " +
                op.loc().userPos().str() + ": 8x8 SIMD-group matrices, " + std::to_string(plan.groupsM) + "x" +
                std::to_string(plan.groupsN) + " SIMD groups of " + std::to_string(plan.tilesM) + "x" +
                std::to_string(plan.tilesN) + " tiles" +
                (chunked ? ", K in chunks of " + std::to_string(plan.chunk) : ""));
  const std::string bufAB = allocateStaging(op, a.element, plan.chunk * (m + n), "dot_ab");
  const std::string bufB = "(" + bufAB + " + " + std::to_string(plan.chunk * m) + ")";
  const std::string bufC = allocateStaging(op, ir::Type::f32(), m * n, "dot_c");
  const bool zeroC = c.isUniform() && c.size() > 0 && c.regs[0] == zeroOf(c.element);

  // This SIMD group's block of tiles: rows m0.., columns n0.. of C.
  useBuiltin(Builtin::SimdGroupIndex);
  const std::string group = "int(" + dialect_.builtinName(Builtin::SimdGroupIndex) + ")";
  const std::string m0 = newName("dot_m0"), n0 = newName("dot_n0");
  body_.line("const int " + m0 + " = " + group + " / " + std::to_string(plan.groupsN) + " * " +
             std::to_string(plan.tilesM * kTile) + ";");
  body_.line("const int " + n0 + " = " + group + " % " + std::to_string(plan.groupsN) + " * " +
             std::to_string(plan.tilesN * kTile) + ";");
  const int64_t tiles = plan.tilesM * plan.tilesN;
  const std::string accTiles = newName("dot_c_tiles");
  body_.line(dialect_.matrixType(ScalarKind::F32) + " " + accTiles + "[" + std::to_string(tiles) + "];");
  // Statements for the SIMD groups that have tiles (a condition uniform in
  // each group) when some have none.
  const bool someIdle = usedGroups < layouts_.numWarps();
  auto openGroupBlock = [&] {
    if (someIdle) body_.open("if (" + group + " < " + std::to_string(usedGroups) + ")");
  };
  auto closeGroupBlock = [&] {
    if (someIdle) body_.close();
  };
  // A loop over the tiles of a block, unrolled (a block of one is a scope).
  auto forEach = [&](int64_t count, const std::string& index) {
    if (count == 1) {
      body_.open("");
      body_.line("const int " + index + " = 0;");
      return;
    }
    body_.line(dialect_.loopUnrollHint(static_cast<int>(count)));
    body_.open("for (int " + index + " = 0; " + index + " < " + std::to_string(count) + "; ++" + index + ")");
  };
  const std::string t = newName("t");
  // Tile t of the block is row t / tilesN, column t % tilesN of the block.
  const std::string tileRowInBlock = plan.tilesN == 1 ? t : t + " / " + std::to_string(plan.tilesN);
  const std::string tileColInBlock = plan.tilesN == 1 ? "0" : t + " % " + std::to_string(plan.tilesN);
  const std::string tileRow = "(" + m0 + " + " + tileRowInBlock + " * 8)";
  const std::string tileCol = plan.tilesN == 1 ? n0 : "(" + n0 + " + " + tileColInBlock + " * 8)";
  const std::string cTile = bufC + " + " + tileRow + " * " + std::to_string(n) + " + " + tileCol;

  auto writeC = [&] {
    const bool narrow = c.element.scalarKind() != ScalarKind::F32;
    const std::string f32 = dialect_.scalarType(ScalarKind::F32);
    writeEachStaged(c, bufC, [&](const std::string& index, const std::string& value) {
      return bufC + "[" + index + "] = " + (narrow ? dialect_.convert(value, f32) : value) + ";";
    });
  };
  auto initAccumulators = [&] {
    openGroupBlock();
    forEach(tiles, t);
    if (zeroC)
      body_.line(accTiles + "[" + t + "] = " + dialect_.matrixZero(ScalarKind::F32) + ";");
    else
      body_.line(dialect_.matrixLoad(accTiles + "[" + t + "]", cTile, n, false, MatrixRole::Accumulator));
    body_.close();
    closeGroupBlock();
  };
  // K rows [0, rows) of the staged A and B: A as [m][k] (whole) or [rows][m]
  // (chunks, K outermost), B as [rows][n].
  auto multiply = [&](int64_t rows) {
    openGroupBlock();
    const std::string kk = newName("kk");
    body_.open("for (int " + kk + " = 0; " + kk + " < " + std::to_string(rows) + "; " + kk + " += 8)");
    const std::string aTiles = newName("dot_a_tiles"), bTiles = newName("dot_b_tiles");
    body_.line(dialect_.matrixType(ScalarKind::F16) + " " + aTiles + "[" + std::to_string(plan.tilesM) + "];");
    body_.line(dialect_.matrixType(ScalarKind::F16) + " " + bTiles + "[" + std::to_string(plan.tilesN) + "];");
    const std::string i = newName("i");
    forEach(plan.tilesM, i);
    const std::string aRow = plan.tilesM == 1 ? m0 : "(" + m0 + " + " + i + " * 8)";
    const std::string aTile = aTiles + "[" + i + "]";
    if (chunked)
      body_.line(dialect_.matrixLoad(aTile, bufAB + " + " + kk + " * " + std::to_string(m) + " + " + aRow, m, true,
                                     MatrixRole::A));
    else
      body_.line(dialect_.matrixLoad(aTile, bufAB + " + " + aRow + " * " + std::to_string(k) + " + " + kk, k, false,
                                     MatrixRole::A));
    body_.close();
    forEach(plan.tilesN, i);
    const std::string bCol = n0 + (plan.tilesN == 1 ? "" : " + " + i + " * 8");
    body_.line(dialect_.matrixLoad(bTiles + "[" + i + "]", bufB + " + " + kk + " * " + std::to_string(n) + " + " + bCol,
                                   n, false, MatrixRole::B));
    body_.close();
    forEach(tiles, t);
    const std::string tile = accTiles + "[" + t + "]";
    body_.line(dialect_.matrixMultiplyAccumulate(tile, aTiles + "[" + tileRowInBlock + "]",
                                                 bTiles + "[" + tileColInBlock + "]", tile));
    body_.close();
    body_.close();
    closeGroupBlock();
  };

  barrierBeforeReuse();
  if (!zeroC) writeC();
  if (chunked) {
    if (!zeroC) body_.line(dialect_.barrier());
    initAccumulators();
    const std::string k0 = newName("k0");
    body_.open("for (int " + k0 + " = 0; " + k0 + " < " + std::to_string(k) + "; " + k0 + " += " +
               std::to_string(plan.chunk) + ")");
    body_.line(dialect_.barrier());  // the previous trip's reads are done
    RegisterTensor aK = a;
    aK.layout = layout::permuteLayout(a.layout, {1, 0});
    aK.shape = {k, m};
    writeStagedRange(aK, bufAB, k0 + " * " + std::to_string(m), plan.chunk * m);
    writeStagedRange(b, bufB, k0 + " * " + std::to_string(n), plan.chunk * n);
    body_.line(dialect_.barrier());
    multiply(plan.chunk);
    body_.close();
  } else {
    writeStaged(a, bufAB, 1, 0);
    writeStaged(b, bufAB, 1, m * k);
    body_.line(dialect_.barrier());
    initAccumulators();
    multiply(k);
  }
  openGroupBlock();
  forEach(tiles, t);
  body_.line(dialect_.matrixStore(accTiles + "[" + t + "]", cTile, n));
  body_.close();
  closeGroupBlock();
  body_.line(dialect_.barrier());

  const layout::LayoutPtr l = layouts_.home(v);
  RegisterTensor sum = readStaged(bufC, l, v->type().shape(), ir::Type::f32(), newName(nameFor(v) + "_f32"), 1, 0);
  if (acc == ScalarKind::F32) {
    defineTensor(v, sum);
  } else {
    const std::string name = nameFor(v);
    const int64_t regs = static_cast<int64_t>(sum.size());
    RegisterTensor out = RegisterTensor::array(l, v->type().shape(), v->type().element(), name, regs);
    body_.line(declaration(v->type().element(), name, regs) + ";");
    convertRegisters(out, sum);
    defineTensor(v, out);
  }
  return true;
}

}  // namespace tmetal::codegen
