// SPDX-License-Identifier: MIT
// Prng: the sequential, seedable generator of the lockstep contract (xoroshiro128** seeded by
// SplitMix64).
#pragma once

#include <mote/core/assert.h>
#include <mote/core/status.h>

#include <cstdint>

namespace mote {

/// SplitMix64 (Steele, Lea & Flood 2014; Vigna's reference code): advances `state` by the golden
/// gamma and returns the mixed value. Used to expand any u64 seed into a generator state.
constexpr std::uint64_t splitMix64(std::uint64_t& state) noexcept {
  state += 0x9e3779b97f4a7c15ULL;
  std::uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// The sequential generator of Mote's deterministic systems: xoroshiro128** 1.0 (Blackman & Vigna,
/// 2018) — 128 bits of state, period 2^128 − 1, passes BigCrush and PractRand; about 1 ns a draw.
///
/// The state is (seed, part1, part2): `seed` is what the generator was created from (kept for
/// replay identity), part1/part2 the two xoroshiro words, initialised as the first two SplitMix64
/// outputs of the seed (never both zero: SplitMix64 is a bijection of its counter). The stream is a
/// pure function of the state; `fromState` restores a saved one exactly.
///
/// A "draw" is one call of nextU64/nextU32/nextRange/nextTap24. nextU64 and nextU32 consume exactly
/// one generator step; nextRange consumes one step, plus more only on the rare rejection that keeps
/// it unbiased (never for power-of-two spans, so nextTap24 is always exactly one step). Thread
/// safety: a plain value; one owner. Allocates: never. Every call is O(1) (expected).
class Prng {
 public:
  /// Bits of resolution of nextTap24 (laige's "24-bit tap": u / 2^24 is exact in a float).
  static constexpr int kTapBits = 24;
  static constexpr std::uint32_t kTapRange = std::uint32_t{1} << kTapBits;

  /// Seeds from any u64 (0 included).
  explicit constexpr Prng(std::uint64_t seed = 0) noexcept : seed_(seed) {
    std::uint64_t sm = seed;
    part1_ = splitMix64(sm);
    part2_ = splitMix64(sm);
  }

  /// Restores a state read from seed()/part1()/part2(). The all-zero word pair is not a state of
  /// the generator (it would emit zeros forever) and is rejected with InvalidArgument.
  static Result<Prng> fromState(std::uint64_t seed, std::uint64_t part1, std::uint64_t part2) {
    if (part1 == 0 && part2 == 0) {
      return invalidArgument("Prng state words part1 and part2 are both zero (not a valid state)");
    }
    Prng p;
    p.seed_ = seed;
    p.part1_ = part1;
    p.part2_ = part2;
    return p;
  }

  constexpr std::uint64_t seed() const noexcept { return seed_; }
  constexpr std::uint64_t part1() const noexcept { return part1_; }
  constexpr std::uint64_t part2() const noexcept { return part2_; }

  /// The next 64 bits (xoroshiro128** output: rotl(s0 * 5, 7) * 9).
  constexpr std::uint64_t nextU64() noexcept {
    const std::uint64_t s0 = part1_;
    std::uint64_t s1 = part2_;
    const std::uint64_t result = rotl(s0 * 5, 7) * 9;
    s1 ^= s0;
    part1_ = rotl(s0, 24) ^ s1 ^ (s1 << 16);
    part2_ = rotl(s1, 37);
    return result;
  }

  /// The next 32 bits: the high half of nextU64 (the better-mixed bits).
  constexpr std::uint32_t nextU32() noexcept { return static_cast<std::uint32_t>(nextU64() >> 32); }

  /// A uniform integer in [lo, hi) without bias (Lemire 2019, "Fast random integer generation in an
  /// interval": multiply-shift with rejection of the short low band). Requires lo < hi
  /// (MOTE_ASSERT; returns lo without drawing when violated in a build without asserts).
  constexpr std::uint32_t nextRange(std::uint32_t lo, std::uint32_t hi) noexcept {
    MOTE_ASSERT(lo < hi, "nextRange needs lo < hi");
    if (lo >= hi) return lo;
    const std::uint32_t span = hi - lo;
    std::uint64_t m = std::uint64_t{nextU32()} * span;
    auto low = static_cast<std::uint32_t>(m);
    if (low < span) {
      const std::uint32_t threshold = (0u - span) % span;
      while (low < threshold) {
        m = std::uint64_t{nextU32()} * span;
        low = static_cast<std::uint32_t>(m);
      }
    }
    return lo + static_cast<std::uint32_t>(m >> 32);
  }

  /// The 24-bit tap: nextRange(0, 2^24), always exactly one step; u / 2^24 is a float in [0, 1)
  /// with no rounding. laige: "lerp(min, max, u / 2^24) where u = next_range(0, 2^24)".
  constexpr std::uint32_t nextTap24() noexcept { return nextRange(0, kTapRange); }

  friend constexpr bool operator==(const Prng&, const Prng&) noexcept = default;

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept {
    return (x << k) | (x >> (64 - k));
  }

  std::uint64_t seed_ = 0;
  std::uint64_t part1_ = 0;
  std::uint64_t part2_ = 0;
};

}  // namespace mote
