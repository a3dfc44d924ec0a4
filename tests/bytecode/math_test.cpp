// SPDX-License-Identifier: MIT
// semantics.h's exponential, logarithm, power and cubeRoot, Mote's own exp, log, pow and cbrt:
// their tables against long double libm, every special value, and within 1 ULP of the correctly
// rounded result (long double expl/logl/powl/cbrtl rounded to float: 64-bit significands, so
// their rounding decides ties only within 2^-40 of a float's half-ULP) on CI-sized sweeps in
// every preset; and, when asked for, every float (scripts/check-sincos math).

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

namespace sem = bytecode::semantics;
namespace math = bytecode::semantics::math;
using test::sameBits;
using test::ulps;

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

float expRef(float x) {
  return static_cast<float>(expl(static_cast<long double>(x)));
}
float logRef(float x) {
  return static_cast<float>(logl(static_cast<long double>(x)));
}
float cbrtRef(float x) {
  return static_cast<float>(cbrtl(static_cast<long double>(x)));
}
float powRef(float a, float b) {
  return static_cast<float>(powl(static_cast<long double>(a), static_cast<long double>(b)));
}

// How far each table entry is from the long double value, in ULPs of the entry (0.5 at most for
// the nearest double, plus the long double's own error).
double tableError(double entry, long double exact) {
  const auto ulp = static_cast<long double>(
      std::nextafter(entry, std::numeric_limits<double>::infinity()) - entry);
  return static_cast<double>(std::fabs(static_cast<long double>(entry) - exact) / ulp);
}

// The number of significant bits of a finite double.
int significantBits(double v) {
  const auto u = std::bit_cast<std::uint64_t>(v) & 0x000FFFFFFFFFFFFFu;
  return u == 0 ? 1 : 53 - std::countr_zero(u);
}

TEST(MathTables, EveryEntryIsTheNearestDouble) {
  double worst = 0.0;
  for (std::size_t j = 0; j < 64; ++j)
    worst =
        std::max(worst, tableError(math::kExp2Steps[j], exp2l(static_cast<long double>(j) / 64)));
  for (std::size_t i = 0; i < 128; ++i) {
    worst = std::max(
        worst, tableError(math::kLogOfC[i], -logl(static_cast<long double>(math::kLogInverse[i]))));
    for (std::size_t s = 0; s < 3; ++s)
      worst = std::max(worst, tableError(math::kCbrtScale[128 * s + i],
                                         cbrtl(std::ldexp(1.0L, static_cast<int>(s)) /
                                               static_cast<long double>(math::kCbrtInverse[i]))));
    // 24-bit inverses: z · inverse is exact for a float's 24-bit z.
    EXPECT_LE(significantBits(math::kLogInverse[i]), 24) << i;
    EXPECT_LE(significantBits(math::kCbrtInverse[i]), 24) << i;
  }
  EXPECT_LT(worst, 0.5 + 1e-3);
  // The split constants: high parts short enough for their exact products, sums right.
  EXPECT_LE(significantBits(math::kExpStep[0]), 32);
  EXPECT_LE(significantBits(math::kLn2[0]), 44);
  const long double ln2 = logl(2.0L);
  EXPECT_LT(std::fabs(static_cast<long double>(math::kExpStep[0]) +
                      static_cast<long double>(math::kExpStep[1]) - ln2 / 64),
            1e-18L * ln2 / 64);
  EXPECT_LT(std::fabs(static_cast<long double>(math::kLn2[0]) +
                      static_cast<long double>(math::kLn2[1]) - ln2),
            1e-18L);
}

// Every reduction interval keeps |r| within what the polynomials are accurate for.
TEST(MathTables, ReductionsStayInThePolynomialRanges) {
  for (std::uint64_t i = 0; i < 128; ++i) {
    for (const std::uint64_t end : {i, i + 1}) {
      const double z = std::bit_cast<double>(math::kLogOffset + (end << 45));
      EXPECT_LE(std::fabs(z * math::kLogInverse[i] - 1.0), 0x1p-7) << i;
      const double m = 1.0 + static_cast<double>(end) / 128.0;
      EXPECT_LE(std::fabs(m * math::kCbrtInverse[i] - 1.0), 0x1p-8) << i;
    }
  }
}

