#include "tmetal/graph/op_analysis.h"

#include <algorithm>
#include <numeric>

#include "tmetal/codegen/compile_kernel.h"
#include "tmetal/graph/reduction_kernels.h"
#include "tmetal/graph/reduction_planner.h"
#include "tmetal/graph/tensor_checks.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::graph {

namespace {

using layout::AccessPattern;

struct DtypeName {
  const char* name;
  ir::ScalarKind kind;
};
constexpr DtypeName kDtypes[] = {
    {"float32", ir::ScalarKind::F32}, {"float16", ir::ScalarKind::F16}, {"bfloat16", ir::ScalarKind::BF16},
    {"float64", ir::ScalarKind::F64}, {"int8", ir::ScalarKind::I8},     {"int16", ir::ScalarKind::I16},
    {"int32", ir::ScalarKind::I32},   {"int64", ir::ScalarKind::I64},   {"bool", ir::ScalarKind::I1},
};

std::string inputLabel(size_t i) { return "input_shapes[" + std::to_string(i) + "]"; }

// Runs a check; a CompileError from it gets `prefix` in front.
template <typename F>
auto prefixed(const std::string& prefix, F&& check) -> decltype(check()) {
  try {
    return check();
  } catch (const CompileError& e) {
    throw CompileError(prefix + e.message());
  }
}

std::vector<int64_t> broadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> out(std::max(a.size(), b.size()));
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t x = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    int64_t y = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    if (x != y && x != 1 && y != 1)
      throw CompileError("input shapes " + shapeText(a) + " and " + shapeText(b) + " do not broadcast");
    out[i] = std::max(x, y);
  }
  return out;
}

// Output shape of a reduction: reduced dimensions removed, or kept as 1.
std::vector<int64_t> reducedShape(const std::vector<int64_t>& shape, const std::vector<int>& axes, bool keepDims) {
  std::vector<int64_t> out;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    bool isReduced = std::binary_search(axes.begin(), axes.end(), d);
    if (!isReduced)
      out.push_back(shape[d]);
    else if (keepDims)
      out.push_back(1);
  }
  return out;
}

Combiner reductionCombiner(const GraphOp& op, const OpInfo& info) {
  if (op.combiner) {
    if (op.type != "tt.reduce") throw CompileError("args.combiner is only read for tt.reduce");
    std::optional<Combiner> c = parseCombiner(*op.combiner);
    if (!c)
      throw CompileError("unknown combiner '" + *op.combiner +
                         "' (known: sum, mean, max, min, prod, argmax, argmin, any, all)");
    return *c;
  }
  return *info.combiner;
}

void analyzeReduction(const GraphOp& op, const OpInfo& info, const hw::HardwareProfile& profile, OpAnalysis& a) {
  const std::vector<int64_t>& shape = op.inputShapes[0];
  if (op.axes) {
    if (op.axes->empty()) throw CompileError("args.axis is an empty list; give at least one axis");
    a.axes = normalizeAxes(*op.axes, shape);
  } else {
    // No axis: reduce everything, as tl.sum(x, axis=None) does.
    a.axes.resize(shape.size());
    std::iota(a.axes.begin(), a.axes.end(), 0);
  }
  ReductionRequest request{shape, a.strides, a.axes, a.dtype, reductionCombiner(op, info)};
  a.plan = planReduction(request, profile);
  a.layout = a.plan->layout;
  a.outputShape = reducedShape(shape, a.axes, op.keepDims);
}

void analyzeRowNormalization(const GraphOp& op, const OpInfo& info, const hw::HardwareProfile& profile,
                             OpAnalysis& a) {
  const std::vector<int64_t>& shape = op.inputShapes[0];
  std::vector<int64_t> axes = op.axes ? *op.axes : std::vector<int64_t>{-1};
  if (axes.size() != 1)
    throw CompileError(op.type + " normalizes along one axis; args.axis lists " + std::to_string(axes.size()));
  a.axes = normalizeAxes(axes, shape);
  ReductionRequest request{shape, a.strides, a.axes, a.dtype, *info.combiner};
  a.plan = planReduction(request, profile);
  a.layout = a.plan->layout;
  a.outputShape = shape;
  a.note = op.type == "tt.softmax"
               ? "tt.softmax reduces each row twice with this plan (max, then the sum of exponentials), then rewrites it"
               : "tt.layernorm reduces each row twice with this plan (mean, then variance), then rewrites it";
}

layout::GemmShape matmulShape(const GraphOp& op, OpAnalysis& a) {
  const std::vector<int64_t>& x = op.inputShapes[0];
  const std::vector<int64_t>& y = op.inputShapes[1];
  if (x.size() < 2 || y.size() < 2 || x.size() != y.size())
    throw CompileError(op.type + " needs two inputs of the same rank >= 2, got " + shapeText(x) + " and " +
                       shapeText(y));
  const size_t r = x.size();
  if (!std::equal(x.begin(), x.end() - 2, y.begin()))
    throw CompileError("batch dimensions differ: " + shapeText(x) + " x " + shapeText(y));
  if (x[r - 1] != y[r - 2])
    throw CompileError("inner dimensions differ: " + shapeText(x) + " x " + shapeText(y) + " (" +
                       std::to_string(x[r - 1]) + " != " + std::to_string(y[r - 2]) + ")");
  a.outputShape.assign(x.begin(), x.end() - 1);
  a.outputShape.push_back(y[r - 1]);
  return {x[r - 2], y[r - 1], x[r - 1]};
}

