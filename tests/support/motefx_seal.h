// SPDX-License-Identifier: MIT
// Makes a .motefx header agree with whatever payload follows it, so a damaged or cut payload gets
// past the size and checksum checks and reaches the section readers (tests and the fuzz target).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace mote::test {

/// Writes the payload size (bytes 16..23) and its XXH3-64 checksum (bytes 24..31) into `file`'s
/// header (docs/motefx.md, "Layout"). A file shorter than the header is left alone.
inline void sealMotefx(std::vector<std::uint8_t>& file) {
  constexpr std::size_t kHeader = 32;
  if (file.size() < kHeader) return;
  const std::uint64_t payload = file.size() - kHeader;
  const std::uint64_t checksum = XXH3_64bits(file.data() + kHeader, payload);
  for (std::size_t i = 0; i < 8; ++i) {
    file[16 + i] = static_cast<std::uint8_t>(payload >> (8 * i));
    file[24 + i] = static_cast<std::uint8_t>(checksum >> (8 * i));
  }
}

}  // namespace mote::test
