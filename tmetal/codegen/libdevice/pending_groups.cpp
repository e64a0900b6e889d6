// TEMPORARY: groups not written yet.
#include "tmetal/codegen/libdevice/libdevice_helpers.h"
namespace tmetal::codegen {
#ifndef HAVE_BESSEL
const std::vector<LibdeviceHelper>& besselHelpers() { static const std::vector<LibdeviceHelper> v; return v; }
#endif
#ifndef HAVE_GAMMA
const std::vector<LibdeviceHelper>& gammaErfHelpers() { static const std::vector<LibdeviceHelper> v; return v; }
#endif
#ifndef HAVE_ELEM
const std::vector<LibdeviceHelper>& elementaryHelpers() { static const std::vector<LibdeviceHelper> v; return v; }
#endif
#ifndef HAVE_ROUND
const std::vector<LibdeviceHelper>& roundingHelpers() { static const std::vector<LibdeviceHelper> v; return v; }
#endif
}
