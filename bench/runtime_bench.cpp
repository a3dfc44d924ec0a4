// SPDX-License-Identifier: MIT
// The runtime's Google Benchmark suite: the batched VM against a hand-written C++ kernel doing the
// same "standard effect" update at 10k, 100k and 1M particles (compare the two in one run), and
// ParticleWorld ticks — the sprite effect, spawn cost, one thread against two. The workloads live
// in standard_effect.h, shared with `mote bench`; docs/performance.md records the figures.
#include "standard_effect.h"

#include <mote/authoring/effect_json.h>
#include <mote/compiler/compiler.h>
#include <mote/core/job_system.h>
#include <mote/runtime/colliders.h>
#include <mote/runtime/world.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

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

// Curves: how an over-life curve of K keys costs per particle on the VM (lowered to arithmetic:
// v0 + Σ Δv · ramp, one term per segment, SIMD across lanes) against what a keyed-table opcode
// would do per lane (a branch-free binary search for the segment, then one lerp — native scalar
// code here, the lower bound of such an opcode in the VM's per-lane path). K = 0 is the same
// update without the curve: subtract it for the curve's own cost. docs/compiler.md, "Curves".
std::string curveEffect(int keys) {
  std::string curve;
  for (int k = 0; k < keys; ++k) {
    curve += (k > 0 ? ", [" : "[") + std::to_string(static_cast<double>(k) / (keys - 1)) + ", " +
             (k % 2 == 0 ? "0.25" : "1") + "]";
  }
  return R"({"format": "mote.effect/1", "emitters": [{"name": "curve",
  "max_particles": 1048576, "spawn": {"rate": 1}, "init": {"lifetime": [1, 3]}, "update": [)" +
         (keys > 0
              ? R"({"type": "alpha_over_life", "mode": "set", "curve": {"keys": [)" + curve + "]}}"
              : std::string()) +
         "]}]}";
}

constexpr std::uint32_t kCurveParticles = 100000;

void BM_CurveVm(benchmark::State& state) {
  mote::bench::VmStandard f;
  if (!f.setUp(compile(curveEffect(static_cast<int>(state.range(0)))).emitters[0], kCurveParticles))
    std::abort();
  for (auto _ : state) {
    f.update();
    benchmark::DoNotOptimize(f.words[0].data());
  }
  state.SetItemsProcessed(state.iterations() * kCurveParticles);
}
BENCHMARK(BM_CurveVm)->Name("curve/vm")->Arg(0)->Arg(2)->Arg(4)->Arg(8)->Arg(16)->Arg(32);

