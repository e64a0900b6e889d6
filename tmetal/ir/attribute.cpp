#include "tmetal/ir/attribute.h"

#include <cstring>

namespace tmetal::ir {

Attribute Attribute::unit() { return Attribute(); }

Attribute Attribute::boolean(bool v) {
  Attribute a;
  a.kind_ = Kind::Bool;
  a.i_ = v;
  return a;
}

Attribute Attribute::integer(int64_t v, const Type& t) {
  Attribute a;
  a.kind_ = Kind::Int;
  a.i_ = v;
  a.type_ = t;
  return a;
}

Attribute Attribute::floating(double v, const Type& t) {
  Attribute a;
  a.kind_ = Kind::Float;
  a.f_ = v;
  a.type_ = t;
  return a;
}

Attribute Attribute::string(std::string s) {
  Attribute a;
  a.kind_ = Kind::String;
  a.s_ = std::move(s);
  return a;
}

Attribute Attribute::symbol(std::string s) {
  Attribute a;
  a.kind_ = Kind::Symbol;
  a.s_ = std::move(s);
  return a;
}

Attribute Attribute::dialect(std::string text) {
  Attribute a;
  a.kind_ = Kind::Dialect;
  a.s_ = std::move(text);
  return a;
}

Attribute Attribute::type(const Type& t) {
  Attribute a;
  a.kind_ = Kind::TypeAttr;
  a.type_ = t;
  return a;
}

Attribute Attribute::array(std::vector<Attribute> elems) {
  Attribute a;
  a.kind_ = Kind::Array;
  a.elems_ = std::move(elems);
  return a;
}

Attribute Attribute::denseArray(std::vector<int64_t> values, const Type& elementType) {
  Attribute a;
  a.kind_ = Kind::DenseArray;
  a.ints_ = std::move(values);
  a.type_ = elementType;
  return a;
}

Attribute Attribute::dense(std::vector<Attribute> elements, const Type& tensorType) {
  Attribute a;
  a.kind_ = Kind::Dense;
  a.elems_ = std::move(elements);
  a.type_ = tensorType;
  return a;
}

bool Attribute::operator==(const Attribute& o) const {
  // Floats compare by bit pattern so that NaN constants round-trip equal.
  return kind_ == o.kind_ && i_ == o.i_ && std::memcmp(&f_, &o.f_, sizeof f_) == 0 && s_ == o.s_ &&
         type_ == o.type_ && elems_ == o.elems_ && ints_ == o.ints_;
}

const Attribute* AttrList::find(const std::string& name) const {
  for (const auto& [k, v] : entries_)
    if (k == name) return &v;
  return nullptr;
}

void AttrList::set(const std::string& name, Attribute value) {
  for (auto& [k, v] : entries_)
    if (k == name) {
      v = std::move(value);
      return;
    }
  entries_.emplace_back(name, std::move(value));
}

void AttrList::erase(const std::string& name) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it)
    if (it->first == name) {
      entries_.erase(it);
      return;
    }
}

}  // namespace tmetal::ir
