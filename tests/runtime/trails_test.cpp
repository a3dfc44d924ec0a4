// SPDX-License-Identifier: MIT
// Trails (issue 26, deliverable 2): an emitter whose spawn source is another emitter's live
// particles — per second or per metre each travels — lays its particles along the path each source
// particle travelled in a tick, keeping that particle's id (EmitterView::sources), with the
// velocity, colour and size it passes; hand-computed positions, ages and counts; the same particles
// on 1, 2 and 8 threads with no allocation per tick.
#include "support/compile_effect.h"

#include <mote/core/alloc_watch.h>
#include <mote/core/job_system.h>
#include <mote/runtime/world.h>

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mote {
namespace {

constexpr float kDt = 1.0f / 64.0f;  // exact in binary: so are the paths and ages below

// One comet at 8 m/s along +X: 1/8 m a tick. Its tail is `tail` (the trail emitter's spawn, and
// its init where it names one).
std::string comet(const std::string& tail) {
  const std::string init =
      tail.find(R"("init")") == std::string::npos ? R"("init": {"lifetime": 100}, )" : "";
  return R"({"format": "mote.effect/1", "name": "comet", "materials": [{"name": "m"}],
    "emitters": [
      {"name": "comet", "material": "m", "max_particles": 1,
       "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 1}]},
       "init": {"lifetime": 100, "color": [0.5, 0.25, 1, 1], "size": 0.5,
                "velocity": {"kind": "direction", "direction": [1, 0, 0], "speed": 8}}},
      {"name": "tail", "material": "m", "max_particles": 256, )" +
         init + tail + "}]}";
}

struct Particle {
  std::array<float, 3> position;
  std::array<float, 3> velocity;
  float age;
  std::array<float, 4> color;
  float width;
  std::uint32_t source;
};

std::vector<Particle> particles(const ParticleWorld& world, EmitterHandle e) {
  const EmitterView v = world.view(e).value();
  const bytecode::ParticleChannels& c = v.emitter->channels;
  const auto word = [&](std::int32_t channel, std::uint32_t k, std::uint32_t i, float otherwise) {
    return channel < 0 ? otherwise : v.streams[static_cast<std::size_t>(channel) + k][i];
  };
  std::vector<Particle> out;
  for (std::uint32_t i = 0; i < v.live; ++i) {
    Particle p{};
    for (std::uint32_t k = 0; k < 3; ++k) {
      p.position[k] = word(c.position, k, i, 0.0f);
      p.velocity[k] = word(c.velocity, k, i, 0.0f);
    }
    p.age = word(c.age, 0, i, 0.0f);
    for (std::uint32_t k = 0; k < 4; ++k)
      p.color[k] = word(c.color, k, i, 1.0f);
    p.width = word(c.size, 0, i, 1.0f);
    p.source = v.sources != nullptr ? v.sources[i] : ~0u;
    out.push_back(p);
  }
  return out;
}

std::unique_ptr<ParticleWorld> makeWorld(WorldDesc desc = {}) {
  return ParticleWorld::create(desc).takeValue();
}

TEST(Trails, PerDistanceTheyLieEvenlyAlongTheSourcesPath) {
  // 16 a metre: two a tick, at the middle and the end of each 1/8 m the comet travelled, born a
  // tick later (the requests of one tick are the next one's births) at t0 + dt/2 and t0 + dt.
  auto world = makeWorld();
  const EffectHandle h = world
                             ->addEffect(test::compileJson(comet(
                                 R"("spawn": {"source": "comet",
                                                  "metric": "per_distance", "rate": 16})")))
                             .value();
  const EmitterHandle tail = world->emitter(h, 1);
  world->tick(kDt);
  EXPECT_TRUE(particles(*world, tail).empty());
  for (int t = 2; t <= 5; ++t) {
    world->tick(kDt);
    const std::vector<Particle> got = particles(*world, tail);
    ASSERT_EQ(got.size(), static_cast<std::size_t>(2 * (t - 1))) << "tick " << t;
    for (std::size_t k = 0; k < got.size(); ++k) {
      // Born in tick 2 + k / 2, at x = (k + 1) / 16, aged to the end of this tick.
      const int born = 2 + static_cast<int>(k / 2);
      const float rest = k % 2 == 0 ? kDt / 2 : 0.0f;
      EXPECT_EQ(got[k].position, (std::array<float, 3>{static_cast<float>(k + 1) / 16.0f, 0, 0}))
          << "tick " << t << " particle " << k;
      EXPECT_EQ(got[k].age, rest + static_cast<float>(t - born) * kDt) << t << " " << k;
      EXPECT_EQ(got[k].source, 0u);  // the comet's id
      EXPECT_EQ(got[k].velocity, (std::array<float, 3>{0, 0, 0}));
    }
  }
}

TEST(Trails, PerSecondTheyComeAtTheRateOfEachSourceParticle) {
  // 32 a second: half a particle a tick, so one every other tick, at the end of that tick's path.
  auto world = makeWorld();
  const EffectHandle h =
      world->addEffect(test::compileJson(comet(R"("spawn": {"source": "comet", "rate": 32})")))
          .value();
  const EmitterHandle tail = world->emitter(h, 1);
  for (int t = 1; t <= 9; ++t)
    world->tick(kDt);
  // Requests in ticks 2, 4, 6, 8 (the comet owes 1 after each even tick), born a tick later.
  const std::vector<Particle> got = particles(*world, tail);
  ASSERT_EQ(got.size(), 4u);
  for (std::size_t k = 0; k < got.size(); ++k) {
    const float x = static_cast<float>(2 * (k + 1)) / 8.0f;
    EXPECT_EQ(got[k].position, (std::array<float, 3>{x, 0, 0})) << k;
    EXPECT_EQ(got[k].age, static_cast<float>(9 - (3 + 2 * static_cast<int>(k))) * kDt) << k;
  }
}

TEST(Trails, TheyInheritTheSourcesVelocityColourAndSize) {
  // Half the comet's 8 m/s: 4 m/s, moved for the rest of their birth tick (dt/2 for the middle
  // one: 1/32 m); its colour times theirs (white); its width times theirs (0.5 × 0.25).
  auto world = makeWorld();
  const EffectHandle h = world
                             ->addEffect(test::compileJson(comet(
                                 R"("spawn": {"source": "comet",
                                                  "metric": "per_distance", "rate": 16,
                                                  "inherit_velocity": 0.5,
                                                  "inherit_color": true, "inherit_size": true},
                                                  "init": {"lifetime": 100, "size": 0.25})")))
                             .value();
  world->tick(kDt);
  world->tick(kDt);
  const std::vector<Particle> got = particles(*world, world->emitter(h, 1));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].position, (std::array<float, 3>{1.0f / 16.0f + 1.0f / 32.0f, 0, 0}));
  EXPECT_EQ(got[1].position, (std::array<float, 3>{1.0f / 8.0f, 0, 0}));
  for (const Particle& p : got) {
    EXPECT_EQ(p.velocity, (std::array<float, 3>{4, 0, 0}));
    EXPECT_EQ(p.color, (std::array<float, 4>{0.5f, 0.25f, 1, 1}));
    EXPECT_EQ(p.width, 0.125f);
  }
}

TEST(Trails, EachSourceParticleLaysItsOwnTrailOfItsId) {
  // Three comets a burst apart (ids 0, 1, 2), each trailing two points a tick: the tail's slots
  // hold each tick's points in source order, each with its comet's id; the ones before a comet was
  // born none.
  auto world = makeWorld();
  const EffectHandle h = world
                             ->addEffect(test::compileJson(
                                 R"({"format": "mote.effect/1", "name": "comets",
    "materials": [{"name": "m"}],
    "emitters": [
      {"name": "comets", "material": "m", "max_particles": 3,
       "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 1, "repeat_interval": 0.03125,
                                         "repeat_count": 2}]},
       "init": {"lifetime": 100,
                "velocity": {"kind": "direction", "direction": [0, 1, 0], "speed": 8}}},
      {"name": "tails", "material": "m", "max_particles": 256, "init": {"lifetime": 100},
       "spawn": {"source": "comets", "metric": "per_distance", "rate": 16}}]})"))
                             .value();
  for (int t = 1; t <= 6; ++t)
    world->tick(kDt);
  const std::vector<Particle> got = particles(*world, world->emitter(h, 1));
  // Comets born in ticks 1, 3, 5 request from then on; births in ticks 2..6: comet 0 five
  // times, comet 1 three, comet 2 once, two points each.
  ASSERT_EQ(got.size(), 2u * (5 + 3 + 1));
  std::array<std::uint32_t, 3> perSource{};
  std::uint32_t last = 0;
  for (std::size_t k = 0; k < got.size(); ++k) {
    ASSERT_LT(got[k].source, 3u) << k;
    ++perSource[got[k].source];
    if (k % 2 == 1) {
      EXPECT_EQ(got[k].source, got[k - 1].source) << k;  // a request's two points
    } else if (k > 0 && got[k].source > got[k - 1].source) {
      EXPECT_EQ(got[k].source, last + 1) << k;  // within a tick, in source id order
    }
    last = got[k].source;
    EXPECT_EQ(got[k].position[0], 0.0f);
  }
  EXPECT_EQ(perSource, (std::array<std::uint32_t, 3>{10, 6, 2}));
}

