// SPDX-License-Identifier: MIT
// ParticleWorld: the per-tick contract (emission, budget clamp, kills, bounds), handles, culling,
// prewarm, threads and the state hash, on effects compiled from small JSON files.
#include "support/compile_effect.h"
#include "support/source_dir.h"

#include <mote/authoring/effect_json.h>
#include <mote/compiler/compiler.h>
#include <mote/core/alloc_watch.h>
#include <mote/core/file.h>
#include <mote/core/fnv1a.h>
#include <mote/core/job_system.h>
#include <mote/runtime/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <set>
#include <string>

namespace mote {
namespace {

using test::compileFile;
using test::compileJson;

// One emitter; `emitter` is the inside of its JSON object (name and material are added).
std::string effectJson(const std::string& emitter) {
  return R"({"format": "mote.effect/1", "name": "t", "materials": [{"name": "m"}],
             "emitters": [{"name": "e", "material": "m", )" +
         emitter + "}]}";
}

std::unique_ptr<ParticleWorld> makeWorld(WorldDesc desc = {}) {
  Result<std::unique_ptr<ParticleWorld>> world = ParticleWorld::create(desc);
  EXPECT_TRUE(world.ok()) << world.status().message();
  return std::move(world.value());
}

EmitterStats statsOf(const ParticleWorld& world, EmitterHandle emitter) {
  const Result<EmitterStats> s = world.emitterStats(emitter);
  EXPECT_TRUE(s.ok());
  return s.ok() ? s.value() : EmitterStats{};
}

// Particle i's word `lane` of the field at `channel` (a ParticleChannels offset).
float word(const EmitterView& v, std::int32_t channel, std::size_t lane, std::uint32_t i) {
  return v.streams[static_cast<std::size_t>(channel) + lane][i];
}

constexpr float kDt = 1.0f / 64.0f;  // exact in binary: rates integrate without rounding

TEST(ParticleWorld, CreateRejectsBadCapacities) {
  WorldDesc zero;
  zero.maxEmitters = 0;
  EXPECT_EQ(ParticleWorld::create(zero).status().code(), StatusCode::InvalidArgument);
  WorldDesc chunk;
  chunk.chunkParticles = 300;
  const Result<std::unique_ptr<ParticleWorld>> bad = ParticleWorld::create(chunk);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("multiple of 256"), std::string::npos);
}

TEST(ParticleWorld, ContinuousRateSpawnsExactlyRateTimesTime) {
  auto world = makeWorld();
  const auto effect =
      compileJson(effectJson(R"("spawn": {"rate": 64}, "init": {"lifetime": 100})"));
  const Result<EffectHandle> h = world->addEffect(effect);
  ASSERT_TRUE(h.ok()) << h.status().message();
  for (int i = 0; i < 64; ++i)
    world->tick(kDt);
  const EmitterStats s = statsOf(*world, world->emitter(h.value(), 0));
  EXPECT_EQ(s.spawned, 64u);
  EXPECT_EQ(s.live, 64u);
  EXPECT_EQ(world->stats().live, 64u);
  EXPECT_EQ(world->stats().spawnedTotal, 64u);
}

TEST(ParticleWorld, LifetimeKillsAndTheLiveCountSettles) {
  auto world = makeWorld();
  const auto effect =
      compileJson(effectJson(R"("spawn": {"rate": 128}, "init": {"lifetime": 0.5})"));
  const EffectHandle h = world->addEffect(effect).value();
  for (int i = 0; i < 256; ++i)
    world->tick(kDt);
  const EmitterStats s = statsOf(*world, world->emitter(h, 0));
  // 128/s for 0.5 s: 64 alive at any time (± the tick a particle dies in).
  EXPECT_GE(s.live, 63u);
  EXPECT_LE(s.live, 66u);
  EXPECT_EQ(s.spawned, 512u);
  EXPECT_EQ(s.died + s.live, s.spawned);
}

TEST(ParticleWorld, PoolOverflowDropsAndCountsWithoutGrowing) {
  auto world = makeWorld();
  const auto effect = compileJson(effectJson(
      R"("max_particles": 10, "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 25}]},
         "init": {"lifetime": 100})"));
  const EffectHandle h = world->addEffect(effect).value();
  world->tick(kDt);
  const EmitterStats s = statsOf(*world, world->emitter(h, 0));
  EXPECT_EQ(s.live, 10u);
  EXPECT_EQ(s.capacity, 10u);
  EXPECT_EQ(s.spawned, 10u);
  EXPECT_EQ(s.dropped, 15u);
  EXPECT_EQ(world->stats().dropped, 15u);
}

TEST(ParticleWorld, BurstsRepeatAndSingleShotsLoop) {
  auto world = makeWorld();
  const auto bursts = compileJson(effectJson(
      R"("spawn": {"rate": 0, "bursts": [{"time": 0, "count": 40},
                   {"time": 1, "count": 10, "repeat_interval": 0.5, "repeat_count": 3}]},
         "init": {"lifetime": 100})"));
  const auto shots = compileJson(effectJson(
      R"("spawn": {"mode": "single_shot", "rate": 5, "duration": 1, "loop": true},
         "init": {"lifetime": 100})"));
  const EffectHandle b = world->addEffect(bursts).value();
  const EffectHandle s = world->addEffect(shots).value();
  for (int i = 0; i < 64 * 3 + 32; ++i)  // 3.5 s
    world->tick(kDt);
  EXPECT_EQ(statsOf(*world, world->emitter(b, 0)).spawned, 80u);  // 40 + 4 × 10
  EXPECT_EQ(statsOf(*world, world->emitter(s, 0)).spawned, 20u);  // shots at 0, 1, 2, 3
}

