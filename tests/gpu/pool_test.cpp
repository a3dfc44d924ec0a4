// SPDX-License-Identifier: MIT
// The pool and the emit pass's allocation, GPU-driven: per-row spawn counts scanned on the GPU, the
// emit dispatch sized by the GPU from that scan, every newborn finding its row and a free slot —
// headers (row, generation, id) against the CPU's expectation, slots unique, and a pool that runs
// out dropping (and counting) the rest instead of handing out a slot twice.
#include "pool.h"

#include "context_impl.h"
#include "gpu_test.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <set>
#include <tuple>
#include <vector>

namespace mote {
namespace {

using test::GpuTest;

class GpuPool : public GpuTest {};

TEST_F(GpuPool, NewbornsFindTheirRowsAndFreeSlots) {
  constexpr std::uint32_t kCapacity = 1000;
  constexpr std::uint32_t kRows = 5;
  gpu::Context& c = *context();
  Result<gpu::Pool> made = gpu::Pool::create(c, kCapacity, 4, kRows);
  ASSERT_TRUE(made.ok()) << made.status().toString();
  gpu::Pool& pool = *made;
  EXPECT_EQ(pool.stride(), 7u);
  ASSERT_TRUE(c.impl().submit([&](VkCommandBuffer cmd) { pool.recordReset(cmd); }).ok());

  const std::array<std::uint32_t, kRows> counts{100, 0, 250, 1, 37};
  const std::array<std::uint32_t, 2 * kRows> rowState{7, 0, 9, 10, 3, 1000, 1, 5, 2, 0};
  ASSERT_TRUE(pool.counts().upload(counts).ok());
  ASSERT_TRUE(pool.rowState().upload(rowState).ok());
  ASSERT_TRUE(c.impl().submit([&](VkCommandBuffer cmd) { pool.recordEmit(cmd, kRows); }).ok());

  std::array<std::uint32_t, gpu::kPoolCounters> counters{};
  ASSERT_TRUE(pool.counters().download(counters).ok());
  EXPECT_EQ(counters[gpu::kPoolLive], 388u);
  EXPECT_EQ(counters[gpu::kPoolFree], kCapacity - 388u);
  EXPECT_EQ(counters[gpu::kPoolDropped], 0u);
  std::array<std::uint32_t, 4> dispatch{};
  ASSERT_TRUE(pool.scanResult().download(dispatch).ok());
  EXPECT_EQ(dispatch[0], 388u);
  EXPECT_EQ(dispatch[1], (388u + 63u) / 64u);

  std::vector<std::uint32_t> alive(388);
  ASSERT_TRUE(pool.alive().download(alive).ok());
  std::vector<std::uint32_t> records(std::size_t{kCapacity} * pool.stride());
  ASSERT_TRUE(pool.records().download(records).ok());
  std::set<std::uint32_t> slots(alive.begin(), alive.end());
  EXPECT_EQ(slots.size(), alive.size()) << "a slot handed out twice";
  std::multiset<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> got;
  for (const std::uint32_t slot : alive) {
    ASSERT_LT(slot, kCapacity);
    const std::uint32_t* h = records.data() + std::size_t{slot} * pool.stride();
    got.insert({h[0], h[1], h[2]});
  }
  std::multiset<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>> want;
  for (std::uint32_t row = 0; row < kRows; ++row)
    for (std::uint32_t k = 0; k < counts[row]; ++k)
      want.insert({row, rowState[2 * row], rowState[2 * row + 1] + k});
  EXPECT_EQ(got, want);

  // A second frame asks for more than is free: the rest is dropped and counted, nothing reused.
  const std::array<std::uint32_t, kRows> more{500, 0, 500, 0, 0};
  ASSERT_TRUE(pool.counts().upload(more).ok());
  ASSERT_TRUE(c.impl().submit([&](VkCommandBuffer cmd) { pool.recordEmit(cmd, kRows); }).ok());
  ASSERT_TRUE(pool.counters().download(counters).ok());
  EXPECT_EQ(counters[gpu::kPoolLive], kCapacity);
  EXPECT_EQ(counters[gpu::kPoolFree], 0u);
  EXPECT_EQ(counters[gpu::kPoolDropped], 1000u - (kCapacity - 388u));
  std::vector<std::uint32_t> all(kCapacity);
  ASSERT_TRUE(pool.alive().download(all).ok());
  EXPECT_EQ(std::set<std::uint32_t>(all.begin(), all.end()).size(), kCapacity);
}

TEST_F(GpuPool, ACapacityPastTheDeviceIsAnErrorNamingIt) {
  const std::uint64_t range = context()->device().maxStorageBufferRange;
  const auto capacity = static_cast<std::uint32_t>(range / (4 * 8) + 1);
  Result<gpu::Pool> made = gpu::Pool::create(*context(), capacity, 5, 4);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), StatusCode::OutOfMemory);
  EXPECT_NE(made.status().message().find("the particle pool (" + std::to_string(capacity) +
                                         " particles of 8 words)"),
            std::string::npos)
      << made.status().message();
}

}  // namespace
}  // namespace mote
