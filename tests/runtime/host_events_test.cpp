// SPDX-License-Identifier: MIT
// Host events (issue 26, deliverable 1): an event with "report" and a graph's report node tell the
// host through ParticleWorld::events — one entry per birth, death, hit or custom condition, counted
// by hand, with the kind, tag, emitter, particle id, world position and velocity, and time; in
// (effect, emitter, particle id, own order) order on any thread count; at most
// maxEventsPerEmitter an emitter a tick, the rest counted; no allocation per tick.
#include "support/compile_effect.h"

#include <mote/core/alloc_watch.h>
#include <mote/core/job_system.h>
#include <mote/runtime/world.h>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mote {
namespace {

using bytecode::ReportKind;

constexpr float kDt = 1.0f / 64.0f;  // exact in binary: ages add up without rounding

// Four drops fall from 1 m at 2 m/s onto the ground, which kills them; the hit and the death are
// reported (tags 0 and 1), and the hit also births a splash.
constexpr const char* kDrops = R"({"format": "mote.effect/1", "name": "drops",
  "materials": [{"name": "m"}],
  "emitters": [
    {"name": "drops", "material": "m", "position": [0, 1, 0], "max_particles": 4,
     "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 4}]},
     "init": {"lifetime": 100, "velocity": {"kind": "direction", "direction": [0, -1, 0],
                                            "speed": 2}},
     "update": [{"type": "collision", "colliders": [{"kind": "plane"}], "response": "kill"}],
     "events": [{"on": "collision", "spawn": "splash", "report": true},
                {"on": "death", "report": true}]},
    {"name": "splash", "material": "m", "spawn": {"rate": 0}, "init": {"lifetime": 100}}]})";

std::unique_ptr<ParticleWorld> makeWorld(WorldDesc desc = {}) {
  return ParticleWorld::create(desc).takeValue();
}

TEST(HostEvents, EachHitAndDeathIsReportedInTheTickItHappens) {
  auto world = makeWorld();
  const EffectHandle h = world->addEffect(test::compileJson(kDrops)).value();
  const EmitterHandle drops = world->emitter(h, 0);
  // The drops reach y = 0 after 32 ticks, which is not yet a hit; tick 34 finds them 1/32 m below
  // (ParticleEvents.EveryHitBirthsItsCountAtThePointOfContact): the hit at the contact point on
  // the ground, the death at the end of that tick, 1/32 m further down, both at 2 m/s down.
  for (int t = 1; t <= 40; ++t) {
    world->tick(kDt);
    const std::span<const HostEvent> events = world->events();
    EXPECT_EQ(world->stats().events, events.size());
    if (t != 34) {
      EXPECT_TRUE(events.empty()) << "tick " << t;
      continue;
    }
    ASSERT_EQ(events.size(), 8u);
    for (std::uint32_t i = 0; i < 8; ++i) {
      const HostEvent& e = events[i];
      const bool hit = i % 2 == 0;  // each drop's hit, then its death
      EXPECT_EQ(e.kind, hit ? ReportKind::Collision : ReportKind::Death) << i;
      EXPECT_EQ(e.tag, hit ? 0u : 1u) << i;
      EXPECT_EQ(e.emitter, drops);
      EXPECT_EQ(e.particle, i / 2);
      EXPECT_EQ(e.position, (std::array<float, 3>{0.0f, hit ? 0.0f : -2.0f / 32.0f, 0.0f})) << i;
      EXPECT_EQ(e.velocity, (std::array<float, 3>{0.0f, -2.0f, 0.0f})) << i;
      EXPECT_DOUBLE_EQ(e.time, 34.0 / 64.0);
    }
  }
  EXPECT_EQ(world->emitterStats(world->emitter(h, 1)).value().live, 4u);  // the splashes
}

TEST(HostEvents, AnEmitterReportsAtMostItsCapATickAndCountsTheRest) {
  WorldDesc desc;
  desc.maxEventsPerEmitter = 3;
  auto world = makeWorld(desc);
  (void)world->addEffect(test::compileJson(kDrops)).value();
  for (int t = 1; t <= 34; ++t)
    world->tick(kDt);
  // The lowest ids first: drop 0's hit and death, drop 1's hit; five counted.
  const std::span<const HostEvent> events = world->events();
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].particle, 0u);
  EXPECT_EQ(events[1].particle, 0u);
  EXPECT_EQ(events[2].particle, 1u);
  EXPECT_EQ(events[2].kind, ReportKind::Collision);
  EXPECT_EQ(world->stats().eventsDropped, 5u);
  world->tick(kDt);
  EXPECT_TRUE(world->events().empty());
  EXPECT_EQ(world->stats().eventsDropped, 0u);
}

