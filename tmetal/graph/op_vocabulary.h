// The op types the ops-JSON format knows, and what each one is to the
// compiler: its access pattern (which picks the layout policy), its combiner
// when it reduces, and how many inputs it takes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tmetal/graph/combiner.h"
#include "tmetal/layout/policy.h"

namespace tmetal::graph {

struct OpInfo {
  std::string type;  // "tt.sum"
  layout::AccessPattern pattern;
  std::optional<Combiner> combiner;  // reductions: the default combiner
  int minInputs = 1;
  int maxInputs = 1;
  bool isReduction() const { return pattern == layout::AccessPattern::Reduction; }
};

const std::vector<OpInfo>& opVocabulary();
// nullptr when the type is not supported.
const OpInfo* findOpInfo(const std::string& type);

}  // namespace tmetal::graph