TEST(Exp, SpecialAndKnownValues) {
  EXPECT_TRUE(sameBits(sem::exponential(0.0f), 1.0f));
  EXPECT_TRUE(sameBits(sem::exponential(-0.0f), 1.0f));
  EXPECT_TRUE(sameBits(sem::exponential(-kInf), 0.0f));
  EXPECT_TRUE(sameBits(sem::exponential(kInf), kInf));
  EXPECT_TRUE(std::isnan(sem::exponential(kNaN)));
  EXPECT_TRUE(std::isnan(sem::exponential(-kNaN)));
  EXPECT_TRUE(sameBits(sem::exponential(1.0f), 2.71828183f));
  EXPECT_TRUE(sameBits(sem::exponential(-1.0f), 0.367879441f));
  // The overflow edge: e^x rounds to FLT_MAX or below up to x = 88.7228317 (ln(FLT_MAX + half an
  // ULP) = 88.722839); the next float overflows.
  EXPECT_TRUE(sameBits(sem::exponential(88.7228317f), expRef(88.7228317f)));
  EXPECT_TRUE(std::isfinite(sem::exponential(88.7228317f)));
  EXPECT_TRUE(sameBits(sem::exponential(88.7228394f), kInf));
  EXPECT_TRUE(sameBits(sem::exponential(100.0f), kInf));
  // Subnormal results rounded, not flushed: e^-103.2789 = 2^-149 (the least subnormal); below
  // ln 2^-150 = -103.972 the result rounds to +0.
  EXPECT_TRUE(sameBits(sem::exponential(-103.278931f), 0x1p-149f));
  EXPECT_TRUE(sameBits(sem::exponential(-100.0f), expRef(-100.0f)));
  EXPECT_GT(std::bit_cast<std::uint32_t>(sem::exponential(-100.0f)), 0u);
  EXPECT_TRUE(sameBits(sem::exponential(-103.98f), 0.0f));
  EXPECT_TRUE(sameBits(sem::exponential(-1000.0f), 0.0f));
  EXPECT_TRUE(sameBits(sem::exponential(0x1p-30f), 1.0f));
  EXPECT_TRUE(sameBits(sem::exponential(-0x1p-30f), 1.0f));
}

TEST(Log, SpecialAndKnownValues) {
  EXPECT_TRUE(sameBits(sem::logarithm(0.0f), -kInf));
  EXPECT_TRUE(sameBits(sem::logarithm(-0.0f), -kInf));
  EXPECT_TRUE(sameBits(sem::logarithm(1.0f), 0.0f));  // +0
  EXPECT_TRUE(sameBits(sem::logarithm(kInf), kInf));
  EXPECT_TRUE(std::isnan(sem::logarithm(-1.0f)));
  EXPECT_TRUE(std::isnan(sem::logarithm(-0x1p-149f)));
  EXPECT_TRUE(std::isnan(sem::logarithm(-kInf)));
  EXPECT_TRUE(std::isnan(sem::logarithm(kNaN)));
  EXPECT_TRUE(sameBits(sem::logarithm(2.0f), 0.693147182f));
  EXPECT_TRUE(sameBits(sem::logarithm(10.0f), 2.30258512f));
  // Subnormal inputs are exact: ln 2^-149 = -103.278929903…
  EXPECT_TRUE(sameBits(sem::logarithm(0x1p-149f), -103.278931f));
  EXPECT_TRUE(sameBits(sem::logarithm(std::numeric_limits<float>::max()), 88.7228394f));
  // Near 1, where ln x ≈ x − 1 and the reduction must not cancel.
  EXPECT_TRUE(sameBits(sem::logarithm(0x1.000002p0f), 0x1.fffffep-24f));
  EXPECT_TRUE(sameBits(sem::logarithm(0x1.fffffep-1f), -0x1.000000p-24f));
}

TEST(Cbrt, SpecialAndKnownValues) {
  EXPECT_TRUE(sameBits(sem::cubeRoot(0.0f), 0.0f));
  EXPECT_TRUE(sameBits(sem::cubeRoot(-0.0f), -0.0f));
  EXPECT_TRUE(sameBits(sem::cubeRoot(kInf), kInf));
  EXPECT_TRUE(sameBits(sem::cubeRoot(-kInf), -kInf));
  EXPECT_TRUE(std::isnan(sem::cubeRoot(kNaN)));
  for (float v = 1.0f; v <= 256.0f; v += 1.0f) {  // exact cubes give their roots exactly
    EXPECT_TRUE(sameBits(sem::cubeRoot(v * v * v), v)) << v;
    EXPECT_TRUE(sameBits(sem::cubeRoot(-(v * v * v)), -v)) << v;
  }
  EXPECT_TRUE(sameBits(sem::cubeRoot(0x1p-147f), 0x1p-49f));
  EXPECT_TRUE(sameBits(sem::cubeRoot(0x1p-149f), cbrtRef(0x1p-149f)));
  EXPECT_TRUE(sameBits(sem::cubeRoot(2.0f), 1.25992107f));
}

