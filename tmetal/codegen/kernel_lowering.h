// Lowering of a kernel to per-thread code: every tensor value becomes the
// registers its layout gives each thread, every op the statements that
// compute them (with SIMD-group functions, barriers and threadgroup memory
// where data crosses threads). Target-independent: all spelling goes through
// the CEmitter dialect. The implementation is split by concern over the
// lower_*.cpp files; this class holds the state they share.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "tmetal/analysis/axis_info.h"
#include "tmetal/codegen/c_emitter.h"
#include "tmetal/codegen/float_conversions.h"
#include "tmetal/codegen/libdevice/libdevice_calls.h"
#include "tmetal/codegen/code_buffer.h"
#include "tmetal/codegen/kernel_abi.h"
#include "tmetal/codegen/register_tensor.h"
#include "tmetal/codegen/threadgroup_memory.h"
#include "tmetal/ir/module.h"
#include "tmetal/layout/blocked_layout_choice.h"
#include "tmetal/layout/layout_assignment.h"

namespace tmetal::codegen {

// A register offset of a layout's root, as the offset in the root of its
// slice along root dimension `dim`: the same root with that offset 0, or,
// where slicing dropped a dimension the layout did not spread, one rank less.
std::vector<int64_t> sliceOffset(std::vector<int64_t> offset, int dim, int sliceRootRank);

struct LoweringOptions {
  bool fastMath = false;
  int numStages = 3;  // CompileOptions::numStages
  int64_t threadgroupMemoryLimit = 32768;
  std::string hardwareName = "Apple GPUs";
};

struct LoweredKernel {
  std::string helpers;    // helper functions, before the kernel
  std::string entryName;  // the kernel function's name in the emitted source
  std::string signature;  // the kernel's opening line(s)
  std::string body;       // the kernel body, without braces
  std::vector<Builtin> builtins;
  int64_t threadgroupMemoryBytes = 0;
  nlohmann::json decisions;  // reductions, conversions, threadgroup buffers
  std::vector<KernelAssertion> assertions;  // non-empty: the kernel takes the debug buffer (kernel_abi.h)
  std::vector<KernelPrint> prints;          // likewise
};

// The kernel parameter holding the debug buffer.
inline constexpr const char* kDebugBufferName = "tmetal_debug";

// Trips of a loop written out per iteration where its trips combine nothing
// across threads (lower_control_flow.cpp, "unrollsByFour").
inline constexpr int kUnrolledTrips = 4;

// How a tt.dot runs on 8x8 SIMD-group matrices (lower_dot_matrix.cpp);
// chunk == 0 when it does not.
struct DotMatrixPlan {
  int64_t chunk = 0;               // rows of K staged at a time (K when A and B fit whole)
  int groupsM = 0, groupsN = 0;    // SIMD groups along C's rows and columns
  int64_t tilesM = 0, tilesN = 0;  // 8x8 tiles of C in each group's block
};
// The plan for an MxNxK product by `simdGroups` SIMD groups, given whether
// `bytes` more threadgroup memory fits: every extent a multiple of 8. The
// groups' grid is `groups` where given (C's registers are the tiles'), else
// layout::chooseMatrixGroups's. `stagesA` false: A's tiles come from
// registers when K is whole, so only B needs staging then.
DotMatrixPlan planDotOnMatrices(int64_t m, int64_t n, int64_t k, int simdGroups,
                                const std::function<bool(int64_t bytes)>& fits, layout::MatrixGroups groups = {},
                                bool stagesA = true);

class KernelLowering {
 public:
  KernelLowering(const ir::Function& fn, const CEmitter& dialect, const layout::LayoutAssignment& layouts,
                 const analysis::AxisInfoAnalysis& axis, LoweringOptions options);
  LoweredKernel run();

 private:
  // ---- driver (kernel_lowering.cpp) ----------------------------------------
  void lowerBlock(const ir::Block& block);
  void lowerOp(const ir::Operation& op);
  void lowerRematerialized(const ir::Operation& op);
  void convertExtraLayouts(const ir::Value* v);
  std::vector<KernelParamDecl> kernelParams() const;

  // ---- values ------------------------------------------------------------------
  std::string newName(const std::string& hint);
  std::string nameFor(const ir::Value* v);
  const RegisterTensor& tensorIn(const ir::Value* v, const layout::LayoutPtr& l) const;
  // v's registers in l, or null where v was not computed in l.
  const RegisterTensor* computedIn(const ir::Value* v, const layout::LayoutPtr& l) const;
  const RegisterTensor& home(const ir::Value* v) const;
  const RegisterTensor& operandTensor(const ir::Operation& op, size_t i) const;
  void defineTensor(const ir::Value* v, RegisterTensor t);
  std::string scalarOf(const ir::Value* v) const;
  void defineScalar(const ir::Value* v, const std::string& expr);
  std::string typeOf(const ir::Type& scalarOrPointer) const { return dialect_.typeName(scalarOrPointer); }
  // Declares `name` for n registers (an array, or a scalar when n == 1).
  std::string declaration(const ir::Type& element, const std::string& name, int64_t n) const;
  // Emits the line that asks the target's compiler to unroll the next loop
  // whole, and gives that loop's head over `var` in [first, n). Loops over a
  // thread's registers are unrolled whole, since only then are the arrays
  // they index registers: NVIDIA's compiler left a loop over 512 registers
  // rolled and every array it wrote in local memory (5440 bytes a thread).
  std::string registerLoop(const std::string& var, int64_t n, int64_t first = 0);
  // Emits `stmt(index)` for every register: a loop when every symbolic form
  // exists, else one statement per register (none where `concrete` gives "").
  void forEachRegister(int64_t n, const std::function<std::optional<std::string>(const std::string&)>& symbolic,
                       const std::function<std::string(int64_t)>& concrete);
  // Registers of a new array for `v` in `l`, declared and filled with `expr`
  // of the per-register operand expressions.
  RegisterTensor computeRegisters(const ir::Value* v, const layout::LayoutPtr& l,
                                  const std::vector<const RegisterTensor*>& operands,
                                  const std::function<std::string(const std::vector<std::string>&)>& expr);
  void useBuiltin(Builtin b) { builtins_.insert(b); }
  [[noreturn]] void unsupported(const ir::Operation& op, const std::string& what) const;

