// SPDX-License-Identifier: MIT
// Particle events (issue 26, deliverable 1): an emitter's `events` birth particles in another
// emitter of the effect when one of its particles is born, dies or collides — counted by hand: each
// birth, death or hit queues `count` particles, born where the particle was born, at its last
// position or at the point of contact, with what the event passes on (velocity, colour, size); and
// the state is the same under any thread count.
#include "support/compile_effect.h"

#include <mote/core/job_system.h>
#include <mote/runtime/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace mote {
namespace {

constexpr float kDt = 1.0f / 64.0f;  // exact in binary: ages add up without rounding

std::unique_ptr<ParticleWorld> makeWorld(WorldDesc desc = {}) {
  return ParticleWorld::create(desc).takeValue();
}

// Particle i's `width` words from `channel`.
template <std::size_t N>
std::array<float, N> wordsOf(const EmitterView& v, std::int32_t channel, std::uint32_t i) {
  std::array<float, N> out{};
  for (std::size_t k = 0; k < N; ++k)
    out[k] = v.streams[static_cast<std::size_t>(channel) + k][i];
  return out;
}
std::array<float, 3> positionOf(const EmitterView& v, std::uint32_t i) {
  return wordsOf<3>(v, v.emitter->channels.position, i);
}

// `shells`: `n` particles at t = 0 flying out at 1 m/s in random directions, living 0.5 s; each
// death births 3 `sparks`, at rest where the shell died (with `inherit`, the event's inheritance
// keys, what it passes them).
std::string shells(std::uint32_t n, const std::string& inherit = "") {
  return R"({"format": "mote.effect/1", "name": "shells", "materials": [{"name": "m"}],
    "emitters": [
      {"name": "shells", "material": "m", "max_particles": )" +
         std::to_string(n) + R"(, "spawn": {"rate": 0, "bursts": [{"time": 0, "count": )" +
         std::to_string(n) + R"(}]},
       "init": {"lifetime": 0.5, "velocity": {"kind": "sphere", "speed": 1}},
       "events": [{"on": "death", "spawn": "sparks", "count": 3)" +
         inherit + R"(}]},
      {"name": "sparks", "material": "m", "max_particles": )" +
         std::to_string(3 * n) + R"(, "spawn": {"rate": 0}, "init": {"lifetime": 100}}]})";
}

TEST(ParticleEvents, EveryDeathBirthsItsCountWhereTheParticleDied) {
  auto world = makeWorld();
  const EffectHandle h = world->addEffect(test::compileJson(shells(10))).value();
  for (int t = 0; t < 64; ++t)  // 1 s: every shell died at 0.5 s
    world->tick(kDt);
  const EmitterStats shell = world->emitterStats(world->emitter(h, 0)).value();
  const EmitterView sparks = world->view(world->emitter(h, 1)).value();
  EXPECT_EQ(shell.live, 0u);
  ASSERT_EQ(sparks.live, 30u);  // 10 deaths × 3
  // A shell dies in the tick its age passes 0.5 s (33 ticks of 1/64 s: 0.515625 s at 1 m/s), and
  // its sparks are born at its last position: three at each of ten points on that sphere.
  std::set<std::array<float, 3>> points;
  for (std::uint32_t i = 0; i < sparks.live; ++i) {
    const std::array<float, 3> at = positionOf(sparks, i);
    EXPECT_NEAR(std::hypot(at[0], at[1], at[2]), 33.0f / 64.0f, 1e-5f);
    points.insert(at);
  }
  EXPECT_EQ(points.size(), 10u);
}

TEST(ParticleEvents, EveryHitBirthsItsCountAtThePointOfContact) {
  // Four drops fall from 1 m at 2 m/s onto the ground, which kills them: each hit births 2
  // `splash` particles at the contact point and each death 1 `mark` there.
  constexpr const char* kDrops = R"({"format": "mote.effect/1", "name": "drops",
    "materials": [{"name": "m"}],
    "emitters": [
      {"name": "drops", "material": "m", "position": [0, 1, 0], "max_particles": 4,
       "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 4}]},
       "init": {"lifetime": 100, "velocity": {"kind": "direction", "direction": [0, -1, 0],
                                              "speed": 2}},
       "update": [{"type": "collision", "colliders": [{"kind": "plane"}], "response": "kill"}],
       "events": [{"on": "collision", "spawn": "splash", "count": 2},
                  {"on": "death", "spawn": "marks", "count": 1}]},
      {"name": "splash", "material": "m", "spawn": {"rate": 0}, "init": {"lifetime": 100}},
      {"name": "marks", "material": "m", "spawn": {"rate": 0}, "init": {"lifetime": 100}}]})";
  auto world = makeWorld();
  const EffectHandle h = world->addEffect(test::compileJson(kDrops)).value();
  for (int t = 0; t < 64; ++t)
    world->tick(kDt);
  EXPECT_EQ(world->emitterStats(world->emitter(h, 0)).value().live, 0u);
  const EmitterView splash = world->view(world->emitter(h, 1)).value();
  const EmitterView marks = world->view(world->emitter(h, 2)).value();
  EXPECT_EQ(splash.live, 8u);
  EXPECT_EQ(marks.live, 4u);
  // A drop is at y = 1 − t/32 after t ticks: 0 after 32, which is not yet a hit, so the tick after
  // next finds it 1/32 m below. The contact point is on the ground, and the drop dies at the end
  // of that tick, one more step of 1/32 m down.
  for (const auto& [v, y] : {std::pair{&splash, 0.0f}, std::pair{&marks, -2.0f / 32.0f}}) {
    for (std::uint32_t i = 0; i < v->live; ++i) {
      EXPECT_EQ(positionOf(*v, i)[0], 0.0f);
      EXPECT_EQ(positionOf(*v, i)[1], y);
    }
  }
}

TEST(ParticleEvents, EveryBirthBirthsItsCountWhereTheParticleWasBorn) {
  // Five particles born at (1, 2, 3) at t = 0, flying off; each birth births 2 `puffs` there, and
  // a steady 64 a second (one a tick) births 1 `trail` each.
  constexpr const char* kBirths = R"({"format": "mote.effect/1", "name": "births",
    "materials": [{"name": "m"}],
    "emitters": [
      {"name": "shots", "material": "m", "position": [1, 2, 3], "max_particles": 5,
       "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 5}]},
       "init": {"lifetime": 100, "velocity": {"kind": "sphere", "speed": 3}},
       "events": [{"on": "birth", "spawn": "puffs", "count": 2}]},
      {"name": "steady", "material": "m", "max_particles": 100, "spawn": {"rate": 64},
       "init": {"lifetime": 100}, "events": [{"on": "birth", "spawn": "trail"}]},
      {"name": "puffs", "material": "m", "spawn": {"rate": 0}, "init": {"lifetime": 100}},
      {"name": "trail", "material": "m", "spawn": {"rate": 0}, "init": {"lifetime": 100}}]})";
  auto world = makeWorld();
  const EffectHandle h = world->addEffect(test::compileJson(kBirths)).value();
  for (int t = 0; t < 10; ++t)
    world->tick(kDt);
  const EmitterView puffs = world->view(world->emitter(h, 2)).value();
  ASSERT_EQ(puffs.live, 10u);  // 5 births × 2
  for (std::uint32_t i = 0; i < puffs.live; ++i) {
    EXPECT_EQ(positionOf(puffs, i), (std::array<float, 3>{1.0f, 2.0f, 3.0f}));
  }
  // A birth's particles are born the tick after it: 10 births in 10 ticks, the last one's still
  // queued.
  EXPECT_EQ(world->emitterStats(world->emitter(h, 1)).value().live, 10u);
  EXPECT_EQ(world->emitterStats(world->emitter(h, 3)).value().live, 9u);
}

