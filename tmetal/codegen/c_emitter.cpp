#include "tmetal/codegen/c_emitter.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "tmetal/codegen/register_tensor.h"
#include "tmetal/ir/float_bits.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::codegen {

const char* simdOpName(SimdOp op) {
  switch (op) {
    case SimdOp::Sum: return "sum";
    case SimdOp::Product: return "product";
    case SimdOp::Max: return "max";
    case SimdOp::Min: return "min";
    case SimdOp::And: return "and";
    case SimdOp::Or: return "or";
    case SimdOp::Xor: return "xor";
  }
  return "?";
}

using ir::ScalarKind;

std::string CEmitter::builtinName(Builtin b) const {
  switch (b) {
    case Builtin::ProgramId: return "pid";
    case Builtin::NumPrograms: return "num_pids";
    case Builtin::ThreadIndex: return "tid";
    case Builtin::LaneIndex: return "lane";
    case Builtin::SimdGroupIndex: return "simd";
  }
  return "?";
}

namespace {
const char* axisName(int axis) { return axis == 0 ? "x" : axis == 1 ? "y" : "z"; }
}  // namespace

std::string CEmitter::programIdExpr(int axis) const {
  return "int(" + builtinName(Builtin::ProgramId) + "." + axisName(axis) + ")";
}

std::string CEmitter::numProgramsExpr(int axis) const {
  return "int(" + builtinName(Builtin::NumPrograms) + "." + axisName(axis) + ")";
}

std::string CEmitter::scalarType(ScalarKind k) const {
  switch (k) {
    case ScalarKind::I1: return "bool";
    case ScalarKind::I8: return "char";
    case ScalarKind::I16: return "short";
    case ScalarKind::I32: return "int";
    case ScalarKind::I64: return "long";
    case ScalarKind::F16: return "half";
    case ScalarKind::BF16: return "bfloat";
    case ScalarKind::F32: return "float";
    case ScalarKind::F64: return "double";
    // 8-bit floats live as their bits (no target computes in them).
    case ScalarKind::F8E4M3FN:
    case ScalarKind::F8E5M2:
    case ScalarKind::F8E4M3FNUZ:
    case ScalarKind::F8E5M2FNUZ:
    case ScalarKind::F8E4M3B11FNUZ: return "uchar";
  }
  return "?";
}

std::string CEmitter::unsignedType(ScalarKind k) const {
  switch (k) {
    case ScalarKind::I1: return "bool";
    case ScalarKind::I8: return "uchar";
    case ScalarKind::I16: return "ushort";
    case ScalarKind::I32: return "uint";
    case ScalarKind::I64: return "ulong";
    default: return scalarType(k);
  }
}

std::string CEmitter::memoryElementType(const ir::Type& pointee) const {
  if (pointee.isScalar() && pointee.scalarKind() == ScalarKind::I1) return scalarType(ScalarKind::I8);
  return typeName(pointee);
}

std::string CEmitter::pointerType(const ir::Type& pointee, AddressSpace space) const {
  return addressSpace(space) + " " + memoryElementType(pointee) + "*";
}

std::string CEmitter::pointerCast(const std::string& expr, const std::string& toPointerType) const {
  return "reinterpret_cast<" + toPointerType + ">(" + expr + ")";
}

std::string CEmitter::typeName(const ir::Type& t) const {
  if (t.isScalar()) return scalarType(t.scalarKind());
  if (t.isPointer()) {
    if (!t.pointee().isScalar()) throw CompileError("no C type for " + t.str());
    return pointerType(t.pointee(), AddressSpace::Device);
  }
  throw CompileError("no C type for " + t.str());
}

std::string CEmitter::intLiteral(int64_t v, ScalarKind k) const {
  if (k == ScalarKind::I1) return boolLiteral(v != 0);
  if (k == ScalarKind::I64) {
    if (v == std::numeric_limits<int64_t>::min()) return "(-9223372036854775807L - 1)";
    return std::to_string(v) + "L";
  }
  // Constants of narrower types wrap as the type does.
  int bits = ir::scalarBits(k);
  if (bits < 64) {
    int64_t m = int64_t{1} << bits;
    v = ((v % m) + m) % m;
    if (v >= m / 2) v -= m;
  }
  if (v == std::numeric_limits<int32_t>::min()) return "(-2147483647 - 1)";
  std::string s = std::to_string(v);
  if (k == ScalarKind::I8 || k == ScalarKind::I16) return scalarType(k) + "(" + s + ")";
  return s;
}

