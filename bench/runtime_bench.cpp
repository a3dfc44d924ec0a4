// SPDX-License-Identifier: MIT
// The runtime's Google Benchmark suite: the batched VM against a hand-written C++ kernel doing the
// same "standard effect" update at 10k, 100k and 1M particles (compare the two in one run), and
// ParticleWorld ticks — the sprite effect, spawn cost, one thread against two. The workloads live
// in standard_effect.h, shared with `mote bench`; docs/performance.md records the figures.
#include "standard_effect.h"

#include <mote/authoring/effect_json.h>
#include <mote/compiler/compiler.h>
#include <mote/core/job_system.h>
#include <mote/runtime/world.h>

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>

namespace {

using mote::bench::kBenchDt;

mote::bytecode::CompiledEffect compile(std::string_view json) {
  const mote::authoring::EffectLoadResult loaded = mote::authoring::parseEffect(json);
  mote::compiler::CompileResult compiled = mote::compiler::compileEffect(loaded.effect);
  if (!loaded.ok() || !compiled.ok()) std::abort();
  return std::move(compiled.effect);
}

void BM_StandardVm(benchmark::State& state) {
  mote::bench::VmStandard f;
  if (!f.setUp(compile(mote::bench::kStandardEffect).emitters[0],
               static_cast<std::uint32_t>(state.range(0))))
    std::abort();
  for (auto _ : state) {
    f.update();
    benchmark::DoNotOptimize(f.words[0].data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_StandardVm)->Name("standard/vm")->Arg(10000)->Arg(100000)->Arg(1000000);

void BM_StandardNative(benchmark::State& state) {
  mote::bench::NativeStandard n(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    n.update(kBenchDt);
    benchmark::DoNotOptimize(n.px.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_StandardNative)->Name("standard/native")->Arg(10000)->Arg(100000)->Arg(1000000);

// A world holding `effect`, ticked once (its bursts) before timing.
std::unique_ptr<mote::ParticleWorld> world(const mote::bytecode::CompiledEffect& effect,
                                           mote::JobSystem* jobs) {
  auto w = mote::ParticleWorld::create(mote::worldDescFor(effect, jobs)).takeValue();
  if (!w->addEffect(effect).ok()) std::abort();
  w->tick(kBenchDt);
  return w;
}

void BM_Sprite(benchmark::State& state) {
  auto w = world(compile(mote::bench::kSpriteEffect), nullptr);
  for (auto _ : state)
    w->tick(kBenchDt);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(w->stats().live));
}
BENCHMARK(BM_Sprite)->Name("sprite/4096");

void BM_Spawn(benchmark::State& state) {
  auto w = world(compile(mote::bench::spawnEffect(100000)), nullptr);
  std::int64_t spawned = 0;
  for (auto _ : state) {
    w->tick(kBenchDt);
    spawned += static_cast<std::int64_t>(w->stats().spawned);
  }
  state.SetItemsProcessed(spawned);  // items: particles spawned
}
BENCHMARK(BM_Spawn)->Name("spawn/100000");

void BM_Threads(benchmark::State& state) {
  const auto threads = static_cast<std::uint32_t>(state.range(0));
  const auto n = static_cast<std::uint32_t>(state.range(1));
  std::unique_ptr<mote::ThreadPool> pool;
  if (threads > 1) pool = mote::ThreadPool::create(threads).takeValue();
  auto w = world(compile(mote::bench::standardWorldEffect(n)), pool.get());
  for (auto _ : state)
    w->tick(kBenchDt);
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_Threads)
    ->Name("threads")
    ->Args({1, 100000})
    ->Args({2, 100000})
    ->Args({1, 1000000})
    ->Args({2, 1000000})
    ->UseRealTime();

}  // namespace
