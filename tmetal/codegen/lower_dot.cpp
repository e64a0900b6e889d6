// tt.dot, correct first: A and B are staged in threadgroup memory (one
// barrier), then every thread accumulates its own registers of C with FMAs,
// loading each row of A and each column of B it needs once per k. This is
// the classic register-tiled threadgroup-memory GEMM, for what SIMD-group
// matrices do not take (lower_dot_matrix.cpp: f16 or bf16 inputs, extents
// of whole 8x8 tiles). 8-bit float operands are widened to f16 (exactly) in
// registers first, so the staged tiles and the FMAs are those of f16 dots.
#include <algorithm>
#include <map>

#include "tmetal/codegen/kernel_lowering.h"

namespace tmetal::codegen {

using ir::ScalarKind;
using layout::LayoutPtr;
using layout::TensorMap;

void KernelLowering::lowerDot(const ir::Operation& op) {
  const ir::Value* v = op.result(0);
  const RegisterTensor a = widenFloat8(operandTensor(op, 0), "dot_a_f16");
  const RegisterTensor b = widenFloat8(operandTensor(op, 1), "dot_b_f16");
  if (lowerDotOnMatrices(op, a, b)) return;
  const RegisterTensor& c = operandTensor(op, 2);
  const size_t rank = a.shape.size();
  if ((rank != 2 && rank != 3) || b.shape.size() != rank) unsupported(op, "tt.dot of rank " + std::to_string(rank));
  const bool batched = rank == 3;  // [batch, m, k] x [batch, k, n]: one product per batch index
  const ir::Type& accType = v->type().element();
  ScalarKind ak = a.element.scalarKind(), ck = accType.scalarKind();
  bool isInt = !accType.isFloat();
  // A 16-bit float accumulator is carried in float and rounded once at the
  // end: at least as accurate as accumulating in 16 bits.
  const bool narrowAcc = ck == ScalarKind::F16 || ck == ScalarKind::BF16;
  if (isInt ? (ak != ScalarKind::I8 && ak != ScalarKind::I32) : ck != ScalarKind::F32 && !narrowAcc)
    unsupported(op, "tt.dot accumulating in " + accType.str() + " (f32, f16, bf16, or i32 for integer inputs)");
  int64_t m = a.shape[rank - 2], k = a.shape[rank - 1], n = b.shape[rank - 1];
  LayoutPtr l = layouts_.home(v);
  TensorMap map(l, v->type().shape());
  int64_t regs = map.numRegisters();
  body_.comment("'tt.dot' " + std::string(batched ? std::to_string(a.shape[0]) + " x " : "") + std::to_string(m) +
                "x" + std::to_string(n) + "x" + std::to_string(k) + " at " + op.loc().userPos().str() +
                ": A and B through threadgroup memory, FMAs into registers");

  // A and B whole when they fit, one barrier after both are written (and,
  // in a loop, one before). Otherwise K in chunks (below), for which A and
  // B are read with K outermost: A as [K][batch][M], B as [K][batch][N].
  const int64_t batches = batched ? a.shape[0] : 1;
  const LayoutPtr aByK = layout::permuteLayout(a.layout, batched ? std::vector<int>{2, 0, 1} : std::vector<int>{1, 0});
  const LayoutPtr bByK = batched ? layout::permuteLayout(b.layout, {1, 0, 2}) : b.layout;
  const int64_t chunk = aByK && bByK ? dotChunk(op, a, b, batches * m, batches * n, k) : k;
  const bool chunked = chunk < k;
  decisions_["dots"].push_back({{"op", op.loc().userPos().str()},
                                {"m", m},
                                {"n", n},
                                {"k", k},
                                {"batches", batches},
                                {"strategy", "fma"},
                                {"k_chunk", chunk}});
  std::string bufA, bufB;
  if (chunked) {
    body_.comment("K in chunks of " + std::to_string(chunk) + ": all of A and B would exceed the threadgroup memory");
    // A's rows k0.. ([chunk][batch][m]), then B's ([chunk][batch][n]): in
    // one buffer when their elements are alike, so that one earlier buffer
    // can lend them its memory.
    if (a.element == b.element) {
      bufA = allocateStaging(op, a.element, chunk * batches * (m + n), "dot_ab");
      bufB = "(" + bufA + " + " + std::to_string(chunk * batches * m) + ")";
    } else {
      bufA = allocateStaging(op, a.element, chunk * batches * m, "dot_a");
      bufB = allocateStaging(op, b.element, chunk * batches * n, "dot_b");
    }
  } else {
    bufA = stageInThreadgroupMemory(op, a, "dot_a", true, false, /*vectors=*/true);
    bufB = stageInThreadgroupMemory(op, b, "dot_b", false, true, /*vectors=*/true);
    issueLoadsAhead(*op.parentBlock());  // A's and B's registers are free
  }

  std::string name = nameFor(v);
  RegisterTensor out = RegisterTensor::array(l, v->type().shape(), accType, name, regs);
  body_.line(declaration(accType, name, regs) + ";");
  RegisterTensor acc = out;
  if (narrowAcc) {
    acc = RegisterTensor::array(l, v->type().shape(), ir::Type::f32(), name + "_f32", regs);
    body_.line(declaration(acc.element, acc.arrayName, regs) + ";");
    convertRegisters(acc, c);
  } else {
    copyRegisters(out, c);
  }

  const int batchDim = batched ? l->rootDims()[0] : -1;
  const int rowDim = l->rootDims()[rank - 2], colDim = l->rootDims()[rank - 1];
  std::string batch = batched ? threadOffset(map, batchDim) : "0";
  std::string row = threadOffset(map, rowDim), col = threadOffset(map, colDim);
  // The distinct (batch, row) and (batch, column) offsets of this thread's
  // registers: each names one element of A and of B per k.
  using Key = std::pair<int64_t, int64_t>;
  std::map<Key, std::string> rows, cols;
  std::vector<std::pair<Key, Key>> at(regs);
  for (int64_t r = 0; r < regs; ++r) {
    std::vector<int64_t> off = map.registerOffset(r);
    int64_t bo = batched ? off[batchDim] : 0;
    at[r] = {{bo, off[rowDim]}, {bo, off[colDim]}};
    rows[at[r].first];
    cols[at[r].second];
  }
  std::string wide = isInt ? dialect_.scalarType(ScalarKind::I32) : dialect_.scalarType(ScalarKind::F32);
  auto plusOffset = [](const std::string& base, int64_t off) {
    if (base == "0") return std::to_string(off);
    return off ? "(" + base + " + " + std::to_string(off) + ")" : base;
  };
  // base * extent + inner, leaving out what is zero.
  auto flat = [](const std::string& base, int64_t extent, const std::string& inner) {
    if (base == "0") return inner;
    const std::string factor = base.find(' ') == std::string::npos ? base : "(" + base + ")";
    return factor + " * " + std::to_string(extent) + (inner == "0" ? "" : " + " + inner);
  };
  if (chunked) {
    // Each trip stages rows k0.. of A and B with K outermost (their
    // registers under the permuted layouts number the same elements): both
    // contiguous in the row-major order that writeStagedRange filters by.
    std::string k0 = newName("k0");
    body_.open("for (int " + k0 + " = 0; " + k0 + " < " + std::to_string(k) + "; " + k0 + " += " +
               std::to_string(chunk) + ")");
    body_.line(dialect_.barrier());  // the previous trip's reads are done
    RegisterTensor aK = a, bK = b;
    aK.layout = aByK;
    aK.shape = batched ? std::vector<int64_t>{k, batches, m} : std::vector<int64_t>{k, m};
    bK.layout = bByK;
    bK.shape = batched ? std::vector<int64_t>{k, batches, n} : std::vector<int64_t>{k, n};
    writeStagedRange(aK, bufA, k0 + " * " + std::to_string(batches * m), chunk * batches * m);
    writeStagedRange(bK, bufB, k0 + " * " + std::to_string(batches * n), chunk * batches * n);
    body_.line(dialect_.barrier());
  }
  std::string kk = newName("kk");
  body_.open("for (int " + kk + " = 0; " + kk + " < " + std::to_string(chunk) + "; ++" + kk + ")");
  int i = 0;
  for (auto& [off, var] : rows) {
    var = newName("a" + std::to_string(i++));
    std::string rowIndex = flat(plusOffset(batch, off.first), m, plusOffset(row, off.second));
    std::string index = chunked ? flat(kk, batches * m, rowIndex) : flat(rowIndex, k, kk);
    body_.line(wide + " " + var + " = " + dialect_.convert(bufA + "[" + index + "]", wide) + ";");
  }
  i = 0;
  for (auto& [off, var] : cols) {
    var = newName("b" + std::to_string(i++));
    std::string colIndex = flat(plusOffset(batch, off.first), n, plusOffset(col, off.second));
    std::string index = chunked ? flat(kk, batches * n, colIndex)
                                : flat(flat(plusOffset(batch, off.first), k, kk), n, plusOffset(col, off.second));
    body_.line(wide + " " + var + " = " + dialect_.convert(bufB + "[" + index + "]", wide) + ";");
  }
  for (int64_t r = 0; r < regs; ++r) {
    const std::string& x = rows[at[r].first];
    const std::string& y = cols[at[r].second];
    if (isInt)
      body_.line(acc.regs[r] + " += " + x + " * " + y + ";");
    else
      body_.line(acc.regs[r] + " = " + dialect_.mathCall(MathFn::Fma, {x, y, acc.regs[r]}, ScalarKind::F32, false) + ";");
  }
  body_.close();
  if (chunked) body_.close();
  if (narrowAcc) convertRegisters(out, acc);
  defineTensor(v, out);
}

RegisterTensor KernelLowering::widenFloat8(const RegisterTensor& t, const std::string& hint) {
  if (!t.element.isFloat() || !ir::isFloat8Kind(t.element.scalarKind())) return t;
  const std::string name = newName(hint);
  RegisterTensor wide = RegisterTensor::array(t.layout, t.shape, ir::Type::f16(), name, static_cast<int64_t>(t.size()));
  body_.line(declaration(wide.element, name, static_cast<int64_t>(t.size())) + ";");
  assignRegisters(wide, t, [&](const std::string& v) {
    return floatConversions_.convert(v, t.element.scalarKind(), ScalarKind::F16, false);
  });
  return wide;
}

int64_t KernelLowering::dotChunk(const ir::Operation& op, const RegisterTensor& a, const RegisterTensor& b, int64_t m,
                                  int64_t n, int64_t k) {
  const int bytesA = std::max(1, a.element.bitWidth() / 8), bytesB = std::max(1, b.element.bitWidth() / 8);
  // Whole A and B in memory of their own or lent by earlier ops; else
  // chunks, which for alike elements share one buffer that may be lent too.
  if (threadgroupMemory_.canHoldPair(op, k * m, bytesA, k * n, bytesB)) return k;
  auto fits = [&](int64_t rows) {
    return a.element == b.element ? threadgroupMemory_.canHold(op, rows * (m + n), bytesA)
                                  : threadgroupMemory_.canHoldPair(op, rows * m, bytesA, rows * n, bytesB);
  };
  // The largest power of two dividing K that fits (K is a power of two).
  int64_t chunk = k / 2;
  while (chunk > 1 && !fits(chunk)) chunk /= 2;
  return fits(chunk) ? chunk : k;  // none fits: the whole, and its error
}

}  // namespace tmetal::codegen