  // ---- thread coordinates (thread_coordinates.cpp) -----------------------------
  // The unwrapped offset of this thread along root dimension d of a layout.
  std::string unwrappedOffset(const layout::TensorMap& map, int d);
  // The wrapped offset (the runtime part of every index along d).
  std::string threadOffset(const layout::TensorMap& map, int d);
  std::string laneCoord(const layout::TensorMap& map, int d);
  std::string simdCoord(const layout::TensorMap& map, int d);
  // "" when every thread owns its elements, else a condition.
  std::string ownerCondition(const layout::TensorMap& map);
  std::string linearIndexBase(const layout::TensorMap& map);
  int64_t linearIndexConstant(const layout::TensorMap& map, int64_t r) const;
  // linearIndexConstant as mixed-radix terms of the register index, for loops.
  std::vector<IndexTerm> linearIndexTerms(const layout::TensorMap& map) const;
  // base + terms(index) as C, or base + constant for a concrete register.
  std::string offsetExpr(const std::string& base, const std::vector<IndexTerm>& terms, const std::string& index,
                         int64_t count) const;
  std::string offsetExpr(const std::string& base, int64_t constant) const;
  // Binds a long index base to a local variable so that per-register
  // statements stay short.
  std::string bindBase(const std::string& base, const std::string& hint, int64_t uses);
  // The index of register r along tensor dimension `dim`.
  std::string indexAlong(const layout::TensorMap& map, int dim, int64_t r);

  // ---- scalar semantics (scalar_expr.cpp) ---------------------------------------
  std::string scalarExpr(const ir::Operation& op, const std::vector<std::string>& args);
  std::string mathExpr(const ir::Operation& op, MathFn fn, const std::vector<std::string>& args);
  std::string constantExpr(const ir::Attribute& value, const ir::Type& type) const;
  // 0, 0.0 or false of a scalar type.
  std::string zeroOf(const ir::Type& scalar) const;
  std::string castExpr(const ir::Operation& op, const std::string& arg);
  std::string float8AbsExpr(const std::string& x, ir::ScalarKind k) const;
  std::string float8CastExpr(const ir::Operation& op, const std::string& arg, ir::ScalarKind from, ir::ScalarKind to);
  std::string compareExpr(const ir::Operation& op, const std::vector<std::string>& args) const;
  // Whether every element of x is a multiple of `divisor` (a power of two)
  // where `at` runs: by what AxisInfo knows of x, or because `at` lies in the
  // branch of an scf.if taken only when x % m == 0 for a multiple m of divisor.
  bool knownMultiple(const ir::Operation& at, const ir::Value* x, int64_t divisor) const;
  // A signed division or remainder (op) of a value known not to be negative
  // by a positive constant: the same as the unsigned one.
  bool nonNegativeByPositiveConstant(const ir::Operation& op) const;
  // The remainders by a power of two (arith.remsi, remui) whose every use
  // compares them with zero: they are emitted as x's low bits
  // (CEmitter::lowBits), which are zero exactly where the remainder is.
  std::set<const ir::Operation*> remaindersComparedWithZero() const;

  // ---- elementwise and shape ops (lower_elementwise.cpp, lower_shape.cpp) ---------
  void lowerScalarOp(const ir::Operation& op);
  RegisterTensor elementwiseIn(const ir::Operation& op, const layout::LayoutPtr& l,
                               const std::vector<const RegisterTensor*>& operands);
  std::optional<RegisterTensor> sinCosOf(const ir::Operation& op, const layout::LayoutPtr& l,
                                         const RegisterTensor& operand);
  RegisterTensor makeRangeIn(const ir::Operation& op, const layout::LayoutPtr& l);
  RegisterTensor splatIn(const ir::Operation& op, const layout::LayoutPtr& l);
  RegisterTensor constantIn(const ir::Operation& op, const layout::LayoutPtr& l);
  RegisterTensor broadcastIn(const ir::Operation& op, const layout::LayoutPtr& l, const RegisterTensor& in);
  RegisterTensor expandDimsIn(const ir::Operation& op, const layout::LayoutPtr& l, const RegisterTensor& in);
  void lowerTrans(const ir::Operation& op);
  void lowerMapElementwise(const ir::Operation& op);  // lower_map_elementwise.cpp
  void lowerReshape(const ir::Operation& op);

