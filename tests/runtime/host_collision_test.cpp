// SPDX-License-Identifier: MIT
// World collision through the host (issue 26, deliverable 3): the heightfield and distance-volume
// worlds against hand-computed casts, and particles in a ParticleWorld that collide with them
// through a collider of kind "host" — against the analytic plane and sphere they stand for, with
// every response and collision events, the same state on any thread count, no allocation per tick.
#include "support/compile_effect.h"

#include <mote/core/alloc_watch.h>
#include <mote/core/job_system.h>
#include <mote/runtime/colliders.h>
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

using bytecode::CollisionCast;
using bytecode::CollisionHit;

constexpr float kDt = 1.0f / 64.0f;

// A flat heightfield at height `y` over [-half, half]² in `n` × `n` samples.
HeightfieldCollider flat(float y, float half = 5.0f, std::uint32_t n = 11) {
  HeightfieldDesc d;
  d.columns = d.rows = n;
  d.heights.assign(std::size_t{n} * n, 0.0f);
  d.min = {-half, y, -half};
  d.size = {2.0f * half, 1.0f, 2.0f * half};
  return HeightfieldCollider::create(std::move(d)).takeValue();
}

// The signed distance to a sphere of `radius` at the origin, on a grid of n³ over [-2, 2]³.
SdfCollider ball(float radius, std::uint32_t n = 33) {
  SdfDesc d;
  d.samples = {n, n, n};
  d.min = {-2.0f, -2.0f, -2.0f};
  d.size = {4.0f, 4.0f, 4.0f};
  const float cell = 4.0f / static_cast<float>(n - 1);
  for (std::uint32_t k = 0; k < n; ++k)
    for (std::uint32_t j = 0; j < n; ++j)
      for (std::uint32_t i = 0; i < n; ++i) {
        const float x = -2.0f + cell * static_cast<float>(i);
        const float y = -2.0f + cell * static_cast<float>(j);
        const float z = -2.0f + cell * static_cast<float>(k);
        d.distances.push_back(std::sqrt(x * x + y * y + z * z) - radius);
      }
  return SdfCollider::create(std::move(d)).takeValue();
}

CollisionHit castOne(const bytecode::CollisionProvider& world, CollisionCast c) {
  CollisionHit hit;
  world.cast({&c, 1}, {&hit, 1});
  return hit;
}

TEST(Heightfield, HeightsAreBilinearAndEndAtTheRectangle) {
  // 3 × 2 samples over x ∈ [0, 4], z ∈ [0, 1]: heights 0 1 2 / 2 3 4, scaled by 0.5, from y = 1.
  HeightfieldDesc d;
  d.columns = 3;
  d.rows = 2;
  d.heights = {0, 1, 2, 2, 3, 4};
  d.min = {0.0f, 1.0f, 0.0f};
  d.size = {4.0f, 0.5f, 1.0f};
  const HeightfieldCollider h = HeightfieldCollider::create(std::move(d)).takeValue();
  EXPECT_FLOAT_EQ(h.heightAt(0.0f, 0.0f), 1.0f);
  EXPECT_FLOAT_EQ(h.heightAt(4.0f, 1.0f), 3.0f);
  // (1, 0.5): halfway along x in the first cell (0.5 | 2.5), halfway along z: 1.5 · 0.5 + 1
  EXPECT_FLOAT_EQ(h.heightAt(1.0f, 0.5f), 1.75f);
  EXPECT_TRUE(std::isnan(h.heightAt(-0.01f, 0.5f)));
  EXPECT_TRUE(std::isnan(h.heightAt(1.0f, 1.01f)));
}

TEST(Heightfield, AVerticalCastMeetsTheGroundARadiusAbove) {
  const HeightfieldCollider ground = flat(0.0f);
  const CollisionHit hit = castOne(ground, {{0.3f, 2.0f, -0.7f}, {0.3f, -2.0f, -0.7f}, 0.5f});
  ASSERT_TRUE(hit.hit);
  EXPECT_NEAR(hit.distance, 1.5f, 1e-4f);
  EXPECT_EQ(hit.normal, (std::array<float, 3>{0.0f, 1.0f, 0.0f}));
  EXPECT_EQ(hit.penetration, 0.0f);
  // Short of the ground, past its edge, and NaN: misses.
  EXPECT_FALSE(castOne(ground, {{0.0f, 2.0f, 0.0f}, {0.0f, 0.6f, 0.0f}, 0.5f}).hit);
  EXPECT_FALSE(castOne(ground, {{6.0f, 2.0f, 0.0f}, {6.0f, -2.0f, 0.0f}, 0.5f}).hit);
  EXPECT_FALSE(castOne(ground, {{NAN, 2.0f, 0.0f}, {0.0f, -2.0f, 0.0f}, 0.5f}).hit);
}

