#include "tmetal/graph/op_vocabulary.h"

namespace tmetal::graph {

namespace {

using layout::AccessPattern;

std::vector<OpInfo> buildVocabulary() {
  std::vector<OpInfo> v;
  auto reduction = [&](const char* type, Combiner c) { v.push_back({type, AccessPattern::Reduction, c, 1, 1}); };
  // tt.reduce names its combiner in args.combiner; sum when it does not.
  reduction("tt.reduce", Combiner::Sum);
  reduction("tt.sum", Combiner::Sum);
  reduction("tt.mean", Combiner::Mean);
  reduction("tt.max", Combiner::Max);
  reduction("tt.min", Combiner::Min);
  reduction("tt.prod", Combiner::Prod);
  reduction("tt.argmax", Combiner::ArgMax);
  reduction("tt.argmin", Combiner::ArgMin);
  reduction("tt.any", Combiner::Any);
  reduction("tt.all", Combiner::All);
  v.push_back({"tt.matmul", AccessPattern::Matmul, std::nullopt, 2, 2});
  v.push_back({"tt.dot", AccessPattern::Matmul, std::nullopt, 2, 2});
  v.push_back({"tt.conv2d", AccessPattern::Convolution, std::nullopt, 2, 2});
  v.push_back({"tt.transpose", AccessPattern::Transpose, std::nullopt, 1, 1});
  // Softmax and layernorm reduce along one axis (max then sum; mean then
  // variance) before rewriting it, so they are planned like row reductions.
  v.push_back({"tt.softmax", AccessPattern::RowNormalization, Combiner::Max, 1, 1});
  v.push_back({"tt.layernorm", AccessPattern::RowNormalization, Combiner::Sum, 1, 1});
  for (const char* binary : {"tt.add", "tt.sub", "tt.mul", "tt.div"})
    v.push_back({binary, AccessPattern::Elementwise, std::nullopt, 1, 2});
  for (const char* unary : {"tt.relu", "tt.sigmoid", "tt.tanh", "tt.gelu", "tt.exp"})
    v.push_back({unary, AccessPattern::Elementwise, std::nullopt, 1, 1});
  return v;
}

}  // namespace

const std::vector<OpInfo>& opVocabulary() {
  static const std::vector<OpInfo> vocabulary = buildVocabulary();
  return vocabulary;
}

const OpInfo* findOpInfo(const std::string& type) {
  for (const OpInfo& info : opVocabulary())
    if (info.type == type) return &info;
  return nullptr;
}

}  // namespace tmetal::graph
