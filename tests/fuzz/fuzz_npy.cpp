// libFuzzer target for the .npy reader (the arrays `tmetal run` reads). A
// CompileError is the normal answer to a malformed or unsupported file;
// anything else is a bug. An array the reader accepts must encode and read
// back to the same dtype, shape and bytes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "tmetal/support/diagnostic.h"
#include "tmetal/support/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> bytes(data, data + size);
  tmetal::NpyArray array;
  try {
    array = tmetal::parseNpy(bytes, "fuzz.npy");
  } catch (const tmetal::CompileError&) {
    return 0;
  }
  if (static_cast<int64_t>(array.data.size()) != array.numElements() * array.itemSize()) {
    std::fprintf(stderr, "accepted %zu data bytes for %lld elements of '%s'\n", array.data.size(),
                 static_cast<long long>(array.numElements()), array.dtype.c_str());
    std::abort();
  }
  tmetal::NpyArray again;
  try {
    again = tmetal::parseNpy(tmetal::encodeNpy(array), "encoded.npy");
  } catch (const tmetal::CompileError& e) {
    std::fprintf(stderr, "an accepted array does not encode and read back: %s\n", e.what());
    std::abort();
  }
  if (again.dtype != array.dtype || again.shape != array.shape || again.data != array.data) {
    std::fprintf(stderr, "an accepted array reads back differently after encoding\n");
    std::abort();
  }
  return 0;
}
