#include "tmetal/graph/stage_kernel_builder.h"

#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include "tmetal/graph/combiner_ir.h"
#include "tmetal/ir/builder.h"

namespace tmetal::graph {

using ir::Attribute;
using ir::Type;
using ir::Value;

std::vector<StageBuffer> stageBuffers(const StageDesign& d) {
  std::vector<StageBuffer> buffers;
  if (d.readsInput) {
    buffers.push_back(StageBuffer::Input);
  } else {
    buffers.push_back(StageBuffer::PartialValues);
    if (d.carriesIndex()) buffers.push_back(StageBuffer::PartialIndices);
  }
  if (d.writesPartials) {
    buffers.push_back(StageBuffer::PartialValues);
    if (d.carriesIndex()) buffers.push_back(StageBuffer::PartialIndices);
  } else {
    buffers.push_back(StageBuffer::Output);
  }
  return buffers;
}

namespace {

const char* bufferArgumentName(StageBuffer b, bool written) {
  switch (b) {
    case StageBuffer::Input: return "in_ptr";
    case StageBuffer::PartialValues: return written ? "partials_out_ptr" : "partials_ptr";
    case StageBuffer::PartialIndices: return written ? "partial_indices_out_ptr" : "partial_indices_ptr";
    case StageBuffer::Output: return "out_ptr";
  }
  return "ptr";
}

// Writes one stage kernel. Values mix scalars and tensors the way Triton's
// frontend does: a scalar meeting a tensor is splat, tensors of one rank
// but different extents are broadcast.
class StageWriter {
 public:
  StageWriter(const StageDesign& design, const std::vector<StageScalar>& scalars)
      : d_(design), module_(std::make_unique<ir::Module>()) {
    function_ = module_->addFunction(d_.name, true);
    function_->attrs().set("noinline", Attribute::boolean(false));
    b_.setInsertionBlock(function_->entry());
    const std::vector<StageBuffer> buffers = stageBuffers(d_);
    const size_t reads = d_.readsInput || !d_.carriesIndex() ? 1 : 2;
    for (size_t i = 0; i < buffers.size(); ++i) {
      const bool written = i >= reads;
      ir::AttrList attrs;
      attrs.set("tt.divisibility", Attribute::integer(16));
      Value* v = function_->addArgument(Type::pointer(Type::scalar(bufferKind(buffers[i], written))),
                                        bufferArgumentName(buffers[i], written), std::move(attrs));
      (written ? writtenBuffers_ : readBuffers_).push_back(v);
    }
    // Integer arguments are specialized as Triton specializes them: a value
    // of 1 is folded (walk), a multiple of 16 is declared divisible by 16.
    // The stage is built for these values, and the divisibility lets the
    // code generator see that an output offset such as run * run_outputs +
    // column keeps a vector's elements aligned, so the outputs are written
    // with vector stores as the input is read.
    for (const StageScalar& s : scalars) {
      ir::AttrList attrs;
      if (s.kind == ir::ScalarKind::I32 && s.intValue != 0 && s.intValue % 16 == 0)
        attrs.set("tt.divisibility", Attribute::integer(16));
      scalars_[s.name] = function_->addArgument(Type::scalar(s.kind), s.name, std::move(attrs));
      if (s.kind == ir::ScalarKind::I32 && s.intValue == 1) unitScalars_.insert(s.name);
    }
  }

  std::unique_ptr<ir::Module> build() {
    if (d_.shape == StageShape::Rows)
      rows();
    else
      columns();
    b_.ret();
    return std::move(module_);
  }

 private:
  ir::ScalarKind bufferKind(StageBuffer b, bool written) const {
    if (b == StageBuffer::PartialIndices) return ir::ScalarKind::I32;
    return written ? d_.writeKind : d_.readKind;
  }

  Value* arg(const std::string& name) const {
    auto found = scalars_.find(name);
    if (found == scalars_.end()) throw std::logic_error("stage kernel: no scalar argument '" + name + "'");
    return found->second;
  }

  Value* i32(int64_t v) { return b_.constantInt(v); }
  Value* splatConstant(const Attribute& scalar, const std::vector<int64_t>& shape) {
    return b_.constantSplat(scalar, Type::tensor(shape, scalar.type()));
  }

