#include "tmetal/runtime/emulator/content_hash.h"

#include <cstdint>

namespace tmetal::runtime::emulator {
namespace {

uint64_t fnv1a(std::string_view data, uint64_t basis) {
  uint64_t h = basis;
  for (unsigned char c : data) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

// Spreads every input bit over the output (the splitmix64 finaliser).
uint64_t avalanche(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x;
}

void appendHex(std::string& out, uint64_t v) {
  static const char* digits = "0123456789abcdef";
  for (int shift = 60; shift >= 0; shift -= 4) out += digits[(v >> shift) & 0xf];
}

}  // namespace

std::string contentHash(std::string_view data) {
  std::string out;
  appendHex(out, avalanche(fnv1a(data, 0xcbf29ce484222325ull) ^ data.size()));
  appendHex(out, avalanche(fnv1a(data, 0x84222325cbf29ce4ull) + 0x9e3779b97f4a7c15ull * data.size()));
  return out;
}

}  // namespace tmetal::runtime::emulator