TEST(ParticleWorld, EventBurstsFireOnTriggerAndOnTheTimeline) {
  auto world = makeWorld();
  const auto effect = compileJson(effectJson(
      R"("spawn": {"mode": "event_burst", "rate": 7, "event_name": "hit", "event_times": [0.5]},
         "init": {"lifetime": 100})"));
  const EffectHandle h = world->addEffect(effect).value();
  const EmitterHandle e = world->emitter(h, 0);
  world->tick(kDt);
  EXPECT_EQ(statsOf(*world, e).spawned, 0u);
  EXPECT_EQ(world->trigger(h, "hit").value(), 1u);
  EXPECT_EQ(world->trigger(h, "other").value(), 0u);
  world->tick(kDt);
  EXPECT_EQ(statsOf(*world, e).spawned, 7u);
  for (int i = 0; i < 32; ++i)
    world->tick(kDt);
  EXPECT_EQ(statsOf(*world, e).spawned, 14u);  // the timeline's event at 0.5 s
}

// A blast emitter at the origin and still "leaves" 2 m away on +x that follow the wind fully.
std::string blastEffect(const std::string& forceEvent) {
  return R"({"format": "mote.effect/1", "name": "blast", "materials": [{"name": "m"}],
    "emitters": [
      {"name": "blast", "material": "m",
       "spawn": {"mode": "event_burst", "rate": 1, "event_name": "boom"},
       "init": {"lifetime": 100}, )" +
         forceEvent + R"(},
      {"name": "leaves", "material": "m", "position": [2, 0, 0],
       "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 3}]},
       "init": {"lifetime": 100},
       "update": [{"type": "wind", "response": 1000}]}]})";
}

TEST(ParticleWorld, ForceEventsBlowParticlesThatSampleTheWindForTheirDuration) {
  const auto velocityX = [](const ParticleWorld& world, EmitterHandle e) {
    const EmitterView v = world.view(e).value();
    return word(v, v.emitter->channels.velocity, 0, 0);
  };
  auto world = makeWorld();
  const EffectHandle h =
      world
          ->addEffect(compileJson(
              blastEffect(R"("force_event": {"radius": 4, "duration": 0.25, "strength": 12})")))
          .value();
  const EmitterHandle leaves = world->emitter(h, 1);
  world->tick(kDt);
  EXPECT_EQ(velocityX(*world, leaves), 0.0f);  // still air
  ASSERT_EQ(world->trigger(h, "boom").value(), 1u);
  world->tick(kDt);
  world->tick(kDt);
  // 2 m from the centre of a 4 m, 12 m/s burst: 6 m/s away from it (+x), and the leaves follow.
  const float blown = velocityX(*world, leaves);
  EXPECT_NEAR(blown, 6.0f, 0.3f);
  // After the duration the burst stops: the wind goes back to still air and the leaves slow.
  for (int i = 0; i < 32; ++i)
    world->tick(kDt);
  EXPECT_LT(std::abs(velocityX(*world, leaves)), 0.01f);
  // Without a force event the same trigger moves nothing.
  auto calm = makeWorld();
  const EffectHandle c = calm->addEffect(compileJson(blastEffect(R"("render": {})"))).value();
  calm->tick(kDt);
  ASSERT_EQ(calm->trigger(c, "boom").value(), 1u);
  calm->tick(kDt);
  calm->tick(kDt);
  EXPECT_EQ(velocityX(*calm, calm->emitter(c, 1)), 0.0f);
}

// A burst blows from the tick it is raised in on every emitter, also those scheduled before the
// emitter that raised it (the leaves come first here).
TEST(ParticleWorld, AForceEventBlowsOnEarlierEmittersInTheTickItIsRaised) {
  auto world = makeWorld();
  const EffectHandle h = world
                             ->addEffect(compileJson(R"({"format": "mote.effect/1", "name": "blast",
    "materials": [{"name": "m"}],
    "emitters": [
      {"name": "leaves", "material": "m", "position": [2, 0, 0],
       "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 3}]},
       "init": {"lifetime": 100},
       "update": [{"type": "wind", "response": 1000}]},
      {"name": "blast", "material": "m",
       "spawn": {"mode": "event_burst", "rate": 1, "event_name": "boom"},
       "init": {"lifetime": 100},
       "force_event": {"radius": 4, "duration": 0.25, "strength": 12}}]})"))
                             .value();
  const EmitterHandle leaves = world->emitter(h, 0);
  world->tick(kDt);
  ASSERT_EQ(world->trigger(h, "boom").value(), 1u);
  world->tick(kDt);
  const EmitterView v = world->view(leaves).value();
  EXPECT_GT(word(v, v.emitter->channels.velocity, 0, 0), 1.0f);  // blown in that very tick
}