  // Brings a and b to one type shape: scalars are splat, size-1 extents broadcast.
  std::pair<Value*, Value*> match(Value* a, Value* c) {
    const Type &ta = a->type(), &tc = c->type();
    if (!ta.isTensor() && !tc.isTensor()) return {a, c};
    if (!ta.isTensor()) return {b_.splat(a, tc.shape()), c};
    if (!tc.isTensor()) return {a, b_.splat(c, ta.shape())};
    if (ta.shape() == tc.shape()) return {a, c};
    std::vector<int64_t> shape = ta.shape();
    for (size_t i = 0; i < shape.size(); ++i) shape[i] = std::max(shape[i], tc.shape()[i]);
    return {ta.shape() == shape ? a : b_.broadcast(a, shape), tc.shape() == shape ? c : b_.broadcast(c, shape)};
  }
  Value* op(const std::string& name, Value* a, Value* c) {
    auto [x, y] = match(a, c);
    return b_.binary(name, x, y);
  }
  Value* lessThan(Value* a, Value* c) {
    auto [x, y] = match(a, c);
    return b_.cmpi("slt", x, y);
  }
  Value* both(Value* a, Value* c) { return op("arith.andi", a, c); }
  Value* toShape(Value* v, const std::vector<int64_t>& shape) {
    if (!v->type().isTensor()) return b_.splat(v, shape);
    return v->type().shape() == shape ? v : b_.broadcast(v, shape);
  }

  // sum of coordinate_k * W_stride_k over the coordinates of `index` in the
  // walk W (index_walk.h; the outermost coordinate needs no modulo).
  Value* walk(Value* index, const std::string& prefix, int dims) {
    if (dims == 0) {
      if (!index->type().isTensor()) return i32(0);
      return splatConstant(Attribute::integer(0), index->type().shape());
    }
    Value* offset = nullptr;
    Value* rest = index;
    for (int k = dims - 1; k >= 0; --k) {
      Value* coordinate = rest;
      if (k > 0) {
        Value* size = arg(prefix + "_size_" + std::to_string(k));
        coordinate = op("arith.remsi", rest, size);
        rest = op("arith.divsi", rest, size);
      }
      // A stride of 1 is folded, as Triton specializes integer arguments
      // equal to 1: the index of every element of an argmax is then one add.
      const std::string stride = prefix + "_stride_" + std::to_string(k);
      Value* term = unitScalars_.count(stride) ? coordinate : op("arith.muli", coordinate, arg(stride));
      offset = offset ? op("arith.addi", offset, term) : term;
    }
    return offset;
  }

  // Splits a tile column index into (vector, lane within the vector).
  std::pair<Value*, Value*> vectorAndLane(Value* column) {
    if (d_.vectorWidth == 1) return {column, nullptr};
    Value* width = splatConstant(Attribute::integer(d_.vectorWidth), column->type().shape());
    return {b_.binary("arith.divsi", column, width), b_.binary("arith.remsi", column, width)};
  }
  // vectors * width + lane: element offsets from vector offsets.
  Value* elements(Value* vectors, Value* lane) {
    if (d_.vectorWidth == 1) return vectors;
    Value* width = splatConstant(Attribute::integer(d_.vectorWidth), vectors->type().shape());
    return op("arith.addi", b_.binary("arith.muli", vectors, width), lane);
  }

  // Arg-reductions read no masked loads: where a stage would read past the
  // end of a row or column, or for an output past the last, it reads the
  // last real element again with its real index, which changes no argmax or
  // argmin (sums could not read an element twice). Their loads then need
  // neither a mask, nor the identity written into the registers a
  // masked-off load leaves alone (one move per register and load on
  // NVIDIA's compiler), nor a select of the masked-off index. Max and min
  // could read the same way, but their long row loops measured up to 7
  // points slower so (docs/planner.md, "Reads of arg-reductions").
  bool readsClamped() const { return d_.carriesIndex(); }
  // `index` clamped to the last of `count` (a scalar argument) when reads
  // are clamped, else `index` itself.
  Value* readIndex(Value* index, const std::string& count) {
    if (!readsClamped()) return index;
    return op("arith.minsi", index, op("arith.subi", arg(count), i32(1)));
  }

