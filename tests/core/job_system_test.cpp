// SPDX-License-Identifier: MIT
// Tests of the job system: InlineJobSystem, ThreadPool and parallelFor's deterministic chunking.
#include <mote/core/alloc_watch.h>
#include <mote/core/assert.h>
#include <mote/core/job_system.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

namespace mote {
namespace {

std::unique_ptr<ThreadPool> makePool(std::uint32_t threadCount) {
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::create(threadCount);
  EXPECT_TRUE(pool.ok()) << pool.status().toString();
  return std::move(pool).takeValue();
}

// Counts how often each task index runs.
struct HitCounter {
  explicit HitCounter(std::size_t n) : hits(n) {}
  std::vector<std::atomic<int>> hits;

  static void task(void* context, std::size_t index) {
    static_cast<HitCounter*>(context)->hits[index].fetch_add(1, std::memory_order_relaxed);
  }
};

void expectEveryIndexOnce(JobSystem& jobs, std::size_t taskCount) {
  HitCounter counter(taskCount);
  jobs.dispatch(taskCount, &HitCounter::task, &counter);
  for (std::size_t i = 0; i < taskCount; ++i) {
    ASSERT_EQ(counter.hits[i].load(), 1)
        << "index " << i << " of " << taskCount << ", concurrency " << jobs.concurrency();
  }
}

constexpr std::size_t kTaskCounts[] = {0, 1, 2, 3, 5, 7, 8, 9, 31, 64, 100, 257, 1000, 1023};

TEST(InlineJobSystem, ConcurrencyIsOneAndTasksRunInIndexOrder) {
  InlineJobSystem jobs;
  EXPECT_EQ(jobs.concurrency(), 1u);
  std::vector<std::size_t> order;
  jobs.dispatch(
      6,
      [](void* context, std::size_t i) {
        static_cast<std::vector<std::size_t>*>(context)->push_back(i);
      },
      &order);
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
}

TEST(InlineJobSystem, EveryIndexRunsExactlyOnce) {
  InlineJobSystem jobs;
  for (std::size_t n : kTaskCounts)
    expectEveryIndexOnce(jobs, n);
}

TEST(ThreadPool, EveryIndexRunsExactlyOnceForAnyThreadCount) {
  for (std::uint32_t threads : {1u, 2u, 3u, 4u, 8u}) {
    std::unique_ptr<ThreadPool> pool = makePool(threads);
    ASSERT_NE(pool, nullptr);
    for (std::size_t n : kTaskCounts)
      expectEveryIndexOnce(*pool, n);
  }
}

TEST(ThreadPool, ConcurrencyMatchesThreadCount) {
  for (std::uint32_t threads : {1u, 2u, 4u, 8u}) {
    std::unique_ptr<ThreadPool> pool = makePool(threads);
    ASSERT_NE(pool, nullptr);
    EXPECT_EQ(pool->concurrency(), threads);
  }
}

TEST(ThreadPool, CreateZeroUsesHardwareConcurrency) {
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::create(0);
  ASSERT_TRUE(pool.ok()) << pool.status().toString();
  const std::uint32_t expected =
      std::clamp(std::thread::hardware_concurrency(), 1u, ThreadPool::kMaxThreads);
  EXPECT_EQ((*pool)->concurrency(), expected);
  expectEveryIndexOnce(**pool, 100);
}

TEST(ThreadPool, CreateRejectsTooManyThreads) {
  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::create(ThreadPool::kMaxThreads + 1);
  ASSERT_FALSE(pool.ok());
  EXPECT_EQ(pool.status().code(), StatusCode::InvalidArgument);
  EXPECT_FALSE(pool.status().message().empty());
  EXPECT_EQ(ThreadPool::kMaxThreads + 1, 257u);
}

// Two tasks that each wait for the other to start can only finish if they run at the same time.
// With a 2-thread pool one of them must be on the calling thread.
TEST(ThreadPool, CallerAndWorkerRunTasksConcurrently) {
  std::unique_ptr<ThreadPool> pool = makePool(2);
  ASSERT_NE(pool, nullptr);
  struct Rendezvous {
    std::atomic<int> arrived{0};
    std::atomic<bool> sawPartner[2] = {false, false};
    std::thread::id threadOf[2];
  } rendezvous;
  pool->dispatch(
      2,
      [](void* context, std::size_t i) {
        auto& r = *static_cast<Rendezvous*>(context);
        r.threadOf[i] = std::this_thread::get_id();
        r.arrived.fetch_add(1);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (r.arrived.load() < 2 && std::chrono::steady_clock::now() < deadline) {
          std::this_thread::yield();
        }
        r.sawPartner[i] = r.arrived.load() == 2;
      },
      &rendezvous);
  EXPECT_TRUE(rendezvous.sawPartner[0]);
  EXPECT_TRUE(rendezvous.sawPartner[1]);
  EXPECT_NE(rendezvous.threadOf[0], rendezvous.threadOf[1]);
  const std::thread::id caller = std::this_thread::get_id();
  EXPECT_TRUE(rendezvous.threadOf[0] == caller || rendezvous.threadOf[1] == caller);
}

struct Nested {
  JobSystem* jobs = nullptr;
  static constexpr std::size_t kOuter = 8;
  static constexpr std::size_t kInner = 16;
  std::atomic<int> hits[kOuter][kInner] = {};
};

void nestedOuterTask(void* context, std::size_t outer) {
  auto& nested = *static_cast<Nested*>(context);
  struct Inner {
    Nested* nested;
    std::size_t outer;
  } inner{&nested, outer};
  nested.jobs->dispatch(
      Nested::kInner,
      [](void* innerContext, std::size_t i) {
        auto& in = *static_cast<Inner*>(innerContext);
        in.nested->hits[in.outer][i].fetch_add(1);
      },
      &inner);
}

void expectNestedDispatchCompletes(JobSystem& jobs) {
  Nested nested;
  nested.jobs = &jobs;
  jobs.dispatch(Nested::kOuter, &nestedOuterTask, &nested);
  for (std::size_t o = 0; o < Nested::kOuter; ++o) {
    for (std::size_t i = 0; i < Nested::kInner; ++i) {
      ASSERT_EQ(nested.hits[o][i].load(), 1) << "outer " << o << " inner " << i;
    }
  }
}

TEST(ThreadPool, NestedDispatchCompletes) {
  InlineJobSystem inlineJobs;
  expectNestedDispatchCompletes(inlineJobs);
  for (std::uint32_t threads : {1u, 2u, 4u}) {
    std::unique_ptr<ThreadPool> pool = makePool(threads);
    ASSERT_NE(pool, nullptr);
    expectNestedDispatchCompletes(*pool);
  }
}

TEST(ThreadPool, NestedParallelForCompletes) {
  std::unique_ptr<ThreadPool> pool = makePool(4);
  ASSERT_NE(pool, nullptr);
  std::vector<std::atomic<int>> hits(40 * 30);
  parallelFor(*pool, 40, 3, [&](std::size_t begin, std::size_t end) {
    for (std::size_t row = begin; row < end; ++row) {
      parallelFor(*pool, 30, 7, [&](std::size_t b, std::size_t e) {
        for (std::size_t col = b; col < e; ++col)
          hits[row * 30 + col].fetch_add(1);
      });
    }
  });
  for (std::size_t i = 0; i < hits.size(); ++i)
    ASSERT_EQ(hits[i].load(), 1) << i;
}

TEST(ThreadPool, ConcurrentDispatchFromTwoThreads) {
  std::unique_ptr<ThreadPool> pool = makePool(4);
  ASSERT_NE(pool, nullptr);
  constexpr int kRounds = 200;
  constexpr std::size_t kTasks = 37;
  auto client = [&pool](std::vector<int>* perIndexTotal) {
    HitCounter counter(kTasks);
    for (int round = 0; round < kRounds; ++round)
      pool->dispatch(kTasks, &HitCounter::task, &counter);
    for (std::size_t i = 0; i < kTasks; ++i)
      (*perIndexTotal)[i] = counter.hits[i].load();
  };
  std::vector<int> totalsA(kTasks, 0);
  std::vector<int> totalsB(kTasks, 0);
  std::thread a(client, &totalsA);
  std::thread b(client, &totalsB);
  a.join();
  b.join();
  EXPECT_EQ(totalsA, std::vector<int>(kTasks, kRounds));
  EXPECT_EQ(totalsB, std::vector<int>(kTasks, kRounds));
}

TEST(ThreadPool, ManySmallDispatchesDoNotDeadlock) {
  std::unique_ptr<ThreadPool> pool = makePool(4);
  ASSERT_NE(pool, nullptr);
  std::atomic<std::size_t> total{0};
  std::size_t expected = 0;
  for (std::size_t round = 0; round < 2000; ++round) {
    const std::size_t tasks = round % 6;
    expected += tasks;
    pool->dispatch(
        tasks,
        [](void* context, std::size_t) {
          static_cast<std::atomic<std::size_t>*>(context)->fetch_add(1, std::memory_order_relaxed);
        },
        &total);
  }
  EXPECT_EQ(total.load(), expected);
}

TEST(ThreadPool, DispatchAllocatesNothingOnTheCallingThread) {
  if (!allocationWatchInstalled()) GTEST_SKIP() << "allocation watch not linked";
  std::unique_ptr<ThreadPool> pool = makePool(4);
  ASSERT_NE(pool, nullptr);
  HitCounter counter(64);
  pool->dispatch(64, &HitCounter::task, &counter);  // warm-up
  AllocationScope scope;
  for (int round = 0; round < 50; ++round) {
    pool->dispatch(64, &HitCounter::task, &counter);
    parallelFor(*pool, 1000, 64, [&counter](std::size_t begin, std::size_t) {
      counter.hits[begin / 64].fetch_add(1, std::memory_order_relaxed);
    });
  }
  EXPECT_EQ(scope.allocations(), 0u);
}

struct ChunkCase {
  std::size_t count;
  std::size_t chunkSize;
};

constexpr ChunkCase kChunkCases[] = {{0, 4}, {1, 4},  {4, 4},   {10, 3},  {12, 4},    {13, 4},
                                     {1, 1}, {17, 1}, {5, 100}, {100, 7}, {1000, 64}, {999, 1000}};

void expectDocumentedChunks(JobSystem& jobs, ChunkCase c) {
  // The documented partition, computed independently of parallelFor.
  std::vector<std::pair<std::size_t, std::size_t>> expected;
  for (std::size_t begin = 0; begin < c.count; begin += c.chunkSize) {
    expected.emplace_back(begin, std::min(begin + c.chunkSize, c.count));
  }
  ASSERT_EQ(parallelForChunkCount(c.count, c.chunkSize), expected.size());

  // Each chunk writes only its own slot, so the recording itself is race-free.
  std::vector<std::pair<std::size_t, std::size_t>> seen(expected.size(), {~std::size_t{0}, 0});
  std::vector<std::atomic<int>> calls(expected.size());
  std::atomic<int> outOfRange{0};
  parallelFor(jobs, c.count, c.chunkSize, [&](std::size_t begin, std::size_t end) {
    const std::size_t chunk = begin / c.chunkSize;
    if (chunk >= seen.size()) {
      outOfRange.fetch_add(1);
      return;
    }
    seen[chunk] = {begin, end};
    calls[chunk].fetch_add(1);
  });
  EXPECT_EQ(outOfRange.load(), 0);
  EXPECT_EQ(seen, expected) << "count " << c.count << " chunk " << c.chunkSize << " concurrency "
                            << jobs.concurrency();
  for (std::size_t k = 0; k < calls.size(); ++k)
    EXPECT_EQ(calls[k].load(), 1) << "chunk " << k;
}

TEST(ParallelFor, ChunkBoundariesAreExactlyTheDocumentedOnes) {
  InlineJobSystem inlineJobs;
  for (ChunkCase c : kChunkCases)
    expectDocumentedChunks(inlineJobs, c);
  for (std::uint32_t threads : {1u, 2u, 4u, 8u}) {
    std::unique_ptr<ThreadPool> pool = makePool(threads);
    ASSERT_NE(pool, nullptr);
    for (ChunkCase c : kChunkCases)
      expectDocumentedChunks(*pool, c);
  }
}

TEST(ParallelFor, AcceptsConstAndRvalueBodies) {
  InlineJobSystem jobs;
  std::size_t covered = 0;
  const auto body = [&covered](std::size_t begin, std::size_t end) { covered += end - begin; };
  parallelFor(jobs, 10, 3, body);
  parallelFor(jobs, 10, 3,
              [&covered](std::size_t begin, std::size_t end) { covered += end - begin; });
  EXPECT_EQ(covered, 20u);
}

TEST(ParallelFor, ZeroChunkSizeIsAContractViolation) {
  if (!MOTE_ASSERTS_ENABLED) GTEST_SKIP() << "asserts are compiled out";
  struct AssertFired {};
  const AssertHandler previous = setAssertHandler([](const AssertInfo&) { throw AssertFired{}; });
  InlineJobSystem jobs;
  int calls = 0;
  EXPECT_THROW(parallelFor(jobs, 10, 0, [&calls](std::size_t, std::size_t) { ++calls; }),
               AssertFired);
  setAssertHandler(previous);
  EXPECT_EQ(calls, 0);
}

// Per-chunk float sums combined in chunk order: the result depends only on the chunking, which is
// fixed, so every job system and thread count must give the same bits as a serial loop.
float chunkedSum(JobSystem& jobs, const std::vector<float>& values, std::size_t chunkSize) {
  std::vector<float> partial(parallelForChunkCount(values.size(), chunkSize), 0.0f);
  parallelFor(jobs, values.size(), chunkSize, [&](std::size_t begin, std::size_t end) {
    float sum = 0.0f;
    for (std::size_t i = begin; i < end; ++i)
      sum += values[i];
    partial[begin / chunkSize] = sum;
  });
  float total = 0.0f;
  for (float p : partial)
    total += p;
  return total;
}

TEST(ParallelFor, ChunkedReductionIsBitIdenticalForAnyThreadCount) {
  // Values spanning many magnitudes, so that a different summation order would change the result.
  std::vector<float> values(100003);
  std::uint32_t x = 12345u;
  for (float& v : values) {
    x = x * 1664525u + 1013904223u;
    const float mantissa = static_cast<float>(x >> 8) / 16777216.0f;
    const int exponent = static_cast<int>((x >> 4) % 16u) - 8;
    v = std::ldexp(mantissa, exponent) * ((x & 1u) != 0u ? -1.0f : 1.0f);
  }
  constexpr std::size_t kChunk = 1000;

  float reference = 0.0f;  // the same chunking, serially, without any job system
  for (std::size_t begin = 0; begin < values.size(); begin += kChunk) {
    float sum = 0.0f;
    for (std::size_t i = begin; i < std::min(begin + kChunk, values.size()); ++i)
      sum += values[i];
    reference += sum;
  }
  float unchunked = 0.0f;
  for (float v : values)
    unchunked += v;
  // Guards the test's power: the chunking must matter for this data.
  ASSERT_NE(std::bit_cast<std::uint32_t>(unchunked), std::bit_cast<std::uint32_t>(reference));

  InlineJobSystem inlineJobs;
  EXPECT_EQ(std::bit_cast<std::uint32_t>(chunkedSum(inlineJobs, values, kChunk)),
            std::bit_cast<std::uint32_t>(reference));
  for (std::uint32_t threads : {1u, 2u, 4u, 8u}) {
    std::unique_ptr<ThreadPool> pool = makePool(threads);
    ASSERT_NE(pool, nullptr);
    for (int repeat = 0; repeat < 3; ++repeat) {
      EXPECT_EQ(std::bit_cast<std::uint32_t>(chunkedSum(*pool, values, kChunk)),
                std::bit_cast<std::uint32_t>(reference))
          << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace mote