TEST(ParticleEvents, SpawnedParticlesInheritTheVelocityColourAndSizeTheEventPasses) {
  // Two shots fly along +x at 2 m/s, coloured (0.5, 1, 0.25, 0.8), 2 m wide, living 1/4 s; each
  // death births 2 `sparks` with half its velocity, its colour and its width. A spark's own birth
  // values — up at 1 m/s, (1, 0.5, 1, 0.5), 0.25 m — are changed by them; the one spark the
  // sparks' own burst births keeps its own.
  constexpr const char* kShots = R"({"format": "mote.effect/1", "name": "shots",
    "materials": [{"name": "m"}],
    "emitters": [
      {"name": "shots", "material": "m", "max_particles": 2,
       "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 2}]},
       "init": {"lifetime": 0.25, "size": 2, "color": [0.5, 1, 0.25, 0.8],
                "velocity": {"kind": "direction", "direction": [1, 0, 0], "speed": 2}},
       "events": [{"on": "death", "spawn": "sparks", "count": 2, "inherit_velocity": 0.5,
                   "inherit_color": true, "inherit_size": true}]},
      {"name": "sparks", "material": "m", "max_particles": 8,
       "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 1}]},
       "init": {"lifetime": 100, "size": 0.25, "color": [1, 0.5, 1, 0.5],
                "velocity": {"kind": "direction", "direction": [0, 1, 0], "speed": 1}}}]})";
  auto world = makeWorld();
  const EffectHandle h = world->addEffect(test::compileJson(kShots)).value();
  for (int t = 0; t < 20; ++t)  // the shots die in tick 17 (age 17/64 s > 1/4 s)
    world->tick(kDt);
  const EmitterView sparks = world->view(world->emitter(h, 1)).value();
  ASSERT_EQ(sparks.live, 5u);  // its own one, then 2 deaths × 2
  const bytecode::ParticleChannels& c = sparks.emitter->channels;
  ASSERT_GE(c.velocity, 0);
  ASSERT_GE(c.color, 0);
  ASSERT_GE(c.size, 0);
  EXPECT_EQ(wordsOf<3>(sparks, c.velocity, 0), (std::array<float, 3>{0.0f, 1.0f, 0.0f}));
  EXPECT_EQ(wordsOf<4>(sparks, c.color, 0), (std::array<float, 4>{1.0f, 0.5f, 1.0f, 0.5f}));
  EXPECT_EQ(wordsOf<2>(sparks, c.size, 0), (std::array<float, 2>{0.25f, 0.25f}));
  for (std::uint32_t i = 1; i < sparks.live; ++i) {
    EXPECT_EQ(wordsOf<3>(sparks, c.velocity, i), (std::array<float, 3>{1.0f, 1.0f, 0.0f})) << i;
    EXPECT_EQ(wordsOf<4>(sparks, c.color, i), (std::array<float, 4>{0.5f, 0.5f, 0.25f, 0.4f})) << i;
    EXPECT_EQ(wordsOf<2>(sparks, c.size, i), (std::array<float, 2>{0.5f, 0.5f})) << i;
  }
}

