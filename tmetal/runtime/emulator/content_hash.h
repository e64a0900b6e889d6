// A 128-bit content hash (two independent 64-bit FNV-1a streams, each with a
// final avalanche), as 32 hex digits: the emulator's cache key. Not
// cryptographic; the cache compares the full stored source on every hit, so a
// collision costs a recompile, never a wrong kernel.
#pragma once

#include <string>
#include <string_view>

namespace tmetal::runtime::emulator {

std::string contentHash(std::string_view data);

}  // namespace tmetal::runtime::emulator