// C99 Annex F's special cases of pow, one line each (docs/isa.md, "pow").
TEST(Pow, SpecialCasesFollowAnnexF) {
  const auto is = [](float got, float want) {
    return std::isnan(want) ? std::isnan(got) : sameBits(got, want);
  };
  struct Case {
    float a, b, want;
  };
  const Case cases[] = {
      {kNaN, 0.0f, 1.0f},
      {kNaN, -0.0f, 1.0f},
      {-3.0f, 0.0f, 1.0f},
      {1.0f, kNaN, 1.0f},
      {1.0f, kInf, 1.0f},
      {1.0f, -kInf, 1.0f},
      {kNaN, 1.0f, kNaN},
      {2.0f, kNaN, kNaN},
      {-1.0f, kInf, 1.0f},
      {-1.0f, -kInf, 1.0f},
      {0.5f, kInf, 0.0f},
      {-0.5f, kInf, 0.0f},
      {0.5f, -kInf, kInf},
      {2.0f, kInf, kInf},
      {-2.0f, kInf, kInf},
      {2.0f, -kInf, 0.0f},
      {0.0f, -3.0f, kInf},
      {-0.0f, -3.0f, -kInf},
      {0.0f, -2.0f, kInf},
      {-0.0f, -2.0f, kInf},
      {-0.0f, -0.5f, kInf},
      {-0.0f, -kInf, kInf},
      {0.0f, 3.0f, 0.0f},
      {-0.0f, 3.0f, -0.0f},
      {-0.0f, 2.0f, 0.0f},
      {-0.0f, 0.5f, 0.0f},
      {-0.0f, kInf, 0.0f},
      {-kInf, -3.0f, -0.0f},
      {-kInf, -2.0f, 0.0f},
      {-kInf, -0.5f, 0.0f},
      {-kInf, 3.0f, -kInf},
      {-kInf, 2.0f, kInf},
      {-kInf, 0.5f, kInf},
      {kInf, -1.0f, 0.0f},
      {kInf, 0.5f, kInf},
      {-2.0f, 0.5f, kNaN},
      {-2.0f, 1.5f, kNaN},
      {-8.0f, 1.0f / 3.0f, kNaN},
      {-2.0f, 3.0f, -8.0f},
      {-2.0f, 2.0f, 4.0f},
      {-2.0f, -1.0f, -0.5f},
      {-1.0f, 0x1p30f, 1.0f},  // every |b| >= 2^24 is an even integer
      {-1.0f, 0x1.fffffcp22f, -1.0f},
      {-1.0f, 0x1.fffffep22f, kNaN},  // 2^23 − 1, 2^23 − 0.5
      {-1.0f, 0x1.fffffep23f, -1.0f},
      {-1.0f, 0x1p24f, 1.0f},  // 2^24 − 1 is odd, 2^24 even
      {2.0f, 10.0f, 1024.0f},
      {10.0f, 2.0f, 100.0f},
      {4.0f, 0.5f, 2.0f},
      {2.0f, -149.0f, 0x1p-149f},
      {-2.0f, -149.0f, -0x1p-149f},
      {2.0f, 128.0f, kInf},
      {-2.0f, 129.0f, -kInf},
      {0x1p-100f, 2.0f, 0.0f},
  };
  for (const Case& c : cases)
    EXPECT_TRUE(is(sem::power(c.a, c.b), c.want))
        << "pow(" << c.a << ", " << c.b << ") = " << sem::power(c.a, c.b) << ", not " << c.want;
  // An exact result halfway between two floats (2^-150 here, between 0 and 2^-149) may round
  // either way: e^(b · ln a) in double cannot tell it from a near-tie (docs/isa.md, "Accuracy").
  EXPECT_LE(ulps(sem::power(2.0f, -150.0f), 0.0f), 1);
}

