// SPDX-License-Identifier: MIT
// Mote's own elementary functions (sin, cos, exp, log, pow, cbrt: the same bits on every platform)
// and the per-particle formulas of the opcodes that mix lanes (quaternions, random shapes, curves),
// shared by the reference executor, the runtime VM and the compiler so all compute them with the
// same operations in the same order. IEEE arithmetic, no contraction (the build uses
// -ffp-contract=off).
#pragma once

#include <mote/bytecode/isa.h>
#include <mote/core/counter_rng.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace mote::bytecode::semantics {

using Lanes = std::array<float, 4>;

inline constexpr float kPi = 3.14159265358979323846f;

/// The sine and cosine of one angle.
struct SinCos {
  float sin;
  float cos;
};

/// The pieces of sinCos, shared with the VM's vector copy of it (which runs the same operations).
namespace trig {
/// Angles up to this magnitude are reduced in double (Cody–Waite); larger ones by sinCosLarge.
inline constexpr float kReduceLimit = 0x1p20f;
inline constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
/// (y + kRoundShift) − kRoundShift is y rounded to an integer (ties to even) for |y| < 2^51, and
/// the low bits of y + kRoundShift are that integer's, two's complement.
inline constexpr double kRoundShift = 0x1.8p52;
/// π/2 = kHalfPi[0] + kHalfPi[1] + kHalfPi[2] to 2^-122: the first two have 33 significant bits, so
/// n · kHalfPi[0] and n · kHalfPi[1] are exact for the n below 2^20 that kReduceLimit allows.
/// π/2 · 2^-64: sinCosLarge's scale from a 64-bit fraction of a quadrant to radians.
inline constexpr double kHalfPiTimes2ToMinus64 = 0x1.921fb54442d18p-64;
inline constexpr std::array<double, 3> kHalfPi{0x1.921fb544p+0, 0x1.0b4611a6p-34,
                                               0x1.3198a2e037073p-69};
/// Taylor coefficients: sin r = r · (1 + r²·(S0 + r²·(S1 + … + r²·S5))) and cos r = 1 + r²·(C0 +
/// r²·(C1 + … + r²·C6)), both within 2^-44 relative on |r| <= π/4.
inline constexpr std::array<double, 6> kSin{-1.0 / 6.0,     1.0 / 120.0,       -1.0 / 5040.0,
                                            1.0 / 362880.0, -1.0 / 39916800.0, 1.0 / 6227020800.0};
inline constexpr std::array<double, 7> kCos{
    -1.0 / 2.0,       1.0 / 24.0,        -1.0 / 720.0,        1.0 / 40320.0,
    -1.0 / 3628800.0, 1.0 / 479001600.0, -1.0 / 87178291200.0};

/// sin and cos of q·π/2 + r for |r| <= π/4 (a little more after rounding), rounded to float once.
inline SinCos fromQuadrant(double r, std::uint64_t q) {
  const double r2 = r * r;
  double ps = kSin[5];
  for (std::size_t k = 5; k-- > 0;)
    ps = kSin[k] + r2 * ps;
  double pc = kCos[6];
  for (std::size_t k = 6; k-- > 0;)
    pc = kCos[k] + r2 * pc;
  const double s = r * (1.0 + r2 * ps);  // r times: ±0 keeps its sign
  const double c = 1.0 + r2 * pc;
  double sv = (q & 1u) != 0 ? c : s;
  double cv = (q & 1u) != 0 ? s : c;
  if ((q & 2u) != 0) sv = -sv;
  if (((q + 1u) & 2u) != 0) cv = -cv;
  return {static_cast<float>(sv), static_cast<float>(cv)};
}
}  // namespace trig

/// sinCos for |x| > trig::kReduceLimit and for inf and NaN (NaN results): x · 2/π reduced exactly
/// with 2/π's bits in integers (src/bytecode/semantics.cpp). Smaller x are handed to sinCos.
SinCos sinCosLarge(float x) noexcept;

/// The sine and cosine of x radians, Mote's own rather than the C library's (docs/isa.md,
/// "Accuracy"): the same bits on every platform, compiler and SIMD target, within 1 ULP of
/// the true values (the correctly rounded ones but for rare near-ties). |x| <= 2^20: n = x · 2/π
/// rounded, r = x − n·π/2 in three steps and the polynomials in double; beyond, sinCosLarge.
inline SinCos sinCos(float x) noexcept {
  if (!(std::fabs(x) <= trig::kReduceLimit)) return sinCosLarge(x);
  const auto xd = static_cast<double>(x);
  const double shifted = xd * trig::kTwoOverPi + trig::kRoundShift;
  const double n = shifted - trig::kRoundShift;
  const double r = ((xd - n * trig::kHalfPi[0]) - n * trig::kHalfPi[1]) - n * trig::kHalfPi[2];
  return trig::fromQuadrant(r, std::bit_cast<std::uint64_t>(shifted));
}

