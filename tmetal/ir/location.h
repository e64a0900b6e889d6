// Source locations as Triton prints them in `loc(...)`: file:line:col, a
// name wrapped around another location (`loc("offs"(#loc3))`), a call site
// (`callsite(#callee at #caller)`, produced when Triton inlines a library or
// user helper), fused locations and `unknown`. Kept on every op so that a
// later error can name the user's Python line.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tmetal/support/diagnostic.h"

namespace tmetal::ir {

class Location {
 public:
  enum class Kind { Unknown, FileLineCol, Name, CallSite, Fused };

  Location() = default;  // unknown
  static Location fileLineCol(std::string file, int line, int col);
  static Location named(std::string name, Location child);
  static Location callSite(Location callee, Location caller);
  static Location fused(std::vector<Location> parts);

  Kind kind() const { return kind_; }
  bool isUnknown() const { return kind_ == Kind::Unknown; }
  const SourcePos& pos() const { return pos_; }         // FileLineCol
  const std::string& name() const { return name_; }      // Name
  const Location& child() const { return *children_[0]; }   // Name's child; CallSite's callee
  const Location& caller() const { return *children_[1]; }  // CallSite's caller
  const std::vector<std::shared_ptr<const Location>>& parts() const { return children_; }  // Fused

  // The position to show a user: for a call site the outermost caller with a
  // known position (the line in the user's kernel), otherwise the first known
  // file:line:col inside. Unknown when there is none.
  SourcePos userPos() const;
  // The innermost name ("offs" in loc("offs"(...))), or "" if none.
  std::string userName() const;

  // MLIR's inline spelling, e.g. loc("k.py":3:7) or loc(callsite(... at ...)).
  std::string str() const;

  bool operator==(const Location& o) const;
  bool operator!=(const Location& o) const { return !(*this == o); }

 private:
  std::string bodyStr() const;  // without the surrounding loc( )

  Kind kind_ = Kind::Unknown;
  SourcePos pos_;
  std::string name_;
  std::vector<std::shared_ptr<const Location>> children_;
};

}  // namespace tmetal::ir