// Sweeps of one float function: every exponent with evenly spaced mantissas (both signs), random
// bit patterns, and what `extra` adds. Reports the worst error and how many differ at all.
struct Sweep {
  std::int64_t worst = 0;
  std::uint64_t differ = 0;
  std::uint64_t cases = 0;
  template <class F, class R>
  void check(float x, F ours, R ref) {
    const std::int64_t d = ulps(ours(x), ref(x));
    EXPECT_LE(d, 1) << std::hexfloat << x << ": " << ours(x) << ", correctly rounded " << ref(x);
    worst = std::max(worst, d);
    differ += d > 0 ? 1 : 0;
    ++cases;
  }
  template <class F, class R>
  void everyExponent(F ours, R ref) {
    std::mt19937 rng(29);
    for (std::uint32_t sign = 0; sign < 2; ++sign)
      for (std::uint32_t exponent = 0; exponent < 256; ++exponent)
        for (std::uint32_t m = 0; m < (1u << 23); m += (1u << 12) - 3)
          check(std::bit_cast<float>(sign << 31 | exponent << 23 | m), ours, ref);
    for (int k = 0; k < 300000; ++k)
      check(std::bit_cast<float>(static_cast<std::uint32_t>(rng())), ours, ref);
  }
  void expectMostlyCorrectlyRounded() const {
    EXPECT_LE(worst, 1);
    EXPECT_LT(differ, cases / 100000u + 1u);
  }
};

TEST(Exp, IsWithinOneUlpOfTheCorrectlyRoundedValue) {
  Sweep s;
  const auto ours = [](float x) { return sem::exponential(x); };
  s.everyExponent(ours, expRef);
  // Every float of [-104, 89] with a stride, and every float near the overflow and underflow
  // edges and around 0.
  for (std::uint32_t u = 0; u < 0x42B20000u; u += 53)
    s.check(std::bit_cast<float>(u), ours, expRef);
  for (std::uint32_t u = 0x80000000u; u < 0xC2D00000u; u += 53)
    s.check(std::bit_cast<float>(u), ours, expRef);
  for (const float edge : {88.7228394f, -103.972076f, -87.3365479f, -103.278931f})
    for (std::uint32_t u = std::bit_cast<std::uint32_t>(edge) - 4096;
         u < std::bit_cast<std::uint32_t>(edge) + 4096; ++u)
      s.check(std::bit_cast<float>(u), ours, expRef);
  s.expectMostlyCorrectlyRounded();
  EXPECT_GT(s.cases, 2000000u);
}

TEST(Log, IsWithinOneUlpOfTheCorrectlyRoundedValue) {
  Sweep s;
  const auto ours = [](float x) { return sem::logarithm(x); };
  s.everyExponent(ours, logRef);
  for (std::uint32_t u = 0x3F000000u; u < 0x40000000u; u += 7)  // [0.5, 2): near 1 densely
    s.check(std::bit_cast<float>(u), ours, logRef);
  for (std::uint32_t u = 0; u < 0x800000u; u += 31)  // subnormals
    s.check(std::bit_cast<float>(u), ours, logRef);
  s.expectMostlyCorrectlyRounded();
  EXPECT_GT(s.cases, 2000000u);
}

TEST(Cbrt, IsWithinOneUlpOfTheCorrectlyRoundedValue) {
  Sweep s;
  const auto ours = [](float x) { return sem::cubeRoot(x); };
  s.everyExponent(ours, cbrtRef);
  for (std::uint32_t u = 0x3F800000u; u < 0x41000000u; u += 11)  // [1, 8): one period
    s.check(std::bit_cast<float>(u), ours, cbrtRef);
  for (std::uint32_t u = 0x3F800000u; u < 0x41000000u; u += 1009)  // odd symmetry, bit for bit
    EXPECT_TRUE(
        sameBits(sem::cubeRoot(-std::bit_cast<float>(u)), -sem::cubeRoot(std::bit_cast<float>(u))));
  s.expectMostlyCorrectlyRounded();
  EXPECT_GT(s.cases, 2000000u);
}