  // Where a trip reads `index` of `count` (a scalar argument) along the
  // reduction: the index to read, and unless reads are clamped, whether it
  // is real (`valid`, expanded at `axis`) and the load's mask (that and
  // `alsoValid`, the part of the mask the trips do not advance).
  struct TripReach {
    Value* index;
    Value* valid = nullptr;
    Value* mask = nullptr;
  };
  TripReach reach(Value* index, const std::string& count, int axis, Value* alsoValid) {
    if (readsClamped()) return {readIndex(index, count)};
    Value* valid = b_.expandDims(lessThan(index, arg(count)), axis);
    return {index, valid, both(alsoValid, valid)};
  }

  // The elements (converted to the accumulator type) at `offsets` where
  // `mask` holds, the identity elsewhere; all of them without a mask.
  Value* loadValues(Value* offsets, Value* mask) {
    const std::vector<int64_t>& shape = offsets->type().shape();
    Value* pointers = b_.addPtr(b_.splat(readBuffers_[0], shape), offsets);
    Value* values =
        mask ? b_.load(pointers, mask,
                       splatConstant(d_.readsInput ? inputIdentity(d_.combiner, d_.readKind)
                                                   : combinerIdentity(d_.combiner, d_.readKind),
                                     shape))
             : b_.load(pointers);
    return d_.readsInput ? toAccumulator(b_, d_.combiner, values, d_.accumulatorKind) : values;
  }

  // One loop trip's contribution: the elements (and indices) at `offsets`
  // where `mask` holds, the identity elsewhere. For arg-reductions reading
  // the input, `indexOf` gives the reduce indices and `progress` the part of
  // the mask that trips advance (the rest is constant per accumulator, whose
  // result is then never stored, so its indices need not be masked).
  std::vector<Value*> read(Value* offsets, Value* mask, Value* progress, const std::function<Value*()>& indexOf) {
    const std::vector<int64_t>& shape = offsets->type().shape();
    Value* values = loadValues(offsets, mask);
    if (!d_.carriesIndex()) return {values};
    if (!d_.readsInput) {
      Value* indexPointers = b_.addPtr(b_.splat(readBuffers_[1], shape), offsets);
      if (!mask) return {values, b_.load(indexPointers)};
      return {values, b_.load(indexPointers, mask, splatConstant(Attribute::integer(kNoIndex), shape))};
    }
    // Selected before the broadcast: one select per row (or column) of the
    // tile rather than per element.
    return {values, toShape(indicesWhere(progress, indexOf()), shape)};
  }

  // `indices` where `valid` holds, the index of masked-off elements
  // elsewhere; `indices` alone where nothing is masked off (no `valid`).
  Value* indicesWhere(Value* valid, Value* indices) {
    if (!valid) return indices;
    auto [validHere, index] = match(valid, indices);
    Value* noIndex = splatConstant(Attribute::integer(kNoIndex), index->type().shape());
    return b_.create1("arith.select", {validHere, index, noIndex}, noIndex->type());
  }

  // `earlier` combined with `later`, whose reduce indices come after its own:
  // in index order where the stage combines so, else by the plain combiner.
  std::vector<Value*> combinePair(const std::vector<Value*>& earlier, const std::vector<Value*>& later) {
    return d_.combinesInIndexOrder() ? combineInIndexOrder(b_, d_.combiner, earlier, later)
                                     : combineValues(b_, d_.combiner, earlier, later);
  }