inline float sine(float x) noexcept {
  return sinCos(x).sin;
}
inline float cosine(float x) noexcept {
  return sinCos(x).cos;
}

/// The constants and reductions of exponential, logarithm, power and cubeRoot (docs/isa.md,
/// "Accuracy"), for the executors and for the GPU's copy of them (which runs the same operations).
/// Each function uses only IEEE double add, subtract and multiply, comparisons, integer and bit
/// operations, these tables, exact conversions (float → double, small integer → double) and one
/// final rounding of a double to float (to nearest, ties to even, subnormals kept) — no division,
/// square root, fma or C library call — in the order written in src/bytecode/semantics_math.cpp.
namespace math {
/// e^y = 2^k · 2^(j/64) · e^r with n = k·64 + j = y · 64/ln 2 rounded (trig::kRoundShift).
inline constexpr double kExpInverseStep = 0x1.71547652b82fep+6;  // 64 / ln 2
/// ln 2 / 64 = kExpStep[0] + kExpStep[1] to 2^-94: the first has 32 significant bits, so n ·
/// kExpStep[0] is exact for every |n| < 2^21 (the n below need 2^14), and y − n · kExpStep[0] is
/// exact (Sterbenz).
inline constexpr std::array<double, 2> kExpStep{0x1.62e42ffp-7, -0x1.718432a1b0e26p-41};
/// 1/k!, k = 2..6: e^r − 1 = r + r²·(P0 + r·(P1 + … + r·P4)), within 2^-65 on |r| <= ln 2/128.
inline constexpr std::array<double, 5> kExpPoly{0x1p-1, 0x1.5555555555555p-3, 0x1.5555555555555p-5,
                                                0x1.1111111111111p-7, 0x1.6c16c16c16c17p-10};
/// Past these, e^y as a float is +inf or +0 (e^88.73 > FLT_MAX; e^-103.98 < 2^-150); between
/// them expOf's double rounds to float correctly (overflow to inf, subnormals kept).
inline constexpr double kExpOverflow = 89.0;
inline constexpr double kExpUnderflow = -104.0;
/// ln 2 = kLn2[0] + kLn2[1] to 2^-102: the first has 44 significant bits, so k · kLn2[0] is exact
/// for every exponent k of a float (|k| < 2^9).
inline constexpr std::array<double, 2> kLn2{0x1.62e42fefa3ap-1, -0x1.0ca86c3898dp-49};
/// ln x = k·ln 2 + ln c_i + ln(1 + r): x = 2^k · z with z in [kLogOffset, 2·kLogOffset) as bits
/// (≈ [0.707, 1.414)), i = bits 45..51 of bits(z) − kLogOffset, r = z · kLogInverse[i] − 1
/// exact (24-bit inverses; 1 for the two intervals beside 1, so ln x near 1 loses nothing).
inline constexpr std::uint64_t kLogOffset = 0x3FE6A00000000000u;
/// (−1)^(k+1)/k, k = 2..8: ln(1 + r) − r = r²·(P0 + r·(P1 + … + r·P6)), within 2^-59 |r| on
/// |r| <= 2^-7.
inline constexpr std::array<double, 7> kLogPoly{-0x1p-1,
                                                0x1.5555555555555p-2,
                                                -0x1p-2,
                                                0x1.999999999999ap-3,
                                                -0x1.5555555555555p-3,
                                                0x1.2492492492492p-3,
                                                -0x1p-3};
/// The binomial coefficients C(1/3, k), k = 1..6: (1 + r)^(1/3) − 1 = r·(P0 + r·(P1 + … + r·P5)),
/// within 2^-61 on |r| <= 2^-8.
inline constexpr std::array<double, 6> kCbrtPoly{0x1.5555555555555p-2, -0x1.c71c71c71c71cp-4,
                                                 0x1.f9add3c0ca458p-5, -0x1.511e8d2b3183bp-5,
                                                 0x1.ee7113506ac12p-6, -0x1.8090d6221a247p-6};

/// The tables (src/bytecode/semantics_tables.cpp, written by scripts/gen-semantics-tables): each
/// entry the double nearest the exact value.
extern const std::array<double, 64> kExp2Steps;     ///< 2^(j/64)
extern const std::array<double, 128> kLogInverse;   ///< 1 / c_i, 24 significant bits
extern const std::array<double, 128> kLogOfC;       ///< ln c_i
extern const std::array<double, 128> kCbrtInverse;  ///< 1 / c_i for m in [1 + i/128, …)
extern const std::array<double, 384> kCbrtScale;    ///< cbrt(2^s · c_i) at 128·s + i

/// e^y in double, within 2^-52 relative, for y in [kExpUnderflow, kExpOverflow].
double expOf(double y) noexcept;
/// ln x in double, within 2^-51 relative, for x a positive finite float's value (24 significant
/// bits: the reduction's product is exact only then).
double logOf(double x) noexcept;
}  // namespace math

