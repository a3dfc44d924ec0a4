// SPDX-License-Identifier: MIT
// The simulation order (frame_buckets.comp) against its CPU reference: an alive list of records
// of many rows — rows of a few programs, a removed row, a row that does not step, stale
// generations — bucketed on the GPU, then compared bucket by bucket: the same counts, the same
// workgroup-aligned starts, the same slots in each bucket (the GPU's order within one is its
// atomics'), and padding exactly where the reference pads.
#include "buckets.h"

#include "context_impl.h"
#include "gpu_test.h"
#include "gpu_world.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace mote {
namespace {

using gpu::frame::kGroup;

class GpuBuckets : public test::GpuTest {};

struct Scene {
  std::uint32_t rows = 0;
  std::uint32_t stride = 5;
  std::vector<std::uint32_t> input;    // step blocks
  std::vector<std::uint32_t> records;  // headers and two words
  std::vector<std::uint32_t> alive;    // half 0: the list; half 1: unused
  std::vector<std::uint32_t> bucketOfRow;
  std::uint32_t buckets = 0;  // with the last one
};

// `n` records over `rows` rows whose programs are row % programs; row 3 is removed, row 5 does not
// step, and every seventh record carries a stale generation.
Scene makeScene(std::uint32_t rows, std::uint32_t programs, std::uint32_t n, std::uint32_t seed) {
  Scene s;
  s.rows = rows;
  s.input.assign(std::size_t{rows} * gpu::frame::kStepWords, 0u);
  s.bucketOfRow.assign(rows, 0u);
  for (std::uint32_t r = 0; r < rows; ++r) {
    std::uint32_t* step = s.input.data() + std::size_t{r} * gpu::frame::kStepWords;
    step[gpu::frame::kStepGeneration] = 10 + r;
    step[gpu::frame::kStepFlags] = r == 3 ? 0u : gpu::frame::kRowAlive | gpu::frame::kRowStepping;
    if (r == 5) step[gpu::frame::kStepFlags] = gpu::frame::kRowAlive;
    step[gpu::frame::kStepBucket] = s.bucketOfRow[r] = r % programs;
  }
  s.buckets = programs + 1;
  s.records.assign(std::size_t{n} * s.stride, 0u);
  s.alive.assign(2ull * n, 0u);
  std::mt19937 rng(seed);
  for (std::uint32_t slot = 0; slot < n; ++slot) {
    const std::uint32_t row = static_cast<std::uint32_t>(rng() % rows);
    s.records[std::size_t{slot} * s.stride] = row;
    s.records[std::size_t{slot} * s.stride + 1] = slot % 7 == 0 ? 0u : 10 + row;
    s.records[std::size_t{slot} * s.stride + 2] = slot;
    s.alive[slot] = slot;
  }
  std::shuffle(s.alive.begin(), s.alive.begin() + n, rng);
  return s;
}

TEST_F(GpuBuckets, TheOrderIsTheReferencesBucketByBucket) {
  gpu::Context& c = *context();
  for (const std::array<std::uint32_t, 3>& shape : std::vector<std::array<std::uint32_t, 3>>{
           {1, 1, 1}, {8, 3, 500}, {40, 7, 3000}, {6, 6, 64}, {12, 2, 0}}) {
    const std::uint32_t rows = shape[0];  // named, not bound: clang 14 captures no bindings
    const std::uint32_t programs = shape[1];
    const std::uint32_t n = shape[2];
    SCOPED_TRACE(testing::Message() << rows << " rows, " << programs << " programs, " << n);
    const Scene s = makeScene(rows, programs, n, rows * 31 + n);
    const std::uint32_t capacity = std::max(n, 1u);
    Result<gpu::ProgramBuckets> b = gpu::ProgramBuckets::create(c, rows + 1, capacity, kGroup);
    ASSERT_TRUE(b.ok()) << b.status().toString();
    const auto buffer = [&](std::span<const std::uint32_t> words, const char* name) {
      Result<gpu::Buffer> made = gpu::Buffer::create(c, std::max<std::size_t>(words.size(), 4) * 4,
                                                     name, VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT);
      EXPECT_TRUE(made.ok());
      if (!words.empty()) {
        EXPECT_TRUE(made->upload(words).ok());
      }
      return std::move(made).takeValue();
    };
    std::vector<std::uint32_t> counterWords(gpu::frame::kCounterWords, 0u);
    counterWords[gpu::frame::kSimulated] = n;
    counterWords[gpu::frame::kSimulateArgs] = (n + kGroup - 1) / kGroup;
    counterWords[gpu::frame::kSimulateArgs + 1] = 1;
    counterWords[gpu::frame::kSimulateArgs + 2] = 1;
    const gpu::Buffer input = buffer(s.input, "input");
    const gpu::Buffer records = buffer(s.records, "records");
    std::vector<std::uint32_t> alive = s.alive;
    alive.resize(2ull * capacity, 0u);
    const gpu::Buffer aliveBuffer = buffer(alive, "alive");
    const gpu::Buffer counters = buffer(counterWords, "counters");
    ASSERT_TRUE(b->bind(input, records, aliveBuffer, counters).ok());
    ASSERT_TRUE(c.impl()
                    .submit([&](VkCommandBuffer cmd) {
                      b->record(cmd, {rows, capacity, s.stride, 0, s.buckets}, counters,
                                gpu::frame::kSimulateArgs * 4);
                    })
                    .ok());

    const auto bucketOf = [&](std::uint32_t slot) {
      const std::uint32_t row = s.records[std::size_t{slot} * s.stride];
      const std::uint32_t* step = s.input.data() + std::size_t{row} * gpu::frame::kStepWords;
      const std::uint32_t fate =
          gpu::frame::recordFate(row, s.records[std::size_t{slot} * s.stride + 1], s.rows,
                                 step[gpu::frame::kStepFlags], step[gpu::frame::kStepGeneration]);
      return fate == gpu::frame::kRecordRun ? s.bucketOfRow[row] : s.buckets - 1;
    };
    const gpu::BucketedOrder want =
        gpu::bucketReference(std::span(s.alive.data(), n), bucketOf, s.buckets, kGroup);
    std::array<std::uint32_t, 4> result{};
    ASSERT_TRUE(b->result().download(result).ok());
    const std::uint32_t length = static_cast<std::uint32_t>(want.order.size());
    EXPECT_EQ(result[0], length);
    EXPECT_EQ(result[1], (length + kGroup - 1) / kGroup);
    std::vector<std::uint32_t> counts(s.buckets);
    std::vector<std::uint32_t> ends(s.buckets);
    ASSERT_TRUE(b->counts().download(counts).ok());
    ASSERT_TRUE(b->ends().download(ends).ok());
    EXPECT_EQ(counts, want.counts);
    std::vector<std::uint32_t> order(length);
    if (length > 0) {
      ASSERT_TRUE(b->order().download(order).ok());
    }
    for (std::uint32_t k = 0; k < s.buckets; ++k) {
      SCOPED_TRACE(testing::Message() << "bucket " << k);
      const std::uint32_t start = want.starts[k];
      const std::uint32_t end = k + 1 < s.buckets ? want.starts[k + 1] : length;
      EXPECT_EQ(start % kGroup, 0u);
      EXPECT_EQ(ends[k], end);
      std::vector<std::uint32_t> got(order.begin() + start, order.begin() + end);
      std::vector<std::uint32_t> expected(want.order.begin() + start, want.order.begin() + end);
      // Padding after the entries, the entries a permutation of the reference's.
      for (std::uint32_t i = want.counts[k]; i < got.size(); ++i)
        EXPECT_EQ(got[i], gpu::frame::kPadSlot) << "position " << start + i;
      std::sort(got.begin(), got.end());
      std::sort(expected.begin(), expected.end());
      EXPECT_EQ(got, expected);
    }
  }
}

}  // namespace
}  // namespace mote