TEST(ParticleWorld, StaleHandlesAreNotFoundAndReusedRowsStartEmpty) {
  auto world = makeWorld();
  const auto effect =
      compileJson(effectJson(R"("spawn": {"rate": 640}, "init": {"lifetime": 100})"));
  const EffectHandle first = world->addEffect(effect).value();
  for (int i = 0; i < 10; ++i)
    world->tick(kDt);
  const EmitterHandle e = world->emitter(first, 0);
  EXPECT_EQ(statsOf(*world, e).live, 100u);
  ASSERT_TRUE(world->removeEmitter(e).ok());
  // Gone at once, and every handle to it is stale.
  EXPECT_EQ(world->stats().live, 100u);  // the last tick's figure
  EXPECT_EQ(world->stateHash(), ParticleWorld::create({}).value()->stateHash());
  EXPECT_EQ(world->emitterStats(e).status().code(), StatusCode::NotFound);
  EXPECT_EQ(world->removeEmitter(e).code(), StatusCode::NotFound);
  EXPECT_FALSE(world->emitter(first, 0).valid());
  ASSERT_TRUE(world->removeEffect(first).ok());
  EXPECT_EQ(world->removeEffect(first).code(), StatusCode::NotFound);
  EXPECT_EQ(world->setTransform(first, {}).code(), StatusCode::NotFound);
  EXPECT_EQ(world->trigger(first, "x").status().code(), StatusCode::NotFound);
  // A new tenant of the same rows sees none of the former particles.
  const EffectHandle second = world->addEffect(effect).value();
  const EmitterHandle e2 = world->emitter(second, 0);
  EXPECT_EQ(e2.index, e.index);
  EXPECT_NE(e2.generation, e.generation);
  EXPECT_EQ(statsOf(*world, e2).live, 0u);
  world->tick(kDt);
  const EmitterView v = world->view(e2).value();
  ASSERT_EQ(v.live, 10u);
  for (std::uint32_t i = 0; i < v.live; ++i)
    EXPECT_EQ(v.ids[i], i);
}

TEST(ParticleWorld, CapacityBudgetsAreEnforcedAtAddEffect) {
  WorldDesc desc;
  desc.maxParticles = 1500;
  desc.maxEffects = 2;
  auto world = makeWorld(desc);
  const auto effect = compileJson(effectJson(R"("max_particles": 1000, "spawn": {"rate": 10})"));
  ASSERT_TRUE(world->addEffect(effect).ok());
  const Result<EffectHandle> second = world->addEffect(effect);
  EXPECT_EQ(second.status().code(), StatusCode::BudgetExhausted);
  EXPECT_NE(second.status().message().find("500 of 1500 are free"), std::string::npos)
      << second.status().message();
}

