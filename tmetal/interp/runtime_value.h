// The interpreter's values: every SSA value is a whole block-level tensor
// (or a scalar, a tensor of rank 0) held as a flat row-major list of elements.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tmetal/support/print_format.h"

#include "tmetal/ir/type.h"

namespace tmetal::interp {

// One element. Which fields mean something depends on the element type:
//   integers: `i`, the value sign-extended from its width (i1 true is -1);
//   floats:   `f`, a value exactly representable in the element type;
//   pointers: `buffer` (the kernel argument it points into, -1 for none)
//             and `i`, the byte offset into that buffer.
// Pointers as (buffer, offset) pairs make every access bounds-checkable.
struct Element {
  int64_t i = 0;
  double f = 0;
  int32_t buffer = -1;
};

// A block pointer (tt.make_block_ptr): a base pointer and a window over a
// strided tensor. Offsets move with tt.advance.
struct BlockPointer {
  Element base;
  std::vector<int64_t> shape;    // of the whole tensor, in elements
  std::vector<int64_t> strides;  // in elements
  std::vector<int64_t> offsets;  // of the window's first element
};

struct RuntimeValue {
  ir::Type elementType;        // the scalar or pointer type of each element
  std::vector<int64_t> shape;  // empty for a scalar
  std::vector<Element> elements;
  std::shared_ptr<const BlockPointer> block;  // set for block pointers (then elements is empty)

  int64_t size() const { return static_cast<int64_t>(elements.size()); }
  bool isScalar() const { return shape.empty(); }
  const Element& scalar() const { return elements.at(0); }
};

// Number of elements of a shape (1 for the empty shape of a scalar).
int64_t shapeElements(const std::vector<int64_t>& shape);
// Row-major strides of a shape, in elements.
std::vector<int64_t> rowMajorStrides(const std::vector<int64_t>& shape);
// The multi-index of a flat element, and "[3, 5]" for it (print_format.h).
using tmetal::formatIndex;
using tmetal::unflattenIndex;

}  // namespace tmetal::interp
