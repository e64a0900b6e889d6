#include "tmetal/codegen/libdevice/libdevice_calls.h"

#include <cctype>

#include "tmetal/codegen/libdevice/libdevice_helpers.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::codegen {

namespace {

// The tmetal_* identifiers of `code`.
std::vector<std::string> helperNames(const std::string& code) {
  std::vector<std::string> names;
  for (size_t at = code.find("tmetal_"); at != std::string::npos; at = code.find("tmetal_", at + 1)) {
    if (at > 0 && (std::isalnum(static_cast<unsigned char>(code[at - 1])) || code[at - 1] == '_')) continue;
    size_t end = at;
    while (end < code.size() && (std::isalnum(static_cast<unsigned char>(code[end])) || code[end] == '_')) ++end;
    names.push_back(code.substr(at, end - at));
  }
  return names;
}

}  // namespace

bool libdeviceImplemented(const ir::LibdeviceFunction& f) {
  for (const std::string& name : helperNames(std::string(f.code)))
    if (!findLibdeviceHelper(name)) return false;
  return true;
}

std::string LibdeviceCalls::cType(ir::LibdeviceType t) const {
  const ir::ScalarKind k = ir::libdeviceScalarKind(t);
  return ir::isUnsigned(t) ? dialect_.unsignedType(k) : dialect_.scalarType(k);
}

std::string LibdeviceCalls::call(const ir::Operation& op, const ir::LibdeviceFunction& f,
                                 const std::vector<std::string>& args) {
  if (args.size() != f.arguments.size())
    op.fail(std::string(f.symbol) + " takes " + std::to_string(f.arguments.size()) + " arguments, got " +
            std::to_string(args.size()));
  std::string code;
  for (size_t i = 0; i < f.code.size(); ++i) {
    if (f.code[i] == '%' && i + 1 < f.code.size() && std::isdigit(static_cast<unsigned char>(f.code[i + 1]))) {
      const size_t index = static_cast<size_t>(f.code[++i] - '0');
      const ir::LibdeviceType t = f.arguments.at(index);
      // Operands arrive in their TTIR types (i32 for uint32 too).
      std::string arg = args[index];
      if (ir::isUnsigned(t)) arg = dialect_.convert(arg, cType(t));
      code += "(" + arg + ")";
    } else {
      code += f.code[i];
    }
  }
  // The table's helpers must exist; the dialect's spellings may name more
  // (MSL's tmetal_fadd_rn) or names of its prologue (CUDA's tmetal_bitcast).
  for (const std::string& name : helperNames(std::string(f.code)))
    if (!findLibdeviceHelper(name))
      op.fail(std::string(f.symbol) + " is not implemented yet (its helper " + name + " is missing)");
  code = spellLibdeviceText(code, dialect_);
  for (const std::string& name : helperNames(code)) require(name);
  const std::string resultType = dialect_.scalarType(ir::libdeviceScalarKind(f.result));
  return dialect_.convert("(" + code + ")", resultType);
}

void LibdeviceCalls::require(std::string_view name) {
  if (emitted_.count(name)) return;
  const LibdeviceHelper* helper = findLibdeviceHelper(name);
  if (!helper) return;  // a name of the target's (tmetal_bitcast in CUDA), not a libdevice helper
  emitted_.insert(std::string(name));
  for (std::string_view used : helper->uses) require(used);
  definitions_.push_back(spellLibdeviceText(helper->text, dialect_));
}

std::string LibdeviceCalls::helpers() const {
  std::string out;
  for (const std::string& d : definitions_) out += d;
  return out;
}

}  // namespace tmetal::codegen