/// e^x, Mote's own (docs/isa.md, "Accuracy"): within 1 ULP of the true value (the correctly
/// rounded one but for rare near-ties), subnormal results rounded, not flushed. exp(±0) = 1,
/// exp(−inf) = +0, exp(+inf) = +inf, overflow +inf, NaN stays NaN.
float exponential(float x) noexcept;
/// ln x, Mote's own: within 1 ULP (correctly rounded but for rare near-ties), subnormal x exact.
/// log(±0) = −inf, log(x < 0) = NaN, log(+inf) = +inf, log(1) = +0, NaN stays NaN.
float logarithm(float x) noexcept;
/// a^b, Mote's own: e^(b · ln|a|) in double with the sign of the odd-integer rule, within 1 ULP,
/// and C99 Annex F's special cases (docs/isa.md, "Accuracy", the pow table): pow(a, ±0) = 1 even
/// for NaN a, pow(1, b) = 1 even for NaN b, a negative finite a with a finite non-integer b is NaN.
float power(float a, float b) noexcept;
/// The cube root, Mote's own: within 1 ULP (correctly rounded but for rare near-ties).
/// cbrt(−x) = −cbrt(x), cbrt(±0) = ±0, cbrt(±inf) = ±inf, NaN stays NaN.
float cubeRoot(float x) noexcept;

/// CURL's lattice cell of a finite whole float f (a floor): f itself within ±2^30, beyond
/// that fmod(f, 2^30) (cells far out wrap; the hash only needs to be deterministic), computed
/// from f's bits: |f| = m · 2^s with s >= 7, so the remainder is m · 2^s's bits below 2^30.
inline std::int32_t noiseCell(float f) noexcept {
  if (std::fabs(f) < 0x1p30f) return static_cast<std::int32_t>(f);
  const auto u = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t shift = ((u >> 23) & 0xFFu) - 150u;
  const std::uint64_t m = (u & 0x7FFFFFu) | 0x800000u;
  const auto wrapped = static_cast<std::int32_t>(shift >= 30u ? 0u : (m << shift) & 0x3FFFFFFFu);
  return (u >> 31) != 0u ? -wrapped : wrapped;
}

/// SPAWN's and SPAWNI's count operand as whole particles: floor(x), capped at 2^20 (one emitter's
/// capacity at most); 0 (no request) for x < 1 and NaN.
inline std::uint32_t spawnCount(float x) noexcept {
  constexpr float kMaxCount = 1048576.0f;
  const float count = std::floor(x);
  if (!(count >= 1.0f)) return 0;
  return static_cast<std::uint32_t>(count < kMaxCount ? count : kMaxCount);
}

/// REPORT's tag operand as a whole number: floor(x) clamped to [0, 2^24]; 0 for NaN.
inline std::uint32_t reportTag(float x) noexcept {
  const float tag = std::floor(x);
  if (!(tag >= 0.0f)) return 0;
  return static_cast<std::uint32_t>(tag < 16777216.0f ? tag : 16777216.0f);
}

/// Hamilton product a ⊗ b, quaternions as (x, y, z, w).
inline Lanes quatMul(const Lanes& a, const Lanes& b) {
  return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
          a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
          a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
          a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}

/// The rotation by `angle` radians about (ax, ay, az); identity for a zero axis.
inline Lanes quatAxisAngle(float ax, float ay, float az, float angle) {
  const float len = std::sqrt(ax * ax + ay * ay + az * az);
  if (len == 0.0f) return {0.0f, 0.0f, 0.0f, 1.0f};
  const SinCos half = sinCos(angle * 0.5f);
  const float s = half.sin / len;
  return {ax * s, ay * s, az * s, half.cos};
}

