// SPDX-License-Identifier: MIT
// The renderer's draw-order sort (draw_order.h).
#include "draw_order.h"

#include <mote/core/job_system.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <utility>

namespace mote::render {
namespace {

// A key and its index as one 64-bit word (one load and one store per move), and the key back.
std::uint64_t word(const DrawKey& k) {
  std::uint64_t w = 0;
  std::memcpy(&w, &k, sizeof w);
  return w;
}

std::uint32_t keyOf(std::uint64_t w) {
  DrawKey k;
  std::memcpy(&k, &w, sizeof k);
  return k.key;
}

// Stable LSD radix sort of keys[0, n) on Digits digits of key − lo, `width` bits in all, split
// evenly (the low digits take the odd bits), each at most MaxBits. A digit every key shares skips
// its pass. One read counts all digits; the passes alternate between keys and scratch.
template <std::uint32_t MaxBits, std::uint32_t Digits>
void sortDigits(DrawKey* keys, DrawKey* scratch, std::size_t n, std::uint32_t lo,
                std::uint32_t width) {
  std::array<std::uint32_t, Digits> shift{};
  std::array<std::uint32_t, Digits> mask{};
  std::array<std::array<std::uint32_t, 1u << MaxBits>, Digits> count;
  for (std::uint32_t d = 0, at = 0; d < Digits; ++d) {
    const std::uint32_t bits = (width - at + (Digits - d) - 1) / (Digits - d);
    shift[d] = at;
    mask[d] = (1u << bits) - 1;
    std::fill_n(count[d].begin(), mask[d] + 1, 0u);
    at += bits;
  }
  // Digit D of a key − lo: the lowest needs no shift, the highest no mask (key − lo < 2^width).
  const auto digit = [&]<std::uint32_t D>(std::uint32_t key) {
    const std::uint32_t shifted = D == 0 ? key : key >> shift[D];
    return D + 1 == Digits ? shifted : shifted & mask[D];
  };
#pragma GCC unroll 4
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t key = keys[i].key - lo;
    [&]<std::uint32_t... D>(std::integer_sequence<std::uint32_t, D...>) {
      (++count[D][digit.template operator()<D>(key)], ...);
    }
    (std::make_integer_sequence<std::uint32_t, Digits>{});
  }
  DrawKey* from = keys;
  DrawKey* to = scratch;
  const auto pass = [&]<std::uint32_t D>() {
    std::uint32_t* offset = count[D].data();
    if (offset[digit.template operator()<D>(keys[0].key - lo)] == n) return;
    std::uint32_t sum = 0;
    const std::uint32_t buckets = mask[D] + 1;
#pragma GCC unroll 4
    for (std::uint32_t b = 0; b < buckets; ++b) {
      const std::uint32_t here = offset[b];
      offset[b] = sum;
      sum += here;
    }
#pragma GCC unroll 4
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t w = word(from[i]);
      const std::uint32_t at = offset[digit.template operator()<D>(keyOf(w) - lo)]++;
      std::memcpy(to + at, &w, sizeof w);
    }
    std::swap(from, to);
  };
  [&]<std::uint32_t... D>(std::integer_sequence<std::uint32_t, D...>) {
    (pass.template operator()<D>(), ...);
  }
  (std::make_integer_sequence<std::uint32_t, Digits>{});
  if (from != keys) std::memcpy(keys, from, n * sizeof(DrawKey));
}

using SortFn = void (*)(DrawKey*, DrawKey*, std::size_t, std::uint32_t, std::uint32_t);
// Digits of up to 12 bits once n dwarfs their counters (from 4,096 keys: 10k depth keys of 23
// bits take two passes instead of three), of up to 8 bits below.
constexpr std::array<SortFn, 3> kWide{sortDigits<12, 1>, sortDigits<12, 2>, sortDigits<12, 3>};
constexpr std::array<SortFn, 4> kNarrow{sortDigits<8, 1>, sortDigits<8, 2>, sortDigits<8, 3>,
                                        sortDigits<8, 4>};

}  // namespace

