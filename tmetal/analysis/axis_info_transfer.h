// The transfer rules of AxisInfo: the information of an op's first result
// from the information of its operands. Control flow (scf.*) is handled by
// the analysis driver, which owns the fixpoints.
#pragma once

#include <vector>

#include "tmetal/analysis/axis_info.h"

namespace tmetal::analysis {

// `operands[i]` is the information of op.operand(i). Function arguments are
// seeded by the driver from their tt.divisibility attributes.
AxisInfo transferAxisInfo(const ir::Operation& op, const std::vector<const AxisInfo*>& operands);

// The information of a constant attribute of the given result type.
AxisInfo constantAxisInfo(const ir::Operation& op);

}  // namespace tmetal::analysis
