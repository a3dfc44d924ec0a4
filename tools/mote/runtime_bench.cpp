// SPDX-License-Identifier: MIT
#include "runtime_bench.h"

#include "standard_effect.h"

#include <mote/authoring/effect_json.h>
#include <mote/compiler/compiler.h>
#include <mote/core/job_system.h>
#include <mote/runtime/vm.h>
#include <mote/runtime/world.h>

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>

namespace mote::cli {

std::optional<bytecode::CompiledEffect> compileBenchEffect(std::string_view json) {
  const authoring::EffectLoadResult loaded = authoring::parseEffect(json, "bench.json");
  if (!loaded.ok()) return std::nullopt;
  compiler::CompileResult compiled = compiler::compileEffect(loaded.effect);
  if (!compiled.ok()) return std::nullopt;
  return std::move(compiled.effect);
}

namespace {

constexpr float kDt = 1.0f / 60.0f;

std::optional<bytecode::CompiledEffect> compileText(std::string_view json) {
  return compileBenchEffect(json);
}

// Median nanoseconds per call of `fn`, calls batched so one repetition lasts minSeconds.
template <class F>
double medianNsPerCall(double minSeconds, int repetitions, F&& fn) {
  using Clock = std::chrono::steady_clock;
  fn();  // warm
  std::uint64_t calls = 1;
  for (;;) {
    const auto t0 = Clock::now();
    for (std::uint64_t i = 0; i < calls; ++i)
      fn();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    if (s >= minSeconds || calls >= (1u << 20)) break;
    calls *= 2;
  }
  std::vector<double> samples;
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = Clock::now();
    for (std::uint64_t i = 0; i < calls; ++i)
      fn();
    samples.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count() /
                      static_cast<double>(calls));
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

std::unique_ptr<ParticleWorld> worldWith(const bytecode::CompiledEffect& effect, JobSystem* jobs) {
  Result<std::unique_ptr<ParticleWorld>> world = ParticleWorld::create(worldDescFor(effect, jobs));
  if (!world.ok()) return nullptr;
  if (!world.value()->addEffect(effect).ok()) return nullptr;
  return std::move(world.value());
}

}  // namespace

std::vector<RuntimeBenchResult> runRuntimeBenches(double minSeconds, int repetitions) {
  std::vector<RuntimeBenchResult> out;
  const auto fail = [&](std::string_view what) {
    fmt::print(stderr, "mote bench: cannot set up {}\n", what);
    return std::vector<RuntimeBenchResult>{};
  };
  const std::optional<bytecode::CompiledEffect> standard = compileText(bench::kStandardEffect);
  if (!standard) return fail("the standard effect");
  for (const std::uint32_t n : {10000u, 100000u, 1000000u}) {
    bench::VmStandard vm;
    if (!vm.setUp(standard->emitters[0], n)) return fail("the VM");
    bench::NativeStandard native(n);
    // Interleaved, so both see the same machine state.
    const double vmNs = medianNsPerCall(minSeconds, repetitions, [&] { vm.update(); }) / n;
    const double nativeNs =
        medianNsPerCall(minSeconds, repetitions, [&] { native.update(kDt); }) / n;
    out.push_back({"standard/vm/" + std::to_string(n), n, vmNs, nativeNs});
  }

  {
    const std::optional<bytecode::CompiledEffect> sprite = compileText(bench::kSpriteEffect);
    if (!sprite) return fail("the sprite effect");
    std::unique_ptr<ParticleWorld> world = worldWith(*sprite, nullptr);
    if (!world) return fail("the sprite world");
    world->tick(kDt);  // the burst
    const std::uint64_t live = world->stats().live;
    const double ns = medianNsPerCall(minSeconds, repetitions, [&] { world->tick(kDt); });
    out.push_back(
        {"sprite/4096", live, ns / static_cast<double>(std::max<std::uint64_t>(live, 1)), 0.0});
  }

  {
    constexpr std::uint32_t kSpawned = 100000;
    const std::optional<bytecode::CompiledEffect> spawn = compileText(bench::spawnEffect(kSpawned));
    if (!spawn) return fail("the spawn effect");
    std::unique_ptr<ParticleWorld> world = worldWith(*spawn, nullptr);
    if (!world) return fail("the spawn world");
    std::uint64_t ticks = 0;
    std::uint64_t spawned = 0;
    const double ns = medianNsPerCall(minSeconds, repetitions, [&] {
      world->tick(kDt);
      ++ticks;
      spawned += world->stats().spawned;
    });
    const double perTick =
        static_cast<double>(spawned) / static_cast<double>(std::max<std::uint64_t>(ticks, 1));
    out.push_back({"spawn/" + std::to_string(kSpawned), static_cast<std::uint64_t>(perTick),
                   ns / std::max(perTick, 1.0), 0.0});
  }

  Result<std::unique_ptr<ThreadPool>> pool = ThreadPool::create(2);
  if (!pool.ok()) return fail("a two-thread pool");
  for (const std::uint32_t n : {100000u, 1000000u}) {
    const std::optional<bytecode::CompiledEffect> effect =
        compileText(bench::standardWorldEffect(n));
    if (!effect) return fail("the standard world effect");
    std::unique_ptr<ParticleWorld> one = worldWith(*effect, nullptr);
    std::unique_ptr<ParticleWorld> two = worldWith(*effect, pool.value().get());
    if (!one || !two) return fail("the thread worlds");
    one->tick(kDt);
    two->tick(kDt);
    const double oneNs = medianNsPerCall(minSeconds, repetitions, [&] { one->tick(kDt); }) / n;
    const double twoNs = medianNsPerCall(minSeconds, repetitions, [&] { two->tick(kDt); }) / n;
    out.push_back({"threads/1/" + std::to_string(n), n, oneNs, 0.0});
    out.push_back({"threads/2/" + std::to_string(n), n, twoNs, oneNs});
  }
  return out;
}

}  // namespace mote::cli
