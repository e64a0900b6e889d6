// Types of the kernel IR: the scalar types Triton uses, pointers
// (`!tt.ptr<T>`, also to tensors for block pointers) and ranked tensors
// (`tensor<4x8xf32>`, `tensor<128x!tt.ptr<f16>>`). Types are small immutable
// values compared structurally.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tmetal::ir {

// The 8-bit floats are OCP's E4M3FN and E5M2 and the "FNUZ" variants
// (no negative zero, 0x80 is the NaN; E4M3B11FNUZ has exponent bias 11).
// No GPU that tmetal targets computes in them: they are storage formats
// that kernels convert from and to (tt.fp_to_fp) and dot operands.
enum class ScalarKind : uint8_t {
  I1, I8, I16, I32, I64, F16, BF16, F32, F64,
  F8E4M3FN, F8E5M2, F8E4M3FNUZ, F8E5M2FNUZ, F8E4M3B11FNUZ
};

const char* scalarName(ScalarKind k);          // "i32", "bf16", ...
std::optional<ScalarKind> parseScalarName(const std::string& s);
int scalarBits(ScalarKind k);
bool isFloatKind(ScalarKind k);
bool isFloat8Kind(ScalarKind k);

class Type {
 public:
  enum class Kind : uint8_t { None, Scalar, Pointer, Tensor };

  Type() = default;  // the "none" type (ops without results use no Type at all)
  static Type scalar(ScalarKind k);
  static Type i1() { return scalar(ScalarKind::I1); }
  static Type i8() { return scalar(ScalarKind::I8); }
  static Type i16() { return scalar(ScalarKind::I16); }
  static Type i32() { return scalar(ScalarKind::I32); }
  static Type i64() { return scalar(ScalarKind::I64); }
  static Type f16() { return scalar(ScalarKind::F16); }
  static Type bf16() { return scalar(ScalarKind::BF16); }
  static Type f32() { return scalar(ScalarKind::F32); }
  static Type f64() { return scalar(ScalarKind::F64); }
  static Type pointer(const Type& pointee, int addressSpace = 1);
  static Type tensor(std::vector<int64_t> shape, const Type& element);

  Kind kind() const { return kind_; }
  bool isNone() const { return kind_ == Kind::None; }
  bool isScalar() const { return kind_ == Kind::Scalar; }
  bool isPointer() const { return kind_ == Kind::Pointer; }
  bool isTensor() const { return kind_ == Kind::Tensor; }

  // Scalars: their kind. Only valid when isScalar().
  ScalarKind scalarKind() const { return scalar_; }
  bool isInt() const;    // scalar integer (i1 included)
  bool isFloat() const;  // scalar float
  int bitWidth() const;  // scalar bits; pointers count as 64

  // Pointers: pointee and address space (1 = global, Triton's default).
  const Type& pointee() const { return *inner_; }
  int addressSpace() const { return addressSpace_; }
  bool isBlockPointer() const { return isPointer() && pointee().isTensor(); }

  // Tensors: shape and element type.
  const std::vector<int64_t>& shape() const { return shape_; }
  const Type& element() const { return *inner_; }
  int rank() const { return isTensor() ? static_cast<int>(shape_.size()) : 0; }
  int64_t numElements() const;  // 1 for non-tensors

  // The element type for tensors, the type itself otherwise.
  const Type& elementOrSelf() const { return isTensor() ? element() : *this; }
  // Same shape (if a tensor), new element type.
  Type withElement(const Type& element) const;

  // Triton's textual spelling: "f32", "!tt.ptr<f16>", "tensor<4x8xf32>".
  std::string str() const;

  bool operator==(const Type& o) const;
  bool operator!=(const Type& o) const { return !(*this == o); }

 private:
  Kind kind_ = Kind::None;
  ScalarKind scalar_ = ScalarKind::I32;
  int addressSpace_ = 1;
  std::shared_ptr<const Type> inner_;  // pointee or tensor element
  std::vector<int64_t> shape_;
};

}  // namespace tmetal::ir