TEST(ParticleWorld, BoundsHoldEveryQuadAndAreUnknownWhileEmpty) {
  auto world = makeWorld();
  const auto effect = compileJson(effectJson(
      R"("spawn": {"rate": 0, "bursts": [{"time": 0, "count": 200}]},
         "shape": {"kind": "sphere", "radius": 2},
         "init": {"lifetime": 0.5, "size": [0.2, 0.6], "velocity": {"kind": "sphere", "speed": 1}})"));
  const EffectHandle h = world->addEffect(effect).value();
  const EmitterHandle e = world->emitter(h, 0);
  EXPECT_FALSE(statsOf(*world, e).bounds.known);
  world->tick(kDt);
  const EmitterView v = world->view(e).value();
  ASSERT_EQ(v.live, 200u);
  ASSERT_TRUE(v.bounds.known);
  const auto& ch = v.emitter->channels;
  for (std::uint32_t i = 0; i < v.live; ++i) {
    const float w = word(v, ch.size, 0, i);
    const float ht = word(v, ch.size, 1, i);
    const float half = 0.5f * std::sqrt(w * w + ht * ht);
    for (std::size_t c = 0; c < 3; ++c) {
      EXPECT_LE(v.bounds.min[c], word(v, ch.position, c, i) - half + 1e-5f);
      EXPECT_GE(v.bounds.max[c], word(v, ch.position, c, i) + half - 1e-5f);
    }
  }
  EXPECT_GT(v.bounds.max[0] - v.bounds.min[0], 3.0f);  // the sphere is 4 m across
  for (int i = 0; i < 40; ++i)
    world->tick(kDt);
  const EmitterStats done = statsOf(*world, e);
  EXPECT_EQ(done.live, 0u);
  EXPECT_FALSE(done.bounds.known);
  EXPECT_TRUE(done.finished);
}

class NothingVisible final : public VisibilityTest {
 public:
  bool visible(const Bounds&) const noexcept override { return false; }
};

TEST(ParticleWorld, CulledEmittersSleepAndCatchUpAtMostMaxCatchup) {
  auto world = makeWorld();
  const auto effect = compileJson(effectJson(
      R"("spawn": {"rate": 64}, "init": {"lifetime": 100},
         "culling": {"enabled": true, "max_catchup_seconds": 0.5})"));
  const EffectHandle h = world->addEffect(effect).value();
  const EmitterHandle e = world->emitter(h, 0);
  world->tick(kDt);  // one particle: the bounds are known from now on
  ASSERT_EQ(statsOf(*world, e).spawned, 1u);
  const NothingVisible hidden;
  for (int i = 0; i < 128; ++i)  // 2 s asleep
    world->tick(kDt, &hidden);
  EXPECT_TRUE(statsOf(*world, e).culled);
  EXPECT_EQ(statsOf(*world, e).spawned, 1u);
  EXPECT_EQ(world->stats().culled, 1u);
  world->tick(kDt);  // awake: this tick's one and 0.5 s of catch-up
  EXPECT_EQ(statsOf(*world, e).spawned, 1u + 1u + 32u);
}

TEST(ParticleWorld, PrewarmStartsInTheSteadyStateWithoutBandedAges) {
  auto world = makeWorld();
  const auto effect =
      compileJson(effectJson(R"("prewarm": 2, "spawn": {"rate": 100}, "init": {"lifetime": 1})"));
  const EffectHandle h = world->addEffect(effect).value();
  const EmitterView v = world->view(world->emitter(h, 0)).value();
  EXPECT_GE(v.live, 95u);
  EXPECT_LE(v.live, 101u);
  std::set<float> ages;
  for (std::uint32_t i = 0; i < v.live; ++i)
    ages.insert(word(v, v.emitter->channels.age, 0, i));
  // 30 prewarm steps a second would give 30 distinct ages if births were not spread in the step.
  EXPECT_GT(ages.size(), v.live * 9 / 10);
}

TEST(ParticleWorld, RestartAndSeekAreRepeatable) {
  auto world = makeWorld();
  const auto effect = compileJson(effectJson(
      R"("spawn": {"rate": 50}, "init": {"lifetime": 1, "velocity": {"kind": "sphere", "speed": 2}},
         "update": [{"type": "gravity"}])"));
  const EffectHandle h = world->addEffect(effect).value();
  const std::uint64_t fresh = world->stateHash();
  for (int i = 0; i < 50; ++i)
    world->tick(kDt);
  const std::uint64_t after50 = world->stateHash();
  ASSERT_TRUE(world->restart(h).ok());
  EXPECT_EQ(world->stateHash(), fresh);
  for (int i = 0; i < 50; ++i)
    world->tick(kDt);
  EXPECT_EQ(world->stateHash(), after50);
  ASSERT_TRUE(world->seek(h, 1.5f).ok());
  const std::uint64_t seeked = world->stateHash();
  EXPECT_GT(statsOf(*world, world->emitter(h, 0)).live, 40u);
  ASSERT_TRUE(world->seek(h, 1.5f).ok());
  EXPECT_EQ(world->stateHash(), seeked);
  EXPECT_EQ(world->seek(h, -1.0f).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(world->seek(h, NAN).code(), StatusCode::InvalidArgument);
}

TEST(ParticleWorld, MovingEmittersSpreadSpawnsAlongTheirPath) {
  auto world = makeWorld();
  const auto effect =
      compileJson(effectJson(R"("spawn": {"rate": 640}, "init": {"lifetime": 100})"));
  const EffectHandle h = world->addEffect(effect).value();
  Transform t;
  t.position = {1.0f, 0.0f, 0.0f};
  ASSERT_TRUE(world->setTransform(h, t).ok());
  world->tick(kDt);  // 10 particles born along x from 0 to 1, then moved by no velocity
  const EmitterView v = world->view(world->emitter(h, 0)).value();
  ASSERT_EQ(v.live, 10u);
  std::set<float> xs;
  for (std::uint32_t i = 0; i < v.live; ++i) {
    const float x = word(v, v.emitter->channels.position, 0, i);
    EXPECT_GE(x, 0.0f);
    EXPECT_LE(x, 1.0f);
    xs.insert(x);
  }
  EXPECT_EQ(xs.size(), 10u);
  EXPECT_FLOAT_EQ(*xs.rbegin(), 1.0f);  // the last is born at the step's end
}

// Twelve bursts in one step: more spawn calls than the step's deferred runs hold (the rest write
// their lanes at once), in runs of 100 across chunks of 256 that two threads fill. Every newborn
// sees its own spawn index, id and birth time, as if one thread had written them in order.
TEST(ParticleWorld, NewbornsSeeTheirSpawnLanesHoweverTheChunksSplitTheRuns) {
  std::string bursts;
  for (int b = 0; b < 12; ++b)
    bursts += (b > 0 ? ", " : "") + std::string(R"({"time": )") + std::to_string(b) +
              "e-3, \"count\": 100}";
  const auto effect =
      compileJson(effectJson(R"("max_particles": 1500, "spawn": {"rate": 0, "bursts": [)" + bursts +
                             R"(]}, "init": {"lifetime": 100, "graph": {"nodes": [
        {"id": "i", "op": "spawn_index"}, {"id": "a", "op": "emitter_age"},
        {"id": "p", "op": "particle_id"},
        {"id": "si", "op": "particle_field_set", "inputs": {"value": "i"}, "names": {"field": "alpha"}},
        {"id": "sa", "op": "particle_field_set", "inputs": {"value": "a"}, "names": {"field": "size_x"}},
        {"id": "sp", "op": "particle_field_set", "inputs": {"value": "p"}, "names": {"field": "size_y"}}
      ]}})"));
  for (const std::uint32_t threads : {1u, 2u}) {
    std::unique_ptr<ThreadPool> pool = ThreadPool::create(threads).takeValue();
    WorldDesc desc;
    desc.jobs = pool.get();
    desc.chunkParticles = 256;
    auto world = makeWorld(desc);
    const EffectHandle h = world->addEffect(effect).value();
    world->tick(kDt);
    const EmitterView v = world->view(world->emitter(h, 0)).value();
    ASSERT_EQ(v.live, 1200u) << threads << " threads";
    for (std::uint32_t i = 0; i < v.live; ++i) {
      SCOPED_TRACE(testing::Message() << "particle " << i << ", " << threads << " threads");
      EXPECT_EQ(v.ids[i], i);
      const bytecode::ParticleChannels& ch = v.emitter->channels;
      EXPECT_EQ(word(v, ch.color, 3, i), static_cast<float>(i));                // spawn index
      EXPECT_EQ(word(v, ch.size, 0, i), static_cast<float>((i / 100) * 1e-3));  // birth time
      EXPECT_EQ(word(v, ch.size, 1, i), static_cast<float>(i));                 // particle id
    }
  }
}

TEST(ParticleWorld, PerDistanceEmittersSpawnOnlyWhenMoving) {
  auto world = makeWorld();
  const auto effect = compileJson(
      effectJson(R"("spawn": {"rate": 10, "metric": "per_distance"}, "init": {"lifetime": 100})"));
  const EffectHandle h = world->addEffect(effect).value();
  world->tick(kDt);
  EXPECT_EQ(world->stats().spawned, 0u);
  Transform t;
  t.position = {0.0f, 0.0f, 2.0f};
  ASSERT_TRUE(world->setTransform(h, t).ok());
  world->tick(kDt);
  EXPECT_EQ(world->stats().spawned, 20u);
}

TEST(ParticleWorld, EmitterFieldsGlobalsAndBindingsAreCheckedAndApplied) {
  auto world = makeWorld();
  const auto effect = compileJson(effectJson(
      R"("spawn": {"rate": 64}, "init": {"lifetime": 100},
         "update": [{"type": "attractor", "position_field": "goal", "strength": 0, "kill_radius": 0.5}],
         "emitter_fields": [{"name": "goal", "type": "vec3", "value": [100, 0, 0]}])"));
  const EffectHandle h = world->addEffect(effect).value();
  const EmitterHandle e = world->emitter(h, 0);
  const std::array<float, 3> origin{0.0f, 0.0f, 0.0f};
  const std::array<float, 2> two{1.0f, 2.0f};
  EXPECT_EQ(world->setEmitterField(e, "nope", origin).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(world->setEmitterField(e, "goal", two).code(), StatusCode::InvalidArgument);
  for (int i = 0; i < 8; ++i)
    world->tick(kDt);
  EXPECT_EQ(statsOf(*world, e).live, 8u);
  // The goal at the spawn point: everything born there dies at once.
  ASSERT_TRUE(world->setEmitterField(e, "goal", origin).ok());
  world->tick(kDt);
  EXPECT_EQ(statsOf(*world, e).live, 0u);
  // Bound to another effect's transform, far away: they live again.
  const EffectHandle other = world->addEffect(effect).value();
  Transform far;
  far.position = {50.0f, 0.0f, 0.0f};
  ASSERT_TRUE(world->setTransform(other, far).ok());
  ASSERT_TRUE(world->bindEmitterField(e, "goal", other).ok());
  world->tick(kDt);
  EXPECT_EQ(statsOf(*world, e).live, 1u);
  const std::array<float, 2> g2{1.0f, 2.0f};
  ASSERT_TRUE(world->setGlobal("wind_gain", g2).ok());
  EXPECT_EQ(world->setGlobal("wind_gain", origin).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(world->setGlobal("x", std::span<const float>()).code(), StatusCode::InvalidArgument);
}

// Drops falling from (0, 2, 0) that die on the ground plane, each queueing 3 particles into a
// "splash" emitter placed by `splash` (JSON members, possibly empty).
std::string dropsAndSplash(const std::string& splash) {
  return R"({"format": "mote.effect/1", "name": "t", "materials": [{"name": "m"}],
    "emitters": [
      {"name": "drops", "material": "m", "position": [0, 2, 0], "spawn": {"rate": 64},
       "init": {"lifetime": 10},
       "update": [{"type": "gravity"},
                  {"type": "collision", "colliders": [{"kind": "plane"}], "response": "kill",
                   "spawn_emitter": "splash", "spawn_count": 3}]},
      {"name": "splash", "material": "m", )" +
         splash + R"("spawn": {"rate": 0}, "init": {"lifetime": 10}}]})";
}

TEST(ParticleWorld, SpawnRequestsFeedTheTargetEmitter) {
  auto world = makeWorld();
  const auto effect = compileJson(dropsAndSplash(""));
  const EffectHandle h = world->addEffect(effect).value();
  for (int i = 0; i < 128; ++i)
    world->tick(kDt);
  const EmitterStats drops = statsOf(*world, world->emitter(h, 0));
  const EmitterStats splash = statsOf(*world, world->emitter(h, 1));
  ASSERT_GT(drops.died, 10u);
  // Each drop that hit the ground queued 3 splashes, born the tick after, at the ground.
  EXPECT_GE(splash.spawned, 3 * (drops.died - 1));
  EXPECT_LE(splash.spawned, 3 * drops.died);
  const EmitterView v = world->view(world->emitter(h, 1)).value();
  for (std::uint32_t i = 0; i < v.live; ++i)
    EXPECT_NEAR(word(v, v.emitter->channels.position, 1, i), 0.0f, 0.25f);
}

TEST(ParticleWorld, SpawnRequestsIntoALocalSpaceTargetLandAtTheSourcePoint) {
  // The splash emitter sits at (3, 1, 0), turned 90° about Y, and simulates in its own frame:
  // a drop hitting the ground at the world origin must start its splash there, which in the
  // splash's frame is R⁻¹ · ((0, 0, 0) − (3, 1, 0)) = (0, −1, −3).
  auto world = makeWorld();
  const auto effect = compileJson(
      dropsAndSplash(R"("position": [3, 1, 0], "rotation": [0, 90, 0], "space": "local", )"));
  const EffectHandle h = world->addEffect(effect).value();
  for (int i = 0; i < 128; ++i)
    world->tick(kDt);
  const EmitterView v = world->view(world->emitter(h, 1)).value();
  ASSERT_GT(v.live, 10u);
  for (std::uint32_t i = 0; i < v.live; ++i) {
    EXPECT_NEAR(word(v, v.emitter->channels.position, 0, i), 0.0f, 1e-4f);
    EXPECT_NEAR(word(v, v.emitter->channels.position, 1, i), -1.0f, 0.25f);
    EXPECT_NEAR(word(v, v.emitter->channels.position, 2, i), -3.0f, 1e-4f);
  }
}

// The same effect under 1, 2, 4 and 8 threads, in chunks small enough to split every emitter.
TEST(ParticleWorld, StateIsBitIdenticalForAnyThreadCount) {
  const auto effect =
      compileFile((std::filesystem::path(mote::test::sourceDir()) / "examples/rain.json").string());
  std::uint64_t expected = 0;
  for (const std::uint32_t threads : {1u, 2u, 4u, 8u}) {
    std::unique_ptr<ThreadPool> pool = ThreadPool::create(threads).takeValue();
    WorldDesc desc;
    desc.jobs = pool.get();
    desc.chunkParticles = 256;
    auto world = makeWorld(desc);
    ASSERT_TRUE(world->addEffect(effect).ok());
    for (int i = 0; i < 240; ++i)
      world->tick(1.0f / 60.0f);
    EXPECT_GT(world->stats().live, 1000u);
    if (threads == 1) expected = world->stateHash();
    EXPECT_EQ(world->stateHash(), expected) << threads << " threads";
  }
}

// SPAWN requests reach their target in (source emitter, source particle id) order, so how the
// source's particles are chunked (or, on the GPU, which slots atomics gave them) changes nothing:
// in id order, the state is the same for any chunk size.
TEST(ParticleWorld, SpawnRequestsAreEmittedInSourceIdOrderWhateverTheChunks) {
  const auto effect =
      compileFile((std::filesystem::path(mote::test::sourceDir()) / "examples/rain.json").string());
  std::uint64_t expected = 0;
  for (const std::uint32_t chunk : {8192u, 512u, 256u}) {
    WorldDesc desc;
    desc.chunkParticles = chunk;
    auto world = makeWorld(desc);
    ASSERT_TRUE(world->addEffect(effect).ok());
    for (int i = 0; i < 240; ++i)
      world->tick(1.0f / 60.0f);
    if (chunk == 8192u) expected = world->stateHash(HashOrder::Id);
    EXPECT_EQ(world->stateHash(HashOrder::Id), expected) << chunk << " particles per chunk";
  }
}

// A known-answer hash: every build (dev, release, clang, sanitizers) and every SIMD target must
// give it. Re-pin deliberately (with the reason in the commit) when the simulation changes.
// Compaction keeps spawn order, so it is also the id-order hash cli.HashInIdOrderIsPinned pins.
TEST(ParticleWorld, BonfireStateHashIsPinned) {
  const auto effect = compileFile(
      (std::filesystem::path(mote::test::sourceDir()) / "examples/bonfire.json").string());
  auto world = makeWorld();
  ASSERT_TRUE(world->addEffect(effect).ok());
  for (int i = 0; i < 600; ++i)
    world->tick(1.0f / 60.0f);
  EXPECT_EQ(world->stateHash(), 0xb229aaf5b4c3bae7ull);
}

// The explosion fixtures of tests/golden/motefx: v1 (written before CURVE: its curves are
// arithmetic), v2 (its curves are CURVE instructions), v3 (v2's programs, without the fields
// nothing reads), v4 (v3 with empty motion) and v5 (v4's bytes, relabelled by the version that
// added COLLIDE). The programs compute the same values
// (docs/compiler.md, "Curves"), so the simulations end in the same state, bit for bit.
TEST(ParticleWorld, EveryVersionsFixtureRunsToTheSameStateHash) {
  const auto run = [](const char* path) -> std::uint64_t {
    Result<std::vector<std::uint8_t>> bytes =
        readFile(mote::test::sourcePath("tests/golden/motefx/") + path, bytecode::kMaxMotefxBytes);
    EXPECT_TRUE(bytes.ok()) << path;
    if (!bytes.ok()) return 0;
    Result<bytecode::CompiledEffect> effect = bytecode::loadMotefx(*bytes);
    EXPECT_TRUE(effect.ok()) << path << ": " << effect.status().toString();
    if (!effect.ok()) return 0;
    auto world = makeWorld();
    EXPECT_TRUE(world->addEffect(*effect).ok());
    for (int i = 0; i < 300; ++i)
      world->tick(1.0f / 60.0f);
    EXPECT_GT(world->stats().live, 0u) << path;
    return world->stateHash();
  };
  const std::uint64_t v1 = run("v1/explosion.motefx");
  EXPECT_NE(v1, 0u);
  EXPECT_EQ(run("v2/explosion.motefx"), v1);
  EXPECT_EQ(run("v3/explosion.motefx"), v1);
  EXPECT_EQ(run("v4/explosion.motefx"), v1);
  EXPECT_EQ(run("v5/explosion.motefx"), v1);
  EXPECT_EQ(run("v6/explosion.motefx"), v1);
  EXPECT_EQ(run("v7/explosion.motefx"), v1);
}

// The state hash canonicalises NaN: particles whose field holds log(−1) (a quiet NaN) and
// −log(−1) (the same NaN, sign bit set) hash the same in either order; log(1) = 0 does not.
TEST(ParticleWorld, StateHashHashesEveryNanAsOneQuietNan) {
  const auto effectWriting = [](const std::string& value) {
    return compileJson(effectJson(R"("particle_fields": [{"name": "x"}],
        "spawn": {"rate": 64}, "init": {"lifetime": 100, "graph": {"nodes": [
          {"id": "nan", "op": "log", "params": {"a": -1}},
          {"id": "negated", "op": "neg", "inputs": {"a": "nan"}},
          {"id": "zero", "op": "log", "params": {"a": 1}},
          {"id": "set", "op": "particle_field_set", "inputs": {"value": ")" +
                                  value + R"("}, "names": {"field": "x"}}]}})"));
  };
  std::vector<std::unique_ptr<ParticleWorld>> worlds;
  std::vector<std::uint32_t> bits;
  for (const char* value : {"nan", "negated", "zero"}) {
    worlds.push_back(makeWorld());
    ParticleWorld& w = *worlds.back();
    const EffectHandle h = w.addEffect(effectWriting(value)).value();
    for (int i = 0; i < 16; ++i)
      w.tick(kDt);
    const EmitterView v = w.view(w.emitter(h, 0)).value();
    ASSERT_EQ(v.live, 16u);
    std::int32_t x = -1;
    for (const bytecode::FieldSlot& f : v.emitter->program.particleFields)
      if (f.name == "field.x") x = static_cast<std::int32_t>(f.offset);
    ASSERT_GE(x, 0);
    bits.push_back(std::bit_cast<std::uint32_t>(v.streams[static_cast<std::size_t>(x)][3]));
  }
  EXPECT_EQ(bits[0], 0x7FC00000u);  // the states differ only in the NaN's sign
  EXPECT_EQ(bits[1], 0xFFC00000u);
  EXPECT_EQ(bits[2], 0u);
  for (const HashOrder order : {HashOrder::Storage, HashOrder::Id}) {
    EXPECT_EQ(worlds[0]->stateHash(order), worlds[1]->stateHash(order));
    EXPECT_NE(worlds[0]->stateHash(order), worlds[2]->stateHash(order));
  }
}

// Compaction keeps the survivors in spawn order: after deaths in random order the pool still holds
// ascending ids, so HashOrder::Id (which sorts by id: a GPU world's pool is in atomics' order) and
// the storage order hash alike, each FNV-1a over the records of docs/runtime.md ("The state hash")
// computed here from the emitter's view.
TEST(ParticleWorld, CompactionKeepsSpawnOrderSoBothHashOrdersAgree) {
  auto world = makeWorld();
  const auto effect = compileJson(effectJson(
      R"("spawn": {"rate": 0, "bursts": [{"time": 0, "count": 12}]},
         "init": {"lifetime": [0.05, 1]})"));
  const EffectHandle h = world->addEffect(effect).value();
  for (int i = 0; i < 20; ++i)
    world->tick(kDt);
  const EmitterView v = world->view(world->emitter(h, 0)).value();
  ASSERT_GT(v.live, 2u);
  ASSERT_LT(v.live, 12u);
  EXPECT_EQ(world->emitterStats(world->emitter(h, 0)).value().died + v.live, 12u);
  EXPECT_TRUE(std::is_sorted(v.ids, v.ids + v.live));
  EXPECT_EQ(std::adjacent_find(v.ids, v.ids + v.live), v.ids + v.live);  // and distinct
  const auto hashOf = [&](const std::vector<std::uint32_t>& slots) {
    Fnv1a64 f;
    f.updateU32(0).updateU32(v.live);  // the emitter's index in its effect, its live count
    for (const std::uint32_t i : slots) {
      f.updateU32(v.ids[i]);
      for (const float* stream : v.streams)
        f.updateU32(std::bit_cast<std::uint32_t>(stream[i]));
    }
    return f.value();
  };
  std::vector<std::uint32_t> bySlot(v.live);
  std::iota(bySlot.begin(), bySlot.end(), 0u);
  EXPECT_EQ(world->stateHash(HashOrder::Id), hashOf(bySlot));
  EXPECT_EQ(world->stateHash(HashOrder::Storage), hashOf(bySlot));
  EXPECT_EQ(world->stateHash(), hashOf(bySlot));
}

// Hashing in id order sorts in scratch reserved when the effect was added: no allocation.
TEST(ParticleWorld, StateHashInIdOrderAllocatesNothing) {
#if !defined(MOTE_TEST_ALLOC_WATCH_LINKED)
  GTEST_SKIP() << "the allocation watch is not linked in sanitizer builds";
#else
  auto world = makeWorld();
  (void)world->addEffect(compileFile(
      (std::filesystem::path(mote::test::sourceDir()) / "examples/rain.json").string()));
  for (int i = 0; i < 120; ++i)
    world->tick(1.0f / 60.0f);
  ASSERT_GT(world->stats().live, 100u);
  AllocationScope scope;
  const std::uint64_t id = world->stateHash(HashOrder::Id);
  const std::uint64_t storage = world->stateHash(HashOrder::Storage);
  EXPECT_EQ(scope.allocations(), 0u);
  EXPECT_EQ(id, storage);  // compaction keeps spawn order
#endif
}

TEST(ParticleWorld, TickAllocatesNothingUnderHeavyChurn) {
#if !defined(MOTE_TEST_ALLOC_WATCH_LINKED)
  GTEST_SKIP() << "the allocation watch is not linked in sanitizer builds";
#else
  const auto rain =
      compileFile((std::filesystem::path(mote::test::sourceDir()) / "examples/rain.json").string());
  const auto churn = compileJson(effectJson(
      R"("max_particles": 500, "spawn": {"rate": 20000}, "init": {"lifetime": [0.01, 0.2]},
         "update": [{"type": "curl_noise", "strength": 1}])"));
  std::unique_ptr<ThreadPool> pool = ThreadPool::create(2).takeValue();
  WorldDesc desc;
  desc.jobs = pool.get();
  desc.chunkParticles = 512;
  auto world = makeWorld(desc);
  const EffectHandle a = world->addEffect(rain).value();
  const EffectHandle b = world->addEffect(churn).value();
  for (int i = 0; i < 5; ++i)
    world->tick(1.0f / 60.0f);
  AllocationScope scope;
  for (int i = 0; i < 1000; ++i) {
    Transform t;
    t.position = {std::sin(static_cast<float>(i) * 0.1f), 0.0f, 0.0f};
    (void)world->setTransform(b, t);
    if (i % 100 == 0) (void)world->trigger(a, "burst");
    world->tick(1.0f / 60.0f);
  }
  EXPECT_EQ(scope.allocations(), 0u);
  EXPECT_GT(world->stats().droppedTotal, 0u);  // the churn emitter overflows all along
#endif
}

// Every example runs 10 simulated seconds with plausible statistics.
TEST(ParticleWorld, EveryExampleRunsTenSeconds) {
  for (const auto& entry : std::filesystem::directory_iterator(
           std::filesystem::path(mote::test::sourceDir()) / "examples")) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const auto effect = compileFile(entry.path().string());
    auto world = makeWorld();
    const Result<EffectHandle> h = world->addEffect(effect);
    ASSERT_TRUE(h.ok()) << h.status().message();
    std::uint64_t maxLive = 0;
    for (int i = 0; i < 600; ++i) {
      world->tick(1.0f / 60.0f);
      maxLive = std::max(maxLive, world->stats().live);
    }
    EXPECT_GT(maxLive, 0u);
    std::array<EmitterHandle, 64> handles{};
    const std::uint32_t count = world->emitters(handles);
    ASSERT_EQ(count, effect.emitters.size());
    std::uint64_t spawned = 0;
    for (std::uint32_t k = 0; k < count; ++k) {
      const EmitterView v = world->view(handles[k]).value();
      const EmitterStats s = statsOf(*world, handles[k]);
      EXPECT_LE(v.live, s.capacity);
      EXPECT_EQ(s.spawned, s.died + s.live);
      spawned += s.spawned;
      for (std::uint32_t i = 0; i < v.live; ++i) {
        for (std::size_t c = 0; c < 3; ++c)
          ASSERT_TRUE(std::isfinite(word(v, v.emitter->channels.position, c, i)));
      }
      if (v.live > 0) {
        ASSERT_TRUE(v.bounds.known);
        for (std::size_t c = 0; c < 3; ++c)
          EXPECT_LT(v.bounds.max[c] - v.bounds.min[c], 200.0f) << v.emitter->name;
      }
    }
    EXPECT_GT(spawned, 0u);  // prewarm included
  }
}

// EmitterView::version: the same while nothing changes, new on a tick and on setEmitterField,
// and never shared between emitters (what the renderer's draw cache keys on).
TEST(ParticleWorld, StateVersionsChangeWithTheStateAndOnlyThen) {
  auto world = makeWorld();
  const auto effect = compileJson(effectJson(
      R"("spawn": {"rate": 64}, "init": {"lifetime": 100},
         "emitter_fields": [{"name": "goal", "type": "vec3", "value": [100, 0, 0]}])"));
  const EmitterHandle a = world->emitter(world->addEffect(effect).value(), 0);
  const EmitterHandle b = world->emitter(world->addEffect(effect).value(), 0);
  world->tick(kDt);
  const std::uint64_t va = world->view(a).value().version;
  const std::uint64_t vb = world->view(b).value().version;
  EXPECT_NE(va, 0u);
  EXPECT_NE(va, vb);
  EXPECT_EQ(world->view(a).value().version, va);
  world->tick(kDt);
  const std::uint64_t ticked = world->view(a).value().version;
  EXPECT_NE(ticked, va);
  EXPECT_NE(ticked, vb);
  const std::array<float, 3> origin{0.0f, 0.0f, 0.0f};
  ASSERT_TRUE(world->setEmitterField(a, "goal", origin).ok());
  EXPECT_NE(world->view(a).value().version, ticked);
  // A rejected write changes nothing.
  const std::uint64_t set = world->view(a).value().version;
  EXPECT_FALSE(world->setEmitterField(a, "nope", origin).ok());
  EXPECT_EQ(world->view(a).value().version, set);
}

}  // namespace
}  // namespace mote