/// `v` turned by `q` normalised first (a zero quaternion leaves `v` unchanged).
inline Lanes quatRotate(Lanes q, const Lanes& v) {
  const float n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n == 0.0f) return {v[0], v[1], v[2], 0.0f};
  for (float& c : q)
    c /= n;
  const Lanes conj{-q[0], -q[1], -q[2], q[3]};
  const Lanes r = quatMul(quatMul(q, {v[0], v[1], v[2], 0.0f}), conj);
  return {r[0], r[1], r[2], 0.0f};
}

/// A uniform direction on the unit sphere from two random words.
inline Lanes unitVector(const std::array<std::uint32_t, 4>& bits) {
  const float z = 1.0f - 2.0f * unitFloatFromU32(bits[0]);
  const float phi = 2.0f * kPi * unitFloatFromU32(bits[1]);
  const float rho = std::sqrt(std::fmax(0.0f, 1.0f - z * z));
  const SinCos turn = sinCos(phi);
  return {rho * turn.cos, rho * turn.sin, z, 0.0f};
}

/// A uniform point in the unit ball: unitVector's direction at radius cbrt(third word).
inline Lanes ballPoint(const std::array<std::uint32_t, 4>& bits) {
  const float z = 1.0f - 2.0f * unitFloatFromU32(bits[0]);
  const float phi = 2.0f * kPi * unitFloatFromU32(bits[1]);
  const float rho = std::sqrt(std::fmax(0.0f, 1.0f - z * z));
  const float r = cubeRoot(unitFloatFromU32(bits[2]));
  const SinCos turn = sinCos(phi);
  return {r * rho * turn.cos, r * rho * turn.sin, r * z, 0.0f};
}

/// A uniform point in the unit disk of the XZ plane.
inline Lanes diskPoint(const std::array<std::uint32_t, 4>& bits) {
  const float r = std::sqrt(unitFloatFromU32(bits[0]));
  const float phi = 2.0f * kPi * unitFloatFromU32(bits[1]);
  const SinCos turn = sinCos(phi);
  return {r * turn.cos, 0.0f, r * turn.sin, 0.0f};
}

/// A uniform direction within `halfAngle` radians of +Y (cos θ uniform over the cap).
inline Lanes coneDirection(const std::array<std::uint32_t, 4>& bits, float halfAngle) {
  const float cosMax = cosine(halfAngle);
  const float cosT = 1.0f - (1.0f - cosMax) * unitFloatFromU32(bits[0]);
  const float sinT = std::sqrt(std::fmax(0.0f, 1.0f - cosT * cosT));
  const float phi = 2.0f * kPi * unitFloatFromU32(bits[1]);
  const SinCos turn = sinCos(phi);
  return {sinT * turn.cos, cosT, sinT * turn.sin, 0.0f};
}

/// A CURVE table in the pool (isa.h, "CURVE"): `entries` points at its first entry.
struct CurveTable {
  const Lanes* entries;
  std::uint32_t keys;
  std::uint32_t width;
  CurveTableInterp interp;

  float item(std::uint32_t run, std::uint32_t j, std::uint32_t lane) const {
    const Lanes* at = entries + run;
    return width == 1 ? at[j >> 2][j & 3u] : at[j][lane];
  }
  float time(std::uint32_t j) const { return entries[j >> 2][j & 3u]; }
  /// A_j, lane `lane`.
  float value(std::uint32_t j, std::uint32_t lane) const {
    return item(curveRunEntries(keys, 1), j, lane);
  }
  /// d_j, lane `lane`.
  float delta(std::uint32_t j, std::uint32_t lane) const {
    return item(curveRunEntries(keys, 1) + curveRunEntries(keys, width), j, lane);
  }

  /// Segment j's parameter at t, in [0, 1] for any t that is not NaN: saturate((t − a) ·
  /// (1 / (b − a))) linear, the SMOOTH opcode's formula smooth, and (b <= t ? 1 : 0) for a step
  /// or a segment of zero length — the compiler's old arithmetic for one segment, bit for bit.
  float segmentParameter(std::uint32_t j, float t) const {
    const float a = time(j);
    const float b = time(j + 1);
    if (interp == CurveTableInterp::Step || !(a < b)) return b <= t ? 1.0f : 0.0f;
    if (interp == CurveTableInterp::Smooth) {
      float u = (t - a) / (b - a);
      u = u < 0.0f ? 0.0f : (u > 1.0f ? 1.0f : u);
      return u * u * (3.0f - 2.0f * u);
    }
    const float u = (t - a) * (1.0f / (b - a));
    const float m = u < 0.0f ? 0.0f : u;
    return 1.0f < m ? 1.0f : m;
  }
};

