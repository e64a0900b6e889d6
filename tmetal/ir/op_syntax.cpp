#include "tmetal/ir/op_syntax.h"

namespace tmetal::ir {

OpSyntax opSyntax(OpKind kind) {
  switch (kind) {
    case OpKind::ArithConstant: return OpSyntax::Constant;
    case OpKind::ArithCmpI:
    case OpKind::ArithCmpF: return OpSyntax::Compare;
    case OpKind::ArithSelect: return OpSyntax::Select;
    case OpKind::ArithExtSI:
    case OpKind::ArithExtUI:
    case OpKind::ArithTruncI:
    case OpKind::ArithExtF:
    case OpKind::ArithTruncF:
    case OpKind::ArithSIToFP:
    case OpKind::ArithUIToFP:
    case OpKind::ArithFPToSI:
    case OpKind::ArithFPToUI:
    case OpKind::ArithBitcast:
    case OpKind::ArithIndexCast: return OpSyntax::Cast;
    case OpKind::TtSplat:
    case OpKind::TtBroadcast:
    case OpKind::TtExpandDims:
    case OpKind::TtTrans:
    case OpKind::TtBitcast:
    case OpKind::TtIntToPtr:
    case OpKind::TtPtrToInt:
    case OpKind::TtJoin:
    case OpKind::TtSplit:
    case OpKind::TtCat:
    case OpKind::TtHistogram: return OpSyntax::Arrow;
    case OpKind::TtReshape: return OpSyntax::Reshape;
    case OpKind::TtFpToFp: return OpSyntax::FpToFp;
    case OpKind::TtGetProgramId:
    case OpKind::TtGetNumPrograms: return OpSyntax::ProgramDim;
    case OpKind::TtMakeRange:
    case OpKind::UbPoison: return OpSyntax::ResultTypeOnly;
    case OpKind::TtUnsplat:
    case OpKind::LlvmAssume: return OpSyntax::OperandTypeOnly;
    case OpKind::TtAddPtr: return OpSyntax::AddPtr;
    case OpKind::TtLoad: return OpSyntax::Load;
    case OpKind::TtStore: return OpSyntax::Store;
    case OpKind::TtAtomicRMW: return OpSyntax::AtomicRMW;
    case OpKind::TtAtomicCAS: return OpSyntax::AtomicCAS;
    case OpKind::TtDot: return OpSyntax::Dot;
    case OpKind::TtDotScaled: return OpSyntax::DotScaled;
    case OpKind::TtMakeBlockPtr: return OpSyntax::MakeTensorPtr;
    case OpKind::TtAdvance: return OpSyntax::Advance;
    case OpKind::TtExternElementwise: return OpSyntax::Functional;
    case OpKind::TtGather: return OpSyntax::Gather;
    case OpKind::TtCall: return OpSyntax::Call;
    case OpKind::TtClampF: return OpSyntax::ClampF;
    case OpKind::TtPrint: return OpSyntax::Print;
    case OpKind::TtAssert: return OpSyntax::Assert;
    case OpKind::GpuBarrier:
    case OpKind::TtReturn:
    case OpKind::ScfYield: return OpSyntax::Terminator;
    case OpKind::TtReduceReturn:
    case OpKind::TtScanReturn:
    case OpKind::TtMapElementwiseReturn: return OpSyntax::RegionReturn;
    case OpKind::ScfCondition: return OpSyntax::Condition;
    case OpKind::ScfFor: return OpSyntax::For;
    case OpKind::ScfIf: return OpSyntax::If;
    case OpKind::ScfWhile: return OpSyntax::While;
    case OpKind::TtReduce:
    case OpKind::TtScan:
    case OpKind::TtMapElementwise:
    case OpKind::Unknown: return OpSyntax::Generic;
    case OpKind::ArithAddI:
    case OpKind::ArithSubI:
    case OpKind::ArithMulI:
    case OpKind::ArithDivSI:
    case OpKind::ArithDivUI:
    case OpKind::ArithCeilDivSI:
    case OpKind::ArithFloorDivSI:
    case OpKind::ArithRemSI:
    case OpKind::ArithRemUI:
    case OpKind::ArithAndI:
    case OpKind::ArithOrI:
    case OpKind::ArithXOrI:
    case OpKind::ArithShLI:
    case OpKind::ArithShRSI:
    case OpKind::ArithShRUI:
    case OpKind::ArithMaxSI:
    case OpKind::ArithMinSI:
    case OpKind::ArithMaxUI:
    case OpKind::ArithMinUI:
    case OpKind::ArithAddF:
    case OpKind::ArithSubF:
    case OpKind::ArithMulF:
    case OpKind::ArithDivF:
    case OpKind::ArithRemF:
    case OpKind::ArithNegF:
    case OpKind::ArithMaxNumF:
    case OpKind::ArithMinNumF:
    case OpKind::ArithMaximumF:
    case OpKind::ArithMinimumF:
    case OpKind::MathExp:
    case OpKind::MathExp2:
    case OpKind::MathLog:
    case OpKind::MathLog2:
    case OpKind::MathSqrt:
    case OpKind::MathRsqrt:
    case OpKind::MathSin:
    case OpKind::MathCos:
    case OpKind::MathTanh:
    case OpKind::MathErf:
    case OpKind::MathAbsF:
    case OpKind::MathAbsI:
    case OpKind::MathFloor:
    case OpKind::MathCeil:
    case OpKind::MathFma:
    case OpKind::TtPreciseSqrt:
    case OpKind::TtPreciseDivF:
    case OpKind::TtMulHiUI: return OpSyntax::SameType;
    case OpKind::TtFunc: return OpSyntax::FunctionOp;
  }
  return OpSyntax::Generic;
}

std::string writtenOpName(const Operation& op) {
  return op.kind() == OpKind::TtMakeBlockPtr ? "tt.make_tensor_ptr" : op.name();
}

std::string canonicalOpName(const std::string& written) {
  return written == "tt.make_tensor_ptr" ? opKindName(OpKind::TtMakeBlockPtr) : written;
}

bool loadedType(const Type& pointerLike, Type& loaded) {
  if (pointerLike.isPointer()) {
    loaded = pointerLike.pointee();
    return true;
  }
  if (pointerLike.isTensor() && pointerLike.element().isPointer()) {
    loaded = pointerLike.withElement(pointerLike.element().pointee());
    return true;
  }
  return false;
}

size_t sameTypeArity(OpKind kind) {
  switch (kind) {
    case OpKind::MathFma: return 3;
    case OpKind::ArithNegF:
    case OpKind::MathExp:
    case OpKind::MathExp2:
    case OpKind::MathLog:
    case OpKind::MathLog2:
    case OpKind::MathSqrt:
    case OpKind::MathRsqrt:
    case OpKind::MathSin:
    case OpKind::MathCos:
    case OpKind::MathTanh:
    case OpKind::MathErf:
    case OpKind::MathAbsF:
    case OpKind::MathAbsI:
    case OpKind::MathFloor:
    case OpKind::MathCeil:
    case OpKind::TtPreciseSqrt: return 1;
    default: return 2;
  }
}

}  // namespace tmetal::ir