TEST(HostEvents, ALocalEmittersBirthsAreReportedInWorldSpace) {
  // Births in a local-space emitter whose effect stands at (10, 0, 0) turned 90° about +y: a
  // newborn at the emitter's origin flying along its +x flies along the world's −z.
  constexpr const char* kLocal = R"({"format": "mote.effect/1", "name": "local",
    "materials": [{"name": "m"}],
    "emitters": [
      {"name": "shots", "material": "m", "space": "local", "max_particles": 2,
       "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 2}]},
       "init": {"lifetime": 100, "velocity": {"kind": "direction", "direction": [1, 0, 0],
                                              "speed": 3}},
       "events": [{"on": "birth", "report": true}]}]})";
  auto world = makeWorld();
  const EffectHandle h = world->addEffect(test::compileJson(kLocal)).value();
  const float half = std::sqrt(0.5f);
  ASSERT_TRUE(world->setTransform(h, {{10.0f, 0.0f, 0.0f}, {0.0f, half, 0.0f, half}}).ok());
  world->tick(kDt);
  const std::span<const HostEvent> events = world->events();
  ASSERT_EQ(events.size(), 2u);
  for (const HostEvent& e : events) {
    EXPECT_EQ(e.kind, ReportKind::Birth);
    EXPECT_NEAR(e.position[0], 10.0f, 1e-5f);
    EXPECT_NEAR(e.position[1], 0.0f, 1e-5f);
    EXPECT_NEAR(e.position[2], 0.0f, 1e-5f);
    EXPECT_NEAR(e.velocity[0], 0.0f, 1e-5f);
    EXPECT_NEAR(e.velocity[2], -3.0f, 1e-5f);
  }
}

TEST(HostEvents, AGraphsReportNodeTellsTheHostOfItsOwnCondition) {
  // Each of three particles reports once, while its age is in (0.04, 0.05) s (tick 3: 3/64), tagged
  // 5, at its position and with the velocity the node is given.
  constexpr const char* kGraph = R"({"format": "mote.effect/1", "name": "graph",
    "materials": [{"name": "m"}],
    "emitters": [
      {"name": "sparks", "material": "m", "position": [1, 2, 3], "max_particles": 3,
       "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 3}]}, "init": {"lifetime": 100},
       "update": [{"type": "graph", "graph": {"nodes": [
         {"id": "age", "op": "particle_field_get", "names": {"field": "age"}},
         {"id": "past", "op": "lt", "inputs": {"b": "age"}, "params": {"a": 0.04}},
         {"id": "before", "op": "lt", "inputs": {"a": "age"}, "params": {"b": 0.05}},
         {"id": "now", "op": "mul", "inputs": {"a": "past", "b": "before"}},
         {"id": "tell", "op": "report", "inputs": {"when": "now"},
          "params": {"tag": 5, "velocity": [0, 0, 7]}}]}}]}]})";
  auto world = makeWorld();
  (void)world->addEffect(test::compileJson(kGraph)).value();
  std::vector<std::size_t> counts;
  for (int t = 1; t <= 5; ++t) {
    world->tick(kDt);
    counts.push_back(world->events().size());
    for (const HostEvent& e : world->events()) {
      EXPECT_EQ(e.kind, ReportKind::Custom);
      EXPECT_EQ(e.tag, 5u);
      EXPECT_EQ(e.position, (std::array<float, 3>{1.0f, 2.0f, 3.0f}));
      EXPECT_EQ(e.velocity, (std::array<float, 3>{0.0f, 0.0f, 7.0f}));
    }
  }
  EXPECT_EQ(counts, (std::vector<std::size_t>{0, 0, 3, 0, 0}));
}

// 600 shells dying and reporting at once, in three chunks: the same list on 1, 2 and 8 threads,
// and no tick allocates.
TEST(HostEvents, TheListIsTheSameUnderAnyThreadCountAndTicksAllocateNothing) {
  const bytecode::CompiledEffect effect = test::compileJson(
      R"({"format": "mote.effect/1", "name": "shells", "materials": [{"name": "m"}],
          "emitters": [{"name": "shells", "material": "m", "max_particles": 600,
            "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 600}]},
            "init": {"lifetime": 0.5, "velocity": {"kind": "sphere", "speed": 1}},
            "events": [{"on": "death", "report": true}]}]})");
  std::vector<HostEvent> expected;
  for (const std::uint32_t threads : {1u, 2u, 8u}) {
    std::unique_ptr<ThreadPool> pool = ThreadPool::create(threads).takeValue();
    WorldDesc desc;
    desc.jobs = pool.get();
    desc.chunkParticles = kChunkGranule;
    auto world = makeWorld(desc);
    (void)world->addEffect(effect).value();
    world->tick(kDt);
    std::vector<HostEvent> seen;
    seen.reserve(600);
    AllocationScope scope;
    for (int t = 0; t < 39; ++t) {
      world->tick(kDt);
      if (!world->events().empty()) seen.assign(world->events().begin(), world->events().end());
    }
#if defined(MOTE_TEST_ALLOC_WATCH_LINKED)
    EXPECT_EQ(scope.allocations(), 0u) << threads << " threads";
#endif
    ASSERT_EQ(seen.size(), 600u);
    for (std::uint32_t i = 0; i < seen.size(); ++i) {
      EXPECT_EQ(seen[i].particle, i);
      EXPECT_NEAR(std::hypot(seen[i].position[0], seen[i].position[1], seen[i].position[2]),
                  33.0f / 64.0f, 1e-5f);
    }
    if (threads == 1) expected = seen;
    for (std::uint32_t i = 0; i < seen.size(); ++i) {
      EXPECT_EQ(seen[i].position, expected[i].position) << threads << " threads";
      EXPECT_EQ(seen[i].velocity, expected[i].velocity) << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace mote
