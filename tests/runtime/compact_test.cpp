// SPDX-License-Identifier: MIT
// The kill-compaction kernel (src/runtime/compact.h) against the plain loop that copies the
// survivors in order: on every SIMD target, for every count and first killed particle around the
// vector widths, for kill patterns from none to all, every stream and the ids come out the same.
#include "compact.h"

#include <gtest/gtest.h>
#include <hwy/targets.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

namespace mote {
namespace {

using runtime_detail::CompactInput;
using runtime_detail::kCompactLanes;

constexpr std::uint32_t kMost = 70;
constexpr std::uint32_t kRoom = (kMost + kCompactLanes - 1) / kCompactLanes * kCompactLanes;
constexpr std::size_t kWords = 3;

// Kill patterns by name: none, all, every other, every third, runs of five, random halves.
std::vector<std::uint8_t> pattern(int kind, std::mt19937& rng) {
  std::vector<std::uint8_t> killed(kRoom, 0);
  for (std::uint32_t i = 0; i < kRoom; ++i) {
    switch (kind) {
      case 0:
        break;
      case 1:
        killed[i] = 1;
        break;
      case 2:
        killed[i] = i % 2 == 0 ? 1 : 0;
        break;
      case 3:
        killed[i] = i % 3 == 1 ? 0xff : 0;
        break;  // any nonzero byte kills
      case 4:
        killed[i] = (i / 5) % 2 == 1 ? 1 : 0;
        break;
      default:
        killed[i] = static_cast<std::uint8_t>(rng() & 1u);
        break;
    }
  }
  return killed;
}

TEST(CompactKernel, KeepsTheSurvivorsInOrderOnEverySimdTarget) {
  std::mt19937 rng(5);
  std::size_t cases = 0;
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    SCOPED_TRACE(hwy::TargetName(target));
    hwy::SetSupportedTargetsForTest(target);
    for (int kind = 0; kind < 8; ++kind) {
      const std::vector<std::uint8_t> killed = pattern(kind, rng);
      for (std::uint32_t count = 0; count <= kMost; ++count) {
        std::uint32_t firstKilled = 0;
        while (firstKilled < count && killed[firstKilled] == 0)
          ++firstKilled;
        // Any `first` up to the first killed particle is a valid input.
        for (const std::uint32_t first : {0u, firstKilled / 2, firstKilled}) {
          std::array<std::vector<float>, kWords> words;
          std::vector<std::uint32_t> ids(kRoom);
          std::vector<std::uint32_t> sources(kRoom);  // a trail's, moved with the ids
          const bool withSources = (count + first) % 2 == 0;
          for (std::size_t w = 0; w < kWords; ++w) {
            words[w].resize(kRoom);
            for (std::uint32_t i = 0; i < kRoom; ++i)
              words[w][i] = static_cast<float>(w * 1000 + i) + 0.5f;
          }
          for (std::uint32_t i = 0; i < kRoom; ++i) {
            ids[i] = 7000 + i;
            sources[i] = 90000 + 3 * i;
          }
          std::array<std::vector<float>, kWords> want;
          std::vector<std::uint32_t> wantIds;
          for (std::uint32_t i = 0; i < count; ++i) {
            if (killed[i] != 0) continue;
            for (std::size_t w = 0; w < kWords; ++w)
              want[w].push_back(words[w][i]);
            wantIds.push_back(ids[i]);
          }
          std::array<float*, kWords> streams{words[0].data(), words[1].data(), words[2].data()};
          const std::uint32_t n = runtime_detail::compactInOrder(
              CompactInput{.streams = streams,
                           .ids = ids.data(),
                           .sources = withSources ? sources.data() : nullptr,
                           .killed = killed.data(),
                           .count = count,
                           .first = first});
          ASSERT_EQ(n, wantIds.size())
              << "kind " << kind << " count " << count << " first " << first;
          for (std::uint32_t i = 0; i < n; ++i) {
            ASSERT_EQ(ids[i], wantIds[i]) << "kind " << kind << " count " << count << " at " << i;
            if (withSources) {
              ASSERT_EQ(sources[i], 90000 + 3 * (ids[i] - 7000)) << i;
            }
            for (std::size_t w = 0; w < kWords; ++w)
              ASSERT_EQ(words[w][i], want[w][i]) << "kind " << kind << " word " << w;
          }
          ++cases;
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  EXPECT_GE(cases, 8u * 71u * 3u);
}

}  // namespace
}  // namespace mote
