// SPDX-License-Identifier: MIT
// Tests of SplitMix64 and the Prng (xoroshiro128**): published and hand-computed known answers.
#include <mote/core/prng.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>

namespace mote {
namespace {

TEST(SplitMix64, MatchesThePublishedFirstOutputForSeedZero) {
  std::uint64_t state = 0;
  EXPECT_EQ(splitMix64(state), 0xe220a8397b1dcdafULL);  // Java SplittableRandom(0).nextLong()
  EXPECT_EQ(state, 0x9e3779b97f4a7c15ULL);
}

TEST(Prng, XoroshiroStepMatchesHandComputation) {
  // From state (1, 2): out = rotl(1 * 5, 7) * 9 = 640 * 9 = 5760 = 0x1680; then s1 = 2 ^ 1 = 3,
  // s0 = rotl(1, 24) ^ 3 ^ (3 << 16) = 0x1030003, s1 = rotl(3, 37) = 3 << 37.
  // Second: rotl(0x1030003 * 5 = 0x50F000F, 7) * 9 = 0x287800780 * 9 = 0x16C3804380.
  Prng p = Prng::fromState(99, 1, 2).takeValue();
  EXPECT_EQ(p.nextU64(), 0x1680ULL);
  EXPECT_EQ(p.part1(), 0x1030003ULL);
  EXPECT_EQ(p.part2(), 3ULL << 37);
  EXPECT_EQ(p.nextU64(), 0x16C3804380ULL);
  EXPECT_EQ(p.nextU64(), 0x86b5b3ad00004380ULL);
  EXPECT_EQ(p.seed(), 99u);
}

TEST(Prng, SeedExpandsThroughSplitMix64) {
  const Prng p(0);
  EXPECT_EQ(p.seed(), 0u);
  EXPECT_EQ(p.part1(), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(p.part2(), 0x6e789e6aa1b965f4ULL);
  const Prng q(1);
  EXPECT_EQ(q.part1(), 0x910a2dec89025cc1ULL);
  EXPECT_EQ(q.part2(), 0xbeeb8da1658eec67ULL);
}

TEST(Prng, KnownAnswersU64) {
  Prng p(0);
  const std::array<std::uint64_t, 4> expected = {0xdec90d521e93e35dULL, 0x6d33ac6f18895e08ULL,
                                                 0xab21904eec6fa48aULL, 0x87afdbc188423fbeULL};
  for (std::uint64_t e : expected)
    EXPECT_EQ(p.nextU64(), e);
}

TEST(Prng, KnownAnswersU32AreTheHighHalves) {
  Prng p(1);
  for (std::uint32_t e : {0x65094a0aU, 0xc768da5cU, 0xea499c65U, 0xd5889106U}) {
    EXPECT_EQ(p.nextU32(), e);
  }
  Prng q(0xDEADBEEFCAFEF00DULL);
  for (std::uint32_t e : {0x937a64b1U, 0xcbfc44f1U, 0xb571a654U, 0xb5fa2de0U}) {
    EXPECT_EQ(q.nextU32(), e);
  }
}

TEST(Prng, Tap24IsTheTop24BitsOfOneDraw) {
  Prng p(42);
  for (std::uint32_t e : {6940763U, 3916588U, 4077022U, 1076796U})
    EXPECT_EQ(p.nextTap24(), e);
  Prng a(7), b(7);
  for (int i = 0; i < 1000; ++i) {
    const std::uint32_t tap = a.nextTap24();
    EXPECT_LT(tap, Prng::kTapRange);
    EXPECT_EQ(tap, b.nextU32() >> 8);  // exactly one step per tap, never a rejection
  }
  EXPECT_EQ(a, b);
}

TEST(Prng, RangeKnownAnswers) {
  Prng p(42);
  for (std::uint32_t e : {14U, 12U, 12U, 10U, 10U, 11U})
    EXPECT_EQ(p.nextRange(10, 20), e);
}

TEST(Prng, RangeStaysInBoundsAndSpanOneDrawsOnce) {
  Prng p(3);
  for (int i = 0; i < 10000; ++i) {
    const std::uint32_t v = p.nextRange(5, 12);
    EXPECT_GE(v, 5u);
    EXPECT_LT(v, 12u);
  }
  Prng a(3), b(3);
  EXPECT_EQ(a.nextRange(9, 10), 9u);
  (void)b.nextU32();
  EXPECT_EQ(a, b);  // a span of one still consumes exactly one step
  EXPECT_LE(p.nextRange(0, 0xFFFFFFFFu), 0xFFFFFFFEu);
}

TEST(Prng, RangeIsUnbiasedWhereMultiplyShiftAloneIsNot) {
  // span = 3 * 2^30: plain multiply-shift maps 4 inputs onto 3 outputs, giving every output with
  // value % 3 == 0 twice the weight (1/2 of the mass instead of 1/3). Lemire's rejection removes
  // it.
  constexpr std::uint32_t kSpan = 0xC0000000u;
  constexpr int kDraws = 60000;
  Prng p(2024);
  std::array<int, 3> buckets{};
  for (int i = 0; i < kDraws; ++i)
    ++buckets[p.nextRange(0, kSpan) % 3];
  double chi2 = 0.0;
  for (int count : buckets) {
    const double d = count - kDraws / 3.0;
    chi2 += d * d / (kDraws / 3.0);
  }
  EXPECT_LT(chi2, 13.82);  // p = 0.001 at 2 degrees of freedom; the biased map gives ≈ 7500
}

TEST(Prng, StateRestoresExactly) {
  Prng p(123456789);
  for (int i = 0; i < 17; ++i)
    (void)p.nextU32();
  Result<Prng> restored = Prng::fromState(p.seed(), p.part1(), p.part2());
  ASSERT_TRUE(restored.ok());
  Prng q = std::move(restored).takeValue();
  EXPECT_EQ(p, q);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(p.nextU64(), q.nextU64());
}

TEST(Prng, RejectsTheAllZeroState) {
  const Result<Prng> r = Prng::fromState(5, 0, 0);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::InvalidArgument);
}

TEST(Prng, DifferentSeedsGiveDifferentStreams) {
  Prng a(1), b(2);
  int same = 0;
  for (int i = 0; i < 64; ++i)
    same += a.nextU32() == b.nextU32() ? 1 : 0;
  EXPECT_LT(same, 2);
}

}  // namespace
}  // namespace mote
