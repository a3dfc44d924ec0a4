// SPDX-License-Identifier: MIT
// Throughput of the render layer: SpriteBatcher::build() (radix sort + grouping) alone, and a whole
// declare + build frame.
#include <mote/core/alloc_watch.h>
#include <mote/core/prng.h>
#include <mote/render/sprite_batcher.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <vector>

namespace {

using mote::render::BlendMode;
using mote::render::SpriteBatcher;
using mote::render::SpriteItem;
using Clock = std::chrono::steady_clock;

// A particle-like frame: random 32-bit depth keys, four materials interleaved at random.
std::vector<SpriteItem> randomFrame(std::uint32_t count) {
  mote::Prng prng(42);
  std::vector<SpriteItem> items(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    SpriteItem& item = items[i];
    item.pos = {static_cast<float>(prng.nextTap24()), static_cast<float>(prng.nextTap24())};
    item.depthKey = prng.nextU32();
    item.materialId = prng.nextRange(0, 4);
    item.blend = BlendMode::Additive;
    item.frameIndex = i;
  }
  return items;
}

bool makeBatcher(benchmark::State& state, std::uint32_t count, SpriteBatcher& out) {
  mote::Result<SpriteBatcher> created = SpriteBatcher::create({.maxSprites = count});
  if (!created.ok()) {
    state.SkipWithError(created.status().toString().c_str());
    return false;
  }
  out = std::move(created).takeValue();
  return true;
}

void declare(SpriteBatcher& batcher, const std::vector<SpriteItem>& items) {
  batcher.beginFrame();
  for (const SpriteItem& item : items)
    static_cast<void>(batcher.add(item));
}

// build() alone, timed by hand around the call: every iteration re-declares the frame (build()
// closes the window, so a frame cannot be built twice) outside the measured time. The declaration
// cost is reported as the declare_ns counter (mean per frame) rather than hidden by PauseTiming,
// whose own overhead is large next to a 10k build.
void measureBuild(benchmark::State& state, std::uint32_t count) {
  const std::vector<SpriteItem> items = randomFrame(count);
  SpriteBatcher batcher;
  if (!makeBatcher(state, count, batcher)) return;
  double declareSeconds = 0.0;
  for (auto _ : state) {
    const Clock::time_point start = Clock::now();
    declare(batcher, items);
    const Clock::time_point declared = Clock::now();
    static_cast<void>(batcher.build());
    benchmark::DoNotOptimize(batcher.sorted().data());
    benchmark::ClobberMemory();
    const Clock::time_point built = Clock::now();
    state.SetIterationTime(std::chrono::duration<double>(built - declared).count());
    declareSeconds += std::chrono::duration<double>(declared - start).count();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(count));
  state.counters["declare_ns"] =
      benchmark::Counter(declareSeconds * 1e9, benchmark::Counter::kAvgIterations);
  state.counters["batches"] = static_cast<double>(batcher.stats().batches);
  state.counters["passes"] = static_cast<double>(batcher.stats().radixPassesRun);
}

// The depth_sort_10k budget: build() of a 10,000-sprite frame.
void BM_DepthSort10k(benchmark::State& state) {
  measureBuild(state, 10000);
}
BENCHMARK(BM_DepthSort10k)
    ->Name("BM_DepthSort10k/depth_sort_10k")
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

void BM_Build(benchmark::State& state) {
  measureBuild(state, static_cast<std::uint32_t>(state.range(0)));
}
BENCHMARK(BM_Build)->Arg(1000)->Arg(10000)->Arg(100000)->UseManualTime()->Unit(
    benchmark::kMicrosecond);

// A whole frame: beginFrame, declare, build. Also checks the loop allocates nothing.
void BM_Frame(benchmark::State& state) {
  const auto count = static_cast<std::uint32_t>(state.range(0));
  const std::vector<SpriteItem> items = randomFrame(count);
  SpriteBatcher batcher;
  if (!makeBatcher(state, count, batcher)) return;
  std::uint64_t allocations = 0;
  for (auto _ : state) {
    // Scoped to the frame: the benchmark loop itself allocates when it starts and stops timing.
    const mote::AllocationScope scope;
    declare(batcher, items);
    static_cast<void>(batcher.build());
    benchmark::DoNotOptimize(batcher.sorted().data());
    benchmark::ClobberMemory();
    allocations += scope.allocations();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(count));
  state.counters["allocations"] = static_cast<double>(allocations);
}
BENCHMARK(BM_Frame)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);

}  // namespace