TEST(Heightfield, ASlopesNormalAndAStartBelowTheGround) {
  // Height = x / 2 over x ∈ [0, 4]: the normal is (-0.5, 1, 0) normalised.
  HeightfieldDesc d;
  d.columns = 5;
  d.rows = 2;
  d.heights = {0, 0.5f, 1, 1.5f, 2, 0, 0.5f, 1, 1.5f, 2};
  d.size = {4.0f, 1.0f, 1.0f};
  const HeightfieldCollider slope = HeightfieldCollider::create(std::move(d)).takeValue();
  const float s = 1.0f / std::sqrt(1.25f);
  // From (2, 3, 0.5) straight down: the ground is at y = 1.
  const CollisionHit hit = castOne(slope, {{2.0f, 3.0f, 0.5f}, {2.0f, 0.0f, 0.5f}, 0.0f});
  ASSERT_TRUE(hit.hit);
  EXPECT_NEAR(hit.distance, 2.0f, 1e-4f);
  EXPECT_NEAR(hit.normal[0], -0.5f * s, 1e-6f);
  EXPECT_NEAR(hit.normal[1], s, 1e-6f);
  EXPECT_NEAR(hit.normal[2], 0.0f, 1e-6f);
  // Starting 0.5 m below the ground at x = 2: in contact at once, 0.5 · n.y deep along n.
  const CollisionHit under = castOne(slope, {{2.0f, 0.5f, 0.5f}, {2.0f, 0.4f, 0.5f}, 0.0f});
  ASSERT_TRUE(under.hit);
  EXPECT_EQ(under.distance, 0.0f);
  EXPECT_NEAR(under.penetration, 0.5f * s, 1e-6f);
}

TEST(Heightfield, CreateRefusesWhatIsNotAGrid) {
  const auto error = [](HeightfieldDesc d) {
    return HeightfieldCollider::create(std::move(d)).status().message();
  };
  HeightfieldDesc d;
  d.columns = 1;
  d.rows = 2;
  d.heights = {0, 0};
  EXPECT_EQ(error(d), "heightfield: every side needs at least 2 samples");
  d.columns = 2;
  EXPECT_EQ(error(d), "heightfield: heights has 2 values; the grid needs 4");
  d.heights = {0, 0, NAN, 0};
  EXPECT_EQ(error(d), "heightfield: heights[2] is not finite");
  d.heights = {0, 0, 0, 0};
  d.size = {1.0f, 1.0f, 0.0f};
  EXPECT_EQ(error(d), "heightfield: size must be positive and finite");
}

