#include "tmetal/ir/location.h"

namespace tmetal::ir {

namespace {
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}
}  // namespace

Location Location::fileLineCol(std::string file, int line, int col) {
  Location l;
  l.kind_ = Kind::FileLineCol;
  l.pos_ = SourcePos{std::move(file), line, col};
  return l;
}

Location Location::named(std::string name, Location child) {
  Location l;
  l.kind_ = Kind::Name;
  l.name_ = std::move(name);
  l.children_.push_back(std::make_shared<const Location>(std::move(child)));
  return l;
}

Location Location::callSite(Location callee, Location caller) {
  Location l;
  l.kind_ = Kind::CallSite;
  l.children_.push_back(std::make_shared<const Location>(std::move(callee)));
  l.children_.push_back(std::make_shared<const Location>(std::move(caller)));
  return l;
}

Location Location::fused(std::vector<Location> parts) {
  Location l;
  l.kind_ = Kind::Fused;
  for (auto& p : parts) l.children_.push_back(std::make_shared<const Location>(std::move(p)));
  return l;
}

SourcePos Location::userPos() const {
  switch (kind_) {
    case Kind::Unknown:
      return {};
    case Kind::FileLineCol:
      return pos_;
    case Kind::Name:
      return child().userPos();
    case Kind::CallSite: {
      SourcePos outer = caller().userPos();
      return outer.known() ? outer : child().userPos();
    }
    case Kind::Fused:
      for (const auto& p : children_) {
        SourcePos s = p->userPos();
        if (s.known()) return s;
      }
      return {};
  }
  return {};
}

std::string Location::userName() const {
  switch (kind_) {
    case Kind::Name: {
      std::string inner = child().userName();
      return inner.empty() ? name_ : inner;
    }
    case Kind::CallSite:
      return caller().userName();
    case Kind::Fused:
      for (const auto& p : children_) {
        std::string s = p->userName();
        if (!s.empty()) return s;
      }
      return "";
    default:
      return "";
  }
}

std::string Location::bodyStr() const {
  switch (kind_) {
    case Kind::Unknown:
      return "unknown";
    case Kind::FileLineCol:
      return quoted(pos_.file) + ":" + std::to_string(pos_.line) + ":" + std::to_string(pos_.col);
    case Kind::Name:
      if (child().isUnknown()) return quoted(name_);
      return quoted(name_) + "(" + child().bodyStr() + ")";
    case Kind::CallSite:
      return "callsite(" + child().bodyStr() + " at " + caller().bodyStr() + ")";
    case Kind::Fused: {
      std::string s = "fused[";
      for (size_t i = 0; i < children_.size(); ++i) s += (i ? ", " : "") + children_[i]->bodyStr();
      return s + "]";
    }
  }
  return "unknown";
}

std::string Location::str() const { return "loc(" + bodyStr() + ")"; }

bool Location::operator==(const Location& o) const {
  if (kind_ != o.kind_ || name_ != o.name_ || pos_.file != o.pos_.file || pos_.line != o.pos_.line ||
      pos_.col != o.pos_.col || children_.size() != o.children_.size())
    return false;
  for (size_t i = 0; i < children_.size(); ++i)
    if (!(*children_[i] == *o.children_[i])) return false;
  return true;
}

}  // namespace tmetal::ir