  // ---- memory (lower_memory.cpp, lower_atomic.cpp) ----------------------------
  void lowerLoad(const ir::Operation& op);
  // `deferred`: declares the registers only; loadRegisters() fills them
  // later (a streamed store, below).
  RegisterTensor loadIn(const ir::Operation& op, const layout::LayoutPtr& l, const RegisterTensor& ptr,
                        const RegisterTensor* mask, const RegisterTensor* other, bool deferred = false);
  // The loads of `out`'s registers (those `only` accepts, where it is set).
  void loadRegisters(const ir::Operation& op, const RegisterTensor& out, const RegisterTensor& ptr,
                     const RegisterTensor* mask, const RegisterTensor* other,
                     const std::function<bool(int64_t)>& only = {});
  // The stores of `value`'s registers (those `only` accepts, where it is set).
  void storeRegisters(const ir::Operation& op, const RegisterTensor& ptr, const RegisterTensor& value,
                      const RegisterTensor* mask, const std::function<bool(int64_t)>& only = {});

  // ---- streamed stores (lower_streamed_store.cpp) ------------------------------
  // The stores of a loaded (or transposed) tile converted in pieces, each
  // piece loaded, staged and stored in turn.
  void planStreamedStores();
  void lowerStreamedStore(const ir::Operation& op);
  // Emits the deferred loads of the registers (by name) `which` accepts.
  void emitDeferredLoads(const std::function<bool(const std::string&)>& which);
  // What a streamed store asks of the staging in pieces of its conversion:
  // the loads of the registers a piece writes, first; the store of each
  // vector it reads, as soon as it is read (so that the target compiler need
  // not hold a piece's reads). `used`: the staging went in pieces and called
  // them.
  struct StreamedStaging {
    std::function<void(const RegisterTensor& written, const std::function<bool(int64_t)>& only)> beforeWrite;
    // After register r of a piece's reads (those `only` accepts); r = -1
    // after the last.
    std::function<void(const RegisterTensor& read, const std::function<bool(int64_t)>& only, int64_t r)> afterRead;
    int writeVector = 1, readVector = 1;  // registers a load, a store takes at once
    bool used = false;
  };
  // A computed value again in another layout, from its operands there
  // (LayoutAssignment::isRecomputedIn).
  RegisterTensor recomputeIn(const ir::Operation& op, const layout::LayoutPtr& l);
  void lowerStore(const ir::Operation& op);
  void lowerScalarLoad(const ir::Operation& op);
  void lowerScalarStore(const ir::Operation& op);
  // Elements one vector access covers for a memory op in a layout; under a
  // mask, no more than the mask is uniform over.
  int vectorWidth(const ir::Operation& op, const layout::TensorMap& map, int elementBytes,
                  const ir::Value* mask) const;
  // The elements one access of a tensor tt.load reads, in the layout the load computes.
  int loadVectorWidth(const ir::Operation& load) const;
  // Notes a memory access's vector width and masking in the metadata.
  void recordAccess(const ir::Operation& op, const std::string& kind, const layout::TensorMap& map, int width,
                    const ir::Value* mask);
  void lowerAtomicRmw(const ir::Operation& op);
  void lowerAtomicCas(const ir::Operation& op);
  // The updates themselves, the fences around them in the updating threads.
  void lowerAtomicUpdates(const ir::Operation& op, const std::string& fenceBefore, const std::string& fenceAfter);
  void lowerHistogram(const ir::Operation& op);
  void lowerGather(const ir::Operation& op);  // the updates themselves, without fences
  std::string atomicStatement(const ir::Operation& op, const std::string& ptr, const std::vector<std::string>& values,
                              const std::string& result);
  // A value only one thread computed, given to every thread.
  std::string broadcastFromThreadZero(const ir::Operation& op, const ir::Type& type, const std::string& value);

  // ---- debugging (lower_debug.cpp) -------------------------------------------------
  void lowerAssert(const ir::Operation& op);
  void lowerPrint(const ir::Operation& op);
  // The functions that write the debug buffer, for the kernel's asserts and prints.
  std::string debugHelpers() const;
  // "x, y, z" of this program, and this thread's index in the threadgroup,
  // as ints: the kernel's builtins, or in a combiner the helper's parameters.
  std::string programIdArguments();
  std::string threadIndexArgument();
  // A printed value as the 64 bits of its debug-buffer record.
  std::string printedBits(const std::string& value, const ir::Type& element) const;

  // ---- reductions and scans (lower_reduce.cpp, lower_scan.cpp, lower_combiner.cpp) ---
  void lowerReduce(const ir::Operation& op);
  void lowerScan(const ir::Operation& op);
  // The helper function computing the combiner region; returns its name.
  // `alwaysTrue`, an op of the region, is taken as true (combinerIndexTest).
  std::string combinerFunction(const ir::Operation& op, const ir::Operation* alwaysTrue = nullptr);
  // For an argmax or argmin with ties to the lower index (float values too;
  // the index is the second operand), the region's test that the first
  // side's index is the lower.
  const ir::Operation* combinerIndexTest(const ir::Operation& op) const;
  // simd_* operation the region amounts to, if any (one operand, one op).
  std::optional<SimdOp> recognizeCombiner(const ir::Operation& op) const;
  // Whether the order of the two sides cannot matter: the region combines
  // each operand pair with one such op ((s, q) + (s', q') = (s + s', q + q')),
  // or it is an integer argmax or argmin with ties to the lower index.
  bool combinerIsCommutative(const ir::Operation& op) const;
  // Statements combining `acc` with `other` (acc = combine(acc, other)) or
  // (acc = combine(other, acc)) when `otherFirst`.
  std::vector<std::string> combineStatements(const ir::Operation& op, const std::vector<std::string>& acc,
                                             const std::vector<std::string>& other, bool otherFirst = false,
                                             const ir::Operation* alwaysTrue = nullptr);

