// SPDX-License-Identifier: MIT
// Mote's own exp, log, pow and cbrt (semantics.h, namespace math): double add, subtract and
// multiply in the order written, table lookups and integer operations, one rounding to float.
// The GPU runs the same sequence in fp64 (ARCHITECTURE.md §10), so the order below is the
// definition: do not reassociate, and keep -ffp-contract=off.
#include <mote/bytecode/semantics.h>

#include <bit>
#include <cstdint>
#include <limits>

namespace mote::bytecode::semantics {
namespace math {
namespace {

// 2^k for the exponents expOf and cubeRoot scale by (|k| < 1023: a normal double, exact).
double twoTo(std::int64_t k) {
  return std::bit_cast<double>(static_cast<std::uint64_t>(k + 1023) << 52);
}

}  // namespace

double expOf(double y) noexcept {
  // n = y · 64/ln 2 rounded to an integer (ties to even); r = y − n · ln 2/64 in two steps, the
  // first exact; |r| <= ln 2/128 but for the rounding of the product.
  const double shifted = y * kExpInverseStep + trig::kRoundShift;
  const double n = shifted - trig::kRoundShift;
  const double r = (y - n * kExpStep[0]) - n * kExpStep[1];
  const auto ni = static_cast<std::int64_t>(std::bit_cast<std::uint64_t>(shifted) -
                                            std::bit_cast<std::uint64_t>(trig::kRoundShift));
  const double r2 = r * r;
  double p = kExpPoly[4];
  for (std::size_t c = 4; c-- > 0;)
    p = kExpPoly[c] + r * p;
  // e^y = 2^(n >> 6) · t · e^r, with t = 2^((n & 63)/64) and e^r = 1 + (r + r² · p).
  const double t = kExp2Steps[static_cast<std::size_t>(ni & 63)];
  const double v = t + t * (r + r2 * p);
  return v * twoTo(ni >> 6);
}

double logOf(double x) noexcept {
  // x = 2^k · z with z in [kLogOffset, 2 · kLogOffset) as bits; k from the offset bits' top.
  const auto u = std::bit_cast<std::uint64_t>(x);
  const std::uint64_t tmp = u - kLogOffset;
  const auto i = static_cast<std::size_t>((tmp >> 45) & 127u);
  const auto k = static_cast<double>(static_cast<std::int64_t>(tmp) >> 52);
  const double z = std::bit_cast<double>(u - (tmp & 0xFFF0000000000000u));
  // z · (1 / c) has at most 48 significant bits and lies within 2^-7 of 1: r is exact.
  const double r = z * kLogInverse[i] - 1.0;
  const double r2 = r * r;
  double p = kLogPoly[6];
  for (std::size_t c = 6; c-- > 0;)
    p = kLogPoly[c] + r * p;
  // ln x = (k · ln2_hi + ln c) + (r + (r² · p + k · ln2_lo)); the first product is exact.
  const double hi = k * kLn2[0] + kLogOfC[i];
  return hi + (r + (r2 * p + k * kLn2[1]));
}

}  // namespace math

float exponential(float x) noexcept {
  if (x != x) return x + x;
  const auto y = static_cast<double>(x);
  if (y > math::kExpOverflow) return std::numeric_limits<float>::infinity();
  if (y < math::kExpUnderflow) return 0.0f;
  return static_cast<float>(math::expOf(y));
}

float logarithm(float x) noexcept {
  if (x != x) return x + x;
  if (x < 0.0f) return std::numeric_limits<float>::quiet_NaN();
  if (x == 0.0f) return -std::numeric_limits<float>::infinity();
  if (x == std::numeric_limits<float>::infinity()) return x;
  return static_cast<float>(math::logOf(static_cast<double>(x)));
}

float power(float a, float b) noexcept {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  if (b == 0.0f || a == 1.0f) return 1.0f;
  if (a != a || b != b) return a + b;
  const auto ua = std::bit_cast<std::uint32_t>(a);
  const float absA = std::bit_cast<float>(ua & 0x7FFFFFFFu);
  const std::uint32_t ub = std::bit_cast<std::uint32_t>(b) & 0x7FFFFFFFu;
  if (ub == 0x7F800000u) {  // b = ±inf: |a| = 1 gives 1, otherwise 0 or inf
    if (absA == 1.0f) return 1.0f;
    return (absA < 1.0f) == (b < 0.0f) ? kInf : 0.0f;
  }
  // b finite and not zero: an integer when no fraction bit is set (every |b| >= 2^23 is one),
  // odd when its units bit is set.
  const std::uint32_t biased = ub >> 23;
  const std::uint32_t mantissa = (ub & 0x7FFFFFu) | 0x800000u;
  const bool integer =
      biased >= 150u || (biased >= 127u && (mantissa & ((1u << (150u - biased)) - 1u)) == 0u);
  const bool odd = integer && biased <= 150u && ((mantissa >> (150u - biased)) & 1u) != 0u;
  const bool negate = (ua >> 31) != 0u && odd;
  const auto withSign = [negate](float v) { return negate ? -v : v; };
  if (absA == 0.0f) return withSign(b < 0.0f ? kInf : 0.0f);
  if (absA == kInf) return withSign(b < 0.0f ? 0.0f : kInf);
  if ((ua >> 31) != 0u && !integer) return std::numeric_limits<float>::quiet_NaN();
  const double y = static_cast<double>(b) * math::logOf(static_cast<double>(absA));
  if (y > math::kExpOverflow) return withSign(kInf);
  if (y < math::kExpUnderflow) return withSign(0.0f);
  return withSign(static_cast<float>(math::expOf(y)));
}

float cubeRoot(float x) noexcept {
  const auto ux = std::bit_cast<std::uint32_t>(x);
  if (x == 0.0f || (ux & 0x7F800000u) == 0x7F800000u) return x + x;  // ±0, ±inf, NaN
  // |x| = 2^(3q + s) · m, m in [1, 2), s in {0, 1, 2} (subnormal floats are normal doubles).
  const auto u =
      std::bit_cast<std::uint64_t>(static_cast<double>(std::bit_cast<float>(ux & 0x7FFFFFFFu)));
  const std::int64_t biased = static_cast<std::int64_t>(u >> 52) - 1023 + 150;  // 1..277
  const std::int64_t q = biased / 3 - 50;
  const std::int64_t s = biased % 3;
  const auto i = static_cast<std::size_t>((u >> 45) & 127u);
  const double m = std::bit_cast<double>((u & 0x000FFFFFFFFFFFFFu) | 0x3FF0000000000000u);
  // cbrt(2^s · m) = cbrt(2^s · c) · (1 + r)^(1/3), r = m · (1/c) − 1 exact (48 bits, near 1).
  const double r = m * math::kCbrtInverse[i] - 1.0;
  double p = math::kCbrtPoly[5];
  for (std::size_t c = 5; c-- > 0;)
    p = math::kCbrtPoly[c] + r * p;
  const double t = math::kCbrtScale[static_cast<std::size_t>(128 * s) + i];
  const auto f = static_cast<float>((t + t * (r * p)) * math::twoTo(q));
  return (ux >> 31) != 0u ? -f : f;
}

}  // namespace mote::bytecode::semantics
