#include "tmetal/codegen/debug_buffer.h"

#include <cstring>

#include "tmetal/support/diagnostic.h"
#include "tmetal/support/print_format.h"

namespace tmetal::codegen {

namespace {

std::runtime_error badBuffer(const KernelMetadata& m, const std::string& what) {
  return std::runtime_error("the debug buffer of kernel '" + m.kernelName + "' " + what);
}

void writeRecord(const KernelMetadata& m, const PrintRecord& r, std::ostream& printed) {
  if (r.print < 0 || static_cast<size_t>(r.print) >= m.prints.size()) throw badBuffer(m, "names a print it lacks");
  const KernelPrint& p = m.prints[static_cast<size_t>(r.print)];
  const std::array<int64_t, 3> pid = {r.programId[0], r.programId[1], r.programId[2]};
  const int n = static_cast<int>(p.operands.size());
  if (r.operand < 0) {
    printed << formatPrintLine(pid, p.prefix, -1, n, {}, {}, "") << "\n";
    return;
  }
  if (r.operand >= n) throw badBuffer(m, "names a printed operand its print lacks");
  const KernelPrintOperand& o = p.operands[static_cast<size_t>(r.operand)];
  const uint64_t bits = uint64_t{r.valueLow} | (uint64_t{r.valueHigh} << 32);
  std::string value;
  if (o.isFloat) {
    float f;
    const uint32_t low = r.valueLow;
    std::memcpy(&f, &low, sizeof f);
    value = formatPrintedFloat(f);
  } else {
    value = formatPrintedInteger(bits, PrintedType{false, o.isPointer, o.isSigned, o.bits}, p.hex);
  }
  std::vector<int64_t> index = r.element < 0 ? std::vector<int64_t>{} : unflattenIndex(r.element, o.shape);
  printed << formatPrintLine(pid, p.prefix, r.operand, n, index, o.shape, value) << "\n";
}

}  // namespace

size_t debugBufferWords(const KernelMetadata& m) {
  if (!m.takesDebugBuffer()) return 0;
  return kDebugHeaderWords + (m.prints.empty() ? 0 : size_t{kPrintCapacity} * kPrintRecordWords);
}

void prepareDebugBuffer(const KernelMetadata& m, int32_t* words) {
  std::memset(words, 0, kDebugHeaderWords * sizeof(int32_t));
  words[kPrintCapacityWord] = m.prints.empty() ? 0 : kPrintCapacity;
}

void reportDebugBuffer(const KernelMetadata& m, const int32_t* words, size_t count, std::ostream& printed) {
  if (count < debugBufferWords(m)) throw badBuffer(m, "is too small");
  const int64_t written = static_cast<uint32_t>(words[kPrintCountWord]);
  const int64_t capacity = words[kPrintCapacityWord];
  const int64_t kept = std::min(written, capacity);
  for (int64_t i = 0; i < kept; ++i) {
    PrintRecord r;
    std::memcpy(&r, words + kDebugHeaderWords + i * kPrintRecordWords, sizeof r);
    writeRecord(m, r, printed);
  }
  if (written > capacity)
    printed << "tmetal: kernel '" << m.kernelName << "' printed " << written << " lines; the last "
            << written - capacity << " were dropped (the debug buffer holds " << capacity << ")\n";
  printed.flush();

  AssertionState state;
  std::memcpy(&state, words, sizeof state);
  if (state.failed == 0) return;
  if (state.failed < 0 || static_cast<size_t>(state.failed) > m.assertions.size())
    throw badBuffer(m, "names an assertion it lacks");
  const KernelAssertion& a = m.assertions[static_cast<size_t>(state.failed - 1)];
  std::string where = "program (" + std::to_string(state.programId[0]) + ", " + std::to_string(state.programId[1]) +
                      ", " + std::to_string(state.programId[2]) + "), thread " + std::to_string(state.thread);
  if (state.element >= 0) where += ", element " + formatIndex(unflattenIndex(state.element, a.shape));
  std::string message =
      "device-side assertion failed" + (a.message.empty() ? "" : ": " + a.message) + " (" + where + ")";
  throw DeviceAssertionError(formatDiagnostic(SourcePos{a.file, a.line, a.col}, message), a);
}

}  // namespace tmetal::codegen