  // ---- dot, control flow, conversions ---------------------------------------------
  void lowerDot(const ir::Operation& op);
  // A 2-D tt.dot of f16 inputs on SIMD-group matrices where the extents and
  // the threadgroup memory allow; false, having emitted nothing, otherwise.
  bool lowerDotOnMatrices(const ir::Operation& op, const RegisterTensor& a, const RegisterTensor& b);
  // ---- tt.dot on SIMD-group matrices (lower_dot_matrix.cpp) ----
  // The accumulator tiles of one tt.dot: C's 8x8 tiles, each SIMD group
  // holding a block of them, and C's staging buffer.
  struct DotTiles {
    DotMatrixPlan plan;
    int64_t m = 0, n = 0;
    std::string bufC, group, m0, n0, tiles;  // m0, n0: the first row and column of this group's block
    // A loop's dot staging A and B whole alternates between two stagings in
    // bufC's memory (bufAB: its view as f16, `trip`: 0 or 1, which one this
    // trip writes, each `abElements` long); empty where it stages in one
    // buffer of its own, behind a barrier.
    std::string bufAB, trip;
    int64_t abElements = 0;
    // Threadgroup memory of the two stagings (and C's, where staged); 0 when
    // K is staged in chunks.
    int64_t alternatingBytes = 0;
    int64_t tileCount() const { return plan.tilesM * plan.tilesN; }
    bool someGroupsIdle(int simdGroups) const { return plan.groupsM * plan.groupsN < simdGroups; }
    // Tile t's row and column in its group's block, and its first element in bufC.
    std::string rowInBlock(const std::string& t) const;
    std::string colInBlock(const std::string& t) const;
    std::string cTile(const std::string& t) const;
    // A group's tiles interleave with the other groups' (matrixAccumulatorLayout):
    // the first row of its i-th row of tiles, and column of its j-th column.
    int64_t rowStep() const { return 8 * plan.groupsM; }
    int64_t columnStep() const { return 8 * plan.groupsN; }
    std::string tileRow(const std::string& i) const;
    std::string tileColumn(const std::string& j) const;
    // C's first value is in the tiles' registers (else zero or staged), and
    // its last goes to them (else through bufC); bufC is empty when neither
    // stages C and A and B have a staging of their own.
    bool cInRegisters = false, resultInRegisters = false, stagesC = true;
    // A's registers are laid out as the tiles' elements (K whole): its tiles
    // come from them, and only B is staged.
    bool aInRegisters = false;
    // B is staged as its transpose, [n][k] (its threads hold runs along K).
    bool bByColumns = false;
    // A's tiles, filled from its registers before the loop (an A computed
    // outside it: attention's Q); empty where each product fills them.
    std::string aTiles;
    // The two registers of tile `tile` (row-major in the group's block) in
    // registers laid out as the tiles are.
    std::pair<int64_t, int64_t> registersOf(const layout::TensorMap& map, int64_t tile) const;
  };
  // The element type in which a tt.dot's operand is staged and multiplied
  // (8-bit floats as f16).
  static ir::ScalarKind stagedKind(const ir::Operation& dot, size_t operand = 0);
  // The plan of a tt.dot, decided once (chunk 0: it stays on FMAs).
  const DotMatrixPlan& dotMatrixPlan(const ir::Operation& dot);
  // The tt.dot on matrices whose f32 accumulator is the loop's carried value
  // i and nothing else (acc = tl.dot(a, b, acc)), or null.
  const ir::Operation* accumulatorDotOfLoop(const ir::Operation& loop, size_t i);
  // The tiles' plan, declaring and allocating nothing: C's first value in
  // `cLayout` (or zero), its last `result`; C is staged unless both are zero
  // or in the tiles' registers (holdsTiles).
  DotTiles planDotTiles(const ir::Operation& dot, const layout::LayoutPtr& cLayout, bool cZero,
                        const ir::Value* result);
  // Declares the planned tiles and allocates their stagings; `acrossTrips`:
  // they serve every trip of a loop, alternating between two stagings where
  // those fit.
  DotTiles beginDotTiles(const ir::Operation& dot, bool acrossTrips, DotTiles planned);
  // Whether A's registers are laid out as the tiles of grid `groups` (every
  // group along the rows) in the tiles' type, so A's tiles come from them.
  bool aTilesFromRegisters(const ir::Operation& dot, layout::MatrixGroups groups) const;
  bool isZeroTensor(const RegisterTensor& c) const;
  // Declares and fills A's tiles from A's registers (DotTiles::aInRegisters):
  // all of K's, row i of the group's tiles and K tile kt at i * K / 8 + kt.
  std::string fillATiles(const DotTiles& t, const RegisterTensor& a);
  // Whether registers in layout `l` are the tiles' own (matrixAccumulatorLayout
  // of the plan's grid, every SIMD group holding tiles).
  bool holdsTiles(const DotTiles& t, const layout::LayoutPtr& l) const;
  void initDotTiles(const DotTiles& t, const RegisterTensor& c);
  void multiplyDotTiles(const DotTiles& t, const ir::Operation& dot, const RegisterTensor& a, const RegisterTensor& b);
  // Stores the tiles and reads them back as v's registers in its home layout.
  RegisterTensor finishDotTiles(const DotTiles& t, const ir::Value* v);
  void openTileGroups(const DotTiles& t);  // the groups with tiles, when some have none
  void closeTileGroups(const DotTiles& t);
  void openTileLoop(int64_t count, const std::string& index);
  std::string dotOnMatricesComment(const ir::Operation& dot, const std::string& accumulator);
  // The metadata's layouts.dots entry (`accumulator`: where C lives between
  // dots; `stagingBuffers`: A's and B's, 2 where trips alternate).
  void recordDotOnMatrices(const ir::Operation& dot, const std::string& accumulator, int stagingBuffers);
  void lowerFor(const ir::Operation& op);
  // Whether an scf.for provably runs a multiple of four trips (or none).
  bool tripsAreMultipleOfFour(const ir::Operation& loop) const;
  // A loop body lowered twice (the groups of four trips and the remainder of
  // an unrolled scf.for), between these three calls: the second copy
  // computes every value anew, in its own scope, and takes the threadgroup
  // buffers of the first, since the two never run at the same time; the
  // metadata describes the body once.
  void beginBodyCopies();
  void secondBodyCopy();
  void endBodyCopies();
  // The unrolled trips of an scf.for written out with every trip's loads
  // first (lower_control_flow.cpp, "Loads first"): the body's ops that
  // compute load addresses and the loads, then the rest.
  struct LoadsFirstPlan {
    std::vector<const ir::Operation*> loads;  // the loads and the ops their operands need
    std::vector<const ir::Operation*> rest;
    std::set<const ir::Value*> argumentsRead;  // the carried values the loads part reads
  };
  std::optional<LoadsFirstPlan> loadsFirstPlan(const ir::Operation& loop) const;
  // The body's loads (null where it has none) with the ops their operands
  // need and, for each carried value they read, what a trip yields for it.
  std::optional<LoadsFirstPlan> splitLoadsFromRest(const ir::Operation& loop) const;
  // Whether v is computed in one layout only, so that lowering its op again
  // converts nothing (or is recomputed where it is used).
  bool hasOneLayout(const ir::Value* v) const;
  // Triton's num_stages for the loop: its tt.num_stages, else the kernel's.
  int pipelineStages(const ir::Operation& loop) const;
  // A loop with a tt.dot whose next trips' loads issue before this trip's
  // dot (lower_control_flow.cpp, "Loads ahead"); null otherwise.
  std::optional<LoadsFirstPlan> prefetchPlan(const ir::Operation& loop) const;
  // How many trips ahead such a loop loads (1 or 2), and the ops of its
  // loads part that need no loaded value (what advances the addresses).
  int prefetchTrips(const ir::Operation& loop, const LoadsFirstPlan& plan,
                    std::vector<const ir::Operation*>* addressing) const;
  // Emits the next trip's loads of the prefetching loop whose body is
  // `block`, if they wait: a dot directly in that body calls it once its
  // operands are staged.
  void issueLoadsAhead(const ir::Block& block);
  // A loaded tensor waiting a trip in variables: its registers, or 32-bit
  // words of `perWord` elements each.
  struct WaitingLoad {
    RegisterTensor plain;
    std::string words;
    int64_t wordCount = 0;
    int perWord = 1;
  };
  WaitingLoad declareWaitingLoad(const ir::Operation& load);
  void storeWaitingLoad(const WaitingLoad& w, const RegisterTensor& t);
  void moveWaitingLoad(const WaitingLoad& to, const WaitingLoad& from);
  RegisterTensor readWaitingLoad(const WaitingLoad& w, const ir::Value* v);  // declares v's registers
  void emitPrefetchingLoop(const ir::Operation& loop, const LoadsFirstPlan& plan, const std::string& ivName,
                           const std::vector<RegisterTensor>& tensors, const std::vector<std::string>& scalars,
                           const std::vector<const ir::Value*>& slots);
  void emitLoadsFirstLoop(const ir::Operation& loop, const LoadsFirstPlan& plan, const std::string& ivName,
                          const std::string& from, const std::string& to, const std::vector<RegisterTensor>& tensors,
                          const std::vector<std::string>& scalars, const std::vector<const ir::Value*>& slots);
  // The trips left after the groups of four (trips % 4 of them, from
  // `from`), their loads first.
  void emitLoadsFirstTail(const ir::Operation& loop, const LoadsFirstPlan& plan, const std::string& from,
                          const std::string& trips, const std::vector<RegisterTensor>& tensors,
                          const std::vector<std::string>& scalars, const std::vector<const ir::Value*>& slots);
  void lowerIf(const ir::Operation& op);
  void lowerWhile(const ir::Operation& op);
  // Assigns yielded values to the variables that carry them.
  void assignCarried(const ir::Operation& terminator, size_t firstOperand, const std::vector<RegisterTensor>& tensors,
                     const std::vector<std::string>& scalars, const std::vector<const ir::Value*>& slots);
  // Declares variables to carry `v`'s registers across a region, with
  // `init`'s values when given.
  RegisterTensor declareCarried(const ir::Value* v, const layout::LayoutPtr& l, const RegisterTensor* init = nullptr);
  // Binds `v` to the variables that carried it: the registers of `tensor`, or
  // the scalar variable `scalar` when `tensor` has no registers.
  void defineCarried(const ir::Value* v, const RegisterTensor& tensor, const std::string& scalar);
  void copyRegisters(const RegisterTensor& dst, const RegisterTensor& src);
  // dst = src converted to dst's element type, register by register.
  void convertRegisters(const RegisterTensor& dst, const RegisterTensor& src);
  // How many rows of K a 2-D tt.dot stages at a time: K when A and B fit whole.
  // `t` with 8-bit float elements widened to f16 in new registers; `t` itself otherwise.
  RegisterTensor widenFloat8(const RegisterTensor& t, const std::string& hint);
  int64_t dotChunk(const ir::Operation& op, const RegisterTensor& a, const RegisterTensor& b, int64_t m, int64_t n,
                   int64_t k);
  void assignRegisters(const RegisterTensor& dst, const RegisterTensor& src,
                       const std::function<std::string(const std::string&)>& value);
  RegisterTensor convertLayout(const ir::Operation& op, const RegisterTensor& in, const layout::LayoutPtr& to,
                               const std::string& hint);
  // A conversion of a 2-D tensor between layouts that run along different
  // dimensions (a transposed tile stored row-major), staged along the
  // writers' dimension with a swizzle for the readers; nullopt, having
  // emitted nothing, for other conversions.
  std::optional<RegisterTensor> convertAcrossDimensions(const ir::Operation& op, const RegisterTensor& in,
                                                        const layout::LayoutPtr& to, const std::string& hint);
  // The same for tiles of any rank, and for reshapes (`shape` the result's):
  // elements written one at a time, staged so that the writers' runs are
  // contiguous and swizzled for the readers; nullopt, having emitted
  // nothing, where the writers' dimension is not more strided than the
  // readers' or the whole tile does not fit (stageThrough then stages it in
  // pieces).
  std::optional<RegisterTensor> stageAcrossDimensions(const ir::Operation& op, const RegisterTensor& in,
                                                      const layout::LayoutPtr& to, const std::vector<int64_t>& shape,
                                                      const std::string& purpose, const std::string& name);
  // Writes `in` to a new threadgroup buffer (owners only), then a barrier;
  // returns the buffer's name. The linear index is row-major in in.shape.
  // `vectors`: in vectors where writeStagedVectors can.
  std::string stageInThreadgroupMemory(const ir::Operation& op, const RegisterTensor& in, const std::string& purpose,
                                       bool barrierBefore = true, bool barrierAfter = true, bool vectors = false);
  // A threadgroup buffer of `count` elements for `op`, checked against the
  // limit (`purpose` names it in errors and metadata). In the second copy of
  // a loop body, the buffer the first copy got (see beginBodyCopies).
  // `usedInLoop`: `op` uses it in a loop although it is declared outside
  // (it never lends its memory to another op).
  std::string threadgroupBuffer(const ir::Operation& op, const std::string& hint, const ir::Type& element,
                                int64_t count, const std::string& purpose, bool usedInLoop = false);
  std::string threadgroupBufferAt(int copyLevel, const ir::Operation& op, const std::string& hint,
                                  const ir::Type& element, int64_t count, const std::string& purpose,
                                  bool usedInLoop = false);
  // The threadgroup buffer `host` seen as an array of `element`s, declared
  // once.
  std::string threadgroupView(const std::string& host, const ir::Type& element, const std::string& hint);
  // Bytes of one element of a threadgroup buffer of `element`s.
  static int elementBytes(const ir::Type& element);
  // A staging buffer for `op`'s `purpose` ("conversion", "join", ...).
  std::string allocateStaging(const ir::Operation& op, const ir::Type& element, int64_t count,
                              const std::string& purpose);
  // Owners write `in` at buffer[linear * scale + offset] (row-major linear
  // index in in.shape); readStaged declares `name` and reads every register
  // of a tensor in layout l from buffer[linear * scale + offset].
  void writeStaged(const RegisterTensor& in, const std::string& buffer, int64_t scale, int64_t offset);
  // A value as a threadgroup buffer holds it and back: pointers as their 64-bit addresses.
  std::string toStaged(const std::string& value, const ir::Type& element) const;
  std::string fromStaged(const std::string& value, const ir::Type& element) const;
  // Writes the elements whose row-major index i is in [first, first + count)
  // to buffer[i - first] (`first` a run-time expression).
  // `element`, when given, names the buffer element of index i instead
  // (buffer[element(i)]: a padded staging).
  void writeStagedRange(const RegisterTensor& in, const std::string& buffer, const std::string& first, int64_t count,
                        const std::function<std::string(const std::string&)>& element = {});
  // Owners write `in` ([rows][columns]) in vectors of up to 16 bytes, the
  // element of row-major index i at buffer[element(i)], which must be
  // row(i) * rowStride + column(i) from a 16-byte aligned start; false,
  // having emitted nothing, where the layout gives threads no aligned runs
  // of consecutive columns. `only`, when given, picks the registers written;
  // it must pick each vector's registers together (else false). `widest`
  // (elements), when given, bounds the vectors: `element` may move aligned
  // runs of that many elements only whole.
  bool writeStagedVectors(const RegisterTensor& in, const std::string& buffer, int64_t rowStride,
                          const std::function<std::string(const std::string&)>& element,
                          const std::function<bool(int64_t)>& only = {}, int64_t widest = 0);
  // Reads t's registers of 8- or 16-bit elements from a row-major 2-D
  // staging a 32-bit word at a time (`place` maps a row-major index to its
  // place in `buffer`, keeping aligned words whole): where each thread's
  // registers fill whole aligned words of a row. False, having emitted
  // nothing, where they do not. `only` and `after` as in readEachStaged
  // (`after` is called for each register read, in the order words are read).
  bool readStagedWords(const RegisterTensor& t, const std::string& buffer,
                       const std::function<std::string(const std::string&)>& place,
                       const std::function<bool(int64_t)>& only = {}, const std::function<void(int64_t)>& after = {});
  // Declares v in its home layout, each register r read from
  // buffer[sum of term * stride over terms(map, r)] ("0" terms left out).
  RegisterTensor readStagedAt(
      const std::string& buffer, const ir::Value* v,
      const std::function<std::vector<std::pair<std::string, int64_t>>(const layout::TensorMap&, int64_t)>& terms);
  // Both: store(index, value) is the statement for each register's element.
  // `only`, where given, picks the registers (each written out, no loop).
  void writeEachStaged(const RegisterTensor& in, const std::string& buffer,
                       const std::function<std::string(const std::string&, const std::string&)>& store,
                       const std::function<bool(int64_t)>& only = {});
  // `position` (where given) maps the row-major index to the buffer's.
  RegisterTensor readStaged(const std::string& buffer, const layout::LayoutPtr& l, const std::vector<int64_t>& shape,
                            const ir::Type& element, const std::string& name, int64_t scale, int64_t offset,
                            const std::function<std::string(const std::string&)>& position = {});
  // `in` as a tensor of `shape` in layout l whose register r is in's
  // register from[r] (layout::registerPermutation): copied into `name`.
  RegisterTensor renamedRegisters(const RegisterTensor& in, const layout::LayoutPtr& l,
                                  const std::vector<int64_t>& shape, const std::vector<int64_t>& from,
                                  const std::string& name);
  // Declares `name`, a tensor of `shape` in layout l (its registers unset).
  RegisterTensor declareStaged(const layout::LayoutPtr& l, const std::vector<int64_t>& shape,
                               const ir::Type& element, const std::string& name);
  // load(index, target) is the statement that sets each register of t (its
  // array element `target`) from the row-major index of its element;
  // `after(r)`, where set, emits what follows register r's read, and
  // after(-1) what follows the last.
  void readEachStaged(const RegisterTensor& t,
                      const std::function<std::string(const std::string&, const std::string&)>& load,
                      const std::function<bool(int64_t)>& only = {},
                      const std::function<void(int64_t)>& after = {});
  // Tensors written to a staging buffer and read back: writes at
  // buffer[row-major index * scale + offset] of their own shapes, reads
  // likewise in the readers' layouts.
  struct StagedWrite {
    const RegisterTensor* tensor;
    int64_t scale = 1, offset = 0;
  };
  struct StagedRead {
    layout::LayoutPtr layout;
    std::vector<int64_t> shape;
    std::string name;
    int64_t scale = 1, offset = 0;
  };
  // Stages `count` elements through threadgroup memory: at once where they
  // fit, else in pieces (a power of two of them, at most kMaxStagingPieces)
  // of what does fit, a barrier between each write and read; returns the
  // reads. Refused, as the whole tile, where no piece fits.
  static constexpr int64_t kMaxStagingPieces = 16;
  // The pieces of a staging of `count` elements: the fewest whose size fits
  // (1 where the whole does, or where none does), or in the second copy of a
  // loop body what the first copy took (every choice between staging whole
  // and in pieces asks here, so that both copies choose alike).
  int64_t stagingPieces(const ir::Operation& op, const ir::Type& element, int64_t count);
  int64_t stagingPiecesAt(int copyLevel, const std::function<int64_t()>& decide);
  // A staged index's place within its row of `rowLength` elements, permuted
  // (convertAcrossDimensions's swizzle): used where a piece holds whole rows.
  struct RowSwizzle {
    std::function<std::string(const std::string&)> position;
    int64_t rowLength;  // no initializer: a default argument value-initializes it
    int64_t vector;     // position() moves aligned runs of this many elements whole
  };
  std::vector<RegisterTensor> stageThrough(const ir::Operation& op, const std::string& purpose,
                                           const ir::Type& element, int64_t count,
                                           const std::vector<StagedWrite>& writes,
                                           const std::vector<StagedRead>& reads, const RowSwizzle& swizzle = {});
  void lowerJoinSplitCat(const ir::Operation& op);
  // A join or split whose layouts keep each pair in one thread's registers
  // (lower_join_split.cpp); false, having emitted nothing, when they do not.
  bool joinInRegisters(const ir::Operation& op);
  // `in` renumbered as a tensor of `shape` in layout l, each register kept
  // (expand_dims, and a reshape that layout::reshapeLayout made free).
  RegisterTensor reshapedIn(const layout::LayoutPtr& l, const std::vector<int64_t>& shape, const RegisterTensor& in);
  bool splitInRegisters(const ir::Operation& op);
  // Before a threadgroup buffer is written again (inside loops), the reads of
  // the previous iteration must be finished.
  void barrierBeforeReuse();

