// SPDX-License-Identifier: MIT
// Per-thread allocation counters behind AllocationScope.
#include <mote/core/alloc_watch.h>
#include <mote/core/assert.h>

#include <atomic>

namespace mote {
namespace {

// Constant-initialised thread_locals: safe to touch from operator new before main and on any
// thread.
thread_local std::uint64_t tAllocCount = 0;
thread_local std::uint64_t tAllocBytes = 0;
std::atomic<bool> gInstalled{false};

}  // namespace

bool allocationWatchInstalled() noexcept {
  return gInstalled.load(std::memory_order_relaxed);
}
std::uint64_t threadAllocationCount() noexcept {
  return tAllocCount;
}
std::uint64_t threadAllocationBytes() noexcept {
  return tAllocBytes;
}

NoAllocationScope::~NoAllocationScope() noexcept(false) {
  MOTE_ASSERT(scope_.allocations() == 0, "a NoAllocationScope region allocated on the heap");
}

namespace detail {
void recordAllocation(std::uint64_t bytes) noexcept {
  ++tAllocCount;
  tAllocBytes += bytes;
}
void markAllocationWatchInstalled() noexcept {
  gInstalled.store(true, std::memory_order_relaxed);
}
}  // namespace detail

}  // namespace mote
