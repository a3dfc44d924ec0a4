// SPDX-License-Identifier: MIT
// Tests of FNV-1a 64 against the published test vectors.
#include <mote/core/fnv1a.h>

#include <gtest/gtest.h>

#include <array>
#include <cstddef>

namespace mote {
namespace {

TEST(Fnv1a64, PublishedVectors) {
  // Landon Curt Noll's FNV test suite (fnv1a_64).
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
  static_assert(fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
}

TEST(Fnv1a64, IncrementalEqualsOneShot) {
  Fnv1a64 h;
  h.update("foo").update("bar");
  EXPECT_EQ(h.value(), fnv1a64("foobar"));
  const std::array<std::byte, 3> bytes{std::byte{'f'}, std::byte{'o'}, std::byte{'o'}};
  EXPECT_EQ(Fnv1a64{}.update(bytes).update("bar").value(), 0x85944171f73967e8ULL);
  EXPECT_EQ(fnv1a64(std::span<const std::byte>(bytes)), fnv1a64("foo"));
}

TEST(Fnv1a64, IntegersAreFedLittleEndian) {
  EXPECT_EQ(Fnv1a64{}.updateU32(0x64636261u).value(), fnv1a64("abcd"));
  EXPECT_EQ(Fnv1a64{}.updateU64(0x6867666564636261ULL).value(), fnv1a64("abcdefgh"));
  EXPECT_EQ(Fnv1a64{}.updateU8(0x61).value(), fnv1a64("a"));
}

}  // namespace
}  // namespace mote