  const ir::Function& fn_;
  std::set<const ir::Operation*> remaindersComparedWithZero_;
  const CEmitter& dialect_;
  const layout::LayoutAssignment& layouts_;
  const analysis::AxisInfoAnalysis& axis_;
  LoweringOptions options_;

  CodeBuffer body_{1};
  CodeBuffer prologue_{1};
  CodeBuffer helpers_{0};
  ThreadgroupMemory threadgroupMemory_;
  std::vector<std::string> threadgroupDecls_;
  std::set<std::string> sharedBuffers_;  // buffers in an earlier buffer's memory (ThreadgroupMemory)
  // For each block in which a dot on matrices has passed its staging
  // barrier (in the block itself, so every later op of the block runs after
  // it), the dots' stagings read since the last such barrier.
  std::map<const ir::Block*, std::set<std::string>> stagedReadsSinceBarrier_;
  std::map<std::pair<std::string, std::string>, std::string> threadgroupViews_;  // (host, element type) -> view
  std::set<std::string> names_;
  std::unordered_map<const ir::Value*, std::vector<RegisterTensor>> tensors_;
  // A sin's or cos's result computed with its partner's (sinCosOf), waiting
  // for the partner op to be lowered in that layout.
  std::unordered_map<const ir::Value*, std::vector<RegisterTensor>> sinCosComputed_;
  std::unordered_map<const ir::Value*, std::string> sinCosScalars_;  // the same for scalars
  // Streamed stores (planStreamedStores), their loads and values; the
  // registers of deferred loads not yet emitted; the hooks for the staging
  // of the streamed store being lowered.
  std::set<const ir::Operation*> streamedStores_, streamedLoads_;
  std::set<const ir::Value*> streamedValues_;
  struct DeferredLoad {
    const ir::Operation* op;
    int64_t reg;
  };
  std::map<std::string, DeferredLoad> deferredLoads_;
  std::optional<StreamedStaging> streamed_;
  std::unordered_map<const ir::Value*, std::string> scalars_;
  std::set<Builtin> builtins_;
  std::vector<MathFn> mathUsed_;
  bool atomicsUsed_ = false;
  bool matricesUsed_ = false;
  std::unordered_map<const ir::Operation*, DotMatrixPlan> dotMatrixPlans_;
  // The dots whose loop carries their accumulator in tiles, and the values
  // (carried argument, dot result) that then have no registers.
  std::unordered_map<const ir::Operation*, DotTiles> loopAccumulatorTiles_;
  // The other dots of a loop's body whose C stays in registers: tiles and
  // two stagings of A and B declared before the loop, trips alternating.
  std::unordered_map<const ir::Operation*, DotTiles> loopDotTiles_;
  std::set<const ir::Value*> valuesInTiles_;
  FloatConversions floatConversions_{dialect_};
  LibdeviceCalls libdeviceCalls_{dialect_};
  // The kernel's tt.assert and tt.print ops, numbered as the debug buffer reports them.
  std::vector<KernelAssertion> assertions_;
  std::vector<KernelPrint> prints_;
  std::unordered_map<const ir::Operation*, int> debugOpIndex_;
  // While a combiner with asserts or prints is lowered: the names of the
  // helper's parameters that say where it runs. The combiners that have them.
  struct DebugSite {
    std::string programId;  // "x, y, z"
    std::string threadIndex;
  };
  std::optional<DebugSite> combinerSite_;
  std::set<const ir::Operation*> debugCombiners_;
  int loopDepth_ = 0;
  // The next trip's loads of the innermost prefetching loop, not yet
  // emitted, with that loop's body (issueLoadsAhead).
  std::pair<const ir::Block*, std::function<void()>> loadsAhead_;
  // Per loop body being lowered twice, innermost last: the values known
  // before its first copy, the metadata after it, and the threadgroup
  // buffers the first copy took, handed out again in order to the second.
  struct BodyCopies {
    std::unordered_map<const ir::Value*, std::vector<RegisterTensor>> tensors;
    std::unordered_map<const ir::Value*, std::string> scalars;
    nlohmann::json decisions;
    std::vector<std::string> buffers;
    size_t nextBuffer = 0;
    // How many pieces each staging took (stageThrough), in order: a second
    // copy stages as the first did, through the same buffers.
    std::vector<int64_t> stagingPieces;
    size_t nextStagingPieces = 0;
    bool replaying = false;
  };
  std::vector<BodyCopies> bodyCopies_;
  std::vector<layout::BlockedLayout> rootLayouts_;  // index = the L<k> of thread-offset names
  std::set<std::string> prologueNames_;
  std::map<std::pair<const ir::Operation*, const ir::Operation*>, std::string> combiners_;
  std::set<const ir::Value*> used_;  // values some op reads
  nlohmann::json decisions_ = nlohmann::json::object();
};

}  // namespace tmetal::codegen