TEST(Trails, ALocalSourcesPathIsTakenIntoTheWorld) {
  // The comet flies in its emitter's frame, which the effect turns 90° about Y and places at
  // (0, 0, 5): local +X is world -Z.
  auto world = makeWorld();
  std::string json = comet(R"("spawn": {"source": "comet", "metric": "per_distance", "rate": 16})");
  json.replace(json.find(R"("max_particles": 1,)"), 19,
               R"("max_particles": 1, "space": "local", "position": [0, 0, 5],
                  "rotation": [0, 90, 0],)");
  const EffectHandle h = world->addEffect(test::compileJson(json)).value();
  world->tick(kDt);
  world->tick(kDt);
  const std::vector<Particle> got = particles(*world, world->emitter(h, 1));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_NEAR(got[0].position[0], 0.0f, 1e-6f);
  EXPECT_NEAR(got[0].position[2], 5.0f - 1.0f / 16.0f, 1e-6f);
  EXPECT_NEAR(got[1].position[2], 5.0f - 1.0f / 8.0f, 1e-6f);
}

// 400 comets in every direction, trailing per metre, over 1, 2 and 8 threads in chunks of 64: the
// same state hash (sources included), and no tick allocates.
TEST(Trails, TheSameUnderAnyThreadCountAndTicksAllocateNothing) {
  const bytecode::CompiledEffect effect = test::compileJson(
      R"({"format": "mote.effect/1", "name": "comets", "materials": [{"name": "m"}],
          "emitters": [{"name": "comets", "material": "m", "max_particles": 400,
            "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 400}]},
            "init": {"lifetime": 0.4, "velocity": {"kind": "sphere", "speed": [2, 9]}},
            "update": [{"type": "gravity"}]},
            {"name": "tails", "material": "m", "max_particles": 8000, "init": {"lifetime": 0.2},
             "spawn": {"source": "comets", "metric": "per_distance", "rate": 20,
                       "inherit_velocity": 0.1}}]})");
  std::uint64_t expected = 0;
  for (const std::uint32_t threads : {1u, 2u, 8u}) {
    std::unique_ptr<ThreadPool> pool = ThreadPool::create(threads).takeValue();
    WorldDesc desc;
    desc.jobs = pool.get();
    desc.chunkParticles = kChunkGranule;
    auto world = makeWorld(desc);
    const EffectHandle h = world->addEffect(effect).value();
    world->tick(kDt);
    std::uint32_t most = 0;
    AllocationScope scope;
    for (int t = 0; t < 30; ++t) {
      world->tick(kDt);
      most = std::max(most, world->emitterStats(world->emitter(h, 1)).value().live);
    }
#if defined(MOTE_TEST_ALLOC_WATCH_LINKED)
    EXPECT_EQ(scope.allocations(), 0u) << threads << " threads";
#endif
    EXPECT_GT(most, 1000u);
    const std::uint64_t hash = world->stateHash();
    if (threads == 1) expected = hash;
    EXPECT_EQ(hash, expected) << threads << " threads";
  }
}

}  // namespace
}  // namespace mote
