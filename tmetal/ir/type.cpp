#include "tmetal/ir/type.h"

#include <array>
#include <cassert>

namespace tmetal::ir {

namespace {
struct ScalarInfo {
  ScalarKind kind;
  const char* name;
  int bits;
  bool isFloat;
};
constexpr std::array<ScalarInfo, 14> kScalars = {{
    {ScalarKind::I1, "i1", 1, false},
    {ScalarKind::I8, "i8", 8, false},
    {ScalarKind::I16, "i16", 16, false},
    {ScalarKind::I32, "i32", 32, false},
    {ScalarKind::I64, "i64", 64, false},
    {ScalarKind::F16, "f16", 16, true},
    {ScalarKind::BF16, "bf16", 16, true},
    {ScalarKind::F32, "f32", 32, true},
    {ScalarKind::F64, "f64", 64, true},
    {ScalarKind::F8E4M3FN, "f8E4M3FN", 8, true},
    {ScalarKind::F8E5M2, "f8E5M2", 8, true},
    {ScalarKind::F8E4M3FNUZ, "f8E4M3FNUZ", 8, true},
    {ScalarKind::F8E5M2FNUZ, "f8E5M2FNUZ", 8, true},
    {ScalarKind::F8E4M3B11FNUZ, "f8E4M3B11FNUZ", 8, true},
}};
const ScalarInfo& info(ScalarKind k) { return kScalars[static_cast<size_t>(k)]; }
}  // namespace

const char* scalarName(ScalarKind k) { return info(k).name; }
int scalarBits(ScalarKind k) { return info(k).bits; }
bool isFloatKind(ScalarKind k) { return info(k).isFloat; }
bool isFloat8Kind(ScalarKind k) { return info(k).isFloat && info(k).bits == 8; }

std::optional<ScalarKind> parseScalarName(const std::string& s) {
  for (const auto& i : kScalars)
    if (s == i.name) return i.kind;
  return std::nullopt;
}

Type Type::scalar(ScalarKind k) {
  Type t;
  t.kind_ = Kind::Scalar;
  t.scalar_ = k;
  return t;
}

Type Type::pointer(const Type& pointee, int addressSpace) {
  Type t;
  t.kind_ = Kind::Pointer;
  t.addressSpace_ = addressSpace;
  t.inner_ = std::make_shared<const Type>(pointee);
  return t;
}

Type Type::tensor(std::vector<int64_t> shape, const Type& element) {
  assert(!element.isTensor() && "tensors of tensors do not exist");
  Type t;
  t.kind_ = Kind::Tensor;
  t.shape_ = std::move(shape);
  t.inner_ = std::make_shared<const Type>(element);
  return t;
}

bool Type::isInt() const { return isScalar() && !isFloatKind(scalar_); }
bool Type::isFloat() const { return isScalar() && isFloatKind(scalar_); }

int Type::bitWidth() const {
  if (isScalar()) return scalarBits(scalar_);
  if (isPointer()) return 64;
  return 0;
}

int64_t Type::numElements() const {
  int64_t n = 1;
  if (isTensor())
    for (int64_t d : shape_) n *= d;
  return n;
}

Type Type::withElement(const Type& element) const {
  return isTensor() ? tensor(shape_, element) : element;
}

std::string Type::str() const {
  switch (kind_) {
    case Kind::None:
      return "none";
    case Kind::Scalar:
      return scalarName(scalar_);
    case Kind::Pointer: {
      std::string s = "!tt.ptr<" + inner_->str();
      if (addressSpace_ != 1) s += ", " + std::to_string(addressSpace_);
      return s + ">";
    }
    case Kind::Tensor: {
      std::string s = "tensor<";
      for (int64_t d : shape_) s += std::to_string(d) + "x";
      return s + inner_->str() + ">";
    }
  }
  return "?";
}

bool Type::operator==(const Type& o) const {
  if (kind_ != o.kind_) return false;
  switch (kind_) {
    case Kind::None:
      return true;
    case Kind::Scalar:
      return scalar_ == o.scalar_;
    case Kind::Pointer:
      return addressSpace_ == o.addressSpace_ && *inner_ == *o.inner_;
    case Kind::Tensor:
      return shape_ == o.shape_ && *inner_ == *o.inner_;
  }
  return false;
}

}  // namespace tmetal::ir
