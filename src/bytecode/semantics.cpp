// SPDX-License-Identifier: MIT
// sinCosLarge: the exact argument reduction for the angles sinCos does not reduce in double.
#include <mote/bytecode/semantics.h>

#include <bit>
#include <cmath>
#include <cstdint>

namespace mote::bytecode::semantics {
namespace {

// 2/π in binary, most significant bit first, after one byte of zeros (the bits of weight 2^0 to
// 2^-7; 2/π < 1): 312 bits, enough for every float exponent.
constexpr std::uint8_t kTwoOverPiBits[40] = {
    0x00, 0xa2, 0xf9, 0x83, 0x6e, 0x4e, 0x44, 0x15, 0x29, 0xfc, 0x27, 0x57, 0xd1, 0xf5,
    0x34, 0xdd, 0xc0, 0xdb, 0x62, 0x95, 0x99, 0x3c, 0x43, 0x90, 0x41, 0xfe, 0x51, 0x63,
    0xab, 0xde, 0xbb, 0xc5, 0x61, 0xb7, 0x24, 0x6e, 0x3a, 0x42, 0x4d, 0xd2};

__extension__ typedef unsigned __int128 U128;  // GCC and clang

// The 128 bits of kTwoOverPiBits from bit `at` on.
U128 bitsFrom(std::uint32_t at) {
  const std::uint32_t byte = at / 8;
  const std::uint32_t skip = at % 8;
  U128 w = 0;
  for (std::uint32_t k = 0; k < 16; ++k)
    w = (w << 8) | kTwoOverPiBits[byte + k];
  return (w << skip) | (kTwoOverPiBits[byte + 16] >> (8 - skip));
}

}  // namespace

SinCos sinCosLarge(float x) noexcept {
  const auto bits = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t biased = (bits >> 23) & 0xFFu;
  if (biased == 0xFFu) return {x - x, x - x};                // inf: NaN; NaN stays NaN
  if (std::fabs(x) <= trig::kReduceLimit) return sinCos(x);  // not ours: the double reduction
  // |x| = m · 2^e with a 24-bit m (|x| > 2^20, so x is normal and e >= -3).
  const std::uint64_t m = (bits & 0x7FFFFFu) | 0x800000u;
  const int e = static_cast<int>(biased) - 150;
  // |x| · 2/π = m · Σ t_i 2^(e − i) over 2/π's bits t_i (weight 2^-i). The terms i < e − 1 are
  // multiples of 4 (whole turns): the 128 bits from i = e − 1 on, W, give |x| · 2/π ≡ m · W ·
  // 2^-126 (mod 4), short by less than 2^-102. Bit i is kTwoOverPiBits' bit i + 7.
  const U128 p = m * bitsFrom(static_cast<std::uint32_t>(e - 1 + 7));  // mod 2^128: mod 4 turns
  std::uint64_t q = static_cast<std::uint64_t>(p >> 126);              // quadrants
  const U128 fraction = p << 2;                                        // the rest, · 2^128
  q += static_cast<std::uint64_t>(fraction >> 127);  // past half a quadrant: the next one, r < 0
  const auto high = static_cast<std::int64_t>(static_cast<std::uint64_t>(fraction >> 64));
  double r = static_cast<double>(high) * trig::kHalfPiTimes2ToMinus64;
  if ((bits >> 31) != 0) {  // sin(−x) = −sin x, cos(−x) = cos x: the quadrant and r negated
    q = 0u - q;
    r = -r;
  }
  return trig::fromQuadrant(r, q);
}

}  // namespace mote::bytecode::semantics