TEST(ParticleEvents, ACollisionPassesTheVelocityTheParticleHitWith) {
  // A drop falls at 2 m/s onto the ground and bounces; its hit births 2 `splash` particles with
  // −1/2 of the velocity it hit with, (0, −2, 0): they leave the ground at 1 m/s.
  constexpr const char* kDrop = R"({"format": "mote.effect/1", "name": "drop",
    "materials": [{"name": "m"}],
    "emitters": [
      {"name": "drop", "material": "m", "position": [0, 1, 0], "max_particles": 1,
       "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 1}]},
       "init": {"lifetime": 100, "velocity": {"kind": "direction", "direction": [0, -1, 0],
                                              "speed": 2}},
       "update": [{"type": "collision", "colliders": [{"kind": "plane"}], "bounce": 0.5}],
       "events": [{"on": "collision", "spawn": "splash", "count": 2, "inherit_velocity": -0.5}]},
      {"name": "splash", "material": "m", "spawn": {"rate": 0}, "init": {"lifetime": 100}}]})";
  auto world = makeWorld();
  const EffectHandle h = world->addEffect(test::compileJson(kDrop)).value();
  for (int t = 0; t < 36; ++t)  // the hit is in tick 34 (as in EveryHitBirths…), the splash in 35
    world->tick(kDt);
  const EmitterView splash = world->view(world->emitter(h, 1)).value();
  ASSERT_EQ(splash.live, 2u);
  for (std::uint32_t i = 0; i < splash.live; ++i)
    EXPECT_EQ(wordsOf<3>(splash, splash.emitter->channels.velocity, i),
              (std::array<float, 3>{0.0f, 1.0f, 0.0f}));
}

