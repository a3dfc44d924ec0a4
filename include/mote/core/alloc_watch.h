// SPDX-License-Identifier: MIT
// The allocation watch: counts heap allocations made by the calling thread, to prove hot paths
// allocate nothing.
#pragma once

#include <cstdint>

namespace mote {

/// True when the counting global operator new/delete (the `mote_alloc_hooks` object library, linked
/// into Mote's test and benchmark programs) is part of this program. Without it every count reads
/// 0, so a test that asserts "no allocation" must first check this.
bool allocationWatchInstalled() noexcept;

/// Allocations (calls of any global operator new) made by the calling thread since it started.
std::uint64_t threadAllocationCount() noexcept;
/// Bytes requested by those allocations.
std::uint64_t threadAllocationBytes() noexcept;

/// Counts the calling thread's allocations between construction and the query:
///
///   mote::AllocationScope scope;
///   world.tick(dt);
///   EXPECT_EQ(scope.allocations(), 0u);
///
/// Only the constructing thread's allocations count (other threads may allocate freely).
/// Complexity: O(1). Allocates: never.
class AllocationScope {
 public:
  AllocationScope() noexcept
      : startCount_(threadAllocationCount()), startBytes_(threadAllocationBytes()) {}
  std::uint64_t allocations() const noexcept { return threadAllocationCount() - startCount_; }
  std::uint64_t bytes() const noexcept { return threadAllocationBytes() - startBytes_; }

 private:
  std::uint64_t startCount_;
  std::uint64_t startBytes_;
};

/// An AllocationScope that asserts on destruction that nothing was allocated (MOTE_ASSERT, so the
/// failure goes through the assert handler with this file and line). Use it to guard a region:
///
///   { mote::NoAllocationScope guard; system.update(); }
class NoAllocationScope {
 public:
  NoAllocationScope() noexcept = default;
  NoAllocationScope(const NoAllocationScope&) = delete;
  NoAllocationScope& operator=(const NoAllocationScope&) = delete;
  ~NoAllocationScope() noexcept(false);

  std::uint64_t allocations() const noexcept { return scope_.allocations(); }

 private:
  AllocationScope scope_;
};

namespace detail {
// Written by the counting operator new in mote_alloc_hooks; read through the functions above.
void recordAllocation(std::uint64_t bytes) noexcept;
void markAllocationWatchInstalled() noexcept;
}  // namespace detail

}  // namespace mote
