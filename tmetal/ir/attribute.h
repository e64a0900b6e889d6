// Attributes attached to ops and function arguments, stored under their MLIR
// names with their MLIR value kinds (see ops.def for each op's attributes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tmetal/ir/type.h"

namespace tmetal::ir {

class Attribute {
 public:
  enum class Kind {
    Unit,        // present without value: `{allow_reorder}`
    Bool,        // true / false
    Int,         // 16 : i32   (type() is the integer type)
    Float,       // 1.0 : f32 or 0xFF800000 : f32 (type() is the float type)
    String,      // "text"
    Symbol,      // a bare keyword such as `slt`, `x`, `fadd`, `acq_rel`, `evict_last`
    TypeAttr,    // a type used as an attribute value
    Array,       // [a, b, c]
    DenseArray,  // array<i32: 1, 0>   (ints(), type() is the element type)
    Dense,       // dense<v> : tensor<...> (splat, one element) or dense<[...]> (elements())
    Dialect,     // #llvm.loop_annotation<...>: kept as text (aliases expanded) and printed back; nothing reads it
  };

  Attribute() = default;  // unit
  static Attribute unit();
  static Attribute boolean(bool v);
  static Attribute integer(int64_t v, const Type& t = Type::i32());
  static Attribute floating(double v, const Type& t = Type::f32());
  static Attribute string(std::string s);
  static Attribute symbol(std::string s);
  static Attribute dialect(std::string text);
  static Attribute type(const Type& t);
  static Attribute array(std::vector<Attribute> elems);
  static Attribute denseArray(std::vector<int64_t> values, const Type& elementType = Type::i32());
  // A dense tensor constant. One element means a splat.
  static Attribute dense(std::vector<Attribute> elements, const Type& tensorType);

  Kind kind() const { return kind_; }
  bool isSplat() const { return kind_ == Kind::Dense && elems_.size() == 1; }

  bool asBool() const { return i_ != 0; }
  int64_t asInt() const { return i_; }
  double asFloat() const { return f_; }
  const std::string& asString() const { return s_; }  // String, Symbol, and Dialect's text
  const Type& type() const { return type_; }           // Int, Float, TypeAttr, DenseArray, Dense
  const std::vector<Attribute>& elements() const { return elems_; }  // Array, Dense
  const std::vector<int64_t>& ints() const { return ints_; }         // DenseArray

  bool operator==(const Attribute& o) const;
  bool operator!=(const Attribute& o) const { return !(*this == o); }

 private:
  Kind kind_ = Kind::Unit;
  int64_t i_ = 0;
  double f_ = 0;
  std::string s_;
  Type type_;
  std::vector<Attribute> elems_;
  std::vector<int64_t> ints_;
};

// An ordered attribute dictionary: order is kept so that printing is stable.
class AttrList {
 public:
  const Attribute* find(const std::string& name) const;
  bool has(const std::string& name) const { return find(name) != nullptr; }
  void set(const std::string& name, Attribute value);
  void erase(const std::string& name);
  bool empty() const { return entries_.empty(); }
  const std::vector<std::pair<std::string, Attribute>>& entries() const { return entries_; }

  bool operator==(const AttrList& o) const { return entries_ == o.entries_; }

 private:
  std::vector<std::pair<std::string, Attribute>> entries_;
};

}  // namespace tmetal::ir