TEST(Sdf, ASphereVolumeIsMetWhereTheSphereIs) {
  const SdfCollider sdf = ball(1.0f);
  // Outside the box the distance is the border's plus the way to the box: exact above the pole.
  EXPECT_NEAR(sdf.distanceAt({0.0f, 3.0f, 0.0f}), 2.0f, 1e-5f);
  // A sphere of radius 0.25 falling from y = 3 meets the ball's top at y = 1.25.
  const CollisionHit hit = castOne(sdf, {{0.0f, 3.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, 0.25f});
  ASSERT_TRUE(hit.hit);
  EXPECT_NEAR(hit.distance, 1.75f, 0.01f);
  EXPECT_NEAR(hit.normal[1], 1.0f, 1e-3f);
  // A diagonal cast meets it along the diagonal.
  const float r = 1.0f / std::sqrt(3.0f);
  const CollisionHit diagonal = castOne(sdf, {{1.5f, 1.5f, 1.5f}, {0.0f, 0.0f, 0.0f}, 0.0f});
  ASSERT_TRUE(diagonal.hit);
  EXPECT_NEAR(diagonal.distance, std::sqrt(3.0f) * 1.5f - 1.0f, 0.01f);
  for (const float n : diagonal.normal)
    EXPECT_NEAR(n, r, 0.01f);
  // A cast that passes beside it misses.
  EXPECT_FALSE(castOne(sdf, {{1.5f, 3.0f, 0.0f}, {1.5f, -3.0f, 0.0f}, 0.25f}).hit);
}

TEST(CollisionSet, TheNearestHitWins) {
  const HeightfieldCollider low = flat(0.0f);
  const HeightfieldCollider high = flat(1.0f);
  const std::array<const bytecode::CollisionProvider*, 2> worlds{&low, &high};
  const CollisionSet set = CollisionSet::create(worlds).takeValue();
  const CollisionHit hit = castOne(set, {{0.0f, 3.0f, 0.0f}, {0.0f, -3.0f, 0.0f}, 0.0f});
  ASSERT_TRUE(hit.hit);
  EXPECT_NEAR(hit.distance, 2.0f, 1e-4f);  // the ground at y = 1
  const std::array<const bytecode::CollisionProvider*, 1> none{nullptr};
  EXPECT_FALSE(CollisionSet::create(none).ok());
}

TEST(FloatGrid, ReadsLittleEndianFloatsAndRefusesTheRest) {
  const std::vector<std::uint8_t> bytes{0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0};  // 1, -2
  EXPECT_EQ(decodeFloatGrid(bytes, 2, "g").value(), (std::vector<float>{1.0f, -2.0f}));
  EXPECT_EQ(decodeFloatGrid(bytes, 3, "g").status().message(),
            "g: offset 0x8: 8 bytes; a grid of 3 float32 samples is 12");
  const std::vector<std::uint8_t> nan{0, 0, 0x80, 0x3f, 0, 0, 0xc0, 0x7f};
  EXPECT_EQ(decodeFloatGrid(nan, 2, "g").status().message(),
            "g: offset 0x4: sample 1 is not a finite number");
}

// --- in a world

// `n` drops over a 2 m square falling from 2 m at 3 m/s (gravity on) onto `collider`, with
// `response` and, for each hit, one `splash` particle at the contact.
std::string drops(std::uint32_t n, const std::string& collider, const std::string& response) {
  return R"({"format": "mote.effect/1", "name": "drops", "materials": [{"name": "m"}],
    "emitters": [
      {"name": "drops", "material": "m", "position": [0, 2, 0], "max_particles": )" +
         std::to_string(n) + R"(,
       "spawn": {"rate": 0, "bursts": [{"time": 0, "count": )" +
         std::to_string(n) + R"(}]}, "shape": {"kind": "box", "size": [2, 0, 2]},
       "init": {"lifetime": 100, "velocity": {"kind": "direction", "direction": [0, -1, 0],
                                              "speed": 3}},
       "update": [{"type": "gravity"},
                  {"type": "collision", "colliders": [)" +
         collider + R"(], "response": ")" + response + R"(", "bounce": 0.5,
                   "particle_radius": 0.05}],
       "events": [{"on": "collision", "spawn": "splash", "count": 1}]},
      {"name": "splash", "material": "m", "max_particles": 4096, "spawn": {"rate": 0},
       "init": {"lifetime": 100}}]})";
}

struct Outcome {
  std::vector<float> heights;                  // each live drop's y
  std::vector<std::array<float, 3>> splashes;  // each splash's position
  std::uint32_t drops = 0;
};

Outcome simulate(const std::string& json, const bytecode::CollisionProvider* world, int ticks) {
  auto w = ParticleWorld::create({}).takeValue();
  w->setCollision(world);
  const EffectHandle h = w->addEffect(test::compileJson(json)).value();
  for (int t = 0; t < ticks; ++t)
    w->tick(kDt);
  const EmitterView v = w->view(w->emitter(h, 0)).value();
  Outcome out;
  out.drops = v.live;
  const auto y = static_cast<std::size_t>(v.emitter->channels.position) + 1;
  for (std::uint32_t i = 0; i < v.live; ++i)
    out.heights.push_back(v.streams[y][i]);
  const EmitterView s = w->view(w->emitter(h, 1)).value();
  const auto p = static_cast<std::size_t>(s.emitter->channels.position);
  for (std::uint32_t i = 0; i < s.live; ++i)
    out.splashes.push_back({s.streams[p][i], s.streams[p + 1][i], s.streams[p + 2][i]});
  return out;
}

