// Printing an analysis: the text report of `tmetal analyze` and its JSON form
// (schema: docs/analyze-json.md). Only formatting happens here; every number
// comes from the analysis and its plans.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tmetal/graph/byte_size_text.h"
#include "tmetal/graph/op_analysis.h"

namespace tmetal::graph {

// verbose adds each plan's decision trail and its index mapping.
std::string renderAnalysisText(const GraphAnalysis& analysis, bool verbose);
nlohmann::json analysisToJson(const GraphAnalysis& analysis);
std::string renderAnalysisJson(const GraphAnalysis& analysis);  // indented, newline-terminated

nlohmann::json planToJson(const ReductionPlan& plan);

}  // namespace tmetal::graph
