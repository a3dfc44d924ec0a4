// SPDX-License-Identifier: MIT
// semantics.h's sinCos, Mote's own sine and cosine: known values, symmetry, and within 1 ULP of
// the correctly rounded result (libm's double sin and cos rounded to float) on a CI-sized sweep —
// every exponent, both reductions and the limit between them, dense near multiples of π/2 — in
// every preset; and, when asked for (a few minutes), every one of the 2^32 floats (docs/isa.md,
// "Accuracy": 46 differ by 1 ULP, none by more): scripts/check-sincos.

#include "support/ulps.h"

#include <mote/bytecode/semantics.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

namespace mote {
namespace {

using bytecode::semantics::SinCos;
using bytecode::semantics::sinCos;
using test::ulps;

// How far sinCos(x) is from the correctly rounded sine and cosine, in ULPs.
std::int64_t errorAt(float x);

std::int64_t errorAt(float x) {
  const SinCos v = sinCos(x);
  return std::max(ulps(v.sin, static_cast<float>(std::sin(static_cast<double>(x)))),
                  ulps(v.cos, static_cast<float>(std::cos(static_cast<double>(x)))));
}

TEST(SinCos, KnownValues) {
  const auto same = [](float a, float b) {
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
  };
  EXPECT_TRUE(same(sinCos(0.0f).sin, 0.0f));
  EXPECT_TRUE(same(sinCos(0.0f).cos, 1.0f));
  EXPECT_TRUE(same(sinCos(-0.0f).sin, -0.0f));  // the sign of zero survives
  EXPECT_TRUE(same(sinCos(-0.0f).cos, 1.0f));
  EXPECT_TRUE(same(sinCos(1e-30f).sin, 1e-30f));  // sin x = x below 2^-12
  EXPECT_TRUE(same(sinCos(0x1p-149f).sin, 0x1p-149f));
  // The float nearest π is 3.14159274101257…, past π by 8.742278e-8: sin is minus that.
  EXPECT_TRUE(same(sinCos(3.14159274f).sin, -8.74227766e-8f));
  EXPECT_TRUE(same(sinCos(3.14159274f).cos, -1.0f));
  EXPECT_TRUE(same(sinCos(1.57079637f).cos, -4.37113883e-8f));  // the float nearest π/2
  EXPECT_TRUE(same(sinCos(1.57079637f).sin, 1.0f));
  // 0.5 and 1 radian: sin 0.5 = 0.479425538604…, cos 1 = 0.540302305868…
  EXPECT_TRUE(same(sinCos(0.5f).sin, 0.479425550f));
  EXPECT_TRUE(same(sinCos(1.0f).cos, 0.540302306f));
  // The large-argument path given a small angle hands it to sinCos.
  for (const float x : {0.0f, 1e-40f, 1.0f, -3.0f, 0x1p20f}) {
    EXPECT_TRUE(same(bytecode::semantics::sinCosLarge(x).sin, sinCos(x).sin)) << x;
    EXPECT_TRUE(same(bytecode::semantics::sinCosLarge(x).cos, sinCos(x).cos)) << x;
  }
  constexpr float kInf = std::numeric_limits<float>::infinity();
  for (const float x : {kInf, -kInf, std::numeric_limits<float>::quiet_NaN()}) {
    EXPECT_TRUE(std::isnan(sinCos(x).sin)) << x;
    EXPECT_TRUE(std::isnan(sinCos(x).cos)) << x;
  }
}

TEST(SinCos, IsWithinOneUlpOfTheCorrectlyRoundedValueForEveryExponent) {
  std::mt19937 rng(17);
  std::int64_t worst = 0;
  std::uint32_t differ = 0;
  std::uint32_t cases = 0;
  const auto check = [&](float x) {
    const SinCos v = sinCos(x);
    const std::int64_t d = errorAt(x);
    EXPECT_LE(d, 1) << std::hexfloat << x << ": sin " << v.sin << ", cos " << v.cos;
    worst = std::max(worst, d);
    differ += d > 0 ? 1 : 0;
    // sin is odd and cos even, bit for bit.
    const SinCos negated = sinCos(-x);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(negated.sin), std::bit_cast<std::uint32_t>(-v.sin));
    EXPECT_EQ(std::bit_cast<std::uint32_t>(negated.cos), std::bit_cast<std::uint32_t>(v.cos));
    ++cases;
  };
  // Every finite exponent, positive (the negatives by symmetry above): 4,096 evenly spaced
  // mantissas of each, and random bit patterns across them all.
  for (std::uint32_t exponent = 0; exponent < 255; ++exponent)
    for (std::uint32_t m = 0; m < (1u << 23); m += (1u << 11) - 1)
      check(std::bit_cast<float>(exponent << 23 | m));
  for (int k = 0; k < 400000; ++k) {
    const float x = std::bit_cast<float>(static_cast<std::uint32_t>(rng()) & 0x7FFFFFFFu);
    if (std::isfinite(x)) check(x);
  }
  // Every float in [0.5, 1) with a stride, and every one within 4,096 of the reduction limit on
  // both sides (where sinCos hands over to sinCosLarge).
  for (std::uint32_t u = 0x3F000000u; u < 0x3F800000u; u += 97)
    check(std::bit_cast<float>(u));
  const auto limit = std::bit_cast<std::uint32_t>(bytecode::semantics::trig::kReduceLimit);
  for (std::uint32_t u = limit - 4096; u < limit + 4096; ++u)
    check(std::bit_cast<float>(u));
  // Dense near multiples of π/2, where the remainder is smallest and the reduction loses most:
  // the 64 floats on each side of k·π/2 for every k below 2^12, then for k growing by 1 % to 2^26
  // (past the reduction limit into the exact path).
  const auto around = [&](double k) {
    const auto u = std::bit_cast<std::uint32_t>(static_cast<float>(k * 1.5707963267948966));
    for (std::uint32_t v = u - 64; v <= u + 64; ++v)
      check(std::bit_cast<float>(v));
  };
  for (double k = 1.0; k < 4096.0; k += 1.0)
    around(k);
  for (double k = 4096.0; k < 67108864.0; k = std::floor(k * 1.01) + 1.0)
    around(k);
  EXPECT_LE(worst, 1);
  EXPECT_LT(differ, cases / 10000u);  // the rest are the correctly rounded values
  EXPECT_GT(cases, 2000000u);
}

// Every float, on every core: scripts/check-sincos runs it (a few minutes).
TEST(SinCos, DISABLED_EveryFloatIsWithinOneUlpOfTheCorrectlyRoundedValue) {
  const test::EveryFloatError e = test::everyFloatError(errorAt);
  std::printf("sinCos: %llu of the 2^32 floats differ from the correctly rounded value\n",
              static_cast<unsigned long long>(e.differ));
  EXPECT_LE(e.worst, 1);
  EXPECT_EQ(e.differ, 46u);  // docs/isa.md
}

}  // namespace
}  // namespace mote