void sortDrawKeys(DrawKey* keys, DrawKey* scratch, std::size_t n, KeyRange range) noexcept {
  if (n < 2 || range.lo >= range.hi) return;  // one key, or all equal: already in order
  const auto width = static_cast<std::uint32_t>(std::bit_width(range.hi - range.lo));
  if (n >= 4096) {
    kWide[(width - 1) / 12](keys, scratch, n, range.lo, width);
  } else {
    kNarrow[(width - 1) / 8](keys, scratch, n, range.lo, width);
  }
}

void sortDrawKeys(JobSystem& jobs, DrawKey* keys, DrawKey* scratch, std::size_t n, KeyRange range,
                  std::span<std::uint32_t> counts) noexcept {
  const std::size_t ranges =
      std::min<std::size_t>(jobs.concurrency(), counts.size() / kDrawKeyBuckets);
  const auto width =
      range.lo < range.hi ? static_cast<std::uint32_t>(std::bit_width(range.hi - range.lo)) : 0u;
  // Measured on one and on two threads (docs/performance-history.md): below these the split's extra
  // pass and its buckets' counters cost more than the cache misses they save.
  if (n < (ranges > 1 ? kSplitDrawKeys : kSplitDrawKeysAlone) || ranges == 0 || width <= 12) {
    sortDrawKeys(keys, scratch, n, range);
    return;
  }
  // The top digit (kTopBits of key − lo) splits the keys into buckets, stably, from keys into
  // scratch: each range counts its keys' digits, the counts are summed in (digit, range) order,
  // and each range moves its keys.
  constexpr std::uint32_t kTopBits = 8;
  constexpr std::uint32_t kBuckets = 1u << kTopBits;
  const std::uint32_t shift = width - kTopBits;
  const std::uint32_t lo = range.lo;
  const auto top = [lo, shift](std::uint32_t key) { return (key - lo) >> shift; };
  const std::size_t step = (n + ranges - 1) / ranges;
  const std::size_t used = parallelForChunkCount(n, step);
  parallelFor(jobs, n, step, [&](std::size_t begin, std::size_t end) {
    std::uint32_t* count = counts.data() + begin / step * kDrawKeyBuckets;
    std::fill_n(count, kBuckets, 0u);
#pragma GCC unroll 4
    for (std::size_t i = begin; i < end; ++i)
      ++count[top(keys[i].key)];
  });
  std::array<std::uint32_t, kBuckets + 1> start{};
  std::uint32_t sum = 0;
  for (std::uint32_t b = 0; b < kBuckets; ++b) {
    start[b] = sum;
    for (std::size_t r = 0; r < used; ++r) {
      std::uint32_t& c = counts[r * kDrawKeyBuckets + b];
      const std::uint32_t here = c;
      c = sum;
      sum += here;
    }
  }
  start[kBuckets] = sum;
  parallelFor(jobs, n, step, [&](std::size_t begin, std::size_t end) {
    // Locals: the stores cannot make the compiler reload them through the closure.
    std::uint32_t* const offset = counts.data() + begin / step * kDrawKeyBuckets;
    const DrawKey* const from = keys;
    DrawKey* const to = scratch;
    const auto digit = top;
#pragma GCC unroll 4
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint64_t w = word(from[i]);
      std::memcpy(to + offset[digit(keyOf(w))]++, &w, sizeof w);
    }
  });
  // Each bucket, a few thousand keys that fit the core's cache, sorted on its own lower bits and
  // copied back: buckets are claimed a few at a time by whichever thread is free.
  parallelFor(jobs, kBuckets, 4, [&](std::size_t first, std::size_t last) {
    for (std::size_t b = first; b < last; ++b) {
      const std::uint32_t begin = start[b];
      const std::uint32_t size = start[b + 1] - begin;
      if (size == 0) continue;
      KeyRange bucket;
      bucket.lo = lo + (static_cast<std::uint32_t>(b) << shift);
      // The bucket's last key, bucket.lo + 2^shift − 1, may lie past 2^32 − 1 (the top bucket
      // of keys near it): no further than range.hi.
      bucket.hi = static_cast<std::uint32_t>(std::min<std::uint64_t>(
          range.hi, std::uint64_t{bucket.lo} + (std::uint64_t{1} << shift) - 1));
      sortDrawKeys(scratch + begin, keys + begin, size, bucket);
      std::memcpy(keys + begin, scratch + begin, std::size_t{size} * sizeof(DrawKey));
    }
  });
}

}  // namespace mote::render
