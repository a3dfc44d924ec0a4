// SPDX-License-Identifier: MIT
// Tests of the counter-based RNG: Random123's Philox4x32-10 known answers and a chi-square bucket
// test.
#include <mote/core/counter_rng.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

namespace mote {
namespace {

using U4 = std::array<std::uint32_t, 4>;

TEST(Philox4x32_10, MatchesRandom123KnownAnswers) {
  // Random123 kat_vectors: "philox4x32 10" rows (counter words, key words → output words).
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (U4{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(
      philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
      (U4{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(
      philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
      (U4{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(CounterRandom, PacksSeedStreamAndCounterAsDocumented) {
  constexpr std::uint64_t kSeed = 0x0123456789abcdefULL;
  EXPECT_EQ(counterRandom4(kSeed, 7, 42), philox4x32_10({42, 0, 7, 0}, {0x89abcdef, 0x01234567}));
  EXPECT_EQ(counterRandom4(kSeed, 7, 42), (U4{0xdb4c0f71, 0x523af986, 0xf28c9e46, 0xc6867a86}));
  EXPECT_EQ(counterRandom4(1, (1ULL << 33) + 5, (1ULL << 40) + 3),
            (U4{0x090fc13e, 0xee614016, 0x6940491c, 0x1903b418}));
  EXPECT_EQ(counterRandomU32(kSeed, 7, 42), 0xdb4c0f71u);
  static_assert(counterRandomU32(0, 0, 0) == 0x6627e8d5u);  // usable at compile time
}

TEST(CounterRandom, UnitFloatIsExactAndBelowOne) {
  EXPECT_EQ(unitFloatFromU32(0), 0.0f);
  EXPECT_EQ(unitFloatFromU32(0x80000000u), 0.5f);
  EXPECT_EQ(unitFloatFromU32(0xFFFFFFFFu), 1.0f - 0x1p-24f);
  EXPECT_EQ(unitFloatFromU32(0x00000100u), 0x1p-24f);
  EXPECT_EQ(counterRandomFloat(0x0123456789abcdefULL, 7, 42), unitFloatFromU32(0xdb4c0f71u));
}

// Chi-square over 256 buckets of the top 8 bits: the critical value at p = 0.001 for 255 degrees of
// freedom is 330.52. Fixed seeds make the test deterministic.
double chiSquare256(const std::vector<std::uint32_t>& draws) {
  std::array<double, 256> buckets{};
  for (std::uint32_t v : draws)
    buckets[v >> 24] += 1.0;
  const double expected = static_cast<double>(draws.size()) / 256.0;
  double chi2 = 0.0;
  for (double c : buckets)
    chi2 += (c - expected) * (c - expected) / expected;
  return chi2;
}

TEST(CounterRandom, ChiSquareAlongTheCounter) {
  std::vector<std::uint32_t> draws;
  for (std::uint64_t c = 0; c < (1u << 18); ++c) {
    for (std::uint32_t w : counterRandom4(0xC0FFEE, 3, c))
      draws.push_back(w);
  }
  EXPECT_LT(chiSquare256(draws), 330.52);
}

TEST(CounterRandom, ChiSquareAcrossStreamsAndSeeds) {
  std::vector<std::uint32_t> draws;
  for (std::uint64_t s = 0; s < 512; ++s) {
    for (std::uint64_t c = 0; c < 512; ++c)
      draws.push_back(counterRandomU32(s * 977, s, c));
  }
  EXPECT_LT(chiSquare256(draws), 330.52);
}

TEST(CounterRandom, NeighbouringInputsDecorrelate) {
  // Flipping one input bit flips about half the output bits (avalanche); a weak hash fails this.
  long long flipped = 0;
  int trials = 0;
  for (std::uint64_t c = 0; c < 256; ++c) {
    for (int bit = 0; bit < 64; ++bit) {
      const std::uint32_t a = counterRandomU32(11, 0, c);
      const std::uint32_t b = counterRandomU32(11, 0, c ^ (1ULL << bit));
      flipped += __builtin_popcount(a ^ b);
      ++trials;
    }
  }
  const double mean = static_cast<double>(flipped) / trials;
  EXPECT_NEAR(mean, 16.0, 0.25);
}

}  // namespace
}  // namespace mote
