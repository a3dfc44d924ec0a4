// SPDX-License-Identifier: MIT
// Tests of the allocation watch: it counts this thread's heap allocations and nothing else.
#include "support/assert_trap.h"

#include <mote/core/alloc_watch.h>

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

namespace mote {
namespace {

// Keeps a pointer observable so the compiler cannot elide the allocation (C++14 allows eliding a
// new/delete pair whose result is never used).
void* volatile gEscape = nullptr;

struct alignas(64) Aligned {
  unsigned char bytes[64];
};

// Every test below needs the counting operator new, which sanitizer builds leave out.
class AllocationWatch : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!allocationWatchInstalled()) GTEST_SKIP() << "the allocation watch is not linked";
  }
};

#if defined(MOTE_TEST_ALLOC_WATCH_LINKED)
TEST(AllocationWatchLink, IsInstalledWhereTheHooksAreLinked) {
  EXPECT_TRUE(allocationWatchInstalled());
}
#endif

TEST_F(AllocationWatch, CountsEachAllocationAndItsBytes) {
  AllocationScope scope;
  auto one = std::make_unique<std::uint64_t>(1);
  gEscape = one.get();
  EXPECT_EQ(scope.allocations(), 1u);
  EXPECT_EQ(scope.bytes(), sizeof(std::uint64_t));
  std::vector<int> v;
  v.reserve(100);
  gEscape = v.data();
  EXPECT_EQ(scope.allocations(), 2u);
  EXPECT_EQ(scope.bytes(), sizeof(std::uint64_t) + 100 * sizeof(int));
  auto aligned = std::make_unique<Aligned>();
  gEscape = aligned.get();
  EXPECT_EQ(scope.allocations(), 3u);  // the over-aligned operator new counts too
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(aligned.get()) % 64, 0u);
}

TEST_F(AllocationWatch, ZeroWhenNothingAllocates) {
  std::vector<int> v;
  v.reserve(64);
  AllocationScope scope;
  for (int i = 0; i < 64; ++i)
    v.push_back(i);  // within capacity
  EXPECT_EQ(scope.allocations(), 0u);
  EXPECT_EQ(scope.bytes(), 0u);
}

TEST_F(AllocationWatch, OtherThreadsDoNotCount) {
  AllocationScope scope;
  std::uint64_t inThread = 0;
  {
    std::jthread t([&inThread] {
      AllocationScope inner;
      std::vector<int> v(1000);
      gEscape = v.data();
      inThread = inner.allocations();
    });
  }
  const std::uint64_t threadStart = scope.allocations();  // std::jthread itself allocates its state
  EXPECT_EQ(inThread, 1u);
  EXPECT_LE(threadStart, 2u);
}

#if MOTE_ASSERTS_ENABLED
TEST_F(AllocationWatch, NoAllocationScopeAssertsWhenTheRegionAllocates) {
  test::AssertTrap trap;
  EXPECT_NO_THROW({ NoAllocationScope guard; });
  EXPECT_THROW(
      {
        NoAllocationScope guard;
        auto p = std::make_unique<int>(3);
        gEscape = p.get();
      },
      test::AssertTrapped);
}
#endif

}  // namespace
}  // namespace mote
