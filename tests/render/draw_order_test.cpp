// SPDX-License-Identifier: MIT
// The renderer's draw-order sort (src/render/draw_order.h) against std::stable_sort by key: the
// same order, equal keys in their first order, for key ranges of every width the digit choice
// distinguishes, below and above the 4,096 keys where the digits widen.
#include "draw_order.h"

#include <mote/core/prng.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace mote::render {
namespace {

TEST(DrawOrder, SortsLikeAStableSortByKey) {
  Prng prng(0xD4A3ull);
  for (const std::uint32_t n : {0u, 1u, 2u, 3u, 100u, 4095u, 4096u, 10000u, 70000u}) {
    for (const std::uint32_t width :
         {0u, 1u, 7u, 8u, 9u, 11u, 12u, 16u, 17u, 22u, 23u, 24u, 25u, 31u, 32u}) {
      const std::uint32_t spread = width >= 32 ? ~0u : (1u << width) - 1;
      const std::uint32_t base = width >= 32 ? 0u : prng.nextU32() & ~spread;
      std::vector<DrawKey> keys(n);
      KeyRange range;
      for (std::uint32_t i = 0; i < n; ++i) {
        // Few distinct keys half the time, so that equal keys are common.
        std::uint32_t offset = prng.nextU32() & spread;
        if ((i & 1u) != 0) offset &= spread & 0x303u;
        keys[i] = {base + offset, i};
        range.add(keys[i].key);
      }
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

}  // namespace
}  // namespace mote::render
