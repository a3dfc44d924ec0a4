// SPDX-License-Identifier: MIT
// The GPU prefix scan against a CPU one: inclusive sums, the total and the dispatch that covers
// it, over lengths around the block size and past one block of blocks (the partials' carry loop).
#include "scan.h"

#include "context_impl.h"
#include "gpu_test.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace mote {
namespace {

using test::GpuTest;

class GpuScan : public GpuTest {};

TEST_F(GpuScan, MatchesTheCpuScanAtEveryLength) {
  constexpr std::uint32_t kCapacity = 70000;
  constexpr std::uint32_t kGroup = 64;
  gpu::Context& c = *context();
  Result<gpu::PrefixScan> scan = gpu::PrefixScan::create(c, kCapacity, kGroup);
  ASSERT_TRUE(scan.ok()) << scan.status().toString();
  Result<gpu::Buffer> counts = gpu::Buffer::create(c, kCapacity * 4, "counts");
  Result<gpu::Buffer> sums = gpu::Buffer::create(c, kCapacity * 4, "sums");
  Result<gpu::Buffer> result = gpu::Buffer::create(c, 16, "result");
  ASSERT_TRUE(counts.ok() && sums.ok() && result.ok());
  ASSERT_TRUE(scan->bind(*counts, *sums, *result).ok());
  std::mt19937 rng(7);
  for (const std::uint32_t n : {1u, 7u, 255u, 256u, 257u, 1000u, 65536u, 65537u, kCapacity}) {
    SCOPED_TRACE(n);
    std::vector<std::uint32_t> in(n);
    for (std::uint32_t& v : in)
      v = rng() % 4 == 0 ? 0u : static_cast<std::uint32_t>(rng() % 9);
    ASSERT_TRUE(counts->upload(in).ok());
    ASSERT_TRUE(c.impl().submit([&](VkCommandBuffer cmd) { scan->record(cmd, n); }).ok());
    std::vector<std::uint32_t> got(n);
    std::array<std::uint32_t, 4> total{};
    ASSERT_TRUE(sums->download(got).ok());
    ASSERT_TRUE(result->download(total).ok());
    std::uint32_t running = 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      running += in[i];
      ASSERT_EQ(got[i], running) << "element " << i;
    }
    EXPECT_EQ(total[0], running);
    EXPECT_EQ(total[1], (running + kGroup - 1) / kGroup);
    EXPECT_EQ(total[2], 1u);
    EXPECT_EQ(total[3], 1u);
  }
}

}  // namespace
}  // namespace mote