  // accumulators = combine(accumulators, trip(i)) for i in [0, trips): the
  // trips written out one after another, or an scf.for over the `iterations`
  // argument. Trips advance each accumulator's reduce index and masks only
  // ever turn off (row < reduce_rows, vector < row_vectors), so
  // arg-reductions whose indices increase combine in index order.
  std::vector<Value*> accumulate(const std::vector<int64_t>& tile,
                                 const std::function<std::vector<Value*>(Value* trip)>& trip) {
    const bool inIndexOrder = d_.combinesInIndexOrder();
    std::vector<Value*> initial{splatConstant(
        inIndexOrder ? emptyInIndexOrder(d_.accumulatorKind) : combinerIdentity(d_.combiner, d_.accumulatorKind),
        tile)};
    if (d_.carriesIndex()) initial.push_back(splatConstant(Attribute::integer(kNoIndex), tile));
    auto combine = [&](const std::vector<Value*>& carried, Value* i) { return combinePair(carried, trip(i)); };
    std::vector<Value*> accumulated = initial;
    if (d_.writeOutTrips) {
      for (int64_t t = 0; t < d_.trips; ++t) accumulated = combine(accumulated, i32(t));
    } else {
      std::vector<Value*> operands{i32(0), arg("iterations"), i32(1)};
      std::vector<Type> types;
      for (Value* v : initial) {
        operands.push_back(v);
        types.push_back(v->type());
      }
      ir::Operation* loop = b_.create("scf.for", operands, types);
      ir::Block* body = loop->addRegion()->addBlock();
      Value* i = body->addArgument(Type::i32(), "i");
      std::vector<Value*> carried;
      for (Value* v : initial) carried.push_back(body->addArgument(v->type()));
      ir::Block* outer = b_.insertionBlock();
      b_.setInsertionBlock(body);
      b_.create("scf.yield", combine(carried, i), {});
      b_.setInsertionBlock(outer);
      accumulated = loop->results();
    }
    return inIndexOrder ? finishIndexOrder(b_, d_.combiner, accumulated) : accumulated;
  }

  // Stores the reduced values of plan outputs `outputs` where `valid` holds:
  // partials at plan.partialOffset(output, split), results at the output's
  // position.
  void finish(const std::vector<Value*>& reduced, Value* outputs, Value* valid, Value* split) {
    const std::vector<int64_t>& shape = outputs->type().shape();
    if (d_.writesPartials) {
      Value* offsets = d_.shape == StageShape::Rows
                           ? op("arith.addi", op("arith.muli", outputs, arg("splits")), split)
                           : op("arith.addi", op("arith.muli", split, arg("n_outputs")), outputs);
      for (size_t k = 0; k < reduced.size(); ++k)
        b_.store(b_.addPtr(b_.splat(writtenBuffers_[k], shape), offsets), reduced[k], valid);
      return;
    }
    Value* result = reduced.back();  // arg-reductions report the index
    if (!d_.carriesIndex()) {
      if (d_.divideByCount) result = op("arith.divf", result, arg("count"));
      if (d_.writeKind != d_.accumulatorKind) {
        const Type target = Type::tensor(shape, Type::scalar(d_.writeKind));
        result = b_.create1(ir::isFloatKind(d_.writeKind) ? "arith.truncf" : "arith.trunci", {result}, target);
      }
    }
    Value* positions = walk(outputs, "pos", d_.positionWalkDims);
    b_.store(b_.addPtr(b_.splat(writtenBuffers_[0], shape), positions), result, valid);
  }

  // Rows (ReductionStage::locate): program g serves output block g / splits
  // as split g % splits; tile row j is output block * outputs_per_block + j;
  // on trip i tile column c reads vector (i * splits + split) * sweep_vectors
  // + c of its output's row. The tile is sweep_vectors wide (lanes x loads
  // per trip, powers of two), so every column is a real lane.
  //
  // With vectors of V > 1 elements the trip loads a third dimension of V
  // lanes and reduces it in registers before the accumulators see it, so a
  // thread carries one accumulator per vector rather than per element: V
  // times fewer registers, and an arg-reduction computes one index per vector.
  void rows() {
    const std::vector<int64_t> tile{d_.tileRows, d_.tileColumns / d_.vectorWidth};
    Value* pid = b_.programId(0);
    Value* split = op("arith.remsi", pid, arg("splits"));
    Value* block = op("arith.divsi", pid, arg("splits"));
    Value* slot = b_.makeRange(0, d_.tileRows);
    Value* outputs = op("arith.addi", op("arith.muli", block, arg("outputs_per_block")), slot);
    // One comparison after the other: as two arguments of one call, the
    // order of their ops (and so the TTIR) was the C++ compiler's choice.
    Value* slotValid = lessThan(slot, arg("outputs_per_block"));
    Value* outputValid = both(slotValid, lessThan(outputs, arg("n_outputs")));
    Value* column = b_.makeRange(0, tile[1]);
    Value* firstVector = b_.expandDims(walk(readIndex(outputs, "n_outputs"), "out", d_.outerWalkDims), 1);
    Value* outputValidColumn = readsClamped() ? nullptr : b_.expandDims(outputValid, 1);

    std::vector<Value*> accumulated = accumulate(tile, [&](Value* i) {
      Value* sweep = op("arith.addi", op("arith.muli", i, arg("splits")), split);
      const TripReach vector = reach(op("arith.addi", op("arith.muli", sweep, arg("sweep_vectors")), column),
                                     "row_vectors", 0, outputValidColumn);
      Value* offsets =
          op("arith.addi", firstVector, b_.expandDims(walk(vector.index, "red", d_.reduceWalkDims), 0));
      if (d_.vectorWidth == 1)
        return read(offsets, vector.mask, vector.valid,
                    [&] { return b_.expandDims(walk(vector.index, "idx", d_.indexWalkDims), 0); });
      return readVectors(offsets, vector.mask, vector.valid, b_.expandDims(vector.index, 0));
    });
    finish(reduceOp(b_, d_.combiner, accumulated, 1)->results(), outputs, outputValid, split);
  }

