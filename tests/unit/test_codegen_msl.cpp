// The MSL code generator: exact errors for what a target cannot do, the
// shape of the emitted code for the constructs it must get right, and golden
// files (tests/golden/msl) for kernels a Metal programmer should recognise.
// TMETAL_UPDATE_GOLDEN=1 rewrites the golden files instead of comparing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <tuple>

#include "tmetal/codegen/compile_kernel.h"
#include "tmetal/codegen/kernel_lowering.h"
#include "tmetal/codegen/threadgroup_memory.h"
#include "tmetal/frontend/ttir_reader.h"
#include "tmetal/hw/hardware_profile.h"
#include "tmetal/ir/verifier.h"
#include "tmetal/support/diagnostic.h"

using namespace tmetal;

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

codegen::CompiledKernel compileText(const std::string& ttir, codegen::CompileOptions options = {}) {
  auto module = frontend::parseTtir(ttir, "kernel.ttir");
  ir::verify(*module);
  return codegen::compileKernel(*module, options);
}

codegen::CompiledKernel compileCase(const std::string& name, codegen::CompileOptions options = {}) {
  std::string path = std::string(TMETAL_SOURCE_DIR) + "/tests/ttir/" + name + ".ttir";
  auto module = frontend::parseTtir(readFile(path), "tests/ttir/" + name + ".ttir");
  ir::verify(*module);
  return codegen::compileKernel(*module, options);
}