TEST(Pow, IsWithinOneUlpOfTheCorrectlyRoundedValue) {
  std::mt19937 rng(41);
  std::int64_t worst = 0;
  std::uint64_t differ = 0;
  std::uint64_t cases = 0;
  const auto check = [&](float a, float b) {
    const float got = sem::power(a, b);
    const float want = powRef(a, b);
    const std::int64_t d = ulps(got, want);
    EXPECT_LE(d, 1) << std::hexfloat << "pow(" << a << ", " << b << ") = " << got << ", not "
                    << want;
    worst = std::max(worst, d);
    differ += d > 0 ? 1 : 0;
    ++cases;
  };
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  // Random bases over every exponent with exponents that keep the result in range (and some that
  // overflow or underflow), random bit patterns of both, integer exponents of negative bases, and
  // bases near 1 with large exponents (where ln a must be accurate to its last bits).
  for (int k = 0; k < 400000; ++k) {
    const float a = std::bit_cast<float>(static_cast<std::uint32_t>(rng()) & 0x7FFFFFFFu);
    if (!std::isfinite(a) || a == 0.0f) continue;
    const float range = 120.0f / std::max(1e-30f, std::fabs(sem::logarithm(a)));
    check(a, (2.0f * unit(rng) - 1.0f) * range);
  }
  for (int k = 0; k < 300000; ++k)
    check(std::bit_cast<float>(static_cast<std::uint32_t>(rng())),
          std::bit_cast<float>(static_cast<std::uint32_t>(rng())));
  for (int k = 0; k < 200000; ++k) {
    const float a = -(unit(rng) * 8.0f);
    check(a, std::floor((2.0f * unit(rng) - 1.0f) * 60.0f));
  }
  for (int k = 0; k < 300000; ++k) {
    const float a = 1.0f + (2.0f * unit(rng) - 1.0f) * 0x1p-10f;
    check(a, (2.0f * unit(rng) - 1.0f) * 1e5f);
  }
  for (int k = 0; k < 100000; ++k)  // the shell spawn shapes' r^3 and the cube roots back
    check(unit(rng) * 100.0f, k % 2 == 0 ? 3.0f : 1.0f / 3.0f);
  EXPECT_LE(worst, 1);
  EXPECT_LT(differ, cases / 10000u);
  EXPECT_GT(cases, 1000000u);
}

// CURL's lattice cell: the integer formula gives fmod(f, 2^30) for every whole float f, below and
// beyond 2^30 (every exponent, both signs, mantissas with a stride and at both ends).
TEST(NoiseCell, IsFmodOfTwoToTheThirtyForEveryWholeFloat) {
  std::uint64_t cases = 0;
  for (std::uint32_t exponent = 127; exponent < 255; ++exponent) {
    for (std::uint32_t m = 0; m < (1u << 23); m += m < 64 || m > (1u << 23) - 64 ? 1 : 997) {
      for (const std::uint32_t sign : {0u, 1u}) {
        const float f = std::floor(std::bit_cast<float>(sign << 31 | exponent << 23 | m));
        const auto want =
            static_cast<std::int32_t>(static_cast<std::int64_t>(std::fmod(f, 1073741824.0f)));
        ASSERT_EQ(sem::noiseCell(f), want) << std::hexfloat << f;
        ++cases;
      }
    }
  }
  EXPECT_EQ(sem::noiseCell(-0.0f), 0);
  EXPECT_EQ(sem::noiseCell(0x1p30f), 0);
  EXPECT_EQ(sem::noiseCell(-0x1.000002p30f), -128);
  EXPECT_GT(cases, 1000000u);
}

// Every float against the correctly rounded value, on every core: scripts/check-sincos runs them
// (minutes each).
template <class F, class R>
void everyFloat(const char* name, F ours, R ref, std::uint64_t expectedDiffer) {
  const test::EveryFloatError e =
      test::everyFloatError([&](float x) { return ulps(ours(x), ref(x)); });
  std::printf("%s: %llu of the 2^32 floats differ from the correctly rounded value\n", name,
              static_cast<unsigned long long>(e.differ));
  EXPECT_LE(e.worst, 1);
  EXPECT_EQ(e.differ, expectedDiffer);  // docs/isa.md, "Accuracy"
}

TEST(Exp, DISABLED_EveryFloatIsWithinOneUlpOfTheCorrectlyRoundedValue) {
  everyFloat(
      "exp", [](float x) { return sem::exponential(x); }, expRef, 0u);
}
TEST(Log, DISABLED_EveryFloatIsWithinOneUlpOfTheCorrectlyRoundedValue) {
  everyFloat(
      "log", [](float x) { return sem::logarithm(x); }, logRef, 4u);
}
TEST(Cbrt, DISABLED_EveryFloatIsWithinOneUlpOfTheCorrectlyRoundedValue) {
  everyFloat(
      "cbrt", [](float x) { return sem::cubeRoot(x); }, cbrtRef, 0u);
}

}  // namespace
}  // namespace mote
