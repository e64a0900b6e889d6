// The helper groups not written yet: empty, so that their functions are
// refused as not implemented (libdeviceImplemented) until each group's file
// replaces its definition here.
#include "tmetal/codegen/libdevice/libdevice_helpers.h"

namespace tmetal::codegen {

namespace {
const std::vector<LibdeviceHelper>& none() {
  static const std::vector<LibdeviceHelper> empty;
  return empty;
}
}  // namespace

const std::vector<LibdeviceHelper>& besselHelpers() { return none(); }

}  // namespace tmetal::codegen