  // One trip of a row stage with vectors of V > 1 elements: the vectors at
  // `vectorOffsets` ([rows, vectors], in vectors) where `mask` holds, each
  // reduced over its V lanes in registers. `vector` numbers the vectors in
  // their rows and `vectorValid` tells the real ones from those past the row.
  std::vector<Value*> readVectors(Value* vectorOffsets, Value* mask, Value* vectorValid, Value* vector) {
    const int64_t width = d_.vectorWidth;
    std::vector<int64_t> shape = vectorOffsets->type().shape();
    shape.push_back(width);
    Value* lane = b_.expandDims(b_.expandDims(b_.makeRange(0, width), 0), 0);
    Value* firstElements = op("arith.muli", vectorOffsets, splatConstant(Attribute::integer(width), vectorOffsets->type().shape()));
    Value* offsets = op("arith.addi", b_.expandDims(firstElements, 2), lane);
    Value* laneMask = mask ? toShape(b_.expandDims(mask, 2), shape) : nullptr;
    // Partial (value, index) pairs bring their indices along; other
    // combiners reduce values alone.
    if (!(d_.readsInput && d_.carriesIndex()))
      return reduceOp(b_, d_.combiner, read(offsets, laneMask, nullptr, nullptr), 2)->results();
    // Arg-reductions: the reduce index of lane l of vector v is v * V + l.
    auto indexOf = [&](Value* vectors, Value* lanes) {
      return walk(op("arith.addi", op("arith.muli", vectors, i32(width)), lanes), "idx", d_.indexWalkDims);
    };
    Value* values = loadValues(offsets, laneMask);
    Value* lanes = toShape(lane, shape);
    if (!d_.indicesIncrease) {
      // Lanes need not be in index order: Triton's combiner on real indices.
      Value* validLanes = vectorValid ? b_.expandDims(vectorValid, 2) : nullptr;
      Value* indices = indicesWhere(validLanes, indexOf(b_.expandDims(vector, 2), lane));
      return reduceOp(b_, d_.combiner, {values, toShape(indices, shape)}, 2)->results();
    }
    // Lanes in index order: the vector's extreme value, then the first lane
    // that holds it. That is fewer operations than Triton's combiner over
    // the lanes (two reductions with one comparison each), and both map to
    // SIMD min/max instructions. A vector with no value equal to its
    // extreme (all NaN) reports its last lane.
    Value* extreme = reduceOp(b_, d_.combiner == Combiner::ArgMax ? Combiner::Max : Combiner::Min, {values}, 2)->result(0);
    Value* extremeLanes = toShape(b_.expandDims(extreme, 2), shape);
    Value* isExtreme = ir::isFloatKind(d_.accumulatorKind) ? b_.cmpf("oeq", values, extremeLanes)
                                                           : b_.cmpi("eq", values, extremeLanes);
    Value* lastLane = splatConstant(Attribute::integer(width - 1), shape);
    Value* firstLane =
        reduceOp(b_, Combiner::Min, {b_.create1("arith.select", {isExtreme, lanes, lastLane}, lanes->type())}, 2)
            ->result(0);
    return {extreme, indicesWhere(vectorValid, indexOf(vector, firstLane))};
  }