layout::GemmShape convolutionShape(const GraphOp& op, OpAnalysis& a) {
  const std::vector<int64_t>& x = op.inputShapes[0];  // [N, C, H, W]
  const std::vector<int64_t>& w = op.inputShapes[1];  // [O, C, KH, KW]
  if (x.size() != 4 || w.size() != 4)
    throw CompileError("tt.conv2d needs an input [N, C, H, W] and a weight [O, C, KH, KW], got " + shapeText(x) +
                       " and " + shapeText(w));
  if (x[1] != w[1])
    throw CompileError("input channels differ: input " + shapeText(x) + " has " + std::to_string(x[1]) +
                       ", weight " + shapeText(w) + " has " + std::to_string(w[1]));
  for (int i = 0; i < 2; ++i) {
    if (op.convStride[i] < 1) throw CompileError("args.stride must be >= 1");
    if (op.convPadding[i] < 0) throw CompileError("args.padding must be >= 0");
  }
  int64_t outH = (x[2] + 2 * op.convPadding[0] - w[2]) / op.convStride[0] + 1;
  int64_t outW = (x[3] + 2 * op.convPadding[1] - w[3]) / op.convStride[1] + 1;
  if (x[2] + 2 * op.convPadding[0] < w[2] || x[3] + 2 * op.convPadding[1] < w[3])
    throw CompileError("the kernel " + shapeText({w[2], w[3]}) + " is larger than the padded input " +
                       shapeText({x[2] + 2 * op.convPadding[0], x[3] + 2 * op.convPadding[1]}));
  a.outputShape = {x[0], w[0], outH, outW};
  int64_t m = checkedMultiply(checkedMultiply(x[0], outH), outW);
  int64_t k = checkedMultiply(checkedMultiply(x[1], w[2]), w[3]);
  if (m < 0 || k < 0) throw CompileError("the implicit GEMM of this convolution overflows 64 bits");
  return {m, w[0], k};
}

void analyzeTranspose(const GraphOp& op, OpAnalysis& a) {
  const std::vector<int64_t>& shape = op.inputShapes[0];
  std::vector<int64_t> perm(shape.size());
  if (op.perm) {
    perm = *op.perm;
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    bool valid = sorted.size() == shape.size();
    for (size_t i = 0; valid && i < sorted.size(); ++i) valid = sorted[i] == int64_t(i);
    if (!valid) throw CompileError("args.perm " + shapeText(perm) + " is not a permutation of the " +
                                   std::to_string(shape.size()) + " dimensions of " + shapeText(shape));
  } else {
    // Without perm, reverse the dimensions (numpy's default).
    for (size_t i = 0; i < shape.size(); ++i) perm[i] = int64_t(shape.size() - 1 - i);
  }
  for (int64_t p : perm) a.outputShape.push_back(shape[p]);
}

void analyze(const GraphOp& op, const hw::HardwareProfile& profile, OpAnalysis& a) {
  const OpInfo& info = *a.info;
  std::optional<ir::ScalarKind> dtype = parseDtype(op.dtype);
  if (!dtype)
    throw CompileError("unknown dtype '" + op.dtype +
                       "' (known: float32, float16, bfloat16, float64, int8, int16, int32, int64, bool)");
  a.dtype = *dtype;
  const int inputs = static_cast<int>(op.inputShapes.size());
  if (inputs < info.minInputs || inputs > info.maxInputs) {
    std::string expected = info.minInputs == info.maxInputs
                               ? std::to_string(info.minInputs)
                               : std::to_string(info.minInputs) + " or " + std::to_string(info.maxInputs);
    throw CompileError(op.type + " takes " + expected + " input shape(s), got " + std::to_string(inputs));
  }
  for (size_t i = 0; i < op.inputShapes.size(); ++i)
    prefixed(inputLabel(i) + ": ", [&] { return checkShape(op.inputShapes[i]); });
  if (op.inputStrides.size() > op.inputShapes.size())
    throw CompileError(std::to_string(op.inputStrides.size()) + " stride lists for " + std::to_string(inputs) +
                       " input(s)");
  for (size_t i = 0; i < op.inputStrides.size(); ++i)
    if (!op.inputStrides[i].empty())
      prefixed("strides[" + std::to_string(i) + "]: ", [&] {
        checkStrides(op.inputStrides[i], op.inputShapes[i]);
        return 0;
      });
  a.strides = !op.inputStrides.empty() && !op.inputStrides[0].empty() ? op.inputStrides[0]
                                                                        : layout::rowMajorStrides(op.inputShapes[0]);

  layout::TensorAccess access{op.inputShapes[0], a.strides, scalarBytes(a.dtype), {}, std::nullopt};
  switch (info.pattern) {
    case AccessPattern::Reduction: return analyzeReduction(op, info, profile, a);
    case AccessPattern::RowNormalization: return analyzeRowNormalization(op, info, profile, a);
    case AccessPattern::Matmul: access.gemm = matmulShape(op, a); break;
    case AccessPattern::Convolution: access.gemm = convolutionShape(op, a); break;
    case AccessPattern::Transpose: analyzeTranspose(op, a); break;
    case AccessPattern::Elementwise:
      a.outputShape = inputs == 2 ? broadcastShapes(op.inputShapes[0], op.inputShapes[1]) : op.inputShapes[0];
      break;
  }
  if (a.dtype == ir::ScalarKind::F64 && !profile.fp64)
    throw CompileError("float64 is not supported on " + profile.name + ": Metal has no 64-bit float type");
  a.layout = layout::choosePolicy(info.pattern, access, profile);
}

}  // namespace

