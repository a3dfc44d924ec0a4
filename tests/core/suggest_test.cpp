// SPDX-License-Identifier: MIT
#include <mote/core/suggest.h>

#include <gtest/gtest.h>

#include <array>
#include <string_view>

namespace mote {
namespace {

TEST(Suggest, EditDistanceCountsAdjacentSwapsAsOne) {
  EXPECT_EQ(editDistance("", ""), 0u);
  EXPECT_EQ(editDistance("abc", ""), 3u);
  EXPECT_EQ(editDistance("", "abc"), 3u);
  EXPECT_EQ(editDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(editDistance("fier", "fire"), 1u);
  EXPECT_EQ(editDistance("fromat", "format"), 1u);
  EXPECT_EQ(editDistance("ca", "abc"), 3u);  // OSA, not full Damerau (which gives 2)
  EXPECT_EQ(editDistance("same", "same"), 0u);
}

TEST(Suggest, ClosestMatchScalesItsLimitWithTheName) {
  constexpr std::array<std::string_view, 4> kKeys = {"name", "rate", "max_particles", "format"};
  EXPECT_EQ(closestMatch("rat", kKeys), "rate");
  EXPECT_EQ(closestMatch("max_particle", kKeys), "max_particles");
  EXPECT_EQ(closestMatch("fromat", kKeys), "format");
  EXPECT_EQ(closestMatch("format", kKeys), "format");
  EXPECT_EQ(closestMatch("a\nb", kKeys), "");  // 3 edits from "name": too far for 3 letters
  EXPECT_EQ(closestMatch("nme", kKeys), "name");
  EXPECT_EQ(closestMatch("ratex", kKeys), "rate");
  EXPECT_EQ(closestMatch("colour", kKeys), "");
  EXPECT_EQ(closestMatch("xyz", std::span<const std::string_view>{}), "");
  constexpr std::array<std::string_view, 2> kTied = {"ab1", "ab2"};
  EXPECT_EQ(closestMatch("ab3", kTied), "ab1");  // ties: the earliest
}

}  // namespace
}  // namespace mote
