// SPDX-License-Identifier: MIT
// The renderer's draw-order sort (draw_order.h).
#include "draw_order.h"

#include <array>
#include <bit>
#include <cstring>
#include <utility>

namespace mote::render {
namespace {

// Stable LSD radix sort of keys[0, n) on Digits digits of Bits bits of key − lo (a digit every key
// shares skips its pass). One read counts all digits; the passes alternate between keys and
// scratch.
template <std::uint32_t Bits, std::uint32_t Digits>
void sortDigits(DrawKey* keys, DrawKey* scratch, std::size_t n, std::uint32_t lo) {
  static_assert((Digits - 1) * Bits < 32);
  constexpr std::uint32_t kRadix = 1u << Bits;
  constexpr std::uint32_t kMask = kRadix - 1;
  std::array<std::array<std::uint32_t, kRadix>, Digits> count{};
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t key = keys[i].key - lo;
    for (std::uint32_t d = 0; d < Digits; ++d)
      ++count[d][(key >> (d * Bits)) & kMask];
  }
  DrawKey* from = keys;
  DrawKey* to = scratch;
  for (std::uint32_t d = 0; d < Digits; ++d) {
    std::array<std::uint32_t, kRadix>& offset = count[d];
    if (offset[((keys[0].key - lo) >> (d * Bits)) & kMask] == n) continue;
    std::uint32_t sum = 0;
    for (std::uint32_t& c : offset) {
      const std::uint32_t here = c;
      c = sum;
      sum += here;
    }
    for (std::size_t i = 0; i < n; ++i)
      to[offset[((from[i].key - lo) >> (d * Bits)) & kMask]++] = from[i];
    std::swap(from, to);
  }
  if (from != keys) std::memcpy(keys, from, n * sizeof(DrawKey));
}

}  // namespace

void sortDrawKeys(DrawKey* keys, DrawKey* scratch, std::size_t n, KeyRange range) noexcept {
  if (n < 2 || range.lo >= range.hi) return;  // one key, or all equal: already in order
  const auto width = static_cast<std::uint32_t>(std::bit_width(range.hi - range.lo));
  // 11- and 12-bit digits once n dwarfs their counters (from 4,096 keys), 8-bit ones below.
  if (n >= 4096) {
    if (width <= 11) {
      sortDigits<11, 1>(keys, scratch, n, range.lo);
    } else if (width <= 22) {
      sortDigits<11, 2>(keys, scratch, n, range.lo);
    } else if (width <= 24) {
      sortDigits<12, 2>(keys, scratch, n, range.lo);
    } else {
      sortDigits<11, 3>(keys, scratch, n, range.lo);
    }
  } else if (width <= 8) {
    sortDigits<8, 1>(keys, scratch, n, range.lo);
  } else if (width <= 16) {
    sortDigits<8, 2>(keys, scratch, n, range.lo);
  } else if (width <= 24) {
    sortDigits<8, 3>(keys, scratch, n, range.lo);
  } else {
    sortDigits<8, 4>(keys, scratch, n, range.lo);
  }
}

}  // namespace mote::render
