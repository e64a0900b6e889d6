#include "tmetal/codegen/register_tensor.h"

#include "tmetal/codegen/code_buffer.h"

namespace tmetal::codegen {

bool RegisterTensor::isUniform() const {
  for (const std::string& r : regs)
    if (r != regs[0]) return false;
  return !regs.empty();
}

std::string renderIndexTerms(const std::vector<IndexTerm>& terms, const std::string& index, int64_t count) {
  std::string idx = parenthesized(index);
  std::string out;
  for (const IndexTerm& t : terms) {
    std::string term = idx;
    if (t.divisor > 1) term = term + " / " + std::to_string(t.divisor);
    if (t.divisor * t.modulus < count) term = (t.divisor > 1 ? "(" + term + ")" : term) + " % " + std::to_string(t.modulus);
    if (t.multiplier > 1) {
      if (term != idx) term = "(" + term + ")";
      term += " * " + std::to_string(t.multiplier);
    }
    out += (out.empty() ? "" : " + ") + term;
  }
  return out.empty() ? "0" : out;
}

int64_t evaluateIndexTerms(const std::vector<IndexTerm>& terms, int64_t index) {
  int64_t v = 0;
  for (const IndexTerm& t : terms) v += ((index / t.divisor) % t.modulus) * t.multiplier;
  return v;
}

std::string RegisterTensor::mappedIndex(const std::string& index) const {
  if (indexMap.empty()) return index;
  return renderIndexTerms(indexMap, index, static_cast<int64_t>(regs.size()));
}

std::string dereference(const std::string& pointer) {
  if (!pointer.empty() && pointer[0] == '&') return pointer.substr(1);
  return "*" + pointer;
}

std::optional<std::string> RegisterTensor::at(const std::string& index) const {
  if (isUniform()) return regs[0];
  if (pointerOffsets) {
    std::optional<std::string> off = pointerOffsets->at(index);
    if (!off) return std::nullopt;
    return "&" + pointerBase + "[" + *off + "]";
  }
  if (!arrayName.empty()) return arrayName + "[" + mappedIndex(index) + "]";
  return std::nullopt;
}

RegisterTensor RegisterTensor::array(layout::LayoutPtr layout, std::vector<int64_t> shape, ir::Type element,
                                     const std::string& name, int64_t count) {
  RegisterTensor t;
  t.layout = std::move(layout);
  t.shape = std::move(shape);
  t.element = std::move(element);
  if (count == 1) {
    t.regs.push_back(name);  // one register: a scalar variable
    return t;
  }
  t.arrayName = name;
  for (int64_t r = 0; r < count; ++r) t.regs.push_back(name + "[" + std::to_string(r) + "]");
  return t;
}

RegisterTensor RegisterTensor::pointerInto(layout::LayoutPtr layout, std::vector<int64_t> shape, ir::Type element,
                                           const std::string& base, RegisterTensor offsets) {
  RegisterTensor t;
  t.layout = std::move(layout);
  t.shape = std::move(shape);
  t.element = std::move(element);
  for (const std::string& o : offsets.regs) t.regs.push_back("&" + base + "[" + o + "]");
  t.pointerBase = base;
  t.pointerOffsets = std::make_shared<const RegisterTensor>(std::move(offsets));
  return t;
}

RegisterTensor RegisterTensor::uniform(layout::LayoutPtr layout, std::vector<int64_t> shape, ir::Type element,
                                       const std::string& expr, int64_t count) {
  RegisterTensor t;
  t.layout = std::move(layout);
  t.shape = std::move(shape);
  t.element = std::move(element);
  t.regs.assign(count, expr);
  return t;
}

int64_t RegisterTensor::numElements() const {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

}  // namespace tmetal::codegen