void BM_CurveTable(benchmark::State& state) {
  const auto keys = static_cast<std::size_t>(state.range(0));
  std::vector<float> age(kCurveParticles, 0.0f);
  std::vector<float> life(kCurveParticles);
  std::vector<float> alpha(kCurveParticles, 1.0f);
  for (std::size_t i = 0; i < life.size(); ++i)
    life[i] = 1.0f + 2.0f * static_cast<float>(i % 997) / 997.0f;
  std::vector<float> kt(keys);
  std::vector<float> kv(keys);
  for (std::size_t k = 0; k < keys; ++k) {
    kt[k] = static_cast<float>(k) / static_cast<float>(keys - 1);
    kv[k] = k % 2 == 0 ? 0.25f : 1.0f;
  }
  for (auto _ : state) {
    for (std::size_t i = 0; i < age.size(); ++i) {
      const float a = age[i] + mote::bench::kBenchDt;
      age[i] = a;
      const float t = std::clamp(a / life[i], 0.0f, 1.0f);
      if (keys == 0) continue;
      std::size_t lo = 0;
      for (std::size_t n = keys - 1; n > 1;) {  // segments [lo, lo + n)
        const std::size_t half = n / 2;
        lo = kt[lo + half] <= t ? lo + half : lo;
        n -= half;
      }
      const float f = std::clamp((t - kt[lo]) / (kt[lo + 1] - kt[lo]), 0.0f, 1.0f);
      alpha[i] = kv[lo] + (kv[lo + 1] - kv[lo]) * f;
    }
    benchmark::DoNotOptimize(alpha.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * kCurveParticles);
}
BENCHMARK(BM_CurveTable)->Name("curve/table")->Arg(0)->Arg(2)->Arg(4)->Arg(8)->Arg(16)->Arg(32);

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

// rollnw's particle cases (jd28/rollnw benchmarks/particles.cpp), named after them so
// bench/compare/rollnw.sh runs the two side by side; items are real live particles. rollnw restores
// its fixture before every timed tick; here the effect restarts, untimed: the tick cases every
// kRestartUpdates ticks (their particles live 4 s, so none dies in between), churn and burst before
// every timed tick.
struct PeerWorld {
  explicit PeerWorld(const std::string& json) {
    w = mote::ParticleWorld::create(mote::worldDescFor(compile(json), nullptr)).takeValue();
    effect = w->addEffect(compile(json)).value();
  }
  // Restarts the effect and ticks it `ticks` times.
  void restart(int ticks) {
    if (!w->restart(effect).ok()) std::abort();
    for (int i = 0; i < ticks; ++i)
      w->tick(kBenchDt);
  }
  std::unique_ptr<mote::ParticleWorld> w;
  mote::EffectHandle effect;
};

void peerTicks(benchmark::State& state, const std::string& json) {
  PeerWorld p(json);
  p.restart(1);  // the burst
  const auto live = static_cast<std::int64_t>(p.w->stats().live);
  std::uint32_t ticks = 0;
  for (auto _ : state) {
    if (++ticks == mote::bench::kRestartUpdates) {
      state.PauseTiming();
      p.restart(1);
      ticks = 0;
      state.ResumeTiming();
    }
    p.w->tick(kBenchDt);
  }
  state.SetItemsProcessed(state.iterations() * live);
  state.counters["live_particles"] = static_cast<double>(live);
}

void BM_PeerSingle(benchmark::State& state) {
  peerTicks(state, mote::bench::peerSingleEffect(static_cast<std::uint32_t>(state.range(0))));
}
BENCHMARK(BM_PeerSingle)->Name("particles_tick_single_emitter")->Arg(1024)->Arg(4096);

void BM_PeerMixed(benchmark::State& state) {
  peerTicks(state, mote::bench::peerMixedEffect(static_cast<std::uint32_t>(state.range(0))));
}
BENCHMARK(BM_PeerMixed)->Name("particles_tick_mixed_emitters")->Arg(1024)->Arg(10240);

// About half of the particles die in the timed tick (the live count before it is the items).
void BM_PeerChurn(benchmark::State& state) {
  PeerWorld p(mote::bench::peerChurnEffect(static_cast<std::uint32_t>(state.range(0))));
  std::int64_t live = 0;
  std::int64_t died = 0;
  for (auto _ : state) {
    state.PauseTiming();
    p.restart(2);
    live += static_cast<std::int64_t>(p.w->stats().live);
    state.ResumeTiming();
    p.w->tick(kBenchDt);
    died += static_cast<std::int64_t>(p.w->stats().died);
  }
  state.SetItemsProcessed(live);
  const double n = static_cast<double>(std::max<std::int64_t>(state.iterations(), 1));
  state.counters["live_particles"] = static_cast<double>(live) / n;
  state.counters["died"] = static_cast<double>(died) / n;
}
BENCHMARK(BM_PeerChurn)->Name("particles_tick_high_churn")->Arg(1024)->Arg(4096);

// The timed tick spawns the burst and updates it once (the items: particles spawned).
void BM_PeerBurst(benchmark::State& state) {
  PeerWorld p(mote::bench::peerBurstEffect(static_cast<std::uint32_t>(state.range(0))));
  std::int64_t spawned = 0;
  for (auto _ : state) {
    state.PauseTiming();
    p.restart(0);
    state.ResumeTiming();
    p.w->tick(kBenchDt);
    spawned += static_cast<std::int64_t>(p.w->stats().spawned);
  }
  state.SetItemsProcessed(spawned);
  state.counters["spawned_particles"] =
      static_cast<double>(spawned) /
      static_cast<double>(std::max<std::int64_t>(state.iterations(), 1));
}
BENCHMARK(BM_PeerBurst)->Name("particles_burst_spawn")->Arg(1024)->Arg(4096);

// World collision through the host (docs/runtime.md, "Host collision"): casts through the
// heightfield alone, 64 at a time as the VM hands them over; and a tick of 4,096 drops bouncing on
// the ground, through a flat heightfield (collider kind host) against the analytic plane.
mote::HeightfieldCollider hills() {
  constexpr std::uint32_t kSide = 128;
  mote::HeightfieldDesc d;
  d.columns = d.rows = kSide;
  for (std::uint32_t j = 0; j < kSide; ++j)
    for (std::uint32_t i = 0; i < kSide; ++i)
      d.heights.push_back(0.5f + 0.25f * std::sin(0.11f * static_cast<float>(i)) *
                                     std::cos(0.07f * static_cast<float>(j)));
  d.min = {-8.0f, 0.0f, -8.0f};
  d.size = {16.0f, 2.0f, 16.0f};
  return mote::HeightfieldCollider::create(std::move(d)).takeValue();
}

void BM_CollideCasts(benchmark::State& state) {
  const mote::HeightfieldCollider ground = hills();
  // Drops falling 0.15 m a tick (9 m/s at 60 Hz) from heights spread over 0..2 m above the ground:
  // about one in seven crosses it.
  std::array<mote::bytecode::CollisionCast, mote::bytecode::kCollisionChunk> casts{};
  for (std::size_t k = 0; k < casts.size(); ++k) {
    const float x = -7.5f + 15.0f * static_cast<float>(k * 37 % 64) / 64.0f;
    const float z = -7.5f + 15.0f * static_cast<float>(k * 11 % 64) / 64.0f;
    const float y = ground.heightAt(x, z) + 2.0f * static_cast<float>(k) / 64.0f;
    casts[k] = {{x, y, z}, {x, y - 0.15f, z}, 0.02f};
  }
  std::array<mote::bytecode::CollisionHit, mote::bytecode::kCollisionChunk> hits{};
  for (auto _ : state) {
    ground.cast(casts, hits);
    benchmark::DoNotOptimize(hits.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(casts.size()));
}
BENCHMARK(BM_CollideCasts)->Name("collide/heightfield/casts");

std::string bouncingDrops(const char* collider) {
  return std::string(R"({"format": "mote.effect/1", "name": "drops", "materials": [{"name": "m"}],
    "emitters": [{"name": "drops", "material": "m", "position": [0, 2, 0], "max_particles": 4096,
      "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 4096}]},
      "shape": {"kind": "box", "size": [8, 2, 8]},
      "init": {"lifetime": 100000, "velocity": {"kind": "sphere", "speed": 2}},
      "update": [{"type": "gravity"}, {"type": "collision", "colliders": [)") +
         collider + R"(], "bounce": 0.6, "particle_radius": 0.02}]}]})";
}

void BM_CollideWorld(benchmark::State& state, const char* collider) {
  const mote::HeightfieldCollider ground = hills();
  auto w = world(compile(bouncingDrops(collider)), nullptr);
  w->setCollision(&ground);
  for (auto _ : state)
    w->tick(kBenchDt);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(w->stats().live));
}
BENCHMARK_CAPTURE(BM_CollideWorld, host, R"({"kind": "host"})")->Name("collide/host/4096");
BENCHMARK_CAPTURE(BM_CollideWorld, plane, R"({"kind": "plane"})")->Name("collide/plane/4096");

// Particle events (docs/runtime.md, "Host events"; docs/effect-format.md, "Particle events"):
// 4,096 shells born together die together in the first timed tick; the next tick births what their
// death events asked for. The two ticks are timed, the items are the deaths, and the cost of an
// event is a case's time less `none`'s (the same deaths without events), per death.
std::string dyingShells(const char* events) {
  return std::string(R"({"format": "mote.effect/1", "name": "shells", "materials": [{"name": "m"}],
    "emitters": [{"name": "shells", "material": "m", "max_particles": 4096,
      "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 4096}]},
      "init": {"lifetime": 0.025, "size": 0.2, "color": [1, 0.5, 0.25, 1],
               "velocity": {"kind": "sphere", "speed": 3}},
      "events": [)") +
         events + R"(]},
      {"name": "sparks", "material": "m", "max_particles": 4096, "spawn": {"rate": 0},
       "init": {"lifetime": 10, "velocity": {"kind": "sphere", "speed": 1}}}]})";
}

void BM_DeathEvents(benchmark::State& state, const char* events) {
  const mote::bytecode::CompiledEffect effect = compile(dyingShells(events));
  mote::WorldDesc desc = mote::worldDescFor(effect, nullptr);
  desc.maxEventsPerEmitter = 4096;
  auto w = mote::ParticleWorld::create(desc).takeValue();
  const mote::EffectHandle h = w->addEffect(effect).value();
  std::int64_t died = 0;
  for (auto _ : state) {
    state.PauseTiming();
    if (!w->restart(h).ok()) std::abort();
    w->tick(kBenchDt);  // the burst
    state.ResumeTiming();
    w->tick(kBenchDt);  // every shell dies
    died += static_cast<std::int64_t>(w->stats().died);
    w->tick(kBenchDt);  // what their events asked for is born
  }
  state.SetItemsProcessed(died);
}
BENCHMARK_CAPTURE(BM_DeathEvents, none, "")->Name("events/death/none/4096");
BENCHMARK_CAPTURE(BM_DeathEvents, spawn, R"({"on": "death", "spawn": "sparks"})")
    ->Name("events/death/spawn/4096");
BENCHMARK_CAPTURE(BM_DeathEvents, inherit,
                  R"({"on": "death", "spawn": "sparks", "inherit_velocity": 0.5,
                      "inherit_color": true, "inherit_size": true})")
    ->Name("events/death/inherit/4096");
BENCHMARK_CAPTURE(BM_DeathEvents, report, R"({"on": "death", "report": true})")
    ->Name("events/death/report/4096");

// A fireworks show of about 100,000 live particles in its steady state (prewarmed 4 s): 100
// rockets a second, each bursting at its death into 500 sparks that inherit half its velocity and
// its colour and live 2 s, and reporting its bang. Items: the live particles of the timed tick.
constexpr const char* kFireworks100k = R"({"format": "mote.effect/1", "name": "show",
  "materials": [{"name": "m"}],
  "emitters": [
    {"name": "rockets", "material": "m", "max_particles": 256, "prewarm": 4,
     "spawn": {"rate": 100}, "shape": {"kind": "disk", "radius": 20},
     "init": {"lifetime": [0.8, 1.2], "color": {"from": [3, 0.5, 0.2, 1], "to": [0.3, 0.6, 3, 1]},
              "velocity": {"kind": "cone", "spread": 8, "speed": [10, 12]}},
     "update": [{"type": "gravity"}],
     "events": [{"on": "death", "spawn": "sparks", "count": 500, "inherit_velocity": 0.5,
                 "inherit_color": true, "report": true}]},
    {"name": "sparks", "material": "m", "max_particles": 131072, "prewarm": 4,
     "init": {"lifetime": [1.6, 2.4], "velocity": {"kind": "sphere", "speed": [3.5, 4.5]}},
     "update": [{"type": "gravity", "acceleration": [0, -2.5, 0]}, {"type": "drag", "coefficient": 1.2},
                {"type": "color_over_life", "gradient": {"keys": [[0, [2, 2, 2, 1]], [1, [0.3, 0.3, 0.3, 0]]]}}]}]})";

void BM_Fireworks(benchmark::State& state) {
  const mote::bytecode::CompiledEffect effect = compile(kFireworks100k);
  auto w = world(effect, nullptr);
  std::int64_t live = 0;
  for (auto _ : state) {
    w->tick(kBenchDt);
    live += static_cast<std::int64_t>(w->stats().live);
  }
  state.SetItemsProcessed(live);
  state.counters["live_particles"] =
      static_cast<double>(live) /
      static_cast<double>(std::max<std::int64_t>(state.iterations(), 1));
}
BENCHMARK(BM_Fireworks)->Name("events/fireworks/100000");

// Trails (docs/effect-format.md, "Trails"): 4,096 comets in their steady state (prewarmed 1 s),
// each laying 2 trail particles a tick (120 a second) that live 0.1 s, about 53,000 live (room for
// the 1/30 s steps of prewarm, 4 a comet each). Items:
// the trail particles born in the timed tick; the cost of one over its life (its TRAIL request,
// birth along the path, INIT, six UPDATEs, its death) is a case's time less `none`'s (the same
// comets without a trail), per item of the case.
std::string trailingComets(const char* trail) {
  return std::string(R"({"format": "mote.effect/1", "name": "comets", "materials": [{"name": "m"}],
    "emitters": [{"name": "comets", "material": "m", "max_particles": 4096, "prewarm": 1,
      "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 4096}]},
      "shape": {"kind": "box", "size": [8, 2, 8]},
      "init": {"lifetime": 100000, "color": [1, 0.5, 0.25, 1],
               "velocity": {"kind": "sphere", "speed": 4}}})") +
         trail + "]}";
}

void BM_Trails(benchmark::State& state, const char* trail) {
  auto w = world(compile(trailingComets(trail)), nullptr);
  std::int64_t born = 0;
  std::array<double, 3> phases{};  // emission, simulation, compaction (WorldStats), s
  for (auto _ : state) {
    w->tick(kBenchDt);
    const mote::WorldStats& s = w->stats();
    born += static_cast<std::int64_t>(s.spawned);
    phases[0] += s.emitSeconds;
    phases[1] += s.simulateSeconds;
    phases[2] += s.compactSeconds;
  }
  state.SetItemsProcessed(born);
  const double ticks = static_cast<double>(std::max<std::int64_t>(state.iterations(), 1));
  state.counters["emit_us"] = phases[0] / ticks * 1e6;
  state.counters["simulate_us"] = phases[1] / ticks * 1e6;
  state.counters["compact_us"] = phases[2] / ticks * 1e6;
}
BENCHMARK_CAPTURE(BM_Trails, none, "")->Name("trails/none/4096");
BENCHMARK_CAPTURE(BM_Trails, per_second, R"(,
    {"name": "trail", "material": "m", "max_particles": 81920, "prewarm": 1,
     "spawn": {"source": "comets", "rate": 120}, "init": {"lifetime": 0.1}})")
    ->Name("trails/per_second/4096");
BENCHMARK_CAPTURE(BM_Trails, inherit, R"(,
    {"name": "trail", "material": "m", "max_particles": 81920, "prewarm": 1,
     "spawn": {"source": "comets", "rate": 120, "inherit_velocity": 0.5, "inherit_color": true},
     "init": {"lifetime": 0.1}})")
    ->Name("trails/inherit/4096");

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
