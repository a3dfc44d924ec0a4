// SPDX-License-Identifier: MIT
// Differential fuzzer: Fpx16_16 arithmetic against exact 128-bit rational reference arithmetic, and
// the Prng's range contract. Any mismatch traps.
#include <mote/core/fixed.h>
#include <mote/core/prng.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

using I128 = __int128;
constexpr I128 kMax = 2147483647;
constexpr I128 kMin = -2147483648LL;

I128 saturate(I128 v) {
  return v > kMax ? kMax : (v < kMin ? kMin : v);
}

// Exact round-to-nearest-even of num / den, den > 0, on 128-bit integers (floor-based, independent
// of the implementation under test, which works on sign and magnitude).
I128 divRoundEven(I128 num, I128 den) {
  I128 q = num / den;
  I128 r = num % den;
  if (r < 0) {  // make it floor division
    q -= 1;
    r += den;
  }
  if (2 * r > den || (2 * r == den && (q & 1) != 0)) q += 1;
  return q;
}

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 8) return 0;
  std::int32_t a = 0;
  std::int32_t b = 0;
  std::memcpy(&a, data, 4);
  std::memcpy(&b, data + 4, 4);
  const auto fa = mote::Fpx16_16::fromRaw(a);
  const auto fb = mote::Fpx16_16::fromRaw(b);

  check((fa + fb).raw() == saturate(I128{a} + b));
  check((fa - fb).raw() == saturate(I128{a} - b));
  check((-fa).raw() == saturate(-I128{a}));
  check((fa * fb).raw() == saturate(divRoundEven(I128{a} * b, 65536)));
  if (b != 0) {
    const I128 num = I128{a} * 65536 * (b < 0 ? -1 : 1);
    const I128 den = b < 0 ? -I128{b} : I128{b};
    check((fa / fb).raw() == saturate(divRoundEven(num, den)));
  } else {
    check((fa / fb).raw() == (a > 0 ? kMax : (a < 0 ? kMin : 0)));
  }
  check(fa.toInt32() == divRoundEven(a, 65536));
  check((fa < fb) == (a < b));

  // fromFloat(toFloat(x)) is the identity where toFloat is exact (|raw| < 2^24).
  if (a > -(1 << 24) && a < (1 << 24)) check(mote::Fpx16_16::fromFloat(fa.toFloat()) == fa);

  // fromFloat and Fp32::toInt32 on arbitrary float bits against exact rational rounding:
  // f = m · 2^e with an integer m (|m| < 2^24), so f · 2^k rounds exactly in 128-bit integers.
  {
    float f = 0.0f;
    std::memcpy(&f, data, 4);
    if (std::isfinite(f)) {
      int e = 0;
      const float mantissa = std::frexp(f, &e);  // f = mantissa · 2^e, |mantissa| in [0.5, 1)
      const auto m = static_cast<I128>(std::ldexp(mantissa, 24));  // exact
      e -= 24;                                                     // f = m · 2^e
      const auto scaled = [&](int k) -> I128 {  // round(f · 2^k), ties to even, clamped to ±2^40
        const int shift = e + k;
        if (shift >= 0)
          return shift > 40 ? (m < 0 ? -(I128{1} << 80) : (I128{1} << 80)) : m << shift;
        if (shift < -100) return 0;
        return divRoundEven(m, I128{1} << -shift);
      };
      check(mote::Fpx16_16::fromFloat(f).raw() == saturate(scaled(16)));
      check(mote::Fp32::fromFloat(f).toInt32() == saturate(scaled(0)));
    }
  }

  // lerpTap24: a + round((b − a) · u / 2^24), ties to even, always between a and b.
  if (size >= 12) {
    std::uint32_t u = 0;
    std::memcpy(&u, data + 8, 4);
    u &= 0xFFFFFFu;
    const auto lerp = mote::Fpx16_16::lerpTap24(fa, fb, u);
    check(lerp.raw() == I128{a} + divRoundEven((I128{b} - a) * u, I128{1} << 24));
    check(lerp.raw() >= (a < b ? a : b) && lerp.raw() <= (a < b ? b : a));
  }

  // The Prng's range contract: nextRange(lo, hi) lies in [lo, hi).
  if (size >= 24) {
    std::uint64_t seed = 0;
    std::memcpy(&seed, data + 8, 8);
    std::uint32_t lo = 0;
    std::uint32_t hi = 0;
    std::memcpy(&lo, data + 16, 4);
    std::memcpy(&hi, data + 20, 4);
    if (lo < hi) {
      mote::Prng prng(seed);
      for (int i = 0; i < 4; ++i) {
        const std::uint32_t v = prng.nextRange(lo, hi);
        check(v >= lo && v < hi);
      }
    }
  }
  return 0;
}