TEST(HostCollision, AFlatHeightfieldSplatsDropsWhereTheAnalyticPlaneDoes) {
  const HeightfieldCollider ground = flat(0.0f);
  const Outcome host = simulate(drops(16, R"({"kind": "host"})", "splat"), &ground, 128);
  const Outcome plane = simulate(drops(16, R"({"kind": "plane"})", "splat"), nullptr, 128);
  ASSERT_EQ(host.drops, 16u);
  ASSERT_EQ(plane.drops, 16u);
  for (std::size_t i = 0; i < 16; ++i) {
    EXPECT_NEAR(host.heights[i], 0.05f, 1e-4f) << i;  // lying on the ground, a radius up
    EXPECT_NEAR(plane.heights[i], 0.05f, 1e-4f) << i;
  }
  // The drops fall 1.95 m from 3 m/s under 9.81 m/s² (0.395 s): the sweep of tick 26 meets the
  // ground, and a splat drop that gravity pulls back in meets it again in every tick after — 103
  // hits each in 128 ticks, one splash per hit, each on the ground a radius up.
  EXPECT_EQ(host.splashes.size(), 16u * 103u);
  for (const auto& at : host.splashes)
    EXPECT_NEAR(at[1], 0.05f, 1e-4f);
}

TEST(HostCollision, KillAndEventsCountEveryHitOnce) {
  const HeightfieldCollider ground = flat(0.0f);
  const Outcome out = simulate(drops(16, R"({"kind": "host"})", "kill"), &ground, 128);
  EXPECT_EQ(out.drops, 0u);
  ASSERT_EQ(out.splashes.size(), 16u);
  for (const auto& at : out.splashes)
    EXPECT_NEAR(at[1], 0.05f, 1e-4f);
  // Without a host world nothing is hit: the drops fall on.
  const Outcome none = simulate(drops(16, R"({"kind": "host"})", "kill"), nullptr, 128);
  EXPECT_EQ(none.drops, 16u);
  EXPECT_EQ(none.splashes.size(), 0u);
}

TEST(HostCollision, BouncesOffTheGroundAndComesToRest) {
  const HeightfieldCollider ground = flat(0.0f);
  const Outcome out = simulate(drops(16, R"({"kind": "host"})", "bounce"), &ground, 640);
  ASSERT_EQ(out.drops, 16u);
  for (const float y : out.heights) {
    EXPECT_GE(y, 0.05f - 1e-4f);  // never below the ground
    EXPECT_LT(y, 0.06f);          // after 10 s of halving bounces, resting on it
  }
}

TEST(HostCollision, AnSdfBallKillsDropsWhereTheAnalyticSphereDoes) {
  // Drops over [-1, 1]² fall onto the unit ball: those that meet it die on its surface, a drop's
  // radius out (1.05 m from the centre), as on the analytic sphere; the others fall past both.
  const SdfCollider sdf = ball(1.0f, 65);
  const Outcome host = simulate(drops(64, R"({"kind": "host"})", "kill"), &sdf, 128);
  const Outcome analytic =
      simulate(drops(64, R"({"kind": "sphere", "radius": 1})", "kill"), nullptr, 128);
  EXPECT_EQ(host.splashes.size(), analytic.splashes.size());
  EXPECT_GT(host.splashes.size(), 20u);
  for (const auto& at : host.splashes)
    EXPECT_NEAR(std::hypot(at[0], at[1], at[2]), 1.05f, 0.01f);
  for (const auto& at : analytic.splashes)
    EXPECT_NEAR(std::hypot(at[0], at[1], at[2]), 1.05f, 0.01f);
}

TEST(HostCollision, TheStateIsTheSameUnderAnyThreadCountAndTicksAllocateNothing) {
  const HeightfieldCollider ground = flat(0.0f, 5.0f, 41);
  const bytecode::CompiledEffect effect =
      test::compileJson(drops(1000, R"({"kind": "host"})", "bounce"));
  std::uint64_t expected = 0;
  for (const std::uint32_t threads : {1u, 2u, 8u}) {
    std::unique_ptr<ThreadPool> pool = ThreadPool::create(threads).takeValue();
    WorldDesc desc;
    desc.jobs = pool.get();
    desc.chunkParticles = kChunkGranule;  // the drops in four chunks
    auto world = ParticleWorld::create(desc).takeValue();
    world->setCollision(&ground);
    (void)world->addEffect(effect).value();
    for (int t = 0; t < 8; ++t)
      world->tick(kDt);
    AllocationScope scope;
    for (int t = 0; t < 56; ++t)
      world->tick(kDt);
#if defined(MOTE_TEST_ALLOC_WATCH_LINKED)
    EXPECT_EQ(scope.allocations(), 0u) << threads << " threads";
#endif
    const std::uint64_t hash = world->stateHash();
    if (threads == 1) expected = hash;
    EXPECT_EQ(hash, expected) << threads << " threads";
  }
}

}  // namespace
}  // namespace mote
