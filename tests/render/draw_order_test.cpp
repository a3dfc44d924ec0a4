// SPDX-License-Identifier: MIT
// The renderer's draw-order sort (src/render/draw_order.h) against std::stable_sort by key: the
// same order, equal keys in their first order, for key ranges of every width the digit choice
// distinguishes, below and above the 4,096 keys where the digits widen; and the parallel sort
// split sort against it on several thread counts.
#include "draw_order.h"

#include <mote/core/job_system.h>
#include <mote/core/prng.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace mote::render {
namespace {

// n keys {key(i), i}, in order of i; `range` takes them.
template <class Key>
std::vector<DrawKey> makeKeys(std::uint32_t n, KeyRange& range, Key key) {
  std::vector<DrawKey> keys(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    keys[i] = {key(i), i};
    range.add(keys[i].key);
  }
  return keys;
}

// n keys of `width` bits above a random base, with index i at i; every other key keeps only the
// offset bits of `shared`, so that equal keys (and shared digits) are common. `range` takes them.
std::vector<DrawKey> randomKeys(Prng& prng, std::uint32_t n, std::uint32_t width,
                                std::uint32_t shared, KeyRange& range) {
  const std::uint32_t spread = width >= 32 ? ~0u : (1u << width) - 1;
  const std::uint32_t base = width >= 32 ? 0u : prng.nextU32() & ~spread;
  return makeKeys(n, range, [&](std::uint32_t i) {
    std::uint32_t offset = prng.nextU32() & spread;
    if ((i & 1u) != 0) offset &= spread & shared;
    return base + offset;
  });
}

TEST(DrawOrder, SortsLikeAStableSortByKey) {
  Prng prng(0xD4A3ull);
  for (const std::uint32_t n : {0u, 1u, 2u, 3u, 100u, 4095u, 4096u, 10000u, 70000u}) {
    for (const std::uint32_t width :
         {0u, 1u, 7u, 8u, 9u, 11u, 12u, 16u, 17u, 22u, 23u, 24u, 25u, 31u, 32u}) {
      KeyRange range;
      std::vector<DrawKey> keys = randomKeys(prng, n, width, 0x303u, range);
      std::vector<DrawKey> expected = keys;
      std::stable_sort(expected.begin(), expected.end(),
                       [](const DrawKey& a, const DrawKey& b) { return a.key < b.key; });
      std::vector<DrawKey> scratch(n);
      sortDrawKeys(keys.data(), scratch.data(), n, range);
      for (std::uint32_t i = 0; i < n; ++i) {
        ASSERT_EQ(keys[i].key, expected[i].key) << "n " << n << " width " << width << " at " << i;
        ASSERT_EQ(keys[i].index, expected[i].index)
            << "n " << n << " width " << width << " at " << i;
      }
    }
  }
}

TEST(DrawOrder, AWiderRangeThanTheKeysSortsTheSame) {
  // The range need only contain the keys: a loose one sorts on more digits, to the same order.
  Prng prng(0x5EEDull);
  std::vector<DrawKey> keys(5000);
  for (std::uint32_t i = 0; i < keys.size(); ++i)
    keys[i] = {1000u + (prng.nextU32() & 0xffu), i};
  std::vector<DrawKey> loose = keys;
  std::vector<DrawKey> scratch(keys.size());
  sortDrawKeys(keys.data(), scratch.data(), keys.size(), {1000u, 1255u});
  sortDrawKeys(loose.data(), scratch.data(), loose.size(), {0u, ~0u});
  for (std::size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(keys[i].key, loose[i].key);
    EXPECT_EQ(keys[i].index, loose[i].index);
  }
}

TEST(DrawOrder, TheSplitSortGivesTheSerialOrderOnAnyThreadCount) {
  // From kSplitDrawKeys keys spanning more than 12 bits (kSplitDrawKeysAlone on one thread) the
  // keys are split into buckets by their top bits, in ranges on the threads, and the buckets
  // sorted apart; below that, and for narrow ranges, the serial sort runs. Widths of one pass a
  // bucket, of two, of 32 bits, keys up to 2^32 − 1 (the top bucket's end past it), a digit every
  // key shares, and equal keys.
  auto two = ThreadPool::create(2).takeValue();
  auto three = ThreadPool::create(3).takeValue();
  InlineJobSystem one;
  Prng prng(0x9A7Bull);
  const auto n = static_cast<std::uint32_t>(kSplitDrawKeysAlone + 12345);
  std::vector<DrawKey> scratch(n);
  for (const std::uint32_t width : {12u, 13u, 23u, 32u, 24u}) {
    KeyRange range;  // low and high digits shared by many keys
    std::vector<DrawKey> keys = randomKeys(prng, n, width, 0xF00Fu, range);
    if (width == 24u) {  // the top of the key space: [2^32 − 2^24, 2^32)
      range = {};
      for (DrawKey& k : keys) {
        k.key |= 0xFF000000u;
        range.add(k.key);
      }
    }
    // The reference: the serial sort (checked against std::stable_sort above).
    for (const std::uint32_t count : {n, static_cast<std::uint32_t>(kSplitDrawKeysAlone) - 1u,
                                      static_cast<std::uint32_t>(kSplitDrawKeys) + 3u,
                                      static_cast<std::uint32_t>(kSplitDrawKeys) - 1u}) {
      std::vector<DrawKey> reference(keys.begin(), keys.begin() + count);
      sortDrawKeys(reference.data(), scratch.data(), count, range);
      for (JobSystem* jobs :
           {static_cast<JobSystem*>(two.get()), static_cast<JobSystem*>(three.get()),
            static_cast<JobSystem*>(&one)}) {
        std::vector<std::uint32_t> counts(4 * kDrawKeyBuckets);
        std::vector<DrawKey> sorted(keys.begin(), keys.begin() + count);
        sortDrawKeys(*jobs, sorted.data(), scratch.data(), count, range, counts);
        for (std::uint32_t i = 0; i < count; ++i) {
          ASSERT_EQ(sorted[i].key, reference[i].key)
              << "threads " << jobs->concurrency() << " width " << width << " at " << i;
          ASSERT_EQ(sorted[i].index, reference[i].index)
              << "threads " << jobs->concurrency() << " width " << width << " at " << i;
        }
      }
    }
  }
}

TEST(DrawOrder, KeysCrowdedIntoOneBucketSortTheSame) {
  // One far key stretches the range; the rest share the first top digit.
  auto pool = ThreadPool::create(2).takeValue();
  Prng prng(0x77ull);
  const auto n = static_cast<std::uint32_t>(kSplitDrawKeys + 7);
  KeyRange range;
  std::vector<DrawKey> keys = makeKeys(n, range, [&](std::uint32_t i) {
    return i == n / 2 ? 0x80000000u : prng.nextU32() & 0xFFFFu;
  });
  std::vector<DrawKey> expected = keys;
  std::stable_sort(expected.begin(), expected.end(),
                   [](const DrawKey& a, const DrawKey& b) { return a.key < b.key; });
  std::vector<DrawKey> scratch(n);
  std::vector<std::uint32_t> counts(2 * kDrawKeyBuckets);
  sortDrawKeys(*pool, keys.data(), scratch.data(), n, range, counts);
  for (std::uint32_t i = 0; i < n; ++i)
    ASSERT_EQ(keys[i].index, expected[i].index) << "at " << i;
}

TEST(DrawOrder, TheSplitSortUsesNoMoreRangesThanItHasCountersFor) {
  // Counters for no range: the serial sort; for one: the split on one thread, whatever the
  // thread count.
  auto pool = ThreadPool::create(4).takeValue();
  Prng prng(0x11ull);
  const auto n = static_cast<std::uint32_t>(kSplitDrawKeysAlone + 1);
  KeyRange range;
  const std::vector<DrawKey> keys =
      makeKeys(n, range, [&](std::uint32_t) { return prng.nextU32() >> 8; });
  std::vector<DrawKey> expected = keys;
  std::vector<DrawKey> scratch(n);
  sortDrawKeys(expected.data(), scratch.data(), n, range);
  for (const std::size_t buckets : {std::size_t{0}, kDrawKeyBuckets, 2 * kDrawKeyBuckets - 1}) {
    std::vector<DrawKey> sorted = keys;
    std::vector<std::uint32_t> counts(buckets + 1);  // never written past
    counts.back() = 0xC0FFEEu;
    sortDrawKeys(*pool, sorted.data(), scratch.data(), n, range,
                 std::span<std::uint32_t>(counts.data(), buckets));
    EXPECT_EQ(counts.back(), 0xC0FFEEu);
    for (std::uint32_t i = 0; i < n; ++i)
      ASSERT_EQ(sorted[i].index, expected[i].index) << "counters " << buckets << " at " << i;
  }
}

}  // namespace
}  // namespace mote::render