  // Columns (ReductionStage::locate): program g serves output block
  // g / splits as split g % splits; block b is run b / blocks_per_run and
  // covers lanes_x vectors of it from (b % blocks_per_run) * lanes_x; tile
  // column c is lane x = c / V, vector lane c % V; load k of trip i reads
  // reduce row (i * splits + split) * sweep_rows + k * Y + y into tile row y,
  // for Y = sweep_rows / rowLoads. The tile is sweep_rows tall (threads
  // along the rows x loads per trip, powers of two).
  //
  // With rowLoads > 1 (arg-reductions, reduction_kernels.cpp) a thread's
  // loads of one trip are combined with one another (in row order) before
  // the accumulators see them, so it carries one accumulator per column
  // rather than one per column and load.
  void columns() {
    const std::vector<int64_t> tile{d_.tileRows / d_.rowLoads, d_.tileColumns};
    Value* pid = b_.programId(0);
    Value* split = op("arith.remsi", pid, arg("splits"));
    Value* block = op("arith.divsi", pid, arg("splits"));
    Value* run = op("arith.divsi", block, arg("blocks_per_run"));
    Value* blockInRun = op("arith.remsi", block, arg("blocks_per_run"));
    const std::pair<Value*, Value*> xAndVectorLane = vectorAndLane(b_.makeRange(0, d_.tileColumns));
    Value* x = xAndVectorLane.first;
    Value* vectorLane = xAndVectorLane.second;
    Value* columnVector = op("arith.addi", op("arith.muli", blockInRun, arg("lanes_x")), x);
    Value* laneValid = lessThan(x, arg("lanes_x"));
    Value* columnValid = both(laneValid, lessThan(columnVector, arg("run_vectors")));
    Value* column = vectorLane ? elements(columnVector, vectorLane) : columnVector;
    Value* outputs = op("arith.addi", op("arith.muli", run, arg("run_outputs")), column);
    Value* columnRead = readIndex(columnVector, "run_vectors");
    Value* firstVector = b_.expandDims(op("arith.addi", columnRead, walk(run, "run", d_.outerWalkDims)), 0);
    Value* y = b_.makeRange(0, tile[0]);
    Value* columnValidRow = readsClamped() ? nullptr : b_.expandDims(columnValid, 0);

    std::vector<Value*> accumulated = accumulate(tile, [&](Value* i) {
      Value* sweep = op("arith.addi", op("arith.muli", i, arg("splits")), split);
      Value* firstRow = op("arith.muli", sweep, arg("sweep_rows"));
      std::vector<std::vector<Value*>> loads;
      for (int k = 0; k < d_.rowLoads; ++k) {
        Value* loadRows = k == 0 ? y : op("arith.addi", y, i32(k * tile[0]));
        const TripReach row = reach(op("arith.addi", firstRow, loadRows), "reduce_rows", 1, columnValidRow);
        Value* offsets = op("arith.addi", b_.expandDims(walk(row.index, "red", d_.reduceWalkDims), 1), firstVector);
        if (vectorLane) offsets = elements(offsets, b_.expandDims(vectorLane, 0));
        loads.push_back(read(offsets, row.mask, row.valid,
                             [&] { return b_.expandDims(walk(row.index, "idx", d_.indexWalkDims), 1); }));
      }
      // Every load's rows come after the previous load's, so they meet in
      // index order too.
      std::vector<Value*> trip = loads[0];
      for (size_t k = 1; k < loads.size(); ++k) trip = combinePair(trip, loads[k]);
      return trip;
    });
    finish(reduceOp(b_, d_.combiner, accumulated, 0)->results(), outputs, columnValid, split);
  }

  const StageDesign& d_;
  std::unique_ptr<ir::Module> module_;
  ir::Function* function_ = nullptr;
  ir::Builder b_;
  std::vector<Value*> readBuffers_, writtenBuffers_;
  std::map<std::string, Value*> scalars_;
  std::set<std::string> unitScalars_;  // i32 arguments whose value is 1
};

}  // namespace

std::unique_ptr<ir::Module> buildStageModule(const StageDesign& design, const std::vector<StageScalar>& scalars) {
  return StageWriter(design, scalars).build();
}

}  // namespace tmetal::graph
