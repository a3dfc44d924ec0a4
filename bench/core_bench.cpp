// SPDX-License-Identifier: MIT
// Throughput of mote_core's hot primitives: the Prng, the counter RNG, FNV-1a and parallelFor
// dispatch.
#include <mote/core/counter_rng.h>
#include <mote/core/fnv1a.h>
#include <mote/core/job_system.h>
#include <mote/core/prng.h>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {

void BM_PrngNextU32(benchmark::State& state) {
  mote::Prng prng(1);
  for (auto _ : state)
    benchmark::DoNotOptimize(prng.nextU32());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PrngNextU32);

void BM_PrngNextTap24(benchmark::State& state) {
  mote::Prng prng(1);
  for (auto _ : state)
    benchmark::DoNotOptimize(prng.nextTap24());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PrngNextTap24);

void BM_PrngNextRangeOdd(benchmark::State& state) {
  mote::Prng prng(1);
  for (auto _ : state)
    benchmark::DoNotOptimize(prng.nextRange(12, 1013));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PrngNextRangeOdd);

// Four words per Philox block: items are u32 draws.
void BM_CounterRandom4(benchmark::State& state) {
  std::uint64_t counter = 0;
  for (auto _ : state)
    benchmark::DoNotOptimize(mote::counterRandom4(42, 7, counter++));
  state.SetItemsProcessed(state.iterations() * 4);
}
BENCHMARK(BM_CounterRandom4);

// A batch of 256 particles drawing one float each, the VM's access pattern.
void BM_CounterRandomFloatBatch256(benchmark::State& state) {
  std::vector<float> out(256);
  std::uint64_t base = 0;
  for (auto _ : state) {
    for (std::uint64_t i = 0; i < out.size(); ++i)
      out[i] = mote::counterRandomFloat(42, 7, base + i);
    base += out.size();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(out.size()));
}
BENCHMARK(BM_CounterRandomFloatBatch256);

void BM_Fnv1a64(benchmark::State& state) {
  const std::string data(static_cast<std::size_t>(state.range(0)), 'x');
  for (auto _ : state)
    benchmark::DoNotOptimize(mote::fnv1a64(data));
  state.SetBytesProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Fnv1a64)->Arg(64)->Arg(4096);

// Dispatch overhead of an almost empty parallelFor (16 chunks) on the default pool.
void BM_ParallelForOverhead(benchmark::State& state) {
  auto pool = mote::ThreadPool::create(static_cast<std::uint32_t>(state.range(0))).takeValue();
  std::vector<std::uint32_t> sums(16);
  for (auto _ : state) {
    mote::parallelFor(*pool, 16 * 64, 64, [&](std::size_t begin, std::size_t end) {
      sums[begin / 64] += static_cast<std::uint32_t>(end - begin);
    });
    benchmark::ClobberMemory();
  }
  benchmark::DoNotOptimize(sums.data());
}
BENCHMARK(BM_ParallelForOverhead)->Arg(1)->Arg(2)->UseRealTime();

}  // namespace