/// Where CURVE evaluates t (k >= 2 keys): the value is fma(d_segment, s, start) with start =
/// curveStart(). `first` <= `segment` is where the running sum starts: the segments before it have
/// parameter 1 at t, so their sum is the stored A_first exactly.
struct CurveSegment {
  std::uint32_t segment;
  std::uint32_t first;
  float s;
  float t;  ///< t, or the first key's time for a NaN t
};

/// The segment is the last key j in [0, k − 2] with time j <= t (0 when none), found by a
/// branch-free binary search, so of several keys at one time the last wins at that time. The
/// segments before it whose parameter is still below 1 at t (the rounding of a linear segment's
/// reciprocal can leave one a few ulps short just past its end) are summed in too, as the
/// arithmetic did. Key times finite and non-decreasing: the verifier's promise.
inline CurveSegment curveSegment(const CurveTable& c, float t) {
  if (t != t) t = c.time(0);
  std::uint32_t j = 0;
  for (std::uint32_t n = c.keys - 1; n > 1;) {
    const std::uint32_t half = n / 2;
    j = c.time(j + half) <= t ? j + half : j;
    n -= half;
  }
  // Only a linear segment can end below 1 (a step is 0 or 1; smooth divides, exact at its end).
  // Scan back over the unsaturated segments and through any run of keys at segment j's time (a
  // jump): segments that end earlier than that and reach 1 have all earlier ones at 1 too, unless
  // keys lie a few ulps apart (docs/compiler.md, "Curves").
  std::uint32_t first = j;
  if (c.interp == CurveTableInterp::Linear) {
    for (std::uint32_t i = j; i > 0; --i) {
      if (c.segmentParameter(i - 1, t) < 1.0f) {
        first = i - 1;
      } else if (c.time(i) != c.time(j)) {
        break;
      }
    }
  }
  return {j, first, c.segmentParameter(j, t), t};
}

/// Lane `lane` of the running sum where `seg`'s segment starts.
inline float curveStart(const CurveTable& c, const CurveSegment& seg, std::uint32_t lane) {
  float acc = c.value(seg.first, lane);
  for (std::uint32_t i = seg.first; i < seg.segment; ++i)
    acc = std::fma(c.delta(i, lane), c.segmentParameter(i, seg.t), acc);
  return acc;
}

/// The CURVE table of keys (time, value) with `width` lanes of value: the times, A_j and d_j as
/// isa.h lays them out. `keys` holds 1..kMaxCurveTableKeys pairs, times finite, non-decreasing.
inline std::vector<Lanes> curveTableOf(const std::vector<std::pair<float, Lanes>>& keys,
                                       std::uint32_t width) {
  const auto k = static_cast<std::uint32_t>(keys.size());
  std::vector<Lanes> table(curveTableEntries(k, width), Lanes{});
  const std::uint32_t values = curveRunEntries(k, 1);
  const std::uint32_t deltas = values + curveRunEntries(k, width);
  const auto put = [&](std::uint32_t run, std::uint32_t j, std::uint32_t lane, float v) {
    if (width == 1) {
      table[run + j / 4][j % 4] = v;
    } else {
      table[run + j][lane] = v;
    }
  };
  for (std::uint32_t j = 0; j < k; ++j)
    table[j / 4][j % 4] = keys[j].first;
  for (std::uint32_t lane = 0; lane < width; ++lane) {
    float running = keys[0].second[lane];
    put(values, 0, lane, running);
    for (std::uint32_t j = 0; j + 1 < k; ++j) {
      const float d = keys[j + 1].second[lane] - keys[j].second[lane];
      put(deltas, j, lane, d);
      running = running + d;
      put(values, j + 1, lane, running);
    }
  }
  return table;
}

/// CURVE for one particle: `width` lanes of the curve `c` at t.
inline Lanes curve(const CurveTable& c, float t) {
  Lanes out{};
  if (c.keys == 1) {
    for (std::uint32_t lane = 0; lane < c.width; ++lane)
      out[lane] = c.value(0, lane);
    return out;
  }
  const CurveSegment seg = curveSegment(c, t);
  for (std::uint32_t lane = 0; lane < c.width; ++lane)
    out[lane] = std::fma(c.delta(seg.segment, lane), seg.s, curveStart(c, seg, lane));
  return out;
}

}  // namespace mote::bytecode::semantics
