// SPDX-License-Identifier: MIT
// The renderer's draw-order sort (src/render/draw_order.h) against std::stable_sort by key: the
// same order, equal keys in their first order, for key ranges of every width the digit choice
// distinguishes, below and above the 4,096 keys where the digits widen; and the parallel sort
// against the serial one on several thread counts.
#include "draw_order.h"

#include <mote/core/job_system.h>
#include <mote/core/prng.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace mote::render {
namespace {

// n keys of `width` bits above a random base, with index i at i; every other key keeps only the
// offset bits of `shared`, so that equal keys (and shared digits) are common. `range` takes them.
std::vector<DrawKey> randomKeys(Prng& prng, std::uint32_t n, std::uint32_t width,
                                std::uint32_t shared, KeyRange& range) {
  const std::uint32_t spread = width >= 32 ? ~0u : (1u << width) - 1;
  const std::uint32_t base = width >= 32 ? 0u : prng.nextU32() & ~spread;
  std::vector<DrawKey> keys(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint32_t offset = prng.nextU32() & spread;
    if ((i & 1u) != 0) offset &= spread & shared;
    keys[i] = {base + offset, i};
    range.add(keys[i].key);
  }
  return keys;
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

TEST(DrawOrder, TheParallelSortGivesTheSerialOrderOnAnyThreadCount) {
  // Past kParallelDrawKeys the passes run in ranges; below it, and on one thread, the serial sort
  // runs. Widths of one pass, two and three, a digit every key shares (skipped), and equal keys.
  auto two = ThreadPool::create(2).takeValue();
  auto three = ThreadPool::create(3).takeValue();
  InlineJobSystem one;
  Prng prng(0x9A7Bull);
  const auto n = static_cast<std::uint32_t>(kParallelDrawKeys + 12345);
  std::vector<DrawKey> scratch(n);
  for (const std::uint32_t width : {1u, 12u, 23u, 32u}) {
    KeyRange range;  // low and high digits shared by many keys
    const std::vector<DrawKey> keys = randomKeys(prng, n, width, 0xF00Fu, range);
    std::vector<DrawKey> expected = keys;
    sortDrawKeys(expected.data(), scratch.data(), n, range);
    ASSERT_TRUE(std::is_sorted(expected.begin(), expected.end(),
                               [](const DrawKey& a, const DrawKey& b) { return a.key < b.key; }));
    for (JobSystem* jobs : {static_cast<JobSystem*>(two.get()),
                            static_cast<JobSystem*>(three.get()), static_cast<JobSystem*>(&one)}) {
      for (const std::uint32_t count : {n, static_cast<std::uint32_t>(kParallelDrawKeys) - 1u}) {
        std::vector<std::uint32_t> counts(4 * kDrawKeyBuckets);
        std::vector<DrawKey> sorted(keys.begin(), keys.begin() + count);
        std::vector<DrawKey> reference = sorted;
        sortDrawKeys(reference.data(), scratch.data(), count, range);
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

TEST(DrawOrder, TheParallelSortUsesNoMoreRangesThanItHasCountersFor) {
  // Counters for one range: the serial sort, whatever the thread count.
  auto pool = ThreadPool::create(4).takeValue();
  Prng prng(0x11ull);
  const auto n = static_cast<std::uint32_t>(kParallelDrawKeys + 1);
  std::vector<DrawKey> keys(n);
  KeyRange range;
  for (std::uint32_t i = 0; i < n; ++i) {
    keys[i] = {prng.nextU32() >> 8, i};
    range.add(keys[i].key);
  }
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
