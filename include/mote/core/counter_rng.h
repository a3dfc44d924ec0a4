// SPDX-License-Identifier: MIT
// Counter-based random numbers for the VM: Philox4x32-10, a pure function of (seed, stream,
// counter).
#pragma once

#include <array>
#include <cstdint>

namespace mote {

/// Philox4x32 with 10 rounds (Salmon, Moraes, Dror & Shaw, "Parallel random numbers: as easy as
/// 1, 2, 3", SC 2011) — the generator of Random123, cuRAND and JAX. A keyed bijection of a 128-bit
/// counter: any (key, counter) gives four independent-looking u32 with no state, so particles,
/// batches and threads can draw in any order and get the same numbers. Passes BigCrush. Matches
/// Random123's philox4x32_10 known-answer vectors bit for bit. Complexity: 10 rounds of two
/// 32×32→64 multiplies. Allocates: never. Thread safety: pure.
constexpr std::array<std::uint32_t, 4> philox4x32_10(std::array<std::uint32_t, 4> counter,
                                                     std::array<std::uint32_t, 2> key) noexcept {
  constexpr std::uint32_t kMul0 = 0xD2511F53u;
  constexpr std::uint32_t kMul1 = 0xCD9E8D57u;
  constexpr std::uint32_t kWeyl0 = 0x9E3779B9u;
  constexpr std::uint32_t kWeyl1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += kWeyl0;
      key[1] += kWeyl1;
    }
    const std::uint64_t p0 = std::uint64_t{kMul0} * counter[0];
    const std::uint64_t p1 = std::uint64_t{kMul1} * counter[2];
    const auto hi0 = static_cast<std::uint32_t>(p0 >> 32);
    const auto lo0 = static_cast<std::uint32_t>(p0);
    const auto hi1 = static_cast<std::uint32_t>(p1 >> 32);
    const auto lo1 = static_cast<std::uint32_t>(p1);
    counter = {hi1 ^ counter[1] ^ key[0], lo1, hi0 ^ counter[3] ^ key[1], lo0};
  }
  return counter;
}

/// Four random u32 for (seed, stream, counter). Mote's convention (ARCHITECTURE §4.3): seed = the
/// effect seed; stream = which sequence (the VM: draw | section << 16 | tick << 17); counter =
/// position in it (e.g. the particle's spawn index). The 128-bit Philox counter is (counter,
/// stream) as four little-endian u32 words and the key is the seed's two halves.
constexpr std::array<std::uint32_t, 4> counterRandom4(std::uint64_t seed, std::uint64_t stream,
                                                      std::uint64_t counter) noexcept {
  return philox4x32_10(
      {static_cast<std::uint32_t>(counter), static_cast<std::uint32_t>(counter >> 32),
       static_cast<std::uint32_t>(stream), static_cast<std::uint32_t>(stream >> 32)},
      {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
}

/// One random u32 for (seed, stream, counter): the first word of counterRandom4.
constexpr std::uint32_t counterRandomU32(std::uint64_t seed, std::uint64_t stream,
                                         std::uint64_t counter) noexcept {
  return counterRandom4(seed, stream, counter)[0];
}

/// Maps a u32 to a float in [0, 1): the top 24 bits times 2^-24, exact (no rounding), so 1.0 is
/// never produced and every value is a multiple of 2^-24.
constexpr float unitFloatFromU32(std::uint32_t bits) noexcept {
  return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
}

/// A uniform float in [0, 1) for (seed, stream, counter).
constexpr float counterRandomFloat(std::uint64_t seed, std::uint64_t stream,
                                   std::uint64_t counter) noexcept {
  return unitFloatFromU32(counterRandomU32(seed, stream, counter));
}

}  // namespace mote
