// Layout conversions through threadgroup memory: every owner thread writes
// its registers at the elements' row-major positions, a barrier, then every
// thread reads the registers of the new layout.
#include <algorithm>
#include <functional>
#include <optional>

#include "tmetal/codegen/kernel_lowering.h"
#include "tmetal/support/power_of_two.h"

namespace tmetal::codegen {

using layout::LayoutPtr;
using layout::TensorMap;

void KernelLowering::barrierBeforeReuse() {
  // In a loop the buffer is written again while slow threads may still read
  // the previous iteration's values.
  if (loopDepth_ > 0) body_.line(dialect_.barrier());
}

std::string KernelLowering::threadgroupBuffer(const ir::Operation& op, const std::string& hint,
                                              const ir::Type& element, int64_t count, const std::string& purpose,
                                              bool usedInLoop) {
  return threadgroupBufferAt(static_cast<int>(bodyCopies_.size()) - 1, op, hint, element, count, purpose,
                             usedInLoop);
}

std::string KernelLowering::threadgroupBufferAt(int copyLevel, const ir::Operation& op, const std::string& hint,
                                                const ir::Type& element, int64_t count, const std::string& purpose,
                                                bool usedInLoop) {
  if (copyLevel >= 0) {
    BodyCopies& level = bodyCopies_[copyLevel];
    if (level.replaying) {
      const std::string& name = level.buffers.at(level.nextBuffer++);
      if (sharedBuffers_.count(name)) body_.line(dialect_.barrier());
      return name;
    }
    level.buffers.push_back(threadgroupBufferAt(copyLevel - 1, op, hint, element, count, purpose, usedInLoop));
    return level.buffers.back();
  }
  // Pointers are staged as their 64-bit addresses: a threadgroup array of
  // device pointers is not something MSL spells.
  std::string elementType = element.isPointer() ? dialect_.unsignedType(ir::ScalarKind::I64) : typeOf(element);
  const int bytes = elementBytes(element);
  std::string name = newName(hint);
  const ThreadgroupBuffer& buffer =
      threadgroupMemory_.allocate(op, name, elementType, bytes, count, purpose, usedInLoop || loopDepth_ > 0);
  if (buffer.sharesWith.empty()) {
    threadgroupDecls_.push_back(dialect_.threadgroupArray(elementType, name, count));
  } else {
    // The earlier op that used this memory must be done reading it.
    threadgroupDecls_.push_back(dialect_.threadgroupAlias(elementType, name, buffer.sharesWith));
    sharedBuffers_.insert(name);
    body_.line(dialect_.barrier());
  }
  return name;
}

std::string KernelLowering::threadgroupView(const std::string& host, const ir::Type& element,
                                            const std::string& hint) {
  const std::string type = typeOf(element);
  auto [view, isNew] = threadgroupViews_.try_emplace({host, type});
  if (isNew) {
    view->second = newName(hint);
    threadgroupDecls_.push_back(dialect_.threadgroupAlias(type, view->second, host));
  }
  return view->second;
}

int KernelLowering::elementBytes(const ir::Type& element) {
  return element.isPointer() ? 8 : std::max(1, element.bitWidth() / 8);
}

std::string KernelLowering::allocateStaging(const ir::Operation& op, const ir::Type& element, int64_t count,
                                            const std::string& purpose) {
  return threadgroupBuffer(op, "tg_" + purpose, element, count, purpose + " at " + op.loc().userPos().str());
}

namespace {
// i * scale + offset, without the no-op parts.
std::string scaled(const std::string& index, int64_t scale, int64_t offset) {
  std::string s = index;
  if (scale != 1) s = parenthesized(index) + " * " + std::to_string(scale);
  if (offset) s += " + " + std::to_string(offset);
  return s;
}
// The bits of a staged index (row-major * scale + offset) that choose its
// piece: bits [low, low + count). The rest, closed up, place it in the
// piece. `top`: they are the index's top bits, each piece a contiguous
// range of it (the piece is i >> low, the place i & (size - 1)).
struct PieceBits {
  int low = 0, count = 0;
  bool top = false;
  int64_t of(int64_t index) const { return (index >> low) & ((int64_t{1} << count) - 1); }
  // The piece, and the place in it, of a parenthesized index expression.
  std::string pieceOf(const std::string& i) const {
    const std::string shifted = "(" + i + " >> " + std::to_string(low) + ")";
    return top ? shifted : "(" + shifted + " & " + std::to_string((int64_t{1} << count) - 1) + ")";
  }
  std::string placeOf(const std::string& i) const {
    const std::string below = std::to_string((int64_t{1} << low) - 1);
    if (top) return i + " & " + below;
    return "((" + i + " & " + below + ") | ((" + i + " >> " + std::to_string(low + count) + ") << " +
           std::to_string(low) + "))";
  }
  // For the staging's comment: which bits, unless the top ones.
  std::string str() const {
    if (top) return "";
    if (count == 1) return " by index bit " + std::to_string(low);
    return " by index bits " + std::to_string(low) + "-" + std::to_string(low + count - 1);
  }
};

// A staging side (a write or a read): every element's staged index
// (row-major * scale + offset), by thread and register.
struct StagingSide {
  int threads, registers, simdWidth;
  std::vector<int64_t> index;  // [thread * registers + register]
  StagingSide(const TensorMap& map, int64_t scale, int64_t offset)
      : threads(map.numThreads()), registers(static_cast<int>(map.numRegisters())),
        simdWidth(map.root().simdWidth()) {
    index.reserve(static_cast<size_t>(threads) * registers);
    for (int t = 0; t < threads; ++t)
      for (int r = 0; r < registers; ++r)
        index.push_back(layout::rowMajorIndex(map.tensorIndex(t, r), map.shape()) * scale + offset);
  }
  int64_t at(int thread, int r) const { return index[static_cast<size_t>(thread) * registers + r]; }
};

// Which piece each element of a side falls in, split into a part of the
// register and a part of the thread: piece(t, r) = first + (ofRegister[r] |
// ofThread[t]), the two parts on bits of their own. A blocked layout's
// element index is a sum of register and thread offsets on distinct bits, so
// its pieces split so; nullopt where they do not. `divergent`: the thread
// part differs within a SIMD group.
struct PieceSplit {
  int64_t first = 0;
  std::vector<int64_t> ofRegister;
  int64_t registerBits = 0, threadBits = 0;
  bool divergent = false;
};

std::optional<PieceSplit> splitPieces(const StagingSide& side, const PieceBits& bits) {
  auto piece = [&](int thread, int r) { return bits.of(side.at(thread, r)); };
  PieceSplit split;
  split.first = piece(0, 0);
  std::vector<int64_t> ofThread(side.threads);
  for (int t = 0; t < side.threads; ++t) split.threadBits |= ofThread[t] = piece(t, 0) - split.first;
  for (int r = 0; r < side.registers; ++r) {
    split.ofRegister.push_back(piece(0, r) - split.first);
    split.registerBits |= split.ofRegister.back();
  }
  if (split.registerBits & split.threadBits) return std::nullopt;
  for (int t = 0; t < side.threads; ++t) {
    split.divergent |= ofThread[t] != ofThread[t - t % side.simdWidth];
    for (int r = 0; r < side.registers; ++r)
      if (piece(t, r) != split.first + (split.ofRegister[r] | ofThread[t])) return std::nullopt;
  }
  return split;
}

// The piece bits of a staging in 2^count pieces, of an index of `indexBits`
// bits, and each side's split by them: at or above `lowest`, the range whose
// sides split best. A side that does not split into register and thread
// parts costs two (a guard on every element), one whose thread part differs
// within a SIMD group one (a divergent condition, half a SIMD group idle in
// each piece); the highest range wins a tie (each piece then a contiguous
// range of the index). A 128x128 float transpose's readers hold four rows a
// thread and its writers a row a SIMD group: pieces by row parity keep both
// sides whole SIMD groups and whole registers, where pieces by the top row
// bit split the readers' lanes. `everyThread` (a streamed store, whose
// loads and stores go with the pieces): a side split by threads costs one
// more, since its threads would each load or store their whole part at once
// in one piece, and sit out the others; one whose vector accesses (of
// `vectors[side]` registers) the pieces cut, two.
struct PieceChoice {
  PieceBits bits;
  std::vector<std::optional<PieceSplit>> splits;  // one a side
};

PieceChoice choosePieceBits(const std::vector<StagingSide>& sides, int indexBits, int count, int lowest,
                            bool everyThread, const std::vector<int>& vectors) {
  PieceChoice best;
  int fewest = -1;
  for (int low = indexBits - count; low >= lowest; --low) {
    PieceChoice choice{{low, count, low + count == indexBits}, {}};
    int cost = 0;
    for (const StagingSide& side : sides) {
      choice.splits.push_back(splitPieces(side, choice.bits));
      const std::optional<PieceSplit>& split = choice.splits.back();
      cost += !split ? 2 : split->divergent ? 1 : 0;
      if (everyThread && split && split->threadBits) ++cost;
      // A vector of the side's loads or stores cut between pieces goes
      // element by element.
      const int vector = vectors.empty() ? 1 : vectors[choice.splits.size() - 1];
      if (split && vector > 1)
        for (size_t r = 0; r < split->ofRegister.size(); ++r)
          if (split->ofRegister[r] != split->ofRegister[r - r % vector]) {
            cost += 2;
            break;
          }
    }
    if (fewest < 0 || cost < fewest) fewest = cost, best = std::move(choice);
    if (fewest == 0) break;  // none lower does better
  }
  return best;
}

}  // namespace

void KernelLowering::writeEachStaged(const RegisterTensor& in, const std::string& buffer,
                                     const std::function<std::string(const std::string&, const std::string&)>& store,
                                     const std::function<bool(int64_t)>& only) {
  TensorMap map = in.map();
  int64_t n = map.numRegisters();
  std::string owner = ownerCondition(map);
  if (!owner.empty()) body_.open("if (" + owner + ")");
  std::string base = bindBase(linearIndexBase(map), buffer + "_at", n);
  std::vector<IndexTerm> terms = linearIndexTerms(map);
  forEachRegister(
      n,
      [&](const std::string& idx) -> std::optional<std::string> {
        std::optional<std::string> v = in.at(idx);
        if (!v || only) return std::nullopt;
        return store(offsetExpr(base, terms, idx, n), *v);
      },
      [&](int64_t r) {
        return only && !only(r) ? std::string() : store(offsetExpr(base, linearIndexConstant(map, r)), in.regs[r]);
      });
  if (!owner.empty()) body_.close();
}

std::string KernelLowering::toStaged(const std::string& value, const ir::Type& element) const {
  return element.isPointer() ? dialect_.pointerCast(value, dialect_.unsignedType(ir::ScalarKind::I64)) : value;
}

std::string KernelLowering::fromStaged(const std::string& value, const ir::Type& element) const {
  return element.isPointer() ? dialect_.pointerCast(value, typeOf(element)) : value;
}

void KernelLowering::writeStaged(const RegisterTensor& in, const std::string& buffer, int64_t scale, int64_t offset) {
  writeEachStaged(in, buffer, [&](const std::string& index, const std::string& value) {
    return buffer + "[" + scaled(index, scale, offset) + "] = " + toStaged(value, in.element) + ";";
  });
}

void KernelLowering::writeStagedRange(const RegisterTensor& in, const std::string& buffer, const std::string& first,
                                      int64_t count, const std::function<std::string(const std::string&)>& element) {
  std::string i = newName(buffer + "_i");
  body_.line("int " + i + ";");
  writeEachStaged(in, buffer, [&](const std::string& index, const std::string& value) {
    return "{ " + i + " = " + index + " - (" + first + "); if (" + i + " >= 0 && " + i + " < " +
           std::to_string(count) + ") " + buffer + "[" + (element ? element(i) : i) + "] = " + value + "; }";
  });
}

RegisterTensor KernelLowering::declareStaged(const LayoutPtr& l, const std::vector<int64_t>& shape,
                                             const ir::Type& element, const std::string& name) {
  const int64_t n = TensorMap(l, shape).numRegisters();
  body_.line(declaration(element, name, n) + ";");
  return RegisterTensor::array(l, shape, element, name, n);
}

void KernelLowering::readEachStaged(const RegisterTensor& t,
                                    const std::function<std::string(const std::string&, const std::string&)>& load,
                                    const std::function<bool(int64_t)>& only,
                                    const std::function<void(int64_t)>& after) {
  const TensorMap out = t.map();
  const int64_t n = out.numRegisters();
  std::string base = bindBase(linearIndexBase(out), t.arrayName + "_at", n);
  std::vector<IndexTerm> terms = linearIndexTerms(out);
  if (after) {
    for (int64_t r = 0; r < n; ++r) {
      if (only && !only(r)) continue;
      body_.line(load(offsetExpr(base, linearIndexConstant(out, r)), t.regs[r]));
      after(r);
    }
    after(-1);
    return;
  }
  forEachRegister(
      n,
      [&](const std::string& idx) -> std::optional<std::string> {
        if (only || t.arrayName.empty()) return std::nullopt;
        return load(offsetExpr(base, terms, idx, n), t.arrayName + "[" + idx + "]");
      },
      [&](int64_t r) {
        return only && !only(r) ? std::string() : load(offsetExpr(base, linearIndexConstant(out, r)), t.regs[r]);
      });
}

RegisterTensor KernelLowering::readStaged(const std::string& buffer, const LayoutPtr& l,
                                          const std::vector<int64_t>& shape, const ir::Type& element,
                                          const std::string& name, int64_t scale, int64_t offset,
                                          const std::function<std::string(const std::string&)>& position) {
  auto at = [&](const std::string& index) {
    return position ? position(scaled(index, scale, offset)) : scaled(index, scale, offset);
  };
  RegisterTensor t = declareStaged(l, shape, element, name);
  readEachStaged(t, [&](const std::string& index, const std::string& target) {
    return target + " = " + fromStaged(buffer + "[" + at(index) + "]", element) + ";";
  });
  return t;
}

int64_t KernelLowering::stagingPieces(const ir::Operation& op, const ir::Type& element, int64_t count) {
  return stagingPiecesAt(static_cast<int>(bodyCopies_.size()) - 1, [&] {
    const int bytes = elementBytes(element);
    int64_t pieces = 1;
    while (pieces < kMaxStagingPieces && isPowerOfTwo(count) && pieces < count &&
           !threadgroupMemory_.canHold(op, count / pieces, bytes))
      pieces *= 2;
    return threadgroupMemory_.canHold(op, count / pieces, bytes) ? pieces : 1;  // 1: refused as the whole tile
  });
}

int64_t KernelLowering::stagingPiecesAt(int copyLevel, const std::function<int64_t()>& decide) {
  if (copyLevel < 0) return decide();
  BodyCopies& level = bodyCopies_[copyLevel];
  if (level.replaying) return level.stagingPieces.at(level.nextStagingPieces++);
  level.stagingPieces.push_back(stagingPiecesAt(copyLevel - 1, decide));
  return level.stagingPieces.back();
}

std::vector<RegisterTensor> KernelLowering::stageThrough(const ir::Operation& op, const std::string& purpose,
                                                         const ir::Type& element, int64_t count,
                                                         const std::vector<StagedWrite>& writes,
                                                         const std::vector<StagedRead>& reads,
                                                         const RowSwizzle& swizzle) {
  const int64_t pieces = stagingPieces(op, element, count);
  std::vector<RegisterTensor> out;
  if (pieces == 1) {
    // The whole tile at once (or the error that it does not fit).
    std::string buffer = allocateStaging(op, element, count, purpose);
    barrierBeforeReuse();
    for (const StagedWrite& w : writes) writeStaged(*w.tensor, buffer, w.scale, w.offset);
    body_.line(dialect_.barrier());
    for (const StagedRead& r : reads)
      out.push_back(readStaged(buffer, r.layout, r.shape, element, r.name, r.scale, r.offset));
    return out;
  }
  // Piece p holds the elements whose buffer index i (row-major, scaled) has
  // p in its piece bits (by default the top ones: i / size == p), at i with
  // those bits taken out (i % size).
  const int64_t size = count / pieces;
  const int indexBits = log2OfPowerOfTwo(count), sizeBits = log2OfPowerOfTwo(size);
  const int64_t vectorElements = std::max(1, layout::kMaxVectorAccessBytes / elementBytes(element));
  // A swizzle within rows keeps every element in its piece where the piece
  // bits are row bits: the choice stays among those where it can; vectors
  // stay whole below the piece bits.
  const bool rowsWhole = swizzle.position && size % swizzle.rowLength == 0;
  const int lowest = rowsWhole ? log2OfPowerOfTwo(swizzle.rowLength)
                               : std::min(sizeBits, log2OfPowerOfTwo(std::min(vectorElements, size)));
  std::vector<StagingSide> sides;
  for (const StagedWrite& w : writes) sides.emplace_back(w.tensor->map(), w.scale, w.offset);
  for (const StagedRead& r : reads) sides.emplace_back(TensorMap(r.layout, r.shape), r.scale, r.offset);
  // A streamed store's loads before each piece's writes, stores after its reads.
  StreamedStaging* streamed =
      streamed_ && !streamed_->used && writes.size() == 1 && reads.size() == 1 ? &*streamed_ : nullptr;
  const PieceChoice choice =
      choosePieceBits(sides, indexBits, indexBits - sizeBits, lowest, streamed != nullptr,
                      streamed ? std::vector<int>{streamed->writeVector, streamed->readVector} : std::vector<int>{});
  if (streamed && (!choice.splits[0] || !choice.splits[1])) streamed = nullptr;
  if (streamed) streamed->used = true;
  const PieceBits& bits = choice.bits;
  const bool swizzled = swizzle.position && (int64_t{1} << bits.low) % swizzle.rowLength == 0;
  std::string buffer = allocateStaging(op, element, size, purpose);
  body_.comment(purpose + " in " + std::to_string(pieces) + " pieces of " + std::to_string(size) + " elements" +
                bits.str() + ": the whole tile is more than the threadgroup memory left to it" +
                (swizzled ? " (rows swizzled as staged whole)" : ""));
  for (const StagedRead& r : reads) out.push_back(declareStaged(r.layout, r.shape, element, r.name));
  // An element's guard (empty where none is needed) and place in the piece.
  using Placed = std::pair<std::string, std::string>;
  using Emit = std::function<void(const std::function<Placed(const std::string&)>&, const std::function<bool(int64_t)>&)>;
  // One staging side (a write or a read) of piece p: where its pieces split
  // into register and thread parts, the threads whose part matches write or
  // read just their registers whose part matches; elsewhere every register
  // is visited under a guard.
  auto side = [&](const TensorMap& map, int64_t scale, int64_t offset, const std::optional<PieceSplit>& split,
                  int64_t p, const Emit& emit) {
    auto at = [&](const std::string& i) { return bits.placeOf(swizzled ? swizzle.position(i) : i); };
    if (!split) {
      emit([&](const std::string& index) {
        const std::string i = parenthesized(scaled(index, scale, offset));
        return Placed{"if (" + bits.pieceOf(i) + " == " + std::to_string(p) + ") ", at(i)};
      }, {});
      return;
    }
    const int64_t q = p - split->first;
    if (q < 0 || (q & ~(split->registerBits | split->threadBits))) return;  // none of its elements
    std::string threads;
    if (split->threadBits) {
      const std::string first = parenthesized(
          scaled(offsetExpr(linearIndexBase(map), linearIndexConstant(map, 0)), scale, offset));
      threads = bits.pieceOf(first) + " == " + std::to_string(split->first + (q & split->threadBits));
    }
    if (!threads.empty()) body_.open("if (" + threads + ")");
    emit([&](const std::string& index) { return Placed{"", at(parenthesized(scaled(index, scale, offset)))}; },
         [&](int64_t r) { return split->ofRegister[r] == (q & split->registerBits); });
    if (!threads.empty()) body_.close();
  };
  // The sides' splits, the writes' first.
  auto writeSplit = [&](size_t k) -> const std::optional<PieceSplit>& { return choice.splits[k]; };
  auto readSplit = [&](size_t k) -> const std::optional<PieceSplit>& { return choice.splits[writes.size() + k]; };
  for (int64_t p = 0; p < pieces; ++p) {
    if (p == 0) barrierBeforeReuse(); else body_.line(dialect_.barrier());
    for (size_t k = 0; k < writes.size(); ++k) {
      const StagedWrite& w = writes[k];
      side(w.tensor->map(), w.scale, w.offset, writeSplit(k), p, [&](const auto& where, const auto& only) {
        if (streamed) streamed->beforeWrite(*w.tensor, only);
        // In vectors where no element needs a guard and the placement keeps
        // aligned runs whole (a 128x128 float transpose on an H200: 152.8 ->
        // 140.8 us, bench/results/2026-11-28-h200-transpose-vectors).
        const int64_t runs = std::min(int64_t{1} << bits.low, swizzled ? swizzle.vector : size);
        if (writeSplit(k) && w.scale == 1 && w.offset % vectorElements == 0 && size % vectorElements == 0 &&
            writeStagedVectors(
                *w.tensor, buffer, w.tensor->shape.back(),
                [&](const std::string& index) { return parenthesized(where(index).second); }, only, runs))
          return;
        writeEachStaged(
            *w.tensor, buffer,
            [&](const std::string& index, const std::string& value) {
              const auto [guard, place] = where(index);
              return guard + buffer + "[" + place + "] = " + toStaged(value, element) + ";";
            },
            only);
      });
    }
    body_.line(dialect_.barrier());
    for (size_t k = 0; k < reads.size(); ++k)
      side(out[k].map(), reads[k].scale, reads[k].offset, readSplit(k), p, [&](const auto& where, const auto& only) {
        const std::function<void(int64_t)> after =
            streamed ? std::function<void(int64_t)>([&](int64_t r) { streamed->afterRead(out[k], only, r); })
                     : std::function<void(int64_t)>();
        // Elements narrower than a word, a word at a time where the placement
        // keeps aligned words whole (and no element needs a guard).
        const int64_t word = std::max(1, 4 / elementBytes(element));
        if (word > 1 && readSplit(k) && reads[k].scale == 1 && reads[k].offset % word == 0 &&
            (int64_t{1} << bits.low) % word == 0 && (!swizzled || swizzle.vector % word == 0) &&
            readStagedWords(
                out[k], buffer, [&](const std::string& index) { return parenthesized(where(index).second); }, only,
                after))
          return;
        readEachStaged(
            out[k],
            [&](const std::string& index, const std::string& target) {
              const auto [guard, place] = where(index);
              return guard + target + " = " + fromStaged(buffer + "[" + place + "]", element) + ";";
            },
            only, after);
      });
  }
  return out;
}

std::string KernelLowering::stageInThreadgroupMemory(const ir::Operation& op, const RegisterTensor& in,
                                                     const std::string& purpose, bool barrierBefore,
                                                     bool barrierAfter, bool vectors) {
  std::string name = allocateStaging(op, in.element, in.numElements(), purpose);
  if (barrierBefore) barrierBeforeReuse();
  const auto unpadded = [](const std::string& index) { return index; };
  if (!vectors || !writeStagedVectors(in, name, in.shape.back(), unpadded)) writeStaged(in, name, 1, 0);
  if (barrierAfter) body_.line(dialect_.barrier());
  return name;
}

namespace {
// A SIMD group's threadgroup-memory access is served 128 bytes at a time:
// 32 banks of 4 bytes.
constexpr int64_t kBankBytes = 128;

int64_t strideAlong(const std::vector<int64_t>& shape, int d) {
  int64_t s = 1;
  for (size_t k = d + 1; k < shape.size(); ++k) s *= shape[k];
  return s;
}

// The threadgroup-memory wavefronts of every thread of `map` accessing its
// registers' elements, each at position(its row-major index): for each SIMD
// group and register, the most distinct 4-byte words one bank serves.
int64_t stagingWavefronts(const TensorMap& map, int bytes, const std::function<int64_t(int64_t)>& position) {
  const int simdWidth = map.root().simdWidth();
  const int64_t banks = kBankBytes / 4;
  int64_t total = 0;
  for (int first = 0; first < map.numThreads(); first += simdWidth) {
    for (int64_t r = 0; r < map.numRegisters(); ++r) {
      std::vector<std::vector<int64_t>> words(banks);
      int64_t ways = 0;
      for (int thread = first; thread < first + simdWidth; ++thread) {
        const int64_t word = position(layout::rowMajorIndex(map.tensorIndex(thread, r), map.shape())) * bytes / 4;
        std::vector<int64_t>& bank = words[word % banks];
        if (std::find(bank.begin(), bank.end(), word) == bank.end()) bank.push_back(word);
        ways = std::max<int64_t>(ways, static_cast<int64_t>(bank.size()));
      }
      total += ways;
    }
  }
  return total;
}
}  // namespace

// Staged row-major, a tile whose writers run down its columns and whose
// readers run along its rows would have a SIMD group's writes fall in one
// or two banks (a row is a multiple of 32 banks long). So the tile is
// staged along the writers' dimension (in vectors of the elements a thread
// holds there), and each row's vectors are permuted by an xor with a
// phase that changes from one reader lane's rows to the next: a reader's
// SIMD group, walking down the staged rows, meets up to `phases` different
// banks' vectors instead of one. Writers still write whole rows, permuted
// in place: no conflicts.
std::optional<RegisterTensor> KernelLowering::convertAcrossDimensions(const ir::Operation& op,
                                                                      const RegisterTensor& in, const LayoutPtr& to,
                                                                      const std::string& hint) {
  if (in.shape.size() != 2 || !in.layout->isBlocked() || !to->isBlocked() || in.element.isPointer() ||
      !in.element.isScalar())
    return std::nullopt;
  const int writersAlong = in.layout->blockedParams().order[0];
  if (writersAlong == to->blockedParams().order[0]) return std::nullopt;
  // The staged view: the writers' dimension last (a transposed view of the
  // same registers where they run down the columns).
  RegisterTensor view = in;
  LayoutPtr readView = to;
  if (writersAlong == 0) {
    view.layout = layout::permuteLayout(in.layout, {1, 0});
    view.shape = {in.shape[1], in.shape[0]};
    readView = layout::permuteLayout(to, {1, 0});
  }
  const int64_t rowLength = view.shape[1];
  const int bytes = elementBytes(in.element);
  const TensorMap written = view.map();
  int64_t vector = std::min<int64_t>(written.blockElements(1), std::max(1, layout::kMaxVectorAccessBytes / bytes));
  while (vector > 1 && written.blockElements(1) % vector != 0) vector /= 2;
  vector = std::min(vector, rowLength);
  // A reader's lanes step down the rows by the rows a thread holds: the
  // phase changes from one such step to the next.
  const int64_t readerStep = readView->blockedParams().sizePerThread[0];
  const int64_t phases = std::min<int64_t>(rowLength / vector, std::max<int64_t>(1, kBankBytes / (vector * bytes)));
  std::function<std::string(const std::string&)> position = [](const std::string& index) { return index; };
  if (phases > 1) {
    const int rowShift = log2OfPowerOfTwo(rowLength * readerStep);
    const int vectorShift = log2OfPowerOfTwo(vector);
    position = [=](const std::string& index) {
      const std::string i = parenthesized(index);
      std::string phase = "((" + i + " >> " + std::to_string(rowShift) + ") & " + std::to_string(phases - 1) + ")";
      if (vectorShift) phase = "(" + phase + " << " + std::to_string(vectorShift) + ")";
      return "(" + i + " ^ " + phase + ")";
    };
  }
  body_.comment("staged along dimension " + std::to_string(writersAlong) + ", rows of " + std::to_string(rowLength) +
                " in vectors of " + std::to_string(vector) + ", " + std::to_string(phases) + " phases");
  if (stagingPieces(op, in.element, in.numElements()) > 1) {
    // In pieces, each row swizzled as it would be whole.
    RegisterTensor out = stageThrough(op, "conversion", in.element, in.numElements(), {{&view}},
                                      {{readView, view.shape, newName(hint)}}, {position, rowLength, vector})[0];
    out.layout = to;
    out.shape = in.shape;
    return out;
  }
  std::string buffer = allocateStaging(op, in.element, in.numElements(), "conversion");
  barrierBeforeReuse();
  if (!writeStagedVectors(view, buffer, rowLength, position))
    writeEachStaged(view, buffer, [&](const std::string& index, const std::string& value) {
      return buffer + "[" + position(index) + "] = " + value + ";";
    });
  body_.line(dialect_.barrier());
  RegisterTensor out = readStaged(buffer, readView, view.shape, in.element, newName(hint), 1, 0, position);
  out.layout = to;
  out.shape = in.shape;
  return out;
}

// The writers' dimension w has extent n and stride S in the row-major index
// L of the tile: L = (p, w, s) as bit fields, s the low log2(S) bits. Staged
// at (p, s, w) instead, each writer's run along w is contiguous; rows are
// the (p, s) pairs, of n elements each. A reader's lanes step through s by
// (their run) x (their stride) elements: the swizzle's phase changes from
// one step to the next, as convertAcrossDimensions's does.
std::optional<RegisterTensor> KernelLowering::stageAcrossDimensions(const ir::Operation& op, const RegisterTensor& in,
                                                                    const LayoutPtr& to,
                                                                    const std::vector<int64_t>& shape,
                                                                    const std::string& purpose,
                                                                    const std::string& name) {
  if (!in.layout->isBlocked() || !to->isBlocked() || in.element.isPointer() || !in.element.isScalar())
    return std::nullopt;
  const layout::BlockedLayout& writers = in.layout->blockedParams();
  const layout::BlockedLayout& readers = to->blockedParams();
  const int w = writers.order[0], r = readers.order[0];
  const int64_t writerStride = strideAlong(in.shape, w), readerStride = strideAlong(shape, r);
  if (writerStride <= readerStride) return std::nullopt;
  // A tile that does not fit whole goes in pieces (stageThrough), unswizzled.
  if (stagingPieces(op, in.element, in.numElements()) > 1) return std::nullopt;
  const int64_t n = in.shape[w];
  const int bytes = elementBytes(in.element);
  const int64_t readerStep = static_cast<int64_t>(readers.sizePerThread[r]) * readerStride;
  // Elements are written one at a time here, so the swizzle permutes
  // elements, not vectors: a row's 128 bytes take as many phases as they
  // hold elements (the 2048-float reshape of the bench: writes 16-way ->
  // 2-way bank conflicts, reads none, by a count over its warps).
  const int64_t phases = std::min<int64_t>(n, std::max<int64_t>(1, kBankBytes / bytes));
  const int sBits = log2OfPowerOfTwo(writerStride), wBits = log2OfPowerOfTwo(n);
  // Allocated first: a tile past the threadgroup memory is refused before
  // anything is counted.
  std::string buffer = allocateStaging(op, in.element, in.numElements(), purpose);
  const int64_t low = (int64_t{1} << (sBits + wBits)) - 1;
  auto rotate = [=](int64_t i) { return (i & ~low) | ((i & (writerStride - 1)) << wBits) | ((i >> sBits) & (n - 1)); };
  // The phase is the staged row index from bit `rowShift` up. By default
  // that counts the reader lanes' steps through the rows; but a reader SIMD
  // group that also spans a few positions along the writers' dimension
  // meets those in the low bits, and the row index itself then serves it
  // better. So every shift is counted (bank wavefronts over both sides'
  // accesses) and the fewest win, the default on a tie.
  int rowShift = -1;
  if (phases > 1 && readerStep < writerStride) {
    const TensorMap written = in.map(), read(to, shape);
    auto wavefronts = [&](int shift) {
      auto at = [&](int64_t i) {
        const int64_t rotated = rotate(i);
        return rotated ^ ((rotated >> shift) & (phases - 1));
      };
      return stagingWavefronts(written, bytes, at) + stagingWavefronts(read, bytes, at);
    };
    rowShift = wBits + log2OfPowerOfTwo(readerStep);
    int64_t fewest = wavefronts(rowShift);
    for (int shift = wBits; shift < wBits + sBits; ++shift) {
      const int64_t count = shift == rowShift ? fewest : wavefronts(shift);
      if (count < fewest) fewest = count, rowShift = shift;
    }
  }
  std::function<std::string(const std::string&)> position = [=](const std::string& index) {
    const std::string i = parenthesized(index);
    std::string rotated = "((" + i + " & ~" + std::to_string(low) + ") | ((" + i + " & " +
                          std::to_string(writerStride - 1) + ") << " + std::to_string(wBits) + ") | ((" + i + " >> " +
                          std::to_string(sBits) + ") & " + std::to_string(n - 1) + "))";
    if (rowShift < 0) return rotated;
    return "(" + rotated + " ^ ((" + rotated + " >> " + std::to_string(rowShift) + ") & " +
           std::to_string(phases - 1) + "))";
  };
  body_.comment("staged along dimension " + std::to_string(w) + " (stride " + std::to_string(writerStride) +
                "), rows of " + std::to_string(n) + ", " + std::to_string(phases) + " phases");
  barrierBeforeReuse();
  writeEachStaged(in, buffer, [&](const std::string& index, const std::string& value) {
    return buffer + "[" + position(index) + "] = " + value + ";";
  });
  body_.line(dialect_.barrier());
  return readStaged(buffer, to, shape, in.element, name, 1, 0, position);
}

RegisterTensor KernelLowering::renamedRegisters(const RegisterTensor& in, const LayoutPtr& l,
                                                const std::vector<int64_t>& shape, const std::vector<int64_t>& from,
                                                const std::string& name) {
  if (in.pointerOffsets)
    return RegisterTensor::pointerInto(l, shape, in.element, in.pointerBase,
                                       renamedRegisters(*in.pointerOffsets, l, shape, from, name + "_offsets"));
  if (in.isUniform()) return reshapedIn(l, shape, in);
  RegisterTensor out = declareStaged(l, shape, in.element, name);
  for (size_t r = 0; r < from.size(); ++r) body_.line(out.regs[r] + " = " + in.regs[from[r]] + ";");
  return out;
}

RegisterTensor KernelLowering::convertLayout(const ir::Operation& op, const RegisterTensor& in, const LayoutPtr& to,
                                             const std::string& hint) {
  if (std::optional<std::vector<int64_t>> from = layout::registerPermutation(in.map(), TensorMap(to, in.shape))) {
    body_.comment("layout conversion of " + hint + " to " + to->str() + ": each thread's elements renamed");
    return renamedRegisters(in, to, in.shape, *from, newName(hint));
  }
  body_.comment("layout conversion of " + hint + " to " + to->str());
  // Staged along the writers' dimension: a 2-D tile whole or in pieces,
  // others where the whole fits.
  if (std::optional<RegisterTensor> across = convertAcrossDimensions(op, in, to, hint)) return *across;
  const std::string name = newName(hint);
  if (in.shape.size() > 2)
    if (std::optional<RegisterTensor> across = stageAcrossDimensions(op, in, to, in.shape, "conversion", name))
      return *across;
  return stageThrough(op, "conversion", in.element, in.numElements(), {{&in}}, {{to, in.shape, name}})[0];
}

}  // namespace tmetal::codegen