TEST(ParticleEvents, AGraphsSpawnNodeQueuesWhereItsConditionHolds) {
  // Two shots at (1, 2, 3), still; each tick an UPDATE graph's spawn node births 3 `trail`
  // particles for a shot while its age is below 3/64 s (ticks 1 and 2: age 1/64, 2/64), passing a
  // velocity of (0, 2, 0) and the colour (1, 0.5, 0.25, 1); another spawn node with no velocity,
  // size or colour births 1 `plain` particle each tick.
  constexpr const char* kGraph = R"({"format": "mote.effect/1", "name": "graph",
    "materials": [{"name": "m"}],
    "emitters": [
      {"name": "shots", "material": "m", "position": [1, 2, 3], "max_particles": 2,
       "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 2}]}, "init": {"lifetime": 100},
       "update": [{"type": "graph", "graph": {"nodes": [
         {"id": "age", "op": "particle_field_get", "names": {"field": "age"}},
         {"id": "young", "op": "lt", "inputs": {"a": "age"}, "params": {"b": 0.046875}},
         {"id": "n", "op": "mul", "inputs": {"a": "young"}, "params": {"b": 3}},
         {"id": "trail", "op": "spawn", "inputs": {"count": "n"},
          "params": {"velocity": [0, 2, 0], "color": [1, 0.5, 0.25, 1]},
          "names": {"emitter": "trail"}},
         {"id": "plain", "op": "event", "params": {"count": 1}, "names": {"emitter": "plain"}}]}}]},
      {"name": "trail", "material": "m", "max_particles": 64, "spawn": {"rate": 0},
       "init": {"lifetime": 100, "color": [0.5, 1, 1, 1]}},
      {"name": "plain", "material": "m", "max_particles": 64, "spawn": {"rate": 0},
       "init": {"lifetime": 100}}]})";
  auto world = makeWorld();
  const EffectHandle h = world->addEffect(test::compileJson(kGraph)).value();
  for (int t = 0; t < 5; ++t)
    world->tick(kDt);
  const EmitterView trail = world->view(world->emitter(h, 1)).value();
  ASSERT_EQ(trail.live, 12u);  // 2 shots × 2 ticks × 3
  const bytecode::ParticleChannels& c = trail.emitter->channels;
  for (std::uint32_t i = 0; i < trail.live; ++i) {
    // Born at the shot's position, risen 2/64 m a tick since.
    const std::array<float, 3> at = positionOf(trail, i);
    EXPECT_EQ(at[0], 1.0f);
    EXPECT_EQ(at[2], 3.0f);
    EXPECT_EQ(wordsOf<3>(trail, c.velocity, i), (std::array<float, 3>{0.0f, 2.0f, 0.0f}));
    EXPECT_EQ(wordsOf<4>(trail, c.color, i), (std::array<float, 4>{0.5f, 0.5f, 0.25f, 1.0f}));
  }
  // One a tick per shot, the fifth tick's still queued.
  EXPECT_EQ(world->emitterStats(world->emitter(h, 2)).value().live, 8u);
}

TEST(ParticleEvents, TheStateIsTheSameUnderAnyThreadCount) {
  const bytecode::CompiledEffect effect = test::compileJson(
      shells(600, R"(, "inherit_velocity": 0.5, "inherit_color": true, "inherit_size": true)"));
  std::uint64_t expected = 0;
  for (const std::uint32_t threads : {1u, 2u, 8u}) {
    std::unique_ptr<ThreadPool> pool = ThreadPool::create(threads).takeValue();
    WorldDesc desc;
    desc.jobs = pool.get();
    desc.chunkParticles = kChunkGranule;  // the shells in three chunks
    auto world = makeWorld(desc);
    const EffectHandle h = world->addEffect(effect).value();
    for (int t = 0; t < 40; ++t)
      world->tick(kDt);
    EXPECT_EQ(world->emitterStats(world->emitter(h, 1)).value().live, 1800u);
    const std::uint64_t hash = world->stateHash();
    if (threads == 1) expected = hash;
    EXPECT_EQ(hash, expected) << threads << " threads";
  }
}

}  // namespace
}  // namespace mote
