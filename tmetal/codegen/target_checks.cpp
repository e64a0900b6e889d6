#include "tmetal/codegen/target_checks.h"

#include "tmetal/ir/float8_uses.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::codegen {

namespace {

bool involves(const ir::Type& t, ir::ScalarKind k) {
  if (t.isScalar()) return t.scalarKind() == k;
  if (t.isPointer()) return involves(t.pointee(), k);
  if (t.isTensor()) return involves(t.element(), k);
  return false;
}

// The first unsupported kind among the op's operands and results.
std::optional<ir::ScalarKind> unsupportedKind(const ir::Operation& op, const hw::HardwareProfile& p) {
  std::vector<const ir::Value*> values;
  for (const ir::Value* v : op.results()) values.push_back(v);
  for (const ir::Value* v : op.operands()) values.push_back(v);
  for (const ir::Value* v : values) {
    if (!p.fp64 && involves(v->type(), ir::ScalarKind::F64)) return ir::ScalarKind::F64;
    if (!p.bfloat && involves(v->type(), ir::ScalarKind::BF16)) return ir::ScalarKind::BF16;
  }
  return std::nullopt;
}

std::string why(ir::ScalarKind k, const hw::HardwareProfile& p) {
  if (k == ir::ScalarKind::F64) return "f64 is not supported on " + p.name + ": the GPU has no double precision";
  return "bf16 is not supported on " + p.name + ": bfloat needs MSL 3.1";
}

}  // namespace

void checkKernelFitsTarget(const ir::Function& fn, const hw::HardwareProfile& profile, int numWarps) {
  int64_t threads = static_cast<int64_t>(numWarps) * profile.simdWidth;
  if (threads > profile.maxThreadsPerThreadgroup)
    throw ResourceLimitError(fn.loc().userPos(),
                             "'tt.func' @" + fn.name() + ": num_warps " + std::to_string(numWarps) + " gives " +
                                 std::to_string(threads) + " threads per threadgroup, more than the " +
                                 std::to_string(profile.maxThreadsPerThreadgroup) + " of " + profile.name,
                             "threads", threads, profile.maxThreadsPerThreadgroup);
  for (size_t i = 0; i < fn.numArguments(); ++i) {
    const ir::Value* a = fn.argument(i);
    for (ir::ScalarKind k : {ir::ScalarKind::F64, ir::ScalarKind::BF16}) {
      bool missing = k == ir::ScalarKind::F64 ? !profile.fp64 : !profile.bfloat;
      if (missing && involves(a->type(), k)) {
        std::string name = a->name().empty() ? "arg" + std::to_string(i) : a->name();
        throw CompileError(a->loc().userPos().known() ? a->loc().userPos() : fn.loc().userPos(),
                           "kernel argument '" + name + "' of type " + a->type().str() + ": " + why(k, profile));
      }
    }
  }
  ir::walk(*fn.body(), [&](const ir::Operation* op) {
    if (auto k = unsupportedKind(*op, profile)) op->fail(why(*k, profile));
  });
  ir::checkFloat8Uses(fn);
}

}  // namespace tmetal::codegen