const char* opStatusName(OpStatus s) {
  switch (s) {
    case OpStatus::Analyzed: return "ok";
    case OpStatus::Unsupported: return "unsupported";
    case OpStatus::Invalid: return "invalid";
  }
  return "?";
}

std::optional<ir::ScalarKind> parseDtype(const std::string& name) {
  for (const DtypeName& d : kDtypes)
    if (name == d.name) return d.kind;
  return ir::parseScalarName(name);
}

std::string dtypeName(ir::ScalarKind k) {
  for (const DtypeName& d : kDtypes)
    if (d.kind == k) return d.name;
  return ir::scalarName(k);
}

std::string OpAnalysis::diagnostic() const { return formatDiagnostic(op.pos, op.label() + ": " + error); }

std::vector<CompiledStage> compilePlanStages(const ReductionPlan& plan, const hw::HardwareProfile& profile) {
  std::vector<CompiledStage> out;
  ReductionKernels kernels;
  try {
    kernels = buildReductionKernels(plan);
  } catch (const CompileError& e) {
    CompiledStage s;
    s.error = e.message();
    out.push_back(std::move(s));
    return out;
  }
  for (const StageKernel& k : kernels.stages) {
    CompiledStage s;
    s.kernel = k.name;
    s.numWarps = k.numWarps;
    try {
      codegen::CompileOptions options;
      options.target = "metal";
      options.policy = layout::MemoryLayout::COALESCED;  // as runReductionKernels compiles them
      options.numWarps = k.numWarps;
      options.hardware = profile;
      codegen::CompiledKernel c = codegen::compileKernel(*k.module, options);
      s.threadsPerThreadgroup = c.metadata.threadsPerThreadgroup;
      s.threadgroupMemoryBytes = c.metadata.threadgroupMemoryBytes;
      s.policy = c.metadata.layouts.value("policy", std::string());
      if (c.metadata.layouts.contains("reductions")) s.reductions = c.metadata.layouts["reductions"];
    } catch (const CompileError& e) {
      s.error = e.message();
    }
    out.push_back(std::move(s));
  }
  return out;
}

OpAnalysis analyzeOp(const GraphOp& op, const hw::HardwareProfile& profile) {
  OpAnalysis a;
  a.op = op;
  if (!op.readError.empty()) {
    a.status = OpStatus::Invalid;
    a.error = op.readError;
    return a;
  }
  a.info = findOpInfo(op.type);
  if (!a.info) {
    a.status = OpStatus::Unsupported;
    a.error = "unsupported op type '" + op.type + "'";
    return a;
  }
  try {
    analyze(op, profile, a);
    if (a.plan) a.compiled = compilePlanStages(*a.plan, profile);
  } catch (const CompileError& e) {
    a.status = OpStatus::Invalid;
    a.error = e.message();
    a.plan.reset();
  }
  return a;
}

GraphAnalysis analyzeGraph(const OpsGraph& graph, const hw::HardwareSelection& hardware) {
  GraphAnalysis g;
  g.source = graph.source;
  g.hardware = hardware;
  for (layout::MemoryLayout l : layout::allMemoryLayouts()) g.summary.layoutCounts[l] = 0;
  for (const GraphOp& op : graph.ops) {
    OpAnalysis a = analyzeOp(op, hardware.profile);
    ++g.summary.ops;
    switch (a.status) {
      case OpStatus::Analyzed:
        ++g.summary.analyzed;
        ++g.summary.layoutCounts[a.layout.policy];
        if (a.isReduction()) {
          ++g.summary.reductions;
          if (a.layout.policy == layout::MemoryLayout::COALESCED) ++g.summary.coalescedReductions;
        }
        break;
      case OpStatus::Unsupported: ++g.summary.unsupported; break;
      case OpStatus::Invalid: ++g.summary.invalid; break;
    }
    g.ops.push_back(std::move(a));
  }
  return g;
}

}  // namespace tmetal::graph
