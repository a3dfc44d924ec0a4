// SPDX-License-Identifier: MIT
// Tests of Fpx16_16 and Fp32: hand-computed goldens on raw values, rounding ties, saturation.
#include <mote/core/fixed.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace mote {
namespace {

using Fx = Fpx16_16;
constexpr std::int32_t kMaxRaw = std::numeric_limits<std::int32_t>::max();
constexpr std::int32_t kMinRaw = std::numeric_limits<std::int32_t>::min();

Fx raw(std::int32_t r) {
  return Fx::fromRaw(r);
}

TEST(Fpx16_16, FromIntScalesBy65536AndSaturates) {
  EXPECT_EQ(Fx::fromInt(3).raw(), 196608);  // 3 * 65536
  EXPECT_EQ(Fx::fromInt(-2).raw(), -131072);
  EXPECT_EQ(Fx::fromInt(32767).raw(), 0x7FFF0000);
  EXPECT_EQ(Fx::fromInt(-32768).raw(), kMinRaw);
  EXPECT_EQ(Fx::fromInt(32768).raw(), kMaxRaw);  // 2^31 does not fit: saturates
  EXPECT_EQ(Fx::fromInt(-40000).raw(), kMinRaw);
}

TEST(Fpx16_16, ToInt32RoundsToNearestTiesToEven) {
  EXPECT_EQ(raw(0x18000).toInt32(), 2);      // 1.5 → 2
  EXPECT_EQ(raw(0x28000).toInt32(), 2);      // 2.5 → 2
  EXPECT_EQ(raw(0x38000).toInt32(), 4);      // 3.5 → 4
  EXPECT_EQ(raw(0x8000).toInt32(), 0);       // 0.5 → 0
  EXPECT_EQ(raw(0x8001).toInt32(), 1);       // just above 0.5 → 1
  EXPECT_EQ(raw(0x7FFF).toInt32(), 0);       // just below 0.5 → 0
  EXPECT_EQ(raw(-0x8000).toInt32(), 0);      // -0.5 → 0
  EXPECT_EQ(raw(-0x18000).toInt32(), -2);    // -1.5 → -2
  EXPECT_EQ(raw(-0x28000).toInt32(), -2);    // -2.5 → -2
  EXPECT_EQ(raw(-0x8001).toInt32(), -1);     // just below -0.5 → -1
  EXPECT_EQ(raw(kMaxRaw).toInt32(), 32768);  // 32767.99998 → 32768
  EXPECT_EQ(raw(kMinRaw).toInt32(), -32768);
}

TEST(Fpx16_16, AddSubNegAreExactAndSaturate) {
  EXPECT_EQ((raw(0x18000) + raw(0x24000)).raw(), 0x3C000);  // 1.5 + 2.25 = 3.75
  EXPECT_EQ((raw(0x18000) - raw(0x24000)).raw(), -0xC000);  // 1.5 - 2.25 = -0.75
  EXPECT_EQ((-raw(0x18000)).raw(), -0x18000);
  EXPECT_EQ((raw(kMaxRaw) + raw(1)).raw(), kMaxRaw);
  EXPECT_EQ((raw(kMinRaw) - raw(1)).raw(), kMinRaw);
  EXPECT_EQ((-raw(kMinRaw)).raw(), kMaxRaw);  // -(-32768) does not fit
  Fx a = raw(5);
  a += raw(7);
  EXPECT_EQ(a.raw(), 12);
  a -= raw(20);
  EXPECT_EQ(a.raw(), -8);
}

TEST(Fpx16_16, MulRoundsTiesToEvenAndSaturates) {
  EXPECT_EQ((raw(0x18000) * raw(0x24000)).raw(), 0x36000);  // 1.5 * 2.25 = 3.375 exactly
  EXPECT_EQ((raw(-0x18000) * raw(0x24000)).raw(), -0x36000);
  // raw 1 * 0.5 = 2^-17: half a raw step, a tie → even (0).
  EXPECT_EQ((raw(1) * raw(0x8000)).raw(), 0);
  // raw 3 * 0.5 = 1.5 raw steps → 2; raw -3 * 0.5 → -2; raw -1 * 0.5 = -0.5 → 0.
  EXPECT_EQ((raw(3) * raw(0x8000)).raw(), 2);
  EXPECT_EQ((raw(-3) * raw(0x8000)).raw(), -2);
  EXPECT_EQ((raw(-1) * raw(0x8000)).raw(), 0);
  // raw 1 * 0.75 = 0.75 raw step → 1 (not a tie); raw 1 * 0.25 → 0.
  EXPECT_EQ((raw(1) * raw(0xC000)).raw(), 1);
  EXPECT_EQ((raw(1) * raw(0x4000)).raw(), 0);
  EXPECT_EQ((Fx::fromInt(200) * Fx::fromInt(200)).raw(), kMaxRaw);  // 40000 overflows
  EXPECT_EQ((Fx::fromInt(-200) * Fx::fromInt(200)).raw(), kMinRaw);
  EXPECT_EQ((Fx::fromInt(-181) * Fx::fromInt(181)).raw(), -32761 * 65536);
}

TEST(Fpx16_16, DivRoundsTiesToEvenAndSaturates) {
  EXPECT_EQ((Fx::fromInt(1) / Fx::fromInt(3)).raw(), 21845);  // 21845.33 → 21845
  EXPECT_EQ((Fx::fromInt(2) / Fx::fromInt(3)).raw(), 43691);  // 43690.67 → 43691
  EXPECT_EQ((Fx::fromInt(-1) / Fx::fromInt(3)).raw(), -21845);
  EXPECT_EQ((Fx::fromInt(1) / Fx::fromInt(-3)).raw(), -21845);
  EXPECT_EQ((Fx::fromInt(-2) / Fx::fromInt(-3)).raw(), 43691);
  EXPECT_EQ((raw(1) / Fx::fromInt(2)).raw(), 0);                 // 0.5 raw → tie → 0
  EXPECT_EQ((raw(3) / Fx::fromInt(2)).raw(), 2);                 // 1.5 → 2
  EXPECT_EQ((raw(5) / Fx::fromInt(2)).raw(), 2);                 // 2.5 → 2
  EXPECT_EQ((raw(-5) / Fx::fromInt(2)).raw(), -2);               // -2.5 → -2
  EXPECT_EQ((raw(0x36000) / raw(0x18000)).raw(), 0x24000);       // 3.375 / 1.5 = 2.25
  EXPECT_EQ((Fx::fromInt(30000) / raw(0x8000)).raw(), kMaxRaw);  // 60000 overflows
  EXPECT_EQ((raw(kMinRaw) / Fx::fromInt(-1)).raw(), kMaxRaw);    // 32768 overflows
  EXPECT_EQ((raw(7) / raw(0)).raw(), kMaxRaw);
  EXPECT_EQ((raw(-7) / raw(0)).raw(), kMinRaw);
  EXPECT_EQ((raw(0) / raw(0)).raw(), 0);
}

TEST(Fpx16_16, FromFloatRoundsTiesToEvenAndSaturates) {
  EXPECT_EQ(Fx::fromFloat(1.5f).raw(), 0x18000);
  EXPECT_EQ(Fx::fromFloat(-2.25f).raw(), -0x24000);
  EXPECT_EQ(Fx::fromFloat(0x1p-17f).raw(), 0);  // half a raw step → 0
  EXPECT_EQ(Fx::fromFloat(0x3p-17f).raw(), 2);  // 1.5 raw steps → 2
  EXPECT_EQ(Fx::fromFloat(-0x3p-17f).raw(), -2);
  EXPECT_EQ(Fx::fromFloat(0x5p-17f).raw(), 2);  // 2.5 raw steps → 2
  EXPECT_EQ(Fx::fromFloat(0.1f).raw(), 6554);   // 0.1f * 65536 = 6553.600098 → 6554
  EXPECT_EQ(Fx::fromFloat(1e10f).raw(), kMaxRaw);
  EXPECT_EQ(Fx::fromFloat(-1e10f).raw(), kMinRaw);
  EXPECT_EQ(Fx::fromFloat(32768.0f).raw(), kMaxRaw);
  EXPECT_EQ(Fx::fromFloat(-32768.0f).raw(), kMinRaw);
  EXPECT_EQ(Fx::fromFloat(std::numeric_limits<float>::infinity()).raw(), kMaxRaw);
  EXPECT_EQ(Fx::fromFloat(-std::numeric_limits<float>::infinity()).raw(), kMinRaw);
  EXPECT_EQ(Fx::fromFloat(std::numeric_limits<float>::quiet_NaN()).raw(), 0);
}

TEST(Fpx16_16, ToFloatIsExactBelow256AndRoundsOnceAbove) {
  EXPECT_EQ(raw(0x18000).toFloat(), 1.5f);
  EXPECT_EQ(raw(1).toFloat(), 0x1p-16f);
  EXPECT_EQ(raw(-1).toFloat(), -0x1p-16f);
  EXPECT_EQ(raw(0xFFFFFF).toFloat(), 255.9999847412109375f);  // 2^24 - 1 raw: exact
  // 2^24 + 1 raw: the int → float conversion ties to even (2^24) → 256.
  EXPECT_EQ(raw(16777217).toFloat(), 256.0f);
  // 2^24 + 3 raw: tie between 2^24 + 2 and 2^24 + 4 → the even mantissa, 2^24 + 4.
  EXPECT_EQ(raw(16777219).toFloat(), 256.00006103515625f);
  EXPECT_EQ(raw(kMaxRaw).toFloat(), 32768.0f);
  EXPECT_EQ(raw(kMinRaw).toFloat(), -32768.0f);
}

TEST(Fpx16_16, RoundTripsThroughFloatInsideTheExactZone) {
  for (std::int32_t r = -(1 << 24) + 1; r < (1 << 24); r += 9973) {
    EXPECT_EQ(Fx::fromFloat(raw(r).toFloat()).raw(), r);
  }
}

TEST(Fpx16_16, ComparesByRaw) {
  EXPECT_LT(raw(-1), raw(0));
  EXPECT_GT(Fx::fromInt(2), raw(0x1FFFF));
  EXPECT_EQ(Fx::fromInt(1), raw(65536));
  EXPECT_NE(Fx::fromInt(1), raw(65535));
  EXPECT_LE(raw(3), raw(3));
}

TEST(Fpx16_16, IsUsableInConstantExpressions) {
  constexpr Fx kHalf = Fx::fromRaw(0x8000);
  static_assert((kHalf + kHalf).raw() == 0x10000);
  static_assert((Fx::fromInt(3) * kHalf).raw() == 0x18000);
  static_assert((Fx::fromInt(3) / Fx::fromInt(4)).raw() == 0xC000);
  static_assert(Fx::fromRaw(0x28000).toInt32() == 2);
  SUCCEED();
}

TEST(Fp32, FollowsIeeeRoundToNearestEven) {
  using F = Fp32;
  EXPECT_EQ((F::fromFloat(1.5f) * F::fromFloat(2.25f)).raw(), 3.375f);
  EXPECT_EQ((F::fromFloat(1.0f) / F::fromFloat(3.0f)).raw(), 1.0f / 3.0f);
  EXPECT_EQ((F::fromFloat(0x1p24f) + F::fromFloat(1.0f)).raw(), 0x1p24f);  // tie → even
  EXPECT_EQ((F::fromFloat(0x1p24f) + F::fromFloat(3.0f)).raw(), 0x1p24f + 4.0f);
  EXPECT_EQ(F::fromInt(16777217).raw(), 16777216.0f);  // one rounding, ties to even
  EXPECT_EQ(F::fromInt(-7).raw(), -7.0f);
  EXPECT_EQ(F::fromFloat(2.75f).toFloat(), 2.75f);
}

TEST(Fp32, ToInt32RoundsTiesToEvenAndSaturates) {
  using F = Fp32;
  EXPECT_EQ(F::fromFloat(0.5f).toInt32(), 0);
  EXPECT_EQ(F::fromFloat(1.5f).toInt32(), 2);
  EXPECT_EQ(F::fromFloat(2.5f).toInt32(), 2);
  EXPECT_EQ(F::fromFloat(-2.5f).toInt32(), -2);
  EXPECT_EQ(F::fromFloat(-3.5f).toInt32(), -4);
  EXPECT_EQ(F::fromFloat(2.4999998f).toInt32(), 2);
  EXPECT_EQ(F::fromFloat(3e9f).toInt32(), std::numeric_limits<std::int32_t>::max());
  EXPECT_EQ(F::fromFloat(-3e9f).toInt32(), std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(F::fromFloat(std::numeric_limits<float>::quiet_NaN()).toInt32(), 0);
}

TEST(Fp32, AgreesWithFpx16_16OnDyadicValues) {
  // The cross-backend exactness zone: dyadic values with few bits give the same results.
  const float values[] = {0.0f, 0.5f, -1.25f, 3.75f, 100.0f, -0.0625f, 7.5f};
  for (float a : values) {
    for (float b : values) {
      const Fx fa = Fx::fromFloat(a), fb = Fx::fromFloat(b);
      const Fp32 pa = Fp32::fromFloat(a), pb = Fp32::fromFloat(b);
      EXPECT_EQ((fa + fb).toFloat(), (pa + pb).toFloat()) << a << " + " << b;
      EXPECT_EQ((fa - fb).toFloat(), (pa - pb).toFloat()) << a << " - " << b;
      EXPECT_EQ((fa * fb).toFloat(), (pa * pb).toFloat()) << a << " * " << b;
      EXPECT_EQ(fa.toInt32(), pa.toInt32()) << a;
    }
  }
}

TEST(SimVec, Vec2AndVec3AreComponentwiseBackendOps) {
  const Vec2<Fx> a{raw(0x18000), raw(-0x8000)};
  const Vec2<Fx> b{raw(0x10000), raw(0x28000)};
  EXPECT_EQ(a + b, (Vec2<Fx>{raw(0x28000), raw(0x20000)}));
  EXPECT_EQ(a - b, (Vec2<Fx>{raw(0x8000), raw(-0x30000)}));
  EXPECT_EQ(-a, (Vec2<Fx>{raw(-0x18000), raw(0x8000)}));
  EXPECT_EQ(a * raw(0x20000), (Vec2<Fx>{raw(0x30000), raw(-0x10000)}));
  EXPECT_EQ(dot(a, b).raw(), 0x18000 - 0x14000);  // 1.5*1 + (-0.5)*2.5 = 0.25

  Vec3<Fp32> p{Fp32::fromFloat(1.0f), Fp32::fromFloat(2.0f), Fp32::fromFloat(3.0f)};
  p += Vec3<Fp32>{Fp32::fromFloat(0.5f), Fp32::fromFloat(0.5f), Fp32::fromFloat(-1.0f)};
  EXPECT_EQ(p.x.raw(), 1.5f);
  EXPECT_EQ(p.y.raw(), 2.5f);
  EXPECT_EQ(p.z.raw(), 2.0f);
  EXPECT_EQ(dot(p, p).raw(), 1.5f * 1.5f + 2.5f * 2.5f + 4.0f);
  const Vec3<Fx> q{Fx::fromInt(1), Fx::fromInt(-2), Fx::fromInt(3)};
  EXPECT_EQ(q * Fx::fromInt(2) - q, q);
}

}  // namespace
}  // namespace mote
