// SPDX-License-Identifier: MIT
// Particle events (issue 26, deliverable 1, first part): an emitter's `events` birth particles in
// another emitter of the effect when one of its particles is born, dies or collides — counted by
// hand: each birth, death or hit queues `count` particles, born where the particle was born, at
// its last position or at the point of contact; and the state is the same under any thread count.
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

// Particle i's position.
std::array<float, 3> positionOf(const EmitterView& v, std::uint32_t i) {
  const auto p = static_cast<std::size_t>(v.emitter->channels.position);
  return {v.streams[p][i], v.streams[p + 1][i], v.streams[p + 2][i]};
}

// `shells`: `n` particles at t = 0 flying out at 1 m/s in random directions, living 0.5 s; each
// death births 3 `sparks`, at rest where the shell died.
std::string shells(std::uint32_t n) {
  return R"({"format": "mote.effect/1", "name": "shells", "materials": [{"name": "m"}],
    "emitters": [
      {"name": "shells", "material": "m", "max_particles": )" +
         std::to_string(n) + R"(, "spawn": {"rate": 0, "bursts": [{"time": 0, "count": )" +
         std::to_string(n) + R"(}]},
       "init": {"lifetime": 0.5, "velocity": {"kind": "sphere", "speed": 1}},
       "events": [{"on": "death", "spawn": "sparks", "count": 3}]},
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

TEST(ParticleEvents, TheStateIsTheSameUnderAnyThreadCount) {
  const bytecode::CompiledEffect effect = test::compileJson(shells(600));
  std::uint64_t expected = 0;
  for (const std::uint32_t threads : {1u, 2u, 4u}) {
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