std::string CEmitter::floatLiteral(double v, ScalarKind k) const {
  // An 8-bit float is its bit pattern.
  if (ir::isFloat8Kind(k)) return convert(std::to_string(ir::floatToBits(v, k)), scalarType(k));
  std::string body;
  if (std::isnan(v)) {
    body = quietNan();
  } else if (std::isinf(v)) {
    body = v < 0 ? "-" + infinity() : infinity();
  } else {
    // The shortest decimal that reads back as the same float.
    float f = static_cast<float>(v);
    char buf[64];
    for (int precision = 1; precision <= 9; ++precision) {
      std::snprintf(buf, sizeof buf, "%.*g", precision, static_cast<double>(f));
      if (std::strtof(buf, nullptr) == f) break;
    }
    body = buf;
    if (body.find_first_of(".eE") == std::string::npos) body += ".0";
    body += "f";
  }
  if (k == ScalarKind::F32) return body;
  return convert(body, scalarType(k));
}

std::string CEmitter::boolLiteral(bool v) const { return v ? "true" : "false"; }

std::string CEmitter::maskedVectorLoad(const std::string& var, const std::string& ptr,
                                       const std::string& vectorTypeName, const std::string& cond, bool) const {
  return "if (" + cond + ") " + var + " = " + vectorLoad(ptr, vectorTypeName, AddressSpace::Device) + ";";
}

std::string CEmitter::maskedStore(const std::string& ptr, const std::string& value, const std::string& cond,
                                  bool) const {
  return "if (" + cond + ") " + dereference(ptr) + " = " + value + ";";
}

std::string CEmitter::lowBits(const std::string& x, uint64_t mask, ir::ScalarKind k) const {
  return "(" + x + " & " + intLiteral(static_cast<int64_t>(mask), k) + ")";
}

std::string CEmitter::wideMultiply(const std::string& a, const std::string& b, bool isSigned) const {
  const std::string wide = scalarType(ir::ScalarKind::I64);
  auto extend = [&](const std::string& x) {
    return convert(isSigned ? x : convert(x, unsignedType(ir::ScalarKind::I32)), wide);
  };
  return extend(a) + " * " + extend(b);
}

std::string CEmitter::maskedLoad(const std::string& ptr, const std::string& cond, const std::string& other) const {
  return cond + " ? " + dereference(ptr) + " : " + other;
}

std::string CEmitter::floatDivide(const std::string& a, const std::string& b, ir::ScalarKind) const {
  return a + " / " + b;
}

std::string CEmitter::convert(const std::string& expr, const std::string& toType) const {
  return toType + "(" + expr + ")";
}

}  // namespace tmetal::codegen

namespace tmetal::codegen {

std::string CEmitter::matrixMultiplyAccumulatePair(const std::string& d0, const std::string& d1,
                                                   const std::string& a0, const std::string& a1,
                                                   const std::string& b) const {
  return matrixMultiplyAccumulate(d0, a0, b, d0) + " " + matrixMultiplyAccumulate(d1, a1, b, d1);
}

std::string CEmitter::matrixLoadGroup(const std::vector<std::string>& tiles, const std::string& ptr, int64_t step1,
                                      int64_t step2, int64_t stride, bool transpose, MatrixRole role) const {
  std::string loads;
  for (size_t j = 0; j < tiles.size(); ++j) {
    const int64_t offset = int64_t(j & 1) * step1 + int64_t(j >> 1) * step2;
    loads += (j ? " " : "") + matrixLoad(tiles[j], ptr + (offset ? " + " + std::to_string(offset) : ""), stride,
                                         transpose, role);
  }
  return loads;
}

std::string CEmitter::matrixMultiplyAccumulateAlongK(const std::string& d, const std::string& a,
                                                     const std::string& ak, const std::string& b,
                                                     const std::string& bk) const {
  return matrixMultiplyAccumulate(d, a, b, d) + " " + matrixMultiplyAccumulate(d, ak, bk, d);
}

std::string CEmitter::matrixMultiplyAccumulatePairAlongK(const std::string& d0, const std::string& d1,
                                                         const std::string& a0, const std::string& a1,
                                                         const std::string& a0k, const std::string& a1k,
                                                         const std::string& b, const std::string& bk) const {
  return matrixMultiplyAccumulatePair(d0, d1, a0, a1, b) + " " + matrixMultiplyAccumulatePair(d0, d1, a0k, a1k, bk);
}

std::string CEmitter::libdeviceMarker(std::string_view marker) const {
  if (marker == "helper") return helperQualifier();
  if (marker == "inf") return infinity();
  if (marker == "nan") return quietNan();
  return "";
}

}  // namespace tmetal::codegen