// Compiles `ttir`, expecting a CompileError; returns it.
CompileError compileError(const std::string& ttir, codegen::CompileOptions options = {}) {
  try {
    compileText(ttir, options);
  } catch (const CompileError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a CompileError";
  return CompileError("none");
}

// The resource, required amount and limit of the ResourceLimitError that
// compiling `ttir` throws ("" when it throws none).
std::tuple<std::string, int64_t, int64_t> resourceLimit(const std::string& ttir, codegen::CompileOptions options = {}) {
  try {
    compileText(ttir, options);
  } catch (const ResourceLimitError& e) {
    return {e.resource(), e.required(), e.limit()};
  } catch (const CompileError&) {
  }
  return {"", 0, 0};
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

const char* kReshapeTooBig = R"(#loc = loc("big.py":3:0)
module {
  tt.func public @big(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("x_ptr"(#loc))) attributes {noinline = false} {
    %offs = tt.make_range {end = 16384 : i32, start = 0 : i32} : tensor<16384xi32> loc(#loc1)
    %ptrs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<16384x!tt.ptr<f32>> loc(#loc2)
    %ptrs_0 = tt.addptr %ptrs, %offs : tensor<16384x!tt.ptr<f32>>, tensor<16384xi32> loc(#loc2)
    %x = tt.load %ptrs_0 : tensor<16384x!tt.ptr<f32>> loc(#loc3)
    %y = tt.reshape %x : tensor<16384xf32> -> tensor<128x128xf32> loc(#loc4)
    %t = tt.trans %y {order = array<i32: 1, 0>} : tensor<128x128xf32> -> tensor<128x128xf32> loc(#loc4)
    %z = tt.reshape %t : tensor<128x128xf32> -> tensor<16384xf32> loc(#loc4)
    tt.store %ptrs_0, %z : tensor<16384x!tt.ptr<f32>> loc(#loc5)
    tt.return loc(#loc6)
  } loc(#loc)
} loc(#loc)
#loc1 = loc("big.py":4:24)
#loc2 = loc("big.py":5:21)
#loc3 = loc("big.py":5:12)
#loc4 = loc("big.py":6:12)
#loc5 = loc("big.py":7:4)
#loc6 = loc("big.py":7:0)
)";

// A 128x128 float tile (64 KB) loaded row by row and stored transposed.
const char* kTransposeTooBig = R"(#loc = loc("flip.py":3:0)
module {
  tt.func public @flip(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("x_ptr"(#loc)), %out_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("out_ptr"(#loc))) attributes {noinline = false} {
    %c128 = arith.constant dense<128> : tensor<128x1xi32> loc(#loc1)
    %r = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32> loc(#loc1)
    %rows = tt.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32> loc(#loc1)
    %rows_1 = arith.muli %rows, %c128 : tensor<128x1xi32> loc(#loc1)
    %cols = tt.expand_dims %r {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32> loc(#loc1)
    %rows_2 = tt.broadcast %rows_1 : tensor<128x1xi32> -> tensor<128x128xi32> loc(#loc1)
    %cols_1 = tt.broadcast %cols : tensor<1x128xi32> -> tensor<128x128xi32> loc(#loc1)
    %idx = arith.addi %rows_2, %cols_1 : tensor<128x128xi32> loc(#loc1)
    %in = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<128x128x!tt.ptr<f32>> loc(#loc2)
    %in_1 = tt.addptr %in, %idx : tensor<128x128x!tt.ptr<f32>>, tensor<128x128xi32> loc(#loc2)
    %x = tt.load %in_1 : tensor<128x128x!tt.ptr<f32>> loc(#loc3)
    %t = tt.trans %x {order = array<i32: 1, 0>} : tensor<128x128xf32> -> tensor<128x128xf32> loc(#loc4)
    %out = tt.splat %out_ptr : !tt.ptr<f32> -> tensor<128x128x!tt.ptr<f32>> loc(#loc5)
    %out_1 = tt.addptr %out, %idx : tensor<128x128x!tt.ptr<f32>>, tensor<128x128xi32> loc(#loc5)
    tt.store %out_1, %t : tensor<128x128x!tt.ptr<f32>> loc(#loc5)
    tt.return loc(#loc6)
  } loc(#loc)
} loc(#loc)
#loc1 = loc("flip.py":4:24)
#loc2 = loc("flip.py":5:21)
#loc3 = loc("flip.py":5:12)
#loc4 = loc("flip.py":6:12)
#loc5 = loc("flip.py":7:4)
#loc6 = loc("flip.py":7:0)
)";

const char* kDoubles = R"(#loc = loc("dbl.py":3:0)
module {
  tt.func public @dbl(%x_ptr: !tt.ptr<f32> {tt.divisibility = 16 : i32} loc("x_ptr"(#loc))) attributes {noinline = false} {
    %offs = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32> loc(#loc1)
    %ptrs = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<128x!tt.ptr<f32>> loc(#loc2)
    %ptrs_0 = tt.addptr %ptrs, %offs : tensor<128x!tt.ptr<f32>>, tensor<128xi32> loc(#loc2)
    %x = tt.load %ptrs_0 : tensor<128x!tt.ptr<f32>> loc(#loc3)
    %wide = arith.extf %x : tensor<128xf32> to tensor<128xf64> loc(#loc4)
    %back = arith.truncf %wide : tensor<128xf64> to tensor<128xf32> loc(#loc4)
    tt.store %ptrs_0, %back : tensor<128x!tt.ptr<f32>> loc(#loc5)
    tt.return loc(#loc5)
  } loc(#loc)
} loc(#loc)
#loc1 = loc("dbl.py":4:24)
#loc2 = loc("dbl.py":5:21)
#loc3 = loc("dbl.py":5:12)
#loc4 = loc("dbl.py":6:15)
#loc5 = loc("dbl.py":7:4)
)";

const char* kHistogram = R"(#loc = loc("hist.py":3:0)
module {
  tt.func public @hist(%x_ptr: !tt.ptr<i32> {tt.divisibility = 16 : i32} loc("x_ptr"(#loc))) attributes {noinline = false} {
    %offs = tt.make_range {end = 128 : i32, start = 0 : i32} : tensor<128xi32> loc(#loc1)
    %ptrs = tt.splat %x_ptr : !tt.ptr<i32> -> tensor<128x!tt.ptr<i32>> loc(#loc2)
    %ptrs_0 = tt.addptr %ptrs, %offs : tensor<128x!tt.ptr<i32>>, tensor<128xi32> loc(#loc2)
    %x = tt.load %ptrs_0 : tensor<128x!tt.ptr<i32>> loc(#loc3)
    %h = tt.histogram %x : tensor<128xi32> -> tensor<16xi32> loc(#loc4)
    tt.return loc(#loc5)
  } loc(#loc)
} loc(#loc)
#loc1 = loc("hist.py":4:24)
#loc2 = loc("hist.py":5:21)
#loc3 = loc("hist.py":5:12)
#loc4 = loc("hist.py":6:12)
#loc5 = loc("hist.py":7:4)
)";

}  // namespace

// kReshapeTooBig with 512x512 (1 MB) instead of 128x128 (64 KB).
std::string reshapeOf512x512() {
  std::string text = kReshapeTooBig;
  for (auto [from, to] : {std::pair<std::string, std::string>{"16384", "262144"}, {"128x128", "512x512"}})
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
  return text;
}

TEST(CodegenMsl, ATilePastTheThreadgroupMemoryIsStagedInPieces) {
  // The transposed 128x128 tile (64 KB) flattened: in two pieces of 32 KB,
  // each element written and read in the piece its row-major index falls in.
  // The pieces go by bit 8 of that index: the writers (the transposed tile,
  // four rows a thread) write half their registers in each piece,
  // unconditionally; for the readers (the flat layout) it is a SIMD-group
  // bit, so whole SIMD groups read a piece, under one condition and no guard
  // of an element's own. By the top bit (13) the writers' piece would be a
  // lane bit.
  const codegen::CompiledKernel k = compileText(kReshapeTooBig);
  EXPECT_NE(k.source.find("// reshape in 2 pieces of 8192 elements by index bit 8:"), std::string::npos) << k.source;
  EXPECT_NE(k.source.find("threadgroup float tg_reshape[8192];"), std::string::npos) << k.source;
  EXPECT_EQ(count(k.source, "if (((L0_o0 >> 8) & 1) == 0) {"), 1u) << k.source;
  EXPECT_EQ(count(k.source, "if (((L0_o0 >> 8) & 1) == 1) {"), 1u) << k.source;
  EXPECT_EQ(count(k.source, ") tg_reshape["), 0u) << k.source;
  EXPECT_EQ(count(k.source, "threadgroup_barrier"), 3u) << k.source;  // write, read, write, read
}

TEST(CodegenMsl, PiecesOfATransposeAreWrittenInVectors) {
  // Its conversion to the store's layout goes in two pieces, each row
  // swizzled in runs of four. The pieces go by row parity (bit 8 of the
  // index, the second row bit): a writer SIMD group holds every fourth row
  // and a reader four consecutive rows, so each piece is written by whole
  // SIMD groups (one condition, on the SIMD group) and read by every thread,
  // half its registers a piece, unconditionally. By the top row bit instead,
  // the readers' piece would be a lane bit: half of each SIMD group idle in
  // each piece's reads. Each writer's vector of four lies within a run: 32
  // vector writes a thread (all in the one piece of its SIMD group, so the
  // code holds them once a piece), no element written alone.
  // (The loaded tile also stored as it is: the transposed store is not
  // streamed, below.)
  std::string text = kTransposeTooBig;
  const std::string store = "    tt.store %out_1, %t : tensor<128x128x!tt.ptr<f32>> loc(#loc5)\n";
  ASSERT_NE(text.find(store), std::string::npos);
  text.insert(text.find(store) + store.size(), "    tt.store %in_1, %x : tensor<128x128x!tt.ptr<f32>> loc(#loc5)\n");
  const codegen::CompiledKernel k = compileText(text);
  EXPECT_NE(k.source.find("// conversion in 2 pieces of 8192 elements by index bit 8:"), std::string::npos)
      << k.source;
  EXPECT_EQ(count(k.source, "*reinterpret_cast<threadgroup float4*>(tg_conversion + "), 2 * 32u) << k.source;
  EXPECT_EQ(count(k.source, "  tg_conversion["), 0u) << k.source;
  EXPECT_EQ(count(k.source, ">> 8) & 1) == 0) {"), 1u) << k.source;
  EXPECT_EQ(count(k.source, ">> 8) & 1) == 1) {"), 1u) << k.source;
  EXPECT_EQ(count(k.source, "= tg_conversion["), 128u) << k.source;
}

// A loaded tile stored transposed, twice the threadgroup memory: streamed.
// Each piece's registers are loaded just before they are staged, and each
// vector stored soon after it is read back (four vectors' reads later), so
// that about a piece of each is live at a time rather than the loaded tile
// and the converted one. Pieces by the top
// row bit: every thread loads and writes half its registers a piece, and
// half of each SIMD group's lanes read and store theirs (a lane condition);
// by row parity the readers' store vectors would be cut into elements.
// A float16 tile of four times the threadgroup memory: the store's threads
// take two columns each and only a 128-byte line of lanes along the rows
// (pieceableStoreLayout), so that every thread reads a quarter of its
// registers in each piece, two halves at a time (readStagedWords), where a
// quarter of each SIMD group's lanes read all of theirs an element at a time.
TEST(CodegenMsl, HalvesPastTheThreadgroupMemoryAreReadBackInWords) {
  std::string text = kTransposeTooBig;
  for (size_t at = text.find("128"); at != std::string::npos; at = text.find("128", at + 3)) text.replace(at, 3, "256");
  for (size_t at = text.find("f32"); at != std::string::npos; at = text.find("f32", at + 3)) text.replace(at, 3, "f16");
  for (const char* target : {"metal", "cuda"}) {
    SCOPED_TRACE(target);
    codegen::CompileOptions options;
    options.target = target;
    const codegen::CompiledKernel k = compileText(text, options);
    ASSERT_NE(k.source.find("// conversion in 4 pieces of 16384 elements"), std::string::npos) << k.source;
    EXPECT_NE(k.source.find("blocked{spt=[2,8], lanes=[4,8], simds=[4,1], order=[1,0]}"), std::string::npos)
        << k.source;
    EXPECT_EQ(count(k.source, "int word = "), 256u);  // 512 halves a thread
    EXPECT_EQ(count(k.source, "= tg_conversion["), 0u);
    EXPECT_EQ(count(k.source, ") >> 14) == "), 0u);  // no piece picks threads
  }
}

TEST(CodegenMsl, ATransposedStorePastTheThreadgroupMemoryIsStreamed) {
  const codegen::CompiledKernel k = compileText(kTransposeTooBig);
  const size_t conversion = k.source.find("// conversion in 2 pieces of 8192 elements: ");
  ASSERT_NE(conversion, std::string::npos) << k.source;
  EXPECT_EQ(count(k.source.substr(0, conversion), "x_ptr["), 0u) << k.source;  // nothing loaded before
  // Between the barriers: piece 0's loads and writes, its reads and stores,
  // piece 1's loads and writes, its reads and stores.
  std::vector<std::string> segments;
  for (size_t at = conversion, next; at != std::string::npos; at = next) {
    next = k.source.find("threadgroup_barrier", at + 1);
    segments.push_back(k.source.substr(at, next == std::string::npos ? std::string::npos : next - at));
  }
  ASSERT_EQ(segments.size(), 4u) << k.source;
  auto accesses = [](const std::string& s) {
    return std::make_tuple(count(s, "float4 vec = *reinterpret_cast<device float4*>(&x_ptr["),
                           count(s, "*reinterpret_cast<threadgroup float4*>(tg_conversion + "),
                           count(s, "= tg_conversion["), count(s, "*reinterpret_cast<device float4*>(&out_ptr["));
  };
  for (int piece : {0, 1}) {
    EXPECT_EQ(accesses(segments[2 * piece]), std::make_tuple(16u, 16u, 0u, 0u)) << segments[2 * piece];
    EXPECT_EQ(accesses(segments[2 * piece + 1]), std::make_tuple(0u, 0u, 128u, 32u)) << segments[2 * piece + 1];
    EXPECT_NE(segments[2 * piece + 1].find(" >> 13) == " + std::to_string(piece) + ") {"), std::string::npos);
  }
  // With four SIMD groups each vector is stored once it and 12 more are read
  // (the 13th vector's last read, then the first store), the last 12 after
  // the piece's reads.
  EXPECT_NE(segments[1].find("x_cvt[51] = tg_conversion[(((x_cvt_at + 432)) ^ (((((x_cvt_at + 432)) >> 9) & 7) << 2)) & "
                             "8191];\n"
                             "    *reinterpret_cast<device float4*>(&out_ptr[idx[0]]) = float4(x_cvt[0], x_cvt[1], "
                             "x_cvt[2], x_cvt[3]);\n"
                             "    x_cvt[52] = "),
            std::string::npos)
      << segments[1];
  const size_t lastRead = segments[1].rfind("= tg_conversion[");
  // After the last read: the store its vector lets go, then the 12 left.
  EXPECT_EQ(count(segments[1].substr(lastRead), "&out_ptr["), 1u + 12u) << segments[1];
  ASSERT_EQ(k.metadata.layouts["conversions"].size(), 1u);
  EXPECT_EQ(k.metadata.layouts["conversions"][0]["streamed"], true);
  // With eight SIMD groups, 4 more.
  codegen::CompileOptions eight;
  eight.numWarps = 8;
  const codegen::CompiledKernel wide = compileText(kTransposeTooBig, eight);
  const size_t lastWideRead = wide.source.rfind("= tg_conversion[");
  ASSERT_NE(lastWideRead, std::string::npos) << wide.source;
  const size_t pieceEnd = wide.source.find("threadgroup_barrier", lastWideRead);
  EXPECT_EQ(count(wide.source.substr(lastWideRead, pieceEnd - lastWideRead), "&out_ptr["), 1u + 4u) << wide.source;
}

TEST(CodegenErrors, ThreadgroupMemoryOverTheLimitNamesTheOp) {
  // 1 MB would take more than kMaxStagingPieces pieces: refused as a whole.
  const std::string text = reshapeOf512x512();
  CompileError e = compileError(text);
  EXPECT_EQ(e.pos().str(), "big.py:6:12");
  EXPECT_EQ(e.message(),
            "'tt.reshape': needs 1048576 bytes of threadgroup memory (1048576 in total), more than the 32768 bytes a "
            "threadgroup has on Generic Apple GPU (M1-class baseline)");
  // Its own kind, which the plugin raises as Triton's OutOfResources.
  EXPECT_EQ(resourceLimit(text), std::make_tuple(std::string("threadgroup memory"), int64_t{1048576}, int64_t{32768}));
}

// Past the limit, a buffer takes the memory of an earlier op's that is
// never written again: one that runs once, or one in a loop that has run its
// last trip (the two loops of dots of Triton's fused-attention tutorial,
// inlined one after the other) -- not one of the same loop, nor of a loop
// around both.
TEST(ThreadgroupMemory, BuffersOfAFinishedLoopLendTheirMemoryToLaterOps) {
  const std::string ttir = R"(module {
  tt.func public @k(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    scf.for %o = %c0 to %n step %c1  : i32 {
      scf.for %i = %c0 to %n step %c1  : i32 {
        %a = arith.addi %i, %c1 : i32
      }
      scf.for %j = %c0 to %n step %c1  : i32 {
        %b = arith.addi %j, %c1 : i32
        %c = arith.addi %b, %c1 : i32
      }
    }
    scf.for %k = %c0 to %n step %c1  : i32 {
      %d = arith.addi %k, %c1 : i32
    }
    tt.return
  }
})";
  auto module = frontend::parseTtir(ttir, "loops.ttir");
  ir::verify(*module);
  std::vector<const ir::Operation*> adds;  // %a, %b, %c, %d
  std::function<void(const ir::Block&)> collect = [&](const ir::Block& block) {
    for (const auto& op : block.ops()) {
      if (op->kind() == ir::OpKind::ArithAddI) adds.push_back(op.get());
      for (size_t r = 0; r < op->numRegions(); ++r)
        for (size_t b = 0; b < op->region(r)->numBlocks(); ++b) collect(*op->region(r)->block(b));
    }
  };
  collect(*module->kernel()->entry());
  ASSERT_EQ(adds.size(), 4u);
  codegen::ThreadgroupMemory memory(1024, "a test GPU");
  EXPECT_TRUE(memory.allocate(*adds[0], "tg_a", "float", 4, 200, "a", true).sharesWith.empty());
  // %b's loop runs after %a's, but both inside the outer loop: %a's buffer
  // is written again in the outer loop's next trip.
  EXPECT_THROW(memory.allocate(*adds[1], "tg_b", "float", 4, 200, "b", true), ResourceLimitError);
  EXPECT_FALSE(memory.canHold(*adds[2], 200, 4));
  // After the outer loop: its buffers are done.
  EXPECT_EQ(memory.allocate(*adds[3], "tg_d", "float", 4, 200, "d", true).sharesWith, "tg_a");
}

TEST(CodegenMsl, AReshapeUndoneBeforeItsStoreStagesNothing) {
  // 16384 -> 128x128 -> 16384 into the store's layout: each reshape keeps
  // the registers, so nothing goes through threadgroup memory and the
  // store writes the loaded vectors back (one loop of each).
  std::string text = kReshapeTooBig;
  const std::string trans =
      "    %t = tt.trans %y {order = array<i32: 1, 0>} : tensor<128x128xf32> -> tensor<128x128xf32> loc(#loc4)\n";
  ASSERT_NE(text.find(trans), std::string::npos);
  text.erase(text.find(trans), trans.size());
  text.replace(text.find("tt.reshape %t"), std::string("tt.reshape %t").size(), "tt.reshape %y");
  const codegen::CompiledKernel k = compileText(text);
  EXPECT_EQ(count(k.source, "threadgroup float"), 0u) << k.source;
  EXPECT_EQ(count(k.source, "threadgroup_barrier"), 0u) << k.source;
  EXPECT_EQ(count(k.source, "*reinterpret_cast<device float4*>(&x_ptr"), 2u) << k.source;  // the load and the store
}

TEST(CodegenErrors, DoublePrecisionIsRejectedOnAppleGpus) {
  CompileError e = compileError(kDoubles);
  EXPECT_EQ(e.pos().str(), "dbl.py:6:15");
  EXPECT_EQ(e.message(),
            "'arith.extf': f64 is not supported on Generic Apple GPU (M1-class baseline): the GPU has no double "
            "precision");
}

TEST(CodegenErrors, DotScaledScalesMustCoverBlocksOf32) {
  const std::string ttir = R"(module {
  tt.func public @mx(%a: tensor<16x64xf8E4M3FN>, %b: tensor<64x16xf8E5M2>, %s: tensor<16x3xi8>) {
    %acc = arith.constant dense<0.000000e+00> : tensor<16x16xf32>
    %c = tt.dot_scaled %a scale %s, %b, %acc lhs = e4m3 rhs = e5m2 {fastMath = false} : tensor<16x64xf8E4M3FN>, tensor<16x3xi8> * tensor<64x16xf8E5M2> -> tensor<16x16xf32>
    tt.return
  }
}
)";
  CompileError e = compileError(ttir);
  EXPECT_EQ(e.pos().str(), "kernel.ttir:4:5");
  EXPECT_EQ(e.message(),
            "'tt.dot_scaled': the scale of a must be tensor<16x2xi8> (one per 32 elements of K) or "
            "tensor<16x4xf8E4M3FN> (one per 16), found tensor<16x3xi8>");
}

TEST(CodegenErrors, UnsupportedOpsNameTheOpAndLine) {
  // A CUDA libdevice function: Metal has no such library.
  std::string source = kHistogram;
  const std::string histogram = "%h = tt.histogram %x : tensor<128xi32> -> tensor<16xi32>";
  source.replace(source.find(histogram), histogram.size(),
                 "%h = tt.extern_elementwise %x {libname = \"\", libpath = \"\", pure = true, symbol = \"my_device_fn\"} "
                 ": (tensor<128xi32>) -> tensor<128xi32>");
  CompileError e = compileError(source.c_str());
  EXPECT_EQ(e.pos().str(), "hist.py:6:12");
  EXPECT_EQ(e.message(),
            "'tt.extern_elementwise': not supported by the metal backend: the function 'my_device_fn' (tmetal has "
            "libdevice's float32 and integer functions, docs/codegen.md \"libdevice\")");
}

TEST(CodegenErrors, RecursiveCallsAreRefusedAtTheCall) {
  // Calls are inlined (noinline functions stay calls in Triton's TTIR); a
  // function that calls itself cannot be.
  CompileError e = compileError(R"(module {
  tt.func private @countdown(%n: i32) -> i32 attributes {noinline = true} {
    %r = tt.call @countdown(%n) : (i32) -> i32 loc("rec.py":4:12)
    tt.return %r : i32
  }
  tt.func public @k(%out: !tt.ptr<i32>, %n: i32) attributes {noinline = false} {
    %r = tt.call @countdown(%n) : (i32) -> i32 loc("rec.py":9:8)
    tt.store %out, %r : !tt.ptr<i32>
    tt.return
  }
}
)");
  EXPECT_EQ(e.pos().str(), "rec.py:4:12");
  EXPECT_EQ(e.message(), "'tt.call': calls @countdown recursively, which a GPU kernel cannot do");
}

TEST(CodegenMsl, CallsAreCopiesOfTheFunctionsTheyCall) {
  codegen::CompiledKernel k = compileText(R"(module {
  tt.func private @twice(%x: i32) -> i32 attributes {noinline = true} {
    %r = arith.addi %x, %x : i32
    tt.return %r : i32
  }
  tt.func public @k(%out: !tt.ptr<i32>, %n: i32) attributes {noinline = false} {
    %a = tt.call @twice(%n) : (i32) -> i32
    %b = tt.call @twice(%a) : (i32) -> i32
    tt.store %out, %b : !tt.ptr<i32>
    tt.return
  }
}
)");
  EXPECT_NE(k.source.find("  int r0 = n + n;\n  int r1 = r0 + r0;\n"), std::string::npos) << k.source;
}

// tl.sqrt (math.sqrt) is what Triton documents as its fast square root, and
// its NVIDIA backend emits sqrt.approx for it; tl.sqrt_rn (tt.precise_sqrt)
// is correctly rounded. So the first is metal::fast::sqrt (on CUDA
// sqrt.approx.f32, without .ftz), the second precise::sqrt (sqrtf).
TEST(CodegenMsl, TritonsFastSquareRootIsTheTargetsFastOne) {
  const std::string ttir = R"(module {
  tt.func public @roots(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %q: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %x = tt.load %p : !tt.ptr<f32>
    %fast = math.sqrt %x : f32
    %exact = tt.precise_sqrt %x : f32
    %sum = arith.addf %fast, %exact : f32
    tt.store %q, %sum : !tt.ptr<f32>
    tt.return
  }
}
)";
  codegen::CompiledKernel k = compileText(ttir);
  EXPECT_EQ(count(k.source, "fast::sqrt("), 1u) << k.source;
  EXPECT_EQ(count(k.source, "precise::sqrt("), 1u) << k.source;
  codegen::CompileOptions cuda;
  cuda.target = "cuda";
  codegen::CompiledKernel c = compileText(ttir, cuda);
  EXPECT_EQ(count(c.source, " = tmetal_fast_sqrt("), 1u) << c.source;
  EXPECT_EQ(count(c.source, " = sqrtf("), 1u) << c.source;
  EXPECT_NE(c.source.find("asm(\"sqrt.approx.f32 %0, %1;\""), std::string::npos);
}

// sin(x) * cos(x): one sincos a register (one range reduction for both),
// whichever of the two comes first; a sin alone stays a sin.
TEST(CodegenMsl, SinAndCosOfTheSameFloatsAreOneSincos) {
  codegen::CompiledKernel k = compileCase("math_functions");
  EXPECT_EQ(count(k.source, "sincos("), 1u) << k.source;
  EXPECT_EQ(count(k.source, "precise::sin("), 0u);
  EXPECT_EQ(count(k.source, "precise::cos("), 0u);
  EXPECT_NE(k.source.find("for (int r = 0; r < 4; ++r) b_17[r] = precise::sincos(x_7[r], b_18[r]);\n"
                          "  float b_19[4];\n"
                          "  #pragma clang loop unroll(full)\n"
                          "  for (int r = 0; r < 4; ++r) b_19[r] = b_17[r] * b_18[r];\n"),
            std::string::npos)
      << k.source;
  codegen::CompileOptions cuda;
  cuda.target = "cuda";
  codegen::CompiledKernel c = compileCase("math_functions", cuda);
  EXPECT_EQ(count(c.source, "= tmetal_sincos(x_7[r], b_18[r]);"), 1u) << c.source;

  const std::string cosFirst = R"(module {
  tt.func public @polar(%p: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %q: !tt.ptr<f32> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %x = tt.load %p : !tt.ptr<f32>
    %c = math.cos %x : f32
    %s = math.sin %x : f32
    %d = arith.subf %c, %s : f32
    %e = math.sin %d : f32
    tt.store %q, %e : !tt.ptr<f32>
    tt.return
  }
}
)";
  codegen::CompiledKernel polar = compileText(cosFirst);
  EXPECT_EQ(count(polar.source, "precise::sincos(x, c);"), 1u) << polar.source;
  EXPECT_EQ(count(polar.source, "precise::sin("), 1u) << polar.source;
  EXPECT_EQ(count(polar.source, "precise::cos("), 0u) << polar.source;
}

TEST(CodegenErrors, TooManyThreadsPerThreadgroup) {
  codegen::CompileOptions options;
  options.numWarps = 64;
  CompileError e = compileError(kHistogram, options);
  EXPECT_EQ(e.pos().str(), "hist.py:3");
  EXPECT_EQ(e.message(), "'tt.func' @hist: num_warps 64 gives 2048 threads per threadgroup, more than the 1024 of "
                         "Generic Apple GPU (M1-class baseline)");
  EXPECT_EQ(resourceLimit(kHistogram, options), std::make_tuple(std::string("threads"), int64_t{2048}, int64_t{1024}));
}

TEST(CodegenErrors, MoreThreadgroupsPerCoreThanTheCoreHolds) {
  codegen::CompileOptions metal;
  metal.numWarps = 16;
  metal.minThreadgroupsPerCore = 7;
  EXPECT_EQ(compileError(kHistogram, metal).message(),
            "cannot keep 7 threadgroups of 512 threads on one core of apple-generic, which holds 3072 threads");
  codegen::CompileOptions cuda = metal;
  cuda.target = "cuda";
  cuda.hardware = hw::findHardwareProfile("h100");
  cuda.minThreadgroupsPerCore = 5;
  EXPECT_EQ(compileError(kHistogram, cuda).message(),
            "cannot keep 5 threadgroups of 512 threads on one core of h100, which holds 2048 threads");
}

TEST(CodegenErrors, BadNumWarpsAndTargets) {
  codegen::CompileOptions warps;
  warps.numWarps = 3;
  EXPECT_EQ(compileError(kHistogram, warps).message(), "num_warps must be a power of two between 1 and 32, got 3");
  codegen::CompileOptions vulkan;
  vulkan.target = "vulkan";
  EXPECT_EQ(compileError(kDoubles, vulkan).message(), "unknown target 'vulkan' (known: metal, cuda)");
  codegen::CompileOptions nvidia;
  nvidia.hardware = hw::findHardwareProfile("h100");
  ASSERT_TRUE(nvidia.hardware);
  EXPECT_EQ(compileError(kDoubles, nvidia).message(),
            "hardware profile 'h100' is not an Apple GPU; the metal target needs one");
}

TEST(CodegenMsl, VectorAddUsesVectorAccessesAndTheKernelAbi) {
  codegen::CompileOptions options;
  options.numWarps = 2;  // 256 elements over 64 threads: a float4 each
  codegen::CompiledKernel k = compileCase("vector_add_f32", options);
  EXPECT_NE(k.source.find("kernel void add_kernel(device float* x_ptr [[buffer(0)]],"), std::string::npos);
  EXPECT_NE(k.source.find("constant int& n_elements [[buffer(3)]]"), std::string::npos);
  // n_elements has no divisibility, so the mask is not uniform over 4
  // elements: the loads and the store take elements, as Triton's do.
  EXPECT_EQ(count(k.source, "float4"), 0u);
  EXPECT_NE(k.source.find("x_5[r] = mask_3[r] ? x_ptr[offsets_2[r]] : 0.0f;"), std::string::npos);
  EXPECT_NE(k.source.find("y_7[r] = mask_3[r] ? y_ptr[offsets_2[r]] : 0.0f;"), std::string::npos);
  EXPECT_NE(k.source.find("for (int r = 0; r < 4; ++r) if (mask_3[r]) out_ptr[offsets_2[r]] = t[r];"),
            std::string::npos)
      << k.source;
  for (const auto& access : k.metadata.layouts["accesses"]) {
    EXPECT_EQ(access["vector_elements"], 1);
    EXPECT_EQ(access["mask"], "per element");
  }
  EXPECT_EQ(count(k.source, "threadgroup_barrier"), 0u);
  EXPECT_EQ(k.metadata.threadsPerThreadgroup, 64);
  // The threadgroup size the kernel is dispatched with, declared to Metal's
  // compiler (as __launch_bounds__ declares it to CUDA's).
  EXPECT_NE(k.source.find("[[max_total_threads_per_threadgroup(64)]]\nkernel void add_kernel("), std::string::npos)
      << k.source;
  EXPECT_EQ(k.metadata.threadgroupMemoryBytes, 0);
  ASSERT_EQ(k.metadata.params.size(), 4u);
  EXPECT_EQ(k.metadata.params[3].name, "n_elements");
  EXPECT_EQ(k.metadata.params[3].dtype, "i32");
  EXPECT_FALSE(k.metadata.params[3].isPointer);
  EXPECT_EQ(k.metadata.layouts["tensors"][0]["layout"], "blocked{spt=[4], lanes=[32], simds=[2], order=[0]}");
}

// Four halves under one mask travel as two 32-bit words, the other values
// set first and the load over them: as a half4, NVIDIA's compiler merged the
// loaded halves into `vec` one permute each, right where the load issued.
TEST(CodegenMsl, MaskedVectorsOfHalvesTravelInWords) {
  codegen::CompileOptions cuda;
  cuda.target = "cuda";
  for (const auto& options : {codegen::CompileOptions{}, cuda}) {
    const bool metal = options.target == "metal";
    const std::string source = compileCase("rmsnorm_fwd_f16", options).source;
    EXPECT_EQ(count(source, "half4 vec"), 0u) << source;
    const std::string load = metal ? "if (mask_10[0]) vec = *reinterpret_cast<device int2*>(&x_ptr[offsets_14[0]]);"
                                   : "int2 vec = int2{";
    EXPECT_EQ(count(source, load), 1u + !metal) << source;  // CUDA: x's and the weight's
    const std::string element = metal ? "x_17[3] = as_type<half2>(vec.y).y;"
                                      : "x_17[3] = tmetal_bitcast<tmetal_half2>(vec.y).y;";
    EXPECT_EQ(count(source, element), 1u) << source;
  }
}

TEST(CodegenMsl, SoftmaxReducesWithSimdFunctionsAndOneBarrierEach) {
  codegen::CompiledKernel k = compileCase("softmax_rows");
  EXPECT_EQ(count(k.source, "simd_max("), 1u);
  EXPECT_EQ(count(k.source, "simd_sum("), 1u);
  EXPECT_EQ(count(k.source, "threadgroup_barrier"), 2u);
  // Within a SIMD group the hardware reduces; the 4 groups' partials are then
  // combined by a 2-step shuffle butterfly, one per reduction.
  EXPECT_EQ(count(k.source, "simd_shuffle_xor("), 2u);
  EXPECT_NE(k.source.find("for (uint m = 1; m < 4; m *= 2)"), std::string::npos);
  // tl.exp as Triton's GPU backends compute it: exp2 of x * log2(e).
  EXPECT_NE(k.source.find("precise::exp2(("), std::string::npos);
  EXPECT_NE(k.source.find(") * 1.442695f)"), std::string::npos);  // log2(e), the float nearest it
  EXPECT_EQ(k.source.find("precise::exp("), std::string::npos);
}

TEST(CodegenMsl, RowReductionInsideSimdGroupsNeedsNoThreadgroupMemory) {
  codegen::CompiledKernel k = compileCase("row_sum_loop");
  EXPECT_EQ(count(k.source, "simd_sum("), 1u);
  EXPECT_EQ(count(k.source, "threadgroup_barrier"), 0u);
  EXPECT_EQ(k.metadata.threadgroupMemoryBytes, 0);
}

// An integer argmax with ties to the lower index picks the same element
// whichever side goes first: its butterfly takes no turns. A float argmax
// keeps them (two NaNs would each take the left side).
TEST(CodegenMsl, IntegerArgmaxCombinesLanesInEitherOrder) {
  codegen::CompiledKernel k = compileCase("argmax_argmin_rows");
  EXPECT_NE(k.source.find("static inline void combine(int a0, int a1, int b0, int b1, thread int& out0, thread int& out1)"),
            std::string::npos);
  EXPECT_EQ(count(k.source, "if ((lane & m) != 0) {"), 0u) << k.source;
  // The argmax's lanes, then its SIMD groups' partials: each side combines
  // the other's value with its own.
  EXPECT_EQ(count(k.source, "\n    combine(red, red0, red_other, red0_other, red, red0);"), 2u) << k.source;
  EXPECT_EQ(count(k.source, "simd_max("), 1u);  // the plain max reduction of the same kernel

  codegen::CompiledKernel f = compileCase("argmax_cols_f32");
  // The lane with the higher index passes its partner's value first.
  EXPECT_EQ(count(f.source, "if ((lane & m) != 0) {"), 1u) << f.source;
}

// tl.argmax's indices rise along the axis, so in a thread's own fold the
// accumulated element always has the lower index: that test of the region
// is true there (a compare and a select a step). The butterfly between
// lanes keeps the whole region.
TEST(CodegenMsl, ArgmaxFoldsAThreadsElementsWithoutTheIndexTest) {
  codegen::CompiledKernel k = compileCase("argmax_cols_f32");
  EXPECT_NE(k.source.find("static inline void combine_in_order(float a0, int a1, float b0, int b1, thread float& out0, "
                          "thread int& out1) {\n"
                          "  bool tie = a0 == b0;\n"
                          "  bool tie_20 = tie & true;\n"),
            std::string::npos)
      << k.source;
  EXPECT_NE(k.source.find("for (int k = 1; k < 8; ++k) combine_in_order(red, red0, x_18[k], rows[k], red, red0);"),
            std::string::npos);
  EXPECT_EQ(count(k.source, "combine_in_order("), 2u);  // defined, called
  EXPECT_NE(k.source.find("a1_0 < b1_0"), std::string::npos);  // the full region, for the lanes
}

// An or of booleans across the 32 lanes of a SIMD group is one vote
// (simd_any; __any_sync on CUDA), not a five-step butterfly.
TEST(CodegenMsl, BooleanOrAcrossASimdGroupIsOneVote) {
  codegen::CompiledKernel k = compileCase("any_all_rows");
  EXPECT_EQ(count(k.source, "any_above = simd_any(any_above);"), 1u) << k.source;
  EXPECT_EQ(count(k.source, "simd_shuffle_xor(ushort(any_above)"), 1u) << k.source;  // the 2 groups' partials
  codegen::CompileOptions cuda;
  cuda.target = "cuda";
  codegen::CompiledKernel c = compileCase("any_all_rows", cuda);
  EXPECT_EQ(count(c.source, "any_above = (__any_sync(0xffffffffu, any_above) != 0);"), 1u) << c.source;
}

// A combiner that adds each operand pair, (s, q) + (s', q'), gives the same
// result whichever side goes first: its butterfly takes no turns. The argmax
// beside it in the same kernel (ties to the lower index) keeps them.
TEST(CodegenMsl, SumsOfSeveralOperandsCombineLanesInEitherOrder) {
  codegen::CompiledKernel k = compileCase("multi_operand_reduce");
  const size_t sums = k.source.find("'tt.reduce' along axis 0 at tests/kernels/reductions.py:367");
  ASSERT_NE(sums, std::string::npos) << k.source;
  EXPECT_EQ(count(k.source.substr(0, sums), "if ((lane & m) != 0) {"), 2u) << k.source;  // lanes, then groups
  EXPECT_EQ(count(k.source.substr(sums), "if ((lane & m) != 0) {"), 0u) << k.source;
  EXPECT_EQ(count(k.source.substr(sums), "simd_shuffle_xor("), 4u) << k.source;  // two operands, two butterflies
}

TEST(CodegenMsl, ScanAcrossSimdGroupsReadsEachGroupTotalOnce) {
  // The reversed column scan of a 32x64 tile: 4 repetitions x 4 columns per
  // thread, 4 SIMD groups along the axis. Each group's total is read once per
  // column and repetition (4 x 4 x 4 = 64 reads, 16 writes), folded in scan
  // order, and the groups after this one are picked by a select: straight-line
  // code, no loop bounded by the SIMD group index.
  codegen::CompiledKernel k = compileCase("cumsum_2d_f32");
  EXPECT_EQ(count(k.source, "= scan0_partials["), 64u);
  EXPECT_EQ(count(k.source, "scan0_partials[simd * 64"), 16u);
  EXPECT_EQ(count(k.source, "for (int w"), 0u);
  EXPECT_NE(k.source.find("    float group_total = scan0_partials[3 * 64 + L0_o1];\n"
                          "    float group_total0 = scan0_partials[2 * 64 + L0_o1];\n"
                          "    float group_total1 = scan0_partials[1 * 64 + L0_o1];\n"
                          "    float group_total2 = scan0_partials[L0_o1];\n"
                          "    float groups_running = group_total;\n"
                          "    float groups_before = groups_running;\n"
                          "    groups_running = groups_running + group_total0;\n"
                          "    groups_before = simd == 1 ? groups_running : groups_before;\n"
                          "    groups_running = groups_running + group_total1;\n"
                          "    groups_before = simd == 0 ? groups_running : groups_before;\n"
                          "    groups_running = groups_running + group_total2;\n"),
            std::string::npos);
  EXPECT_EQ(count(k.source, "threadgroup_barrier"), 7u);
}

// The running max of 512 elements: 4 a thread, 32 lanes, 4 SIMD groups. The
// lanes' shuffle scan selects instead of branching; the groups before and the
// lanes before are joined into one prefix (selects, no branch), folded into
// the thread's first three elements once; the fourth is the lanes' inclusive
// scan with the groups' part: 4 combines after the exchanges, not 8.
TEST(CodegenMsl, ScanFoldsTheLanesAndGroupsBeforeAsOnePrefix) {
  codegen::CompiledKernel k = compileCase("scan_running_max");
  const size_t scan = k.source.find("'tt.scan' along axis 0");
  ASSERT_NE(scan, std::string::npos) << k.source;
  const std::string body = k.source.substr(scan);
  EXPECT_NE(body.find("    neighbour = fmax(neighbour, inclusive);\n"
                      "    inclusive = lane >= s ? neighbour : inclusive;\n"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("    float joined = groups_before;\n"
                      "    joined = fmax(joined, before);\n"
                      "    before = simd > 0 ? (lane > 0 ? joined : groups_before) : before;\n"
                      "    float through = groups_before;\n"
                      "    through = fmax(through, inclusive);\n"
                      "    inclusive = simd > 0 ? through : inclusive;\n"
                      "    if (lane > 0 || simd > 0) {\n"
                      "      scan[0] = fmax(before, scan[0]);\n"
                      "      scan[1] = fmax(before, scan[1]);\n"
                      "      scan[2] = fmax(before, scan[2]);\n"
                      "    }\n"
                      "    scan[3] = inclusive;\n"),
            std::string::npos)
      << body;
  EXPECT_EQ(count(body, "fmax(before, "), 3u);
  EXPECT_EQ(count(body, "if (simd > 0)"), 0u);
}

TEST(CodegenMsl, ExactDivisionByAPowerOfTwoIsAShift) {
  // In the branch where x % 4 == 0 the division is exact: an arithmetic shift
  // (right for negative x too). The other branch divides an odd or
  // non-multiple x and keeps C's rounding toward zero.
  codegen::CompiledKernel k = compileCase("branch_division");
  EXPECT_NE(k.source.find("int y = x_0 >> 2;"), std::string::npos);
  EXPECT_NE(k.source.find("int y0 = x_0 / 2;"), std::string::npos);
  codegen::CompiledKernel collatz = compileCase("while_collatz");
  EXPECT_NE(collatz.source.find("long value_6 = peak >> 1;"), std::string::npos);
  EXPECT_EQ(collatz.source.find(" / 2L"), std::string::npos);
}

// A program id is never negative: its remainder (and quotient) by a positive
// constant is the unsigned one, one instruction, not C's signed fix-up. An
// argument may be negative and keeps the signed operator.
TEST(CodegenMsl, RemaindersOfProgramIdsAreUnsigned) {
  codegen::CompiledKernel k = compileCase("scalar_branch_mode2");
  EXPECT_NE(k.source.find("int t = int(uint(pid0) % uint(2));"), std::string::npos) << k.source;
  codegen::CompiledKernel mixed = compileText(R"(module {
  tt.func public @k(%out: !tt.ptr<i32>, %n: i32) attributes {noinline = false} {
    %c3 = arith.constant 3 : i32
    %pid = tt.get_program_id x : i32
    %q = arith.divsi %pid, %c3 : i32
    %r = arith.remsi %n, %c3 : i32
    %s = arith.addi %q, %r : i32
    tt.store %out, %s : !tt.ptr<i32>
    tt.return
  }
}
)");
  EXPECT_NE(mixed.source.find("int q0 = int(uint(pid0) / uint(3));"), std::string::npos) << mixed.source;
  EXPECT_NE(mixed.source.find("int r0 = n % 3;"), std::string::npos) << mixed.source;
}

TEST(CodegenMsl, LoopsThatCombineNothingAcrossThreadsAreUnrolledByFour) {
  // LayerNorm's three loops only load and combine elementwise. Their trip
  // count (n_cols / 256, rounded up) is known only at run time: the trips up
  // to a multiple of four run unrolled by four, the rest unrolled by two.
  // The first two loops (mean and variance) only load and compute, so the
  // lowering writes their four trips out, every trip's loads first, and the
  // zero to three trips left too: all their loads (a trip that does not run
  // loads the last one's elements again), then the rest of each that runs.
  // The third stores and gets the target compiler's unrolling.
  // The column sums reduce every tile inside their loop, a threadgroup
  // barrier per trip, and are not unrolled.
  codegen::CompiledKernel norm = compileCase("layernorm_fwd");
  EXPECT_EQ(count(norm.source, " = n_cols > 0 ? (n_cols - 1) / 256 + 1 : 0;"), 3u) << norm.source;
  EXPECT_NE(norm.source.find("int start_main_end = start_trips / 4 * (4 * 256);\n"
                             "  for (int start = 0; start < start_main_end; start += 4 * 256) {"),
            std::string::npos);
  for (const char* trip : {"int start0 = start + 1 * 256;", "int start1 = start + 2 * 256;",
                           "int start2 = start + 3 * 256;"})
    EXPECT_NE(norm.source.find(trip), std::string::npos) << trip;
  const size_t tail = norm.source.find("  int start3_left = start_trips % 4;\n  if (start3_left > 0) {\n"
                                       "    int start4_0 = start_main_end;\n");
  ASSERT_NE(tail, std::string::npos) << norm.source;
  const size_t mean = norm.source.find("float mean = ", tail);
  ASSERT_NE(mean, std::string::npos);
  const std::string trips = norm.source.substr(tail, mean - tail);
  EXPECT_NE(trips.find("int start5_0 = start3_left > 1 ? start_main_end + 1 * 256 : start4_0;"), std::string::npos)
      << trips;
  EXPECT_NE(trips.find("int start6_0 = start3_left > 2 ? start_main_end + 2 * 256 : start5_0;"), std::string::npos);
  const size_t lastLoad = trips.rfind("] ? x_row_0["), firstSum = trips.find(" = acc_8[r] + ");
  EXPECT_EQ(count(trips, "] ? x_row_0["), 3u);
  EXPECT_LT(lastLoad, firstSum);
  EXPECT_EQ(count(trips, "if (start3_left > 1) {"), 1u);
  EXPECT_EQ(count(trips, "if (start3_left > 2) {"), 1u);
  EXPECT_EQ(count(norm.source, "#pragma clang loop unroll_count(4)"), 1u);
  EXPECT_EQ(count(norm.source, "#pragma clang loop unroll_count(2)"), 1u);  // the storing loop's remainder
  codegen::CompiledKernel columns = compileCase("col_reduce_loop");
  EXPECT_EQ(columns.source.find("#pragma clang loop unroll_count"), std::string::npos);
}

TEST(CodegenMsl, UnrolledTripsOfElementLoadsAreWrittenOutLoadsFirst) {
  // Both loops only load and compute, with element loads: the lowering
  // writes their four trips out, every trip's load before the first trip's
  // arithmetic. The row sum's loads read a pointer the loop advances: each
  // trip's load reads the pointer the trip before computed. The walk's loads
  // read the index the trip before loaded.
  codegen::CompileOptions options;
  options.numWarps = 1;
  codegen::CompiledKernel k = compileCase("pointer_walk_loops", options);
  EXPECT_EQ(count(k.source, "#pragma clang loop unroll_count(4)"), 0u) << k.source;
  EXPECT_EQ(count(k.source, "#pragma clang loop unroll_count(2)"), 2u);
  EXPECT_NE(k.source.find("  for (int start = 0; start < start_main_end; start += 4 * 32) {"), std::string::npos);
  const size_t lastLoad = k.source.find("float acc_13_2 = acc_12_2 ? *x_ptrs_16_1 : 0.0f;");
  const size_t firstProduct = k.source.find("float acc_14 = acc_13 * weight_10;");
  ASSERT_NE(lastLoad, std::string::npos);
  ASSERT_NE(firstProduct, std::string::npos);
  EXPECT_LT(lastLoad, firstProduct);
  EXPECT_NE(k.source.find("device int* cur_10_0 = next_ptr + cur_11;"), std::string::npos);
  EXPECT_LT(k.source.find("int cur_11_2 = *cur_10_2;"), k.source.find("int total_12 = total_8 + cur_11;"));
  // Loops of vector loads keep the target compiler's unrolling
  // (GraphReductionKernels.LoopsOfAMultipleOfFourTripsHaveNoRemainderLoop).
}

TEST(CodegenMsl, CoalescedRowLoopsOfFloatsReadElementsSoThatTheirTripsLoadFirst) {
  // The row sum's loop only loads aligned rows and adds them along the
  // contiguous axis. Of floats, COALESCED reads single elements there (its
  // SIMD groups along the kept rows), and the lowering writes the four
  // unrolled trips' loads before their arithmetic. Of halves it keeps its
  // 16-byte vectors and the target compiler's unrolling.
  codegen::CompiledKernel floats = compileCase("row_sum_loop_aligned");
  const nlohmann::json& load = floats.metadata.layouts["accesses"][0];
  EXPECT_EQ(load["kind"], "load") << floats.metadata.layouts.dump(2);
  EXPECT_EQ(load["vector_elements"], 1);
  EXPECT_EQ(load["layout"], "blocked{spt=[1,1], lanes=[1,32], simds=[4,1], order=[1,0]}");
  EXPECT_EQ(count(floats.source, "unroll_count(4)"), 0u) << floats.source;
  const size_t lastLoad = floats.source.find("acc_21_2[r] = mask_13_2[r] ? x_ptr[acc_20_2_offsets[r]] : 0.0f;");
  const size_t firstSum = floats.source.find("acc_22[r] = acc_3[r] + acc_21[r];");
  ASSERT_NE(lastLoad, std::string::npos) << floats.source;
  ASSERT_NE(firstSum, std::string::npos);
  EXPECT_LT(lastLoad, firstSum);

  codegen::CompiledKernel halves = compileCase("row_sum_loop_f16");
  EXPECT_EQ(halves.metadata.layouts["accesses"][0]["vector_elements"], 8) << halves.metadata.layouts.dump(2);
  EXPECT_EQ(count(halves.source, "unroll_count(4)"), 1u) << halves.source;
}

TEST(CodegenMsl, SixteenByteAccessesOfHalves) {
  codegen::CompileOptions options;
  options.numWarps = 1;  // 1024 halves over 32 threads: 16-byte vectors
  codegen::CompiledKernel k = compileCase("vector_add_f16", options);
  EXPECT_EQ(count(k.source, "*reinterpret_cast<device int4*>"), 3u);
  EXPECT_NE(k.source.find("as_type<half2>(vec.w).y"), std::string::npos);
  for (const auto& access : k.metadata.layouts["accesses"]) EXPECT_EQ(access["vector_elements"], 8);
}

TEST(CodegenDot, SimdGroupsTakeEvenBlocksOfWholeTiles) {
  auto fitsAll = [](int64_t) { return true; };
  auto plan = [&](int64_t m, int64_t n, int64_t k, int groups, std::function<bool(int64_t)> fits) {
    const codegen::DotMatrixPlan p = codegen::planDotOnMatrices(m, n, k, groups, fits);
    return std::vector<int64_t>{p.chunk, p.groupsM, p.groupsN, p.tilesM, p.tilesN};
  };
  // 4x4 tiles over 4 groups: square blocks of 2x2.
  EXPECT_EQ(plan(32, 32, 16, 4, fitsAll), (std::vector<int64_t>{16, 2, 2, 2, 2}));
  // 4x2 tiles: every group busy, blocks of two tiles.
  EXPECT_EQ(plan(32, 16, 32, 4, fitsAll), (std::vector<int64_t>{32, 2, 2, 2, 1}));
  // Fewer tiles than groups: the rest idle.
  EXPECT_EQ(plan(16, 16, 16, 8, fitsAll), (std::vector<int64_t>{16, 2, 2, 1, 1}));
  // 3x2 tiles cannot be split four ways evenly: three groups.
  EXPECT_EQ(plan(24, 16, 8, 4, fitsAll), (std::vector<int64_t>{8, 3, 1, 1, 2}));
  // K in the largest power-of-two chunk whose staging fits, rows padded by
  // 8 halves: C's 64x64 floats (16 KB) leave 16 KB of 32, which A and B of
  // 64x64 halves (18 KB padded) exceed, and chunks of 32 rows (9 KB) fit.
  auto fits32k = [](int64_t bytes) { return bytes <= 32768; };
  EXPECT_EQ(plan(64, 64, 128, 4, fits32k)[0], 32);
  EXPECT_EQ(plan(64, 64, 64, 4, fits32k)[0], 32);
  EXPECT_EQ(plan(32, 32, 64, 4, fits32k)[0], 64);
  // Extents that are not whole tiles, or no chunk of 8 rows fitting: no plan.
  EXPECT_EQ(plan(20, 16, 16, 4, fitsAll)[0], 0);
  EXPECT_EQ(plan(16, 16, 12, 4, fitsAll)[0], 0);
  EXPECT_EQ(plan(64, 64, 64, 4, [](int64_t) { return false; })[0], 0);
}

TEST(CodegenDot, Float16DotsRunOnSimdGroupMatricesOnBothTargets) {
  codegen::CompileOptions cuda;
  cuda.target = "cuda";
  for (const auto& options : {codegen::CompileOptions{}, cuda}) {
    const codegen::CompiledKernel kernel = compileCase("matmul_f16_f32acc", options);
    const std::string& whole = kernel.source;
    const bool metal = options.target == "metal";
    const nlohmann::json& dot = kernel.metadata.layouts["dots"].at(0);
    EXPECT_EQ(dot["strategy"], "simdgroup_matrix");
    EXPECT_EQ(dot["accumulator"], "tiles through the loop");  // acc = tl.dot(a, b, acc) in the K loop
    EXPECT_EQ(dot["simd_groups"], nlohmann::json::array({2, 2}));
    EXPECT_EQ(dot["tiles_per_group"], nlohmann::json::array({2, 1}));
    const std::string source = whole.substr(whole.find(metal ? "kernel void" : "__global__"));
    // Each SIMD group's block is two tiles of one column: on CUDA one
    // instruction 16 rows and 16 of K deep multiplies both over two K tiles.
    EXPECT_EQ(count(source, metal ? "simdgroup_multiply_accumulate(" : "tmetal_matrix_mac2_k16("), 1u) << source;
    EXPECT_EQ(count(source, metal ? "simdgroup_half8x8 " : "tmetal_half8x8 "), 2u) << source;
    EXPECT_EQ(count(whole, "mma.sync.aligned.m16n8k8"), metal ? 0u : 2u) << whole;  // the helpers for one and two tiles
    EXPECT_EQ(count(whole, "mma.sync.aligned.m16n8k16"), metal ? 0u : 1u) << whole;
    if (metal) EXPECT_EQ(count(source, "fma("), 0u) << source;
    if (!metal) {
      // One grouped load fills the product's A operand, in the order the
      // instruction takes its registers: rows 2r and 2r + 1 of the group's
      // tiles (16 rows apart: two groups interleave along M) at kk, then at
      // kk + 8; B's two tiles of a column are its K tiles kk and kk + 8.
      EXPECT_NE(source.find("tmetal_matrix_load4(dot_a_tiles[i * 4 + 0], dot_a_tiles[i * 4 + 1], dot_a_tiles[i * 4 + "
                            "2], dot_a_tiles[i * 4 + 3], dot_ab + (dot_m0 + i * 2 * 16) * 40 + kk0, 640, 8, 40, "
                            "false);"),
                std::string::npos)
          << source;
      EXPECT_NE(source.find("tmetal_matrix_load(dot_b_tiles[i0], (dot_ab + 1280) + (kk0 + i0 % 2 * 8) * 24 + dot_n0, "
                            "24, true);"),
                std::string::npos)
          << source;
      EXPECT_NE(source.find("dot_a_tiles[(t2) * 4 + 0], dot_a_tiles[(t2) * 4 + 1], dot_a_tiles[(t2) * 4 + 2], "
                            "dot_a_tiles[(t2) * 4 + 3], dot_b_tiles[(0) * 2 + 0], dot_b_tiles[(0) * 2 + 1]);"),
                std::string::npos)
          << source;
    }
  }
  // float32 inputs keep the FMA loop (no f32 tiles on tensor cores at full precision).
  std::string f32 = readFile(std::string(TMETAL_SOURCE_DIR) + "/tests/ttir/matmul_f16_f32acc.ttir");
  for (size_t at = f32.find("xf16>"); at != std::string::npos; at = f32.find("xf16>", at)) f32.replace(at, 5, "xf32>");
  for (size_t at = f32.find("<f16>"); at != std::string::npos; at = f32.find("<f16>", at)) f32.replace(at, 5, "<f32>");
  const codegen::CompiledKernel fma = compileText(f32);
  const std::string& source = fma.source;
  EXPECT_EQ(fma.metadata.layouts["dots"].at(0)["strategy"], "fma");
  EXPECT_EQ(count(source, "simdgroup_multiply_accumulate("), 0u) << source;
  EXPECT_GT(count(source, "fma("), 0u) << source;
}

// bfloat16 inputs take the same path: simdgroup_bfloat8x8 (MSL 3.1, as the
// bfloat type itself) on Metal, bf16 mma.sync on CUDA, staged as bfloat.
// Fused attention: both dots' C, P (the first dot's C in f16, the second's
// A) and Q (loaded before the loop) stay in the tiles' register layout, every
// SIMD group along the rows, so a trip waits only after each dot's staging of
// B (K^T staged as [n][k] in vectors), which alternates between two buffers:
// two barriers a trip, no conversion.
TEST(CodegenDot, AttentionKeepsCAndPAndQInTheTilesRegisters) {
  codegen::CompileOptions cuda;
  cuda.target = "cuda";
  for (const auto& options : {codegen::CompileOptions{}, cuda}) {
    const bool metal = options.target == "metal";
    const codegen::CompiledKernel kernel = compileCase("attention_fwd_f16", options);
    const auto& dots = kernel.metadata.layouts["dots"];
    ASSERT_EQ(dots.size(), 2u);
    for (const auto& dot : dots) {
      EXPECT_EQ(dot["accumulator"], "registers");
      EXPECT_EQ(dot["simd_groups"], nlohmann::json::array({4, 1}));
      EXPECT_EQ(dot["staging_buffers"], 2);
    }
    const std::string& source = kernel.source;
    const size_t loop = source.find("for (int start = 0;");
    ASSERT_NE(loop, std::string::npos) << source;
    const std::string body = source.substr(loop);
    EXPECT_EQ(count(body, metal ? "threadgroup_barrier(" : "__syncthreads()"), 2u) << body;
    EXPECT_EQ(count(body, "dot_trip ^= 1;") + count(body, "dot_trip0 ^= 1;"), 2u) << body;
    EXPECT_EQ(count(source, "layout conversion"), 0u) << source;
    EXPECT_EQ(count(body, metal ? "simdgroup_store(" : "tmetal_matrix_store("), 0u) << body;
    // P's four tiles from registers every trip, Q's four once before the
    // loop; each dot's C out of its tiles.
    const std::string aFromRegisters = metal ? "tmetal_matrix_from_registers(dot_a_registers" : "].pair = tmetal_bitcast<uint>(";
    EXPECT_EQ(count(body, aFromRegisters), 4u) << body;
    EXPECT_EQ(count(source.substr(0, loop), aFromRegisters), 4u) << source;
    EXPECT_EQ(count(body, metal ? "tmetal_matrix_to_registers(dot_c_tiles" : " = dot_c_tiles"), metal ? 8u : 16u)
        << body;
    // Each SIMD group holds one row of tiles (8 of the 32 rows): on CUDA one
    // m16n8k16 multiplies a tile over two K tiles, rows 8-15 zero.
    if (!metal) {
      EXPECT_EQ(count(body, "tmetal_matrix_mac_k16(dot_c_tiles"), 2u) << body;
      EXPECT_EQ(count(body, "tmetal_matrix_mac(dot_c_tiles"), 0u) << body;
    }
    // K^T (32x32, runs of 8 along K a thread) in one 16-byte store a thread.
    EXPECT_EQ(count(body, metal ? "*reinterpret_cast<threadgroup int4*>(dot_ab + " : "*reinterpret_cast<int4*>(dot_ab + "),
              1u) << body;
  }
  // Q carried through the loop instead (an argument of the loop's block,
  // which could change every trip): staged like any A, no tiles filled
  // before the loop.
  std::string ttir = readFile(std::string(TMETAL_SOURCE_DIR) + "/tests/ttir/attention_fwd_f16.nodebug.ttir");
  auto replace = [&](const std::string& from, const std::string& to) {
    ASSERT_NE(ttir.find(from), std::string::npos) << from;
    ttir.replace(ttir.find(from), from.size(), to);
  };
  replace("%18:3 = scf.for", "%18:4 = scf.for");
  replace("%arg9 = %cst_0) -> (tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>)",
          "%arg9 = %cst_0, %q_carried = %17) -> (tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32x32xf16>)");
  replace("%39 = tt.dot %17, %38,", "%39 = tt.dot %q_carried, %38,");
  replace("scf.yield %43, %52, %65 : tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>",
          "scf.yield %43, %52, %65, %q_carried : tensor<32xf32>, tensor<32xf32>, tensor<32x32xf32>, tensor<32x32xf16>");
  const codegen::CompiledKernel carried = compileText(ttir);
  const size_t loop = carried.source.find("for (int iv = 0; iv < arg4;");
  ASSERT_NE(loop, std::string::npos) << carried.source;
  EXPECT_EQ(count(carried.source.substr(0, loop), "tmetal_matrix_from_registers(dot_a_registers"), 0u) << carried.source;
  EXPECT_EQ(count(carried.source.substr(loop), "tmetal_matrix_from_registers(dot_a_registers"), 4u) << carried.source;
}

TEST(CodegenDot, Bfloat16DotsRunOnSimdGroupMatricesOnBothTargets) {
  std::string ttir = readFile(std::string(TMETAL_SOURCE_DIR) + "/tests/ttir/matmul_f16_f32acc.nodebug.ttir");
  for (size_t at = ttir.find("f16>"); at != std::string::npos; at = ttir.find("f16>", at + 5)) ttir.replace(at, 4, "bf16>");
  codegen::CompileOptions cuda;
  cuda.target = "cuda";
  for (const auto& options : {codegen::CompileOptions{}, cuda}) {
    const bool metal = options.target == "metal";
    const codegen::CompiledKernel kernel = compileText(ttir, options);
    EXPECT_EQ(kernel.metadata.layouts["dots"].at(0)["strategy"], "simdgroup_matrix");
    const std::string& source = kernel.source;
    EXPECT_EQ(count(source, metal ? "simdgroup_bfloat8x8 dot_" : "tmetal_bfloat8x8 dot_"), 2u) << source;  // A's, B's
    EXPECT_EQ(count(source, metal ? "simdgroup_half8x8" : "tmetal_half8x8 dot_"), 0u) << source;
    EXPECT_EQ(count(source, metal ? "threadgroup bfloat* tg_dot_ab = " : "__nv_bfloat16* tg_dot_ab = "), 1u) << source;
    if (!metal) EXPECT_EQ(count(source, "TMETAL_MATRIX_PRODUCTS(tmetal_bfloat8x8, \"bf16\")"), 1u);
  }
}

// A K loop's loads issue two trips early (Triton's default num_stages=3):
// before the loop the first two trips', and in each trip, once its operands
// are staged (after the dot's barrier) and before its multiplies, the trip
// after next's, guarded by there being one, after the next trip's waiting
// registers take the ones loaded a trip before (on every path).
// num_stages=2 loads one trip ahead: the next trip's, guarded likewise.
TEST(CodegenDot, LoopsWithADotLoadTwoTripsAheadBeforeTheDot) {
  codegen::CompileOptions cuda;
  cuda.target = "cuda";
  codegen::CompileOptions twoStages;
  twoStages.numStages = 2;
  for (const auto& options : {codegen::CompileOptions{}, cuda, twoStages}) {
    const bool metal = options.target == "metal";
    const int trips = options.numStages - 1;
    const codegen::CompiledKernel kernel = compileCase("matmul_f16_f32acc", options);
    const nlohmann::json& loops = kernel.metadata.layouts["prefetching_loops"];
    ASSERT_EQ(loops.size(), 1u) << kernel.metadata.layouts.dump();
    EXPECT_EQ(loops[0]["loads_ahead"], 2);  // A and B
    EXPECT_EQ(loops[0]["trips_ahead"], trips);
    const std::string& source = kernel.source;
    const std::string load = metal ? " ? *" : "tmetal_load_if(";
    const std::string barrier = metal ? "threadgroup_barrier(" : "__syncthreads()";
    const size_t loop = source.find("for (int k0 = 0;");
    ASSERT_NE(loop, std::string::npos) << source;
    const size_t staged = source.find(barrier, loop);
    const size_t multiply = source.find(metal ? "simdgroup_multiply_accumulate(" : "tmetal_matrix_mac2_k16(", loop);
    ASSERT_NE(multiply, std::string::npos) << source;
    ASSERT_LT(staged, multiply) << source;
    const std::string trip = source.substr(loop, multiply - loop);
    EXPECT_EQ(count(trip, load), 2u) << trip;
    const std::string guard = trips == 2 ? "if (k0_after < t0)" : "if (k0_next < t0)";
    EXPECT_EQ(count(trip, "if (k0_next < t0)") + count(trip, "if (k0_after < t0)"), 1u) << trip;
    EXPECT_GT(trip.find(guard), staged - loop) << trip;
    // The next trip's registers (A's 8 halves, B's 4) take the waiting ones
    // before the trip after next loads into those.
    const size_t moved = trip.find("for (int r = 0; r < 8; ++r) a_40[r] = a_40_0[r];");
    EXPECT_EQ(moved != std::string::npos, trips == 2) << trip;
    if (trips == 2) {
      EXPECT_GT(moved, staged - loop) << trip;
      EXPECT_LT(moved, trip.find(guard)) << trip;
    }
    const size_t prologue = source.find(trips == 2 ? "the loads of each trip issue two trips before"
                                                   : "the loads of each trip issue in the trip before");
    ASSERT_LT(prologue, loop);
    // The first trip's, and the second's where there is one.
    const std::string before = source.substr(prologue, loop - prologue);
    EXPECT_EQ(count(before, load), 2u * trips) << before;
    EXPECT_EQ(count(before, "if (k0_second < t0)"), trips == 2 ? 1u : 0u) << before;
  }
  const std::string ttir = readFile(std::string(TMETAL_SOURCE_DIR) + "/tests/ttir/matmul_f16_f32acc.nodebug.ttir");
  // A store in the body may write what a later trip loads: no loads move.
  std::string stores = ttir;
  const std::string dot = "      %62 = tt.dot";
  ASSERT_NE(stores.find(dot), std::string::npos);
  stores.insert(stores.find(dot), "      tt.store %arg10, %53 : tensor<32x32x!tt.ptr<f16>>\n");
  EXPECT_FALSE(compileText(stores).metadata.layouts.contains("prefetching_loops"));
  // tl.range(..., num_stages=S) sets the loop's: 1 asks for no pipelining,
  // 2 for one trip ahead whatever the kernel's.
  const std::string loopEnd = "      scf.yield %63, %66, %62 : tensor<32x32x!tt.ptr<f16>>, tensor<32x16x!tt.ptr<f16>>, "
                              "tensor<32x16xf32>\n    }";
  ASSERT_NE(ttir.find(loopEnd), std::string::npos);
  std::string twoStageLoop = ttir;
  twoStageLoop.insert(twoStageLoop.find(loopEnd) + loopEnd.size(), " {tt.num_stages = 2 : i32}");
  EXPECT_EQ(compileText(twoStageLoop).metadata.layouts["prefetching_loops"].at(0)["trips_ahead"], 1);
  std::string oneStage = ttir;
  oneStage.insert(oneStage.find(loopEnd) + loopEnd.size(), " {tt.num_stages = 1 : i32}");
  const codegen::CompiledKernel one = compileText(oneStage);
  EXPECT_FALSE(one.metadata.layouts.contains("prefetching_loops")) << one.source;
  EXPECT_EQ(one.metadata.layouts["dots"].at(0)["strategy"], "simdgroup_matrix");
  // So does a kernel compiled with num_stages=1.
  codegen::CompileOptions plain;
  plain.numStages = 1;
  EXPECT_FALSE(compileText(ttir, plain).metadata.layouts.contains("prefetching_loops"));
  EXPECT_TRUE(compileText(ttir).metadata.layouts.contains("prefetching_loops"));
}

// A gathered K loop: each trip loads indices and expands them into a
// column. The indices' pointers are carried in the layout the indices are
// read in, so that the loop converts nothing through threadgroup memory per
// trip, and its three loads go two trips ahead.
TEST(CodegenDot, GatheredIndicesArePointedToWhereTheyAreRead) {
  const std::string ttir = readFile(std::string(TMETAL_SOURCE_DIR) + "/tests/fuzz/seeds/gathered_k_loop.ttir");
  codegen::CompileOptions cuda;
  cuda.target = "cuda";
  for (const auto& options : {codegen::CompileOptions{}, cuda}) {
    const codegen::CompiledKernel kernel = compileText(ttir, options);
    const nlohmann::json& layouts = kernel.metadata.layouts;
    EXPECT_FALSE(layouts.contains("conversions")) << layouts.dump();
    ASSERT_EQ(layouts["prefetching_loops"].size(), 1u) << layouts.dump();
    EXPECT_EQ(layouts["prefetching_loops"][0]["loads_ahead"], 3);
    EXPECT_EQ(layouts["prefetching_loops"][0]["trips_ahead"], 2);
  }
}

// A K loop's dot alternates between two stagings of A and B: one barrier a
// trip (after the staging), which trip's half it writes kept in dot_trip.
// C's registers are laid out as the tiles' elements, so C goes into the
// tiles before the loop and out of them after it without threadgroup memory.
TEST(CodegenDot, LoopDotsAlternateBetweenTwoStagings) {
  codegen::CompileOptions cuda;
  cuda.target = "cuda";
  for (const auto& options : {codegen::CompileOptions{}, cuda}) {
    const bool metal = options.target == "metal";
    const std::string barrier = metal ? "threadgroup_barrier(" : "__syncthreads()";
    const codegen::CompiledKernel kernel = compileCase("matmul_f16_f32acc", options);
    EXPECT_EQ(kernel.metadata.layouts["dots"].at(0)["staging_buffers"], 2);
    const std::string& source = kernel.source;
    // 32x16x32 tiles: A and B 32x40 + 32x24 halves each trip, C 32x16 floats.
    EXPECT_EQ(count(source, metal ? "alignas(16) threadgroup float tg_dot[2048];" : "__shared__ __align__(16) float tg_dot[2048];"), 1u) << source;
    EXPECT_EQ(count(source, "tg_dot_c"), 0u) << source;
    const size_t loop = source.find("for (int k0 = 0;");
    const size_t end = source.find("dot_trip ^= 1;", loop);
    ASSERT_NE(end, std::string::npos) << source;
    const std::string trip = source.substr(loop, end - loop);
    EXPECT_EQ(count(trip, barrier), 1u) << trip;
    EXPECT_EQ(count(trip, "*>(tg_dot_ab + dot_trip * 2048);"), 1u) << trip;
    EXPECT_EQ(count(source.substr(0, loop), "int dot_trip = 0;"), 1u);
    // After the loop, C's registers are the tiles' (two a SIMD group): no
    // store, no barrier.
    const std::string after = source.substr(end);
    EXPECT_EQ(count(after, metal ? "simdgroup_store(" : "tmetal_matrix_store("), 0u) << after;
    EXPECT_EQ(count(after, barrier), 0u) << after;
    EXPECT_EQ(count(after, metal ? "tmetal_matrix_to_registers(dot_c_tiles[" : "= dot_c_tiles["), metal ? 2u : 4u)
        << after;
  }
  // An accumulator that starts at 1 goes into the tiles from its registers,
  // with no barrier before the loop.
  std::string ones = readFile(std::string(TMETAL_SOURCE_DIR) + "/tests/ttir/matmul_f16_f32acc.nodebug.ttir");
  const std::string zeros = "%cst = arith.constant dense<0.000000e+00> : tensor<32x16xf32>";
  ASSERT_NE(ones.find(zeros), std::string::npos);
  ones.replace(ones.find(zeros), zeros.size(), "%cst = arith.constant dense<1.000000e+00> : tensor<32x16xf32>");
  const std::string source = compileText(ones).source;
  const size_t setC = source.find("tmetal_matrix_from_registers(dot_c_tiles[");
  const size_t loop = source.find("the loads of each trip issue");  // the prologue of the loop
  ASSERT_LT(setC, loop) << source;
  EXPECT_EQ(count(source.substr(setC, loop - setC), "threadgroup_barrier("), 0u) << source;
  EXPECT_EQ(count(source, "simdgroup_load(dot_c_tiles["), 0u) << source;
}

// Threads whose layout gives them aligned runs of a row stage them as
// vectors (the block-pointer matmul: four halves of A at a time); element
// layouts keep element stores.
TEST(CodegenDot, AlignedRunsOfStagedOperandsAreWrittenAsVectors) {
  codegen::CompileOptions cuda;
  cuda.target = "cuda";
  for (const auto& options : {codegen::CompileOptions{}, cuda}) {
    const bool metal = options.target == "metal";
    // dot_ab: this trip's half of the loop's two stagings; four halves
    // travel as two 32-bit words.
    const std::string vectorStore = metal ? "*reinterpret_cast<threadgroup int2*>(dot_ab + "
                                          : "*reinterpret_cast<int2*>(dot_ab + ";
    // A's runs along K, and B's (its threads hold runs along K: staged as
    // its transpose, [n][k]).
    const std::string blockPointers = compileCase("matmul_block_ptr_f16", options).source;
    EXPECT_EQ(count(blockPointers, vectorStore), 2u) << blockPointers;
    EXPECT_NE(blockPointers.find(metal ? "alignas(16) threadgroup float tg_dot[" : "__shared__ __align__(16) float tg_dot["),
              std::string::npos);
    const std::string elements = compileCase("matmul_f16_f32acc", options).source;
    EXPECT_EQ(count(elements, "*>(dot_ab + "), 0u) << elements;
  }
  // The FMA path's staging too: the block-pointer matmul in float32 (its
  // f32 -> f16 truncation of C dropped), A in float4s.
  std::string f32 = readFile(std::string(TMETAL_SOURCE_DIR) + "/tests/ttir/matmul_block_ptr_f16.nodebug.ttir");
  for (size_t at = f32.find("xf16>"); at != std::string::npos; at = f32.find("xf16>", at)) f32.replace(at, 5, "xf32>");
  for (size_t at = f32.find("<f16>"); at != std::string::npos; at = f32.find("<f16>", at)) f32.replace(at, 5, "<f32>");
  const std::string truncation = "    %13 = arith.truncf %11#2 : tensor<32x32xf32> to tensor<32x32xf32>\n";
  ASSERT_NE(f32.find(truncation), std::string::npos);
  f32.erase(f32.find(truncation), truncation.size());
  f32.replace(f32.find("tt.store %28, %13,"), 18, "tt.store %28, %11#2,");
  const codegen::CompiledKernel fma = compileText(f32);
  EXPECT_EQ(fma.metadata.layouts["dots"].at(0)["strategy"], "fma");
  EXPECT_EQ(count(fma.source, "*reinterpret_cast<threadgroup float4*>(tg_dot_a + "), 1u) << fma.source;
}

TEST(CodegenMsl, FastMathSwitchesTheMathNamespace) {
  codegen::CompileOptions options;
  options.fastMath = true;
  codegen::CompiledKernel k = compileCase("softmax_rows", options);
  EXPECT_NE(k.source.find("fast::exp("), std::string::npos);
  EXPECT_EQ(k.source.find("precise::"), std::string::npos);
}

TEST(CodegenMsl, ErfHasAnImplementation) {
  codegen::CompiledKernel k = compileCase("gelu_erf");
  EXPECT_NE(k.source.find("static inline float tmetal_erf(float x)"), std::string::npos);
}

TEST(CodegenMsl, EveryPolicyCompilesEveryCorpusKernelDifferently) {
  for (const char* name : {"softmax_rows", "col_reduce_loop", "matmul_f16_f32acc"}) {
    std::set<std::string> sources;
    for (layout::MemoryLayout p : {layout::MemoryLayout::COALESCED, layout::MemoryLayout::ROW_MAJOR,
                                   layout::MemoryLayout::COLUMN_MAJOR, layout::MemoryLayout::TILED}) {
      codegen::CompileOptions options;
      options.policy = p;
      sources.insert(compileCase(name, options).source);
    }
    EXPECT_EQ(sources.size(), 4u) << name;
  }
}

TEST(CodegenMsl, OutputIsDeterministic) {
  EXPECT_EQ(compileCase("layernorm_fwd").source, compileCase("layernorm_fwd").source);
}

// Golden files: what a Metal programmer reviews.
struct Golden {
  const char* file;
  const char* ttirCase;
  int numWarps;
};

class GoldenMsl : public ::testing::TestWithParam<Golden> {};

TEST_P(GoldenMsl, MatchesTheGoldenFile) {
  const Golden& g = GetParam();
  codegen::CompileOptions options;
  options.numWarps = g.numWarps;
  std::string source = compileCase(g.ttirCase, options).source;
  std::string path = std::string(TMETAL_SOURCE_DIR) + "/tests/golden/msl/" + g.file;
  const char* update = std::getenv("TMETAL_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << source;
    GTEST_SKIP() << "rewrote " << path;
  }
  EXPECT_EQ(source, readFile(path)) << "regenerate with TMETAL_UPDATE_GOLDEN=1 after checking the difference";
}

INSTANTIATE_TEST_SUITE_P(Kernels, GoldenMsl,
                         ::testing::Values(Golden{"vector_add.metal", "vector_add_f32", 2},
                                           Golden{"row_reduction.metal", "row_sum_loop", 4},
                                           Golden{"softmax.metal", "softmax_rows", 4},
                                           Golden{"argmax.metal", "argmax_argmin_rows", 4},
                                           Golden{"column_reduction.metal", "col_reduce_loop", 4},
                                           Golden{"rmsnorm_f16.metal", "rmsnorm_fwd_f16", 4},
                                           Golden{"matmul.metal", "matmul_f16_f32acc", 4}),
                         [](const ::testing::TestParamInfo<Golden>& info) {
                           std::string n = info.param.file;
                           return n.substr(0, n.find('.'));
                         });
