// SPDX-License-Identifier: MIT
// Keyed emitter motion (authoring::Motion, pivots): the sampled transform against hand-computed
// values, emitters that orbit on a pivot in a running world (spawn interpolation and per-distance
// emission follow them), the validator's errors, and the .motefx round trip and its checks.
#include "support/compile_effect.h"
#include "support/motefx_seal.h"

#include <mote/authoring/effect_json.h>
#include <mote/bytecode/compiled_effect.h>
#include <mote/runtime/emitter_frame.h>
#include <mote/runtime/world.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

namespace mote {
namespace {

using bytecode::CompiledMotion;
using bytecode::MotionKey;

constexpr float kHalfSqrt2 = 0.70710678f;

TEST(Motion, PositionsAreLinearEndsHoldAndAPeriodWraps) {
  CompiledMotion m;
  m.position = {MotionKey{1.0f, {0.0f, 0.0f, 0.0f, 0.0f}},
                MotionKey{3.0f, {4.0f, -2.0f, 1.0f, 0.0f}}};
  const auto at = [&](double t) {
    return emission::sampleMotion({9.0f, 9.0f, 9.0f}, {0.0f, 0.0f, 0.0f, 1.0f}, m, t).position;
  };
  EXPECT_EQ(at(0.0), (std::array<float, 3>{0.0f, 0.0f, 0.0f}));  // before the first key
  EXPECT_EQ(at(2.0), (std::array<float, 3>{2.0f, -1.0f, 0.5f}));
  EXPECT_EQ(at(2.5), (std::array<float, 3>{3.0f, -1.5f, 0.75f}));
  EXPECT_EQ(at(7.0), (std::array<float, 3>{4.0f, -2.0f, 1.0f}));  // after the last
  m.periodSeconds = 4.0f;
  EXPECT_EQ(at(6.0), at(2.0));  // 6 s wraps to 2 s
  EXPECT_EQ(at(4.0), at(0.0));
  // Two keys at one time are a jump: the later one from that time on.
  m.periodSeconds = 0.0f;
  m.position = {MotionKey{0.0f, {0.0f, 0.0f, 0.0f, 0.0f}},
                MotionKey{1.0f, {1.0f, 0.0f, 0.0f, 0.0f}},
                MotionKey{1.0f, {5.0f, 0.0f, 0.0f, 0.0f}}};
  EXPECT_EQ(at(0.5)[0], 0.5f);
  EXPECT_EQ(at(1.0)[0], 5.0f);
  // No keys: the static values.
  EXPECT_EQ(emission::sampleMotion({9.0f, 8.0f, 7.0f}, {0.0f, 0.0f, 0.0f, 1.0f}, {}, 3.0).position,
            (std::array<float, 3>{9.0f, 8.0f, 7.0f}));
}

TEST(Motion, OrientationsSlerpTheShorterWay) {
  CompiledMotion m;
  // 0° and 90° about +Y: half way is 45°, (0, sin 22.5°, 0, cos 22.5°).
  m.rotation = {MotionKey{0.0f, {0.0f, 0.0f, 0.0f, 1.0f}},
                MotionKey{2.0f, {0.0f, kHalfSqrt2, 0.0f, kHalfSqrt2}}};
  const auto at = [&](double t) {
    return emission::sampleMotion({}, {0.0f, 0.0f, 0.0f, 1.0f}, m, t).rotation;
  };
  const std::array<float, 4> half = at(1.0);
  EXPECT_NEAR(half[1], 0.38268343f, 1e-6f);
  EXPECT_NEAR(half[3], 0.92387953f, 1e-6f);
  EXPECT_NEAR(half[0], 0.0f, 1e-7f);
  // A quarter of the way is 22.5° (slerp keeps the angular speed; a normalised lerp would not).
  EXPECT_NEAR(at(0.5)[1], std::sin(0.5f * 0.39269908f), 1e-6f);
  // The second key written as its negation (the same orientation) turns the same short way.
  m.rotation[1].value = {0.0f, -kHalfSqrt2, 0.0f, -kHalfSqrt2};
  const std::array<float, 4> flipped = at(1.0);
  EXPECT_NEAR(std::fabs(flipped[1]), 0.38268343f, 1e-6f);
  EXPECT_NEAR(std::fabs(flipped[3]), 0.92387953f, 1e-6f);
  EXPECT_GT(flipped[1] * flipped[3], 0.0f);  // +45° about +Y, not −315°
}

// A pivot at the origin turning 90°/s about +Y (keys every 90°, repeating every 4 s) with `extra`
// emitter JSON hung 2 m out along +X.
std::string orbitJson(const std::string& emitterExtra) {
  return R"({"format": "mote.effect/1", "name": "orbit",
    "pivots": [{"name": "arm", "motion": {"period": 4, "rotation": [
      [0, [0, 0, 0]], [1, [0, 90, 0]], [2, [0, 180, 0]], [3, [0, 270, 0]], [4, [0, 360, 0]]]}}],
    "emitters": [{"name": "orbiter", "parent": "arm", "position": [2, 0, 0], "max_particles": 4000,
      "init": {"lifetime": 100}, )" +
         emitterExtra + "}]}";
}

TEST(Motion, AnEmitterOnAPivotOrbitsAndItsNewbornsFollowThePath) {
  const bytecode::CompiledEffect effect = test::compileJson(orbitJson(R"("spawn": {"rate": 120})"));
  ASSERT_EQ(effect.emitters.size(), 1u);
  ASSERT_EQ(effect.emitters[0].parents.size(), 1u);
  auto world = ParticleWorld::create(worldDescFor(effect)).takeValue();
  const Result<EffectHandle> h = world->addEffect(effect);
  ASSERT_TRUE(h.ok());
  const EmitterHandle e = world->emitter(*h, 0);
  const auto position = [&] { return world->view(e).value().transform.position; };
  EXPECT_EQ(position(), (std::array<float, 3>{2.0f, 0.0f, 0.0f}));
  for (int t = 0; t < 60; ++t)
    world->tick(1.0f / 60.0f);
  // 90° about +Y takes +X to −Z.
  EXPECT_NEAR(position()[0], 0.0f, 1e-4f);
  EXPECT_NEAR(position()[2], -2.0f, 1e-4f);
  // Every newborn was placed on the path between two ticks' positions: within a chord's sagitta
  // (1.5° a tick: 2 · (1 − cos 0.75°) ≈ 1.7e-4 m) of the 2 m circle, spread over the quarter turn.
  const EmitterView v = world->view(e).value();
  ASSERT_GT(v.live, 100u);
  const std::int32_t p = v.emitter->channels.position;
  float minAngle = 10.0f;
  float maxAngle = -10.0f;
  for (std::uint32_t i = 0; i < v.live; ++i) {
    const float x = v.streams[static_cast<std::size_t>(p)][i];
    const float z = v.streams[static_cast<std::size_t>(p) + 2][i];
    EXPECT_NEAR(std::sqrt(x * x + z * z), 2.0f, 2e-4f) << i;
    minAngle = std::min(minAngle, std::atan2(-z, x));
    maxAngle = std::max(maxAngle, std::atan2(-z, x));
  }
  EXPECT_LT(minAngle, 0.05f);
  EXPECT_GT(maxAngle, 1.5f);
  // The period repeats the turn: at 5 s the emitter is where it was at 1 s.
  for (int t = 0; t < 240; ++t)
    world->tick(1.0f / 60.0f);
  EXPECT_NEAR(position()[0], 0.0f, 1e-3f);
  EXPECT_NEAR(position()[2], -2.0f, 1e-3f);
}

TEST(Motion, PerDistanceEmissionCountsThePathTheKeysMove) {
  // 10 particles a metre; one turn is 2π · 2 m (less by the chords' shortfall, under 0.01 %).
  const bytecode::CompiledEffect effect =
      test::compileJson(orbitJson(R"("spawn": {"rate": 10, "metric": "per_distance"})"));
  auto world = ParticleWorld::create(worldDescFor(effect)).takeValue();
  const Result<EffectHandle> h = world->addEffect(effect);
  ASSERT_TRUE(h.ok());
  for (int t = 0; t < 240; ++t)
    world->tick(1.0f / 60.0f);
  const EmitterStats s = world->emitterStats(world->emitter(*h, 0)).value();
  EXPECT_GE(s.spawned, 125u);  // ⌊125.66⌋
  EXPECT_LE(s.spawned, 126u);
}

TEST(Motion, TheValidatorNamesBadParentsAndKeys) {
  const auto errors = [](const std::string& json) {
    std::string out;
    for (const authoring::Diagnostic& d : authoring::parseEffect(json, "m.json").diagnostics)
      if (d.severity == authoring::Severity::Error) out += d.pointer + ": " + d.message + "\n";
    return out;
  };
  const std::string head = R"({"format": "mote.effect/1", )";
  const std::string emitter = R"({"name": "e", "spawn": {"rate": 1})";
  EXPECT_EQ(errors(head + R"("emitters": [)" + emitter + R"(, "parent": "arn"}]})"),
            "/emitters/0/parent: no pivot listed before it named \"arn\"\n");
  EXPECT_EQ(errors(head + R"("pivots": [{"name": "a", "parent": "b"}, {"name": "b"}],
                   "emitters": [)" +
                   emitter + "}]}"),
            "/pivots/0/parent: no pivot listed before it named \"b\"\n");
  EXPECT_EQ(
      errors(head + R"("pivots": [{"name": "a", "parent": "a"}], "emitters": [)" + emitter + "}]}"),
      "/pivots/0/parent: no pivot listed before it named \"a\"\n");
  EXPECT_EQ(errors(head + R"("emitters": [)" + emitter +
                   R"(, "motion": {"position": [[1, [0, 0, 0]], [0.5, [1, 0, 0]]]}}]})"),
            "/emitters/0/motion/position/1: key time 0.5 is before the previous key's 1 (keys "
            "must be in time order)\n");
  EXPECT_EQ(
      errors(head + R"("emitters": [)" + emitter +
             R"(, "motion": {"period": 2, "rotation": [[0, [0, 0, 0]], [3, [0, 90, 0]]]}}]})"),
      "/emitters/0/motion/rotation/1: key time 3 is beyond the motion's period 2 s\n");
  EXPECT_EQ(
      errors(head + R"("emitters": [)" + emitter + R"(, "motion": {"position": [[0, [0, 0]]]}}]})"),
      "/emitters/0/motion/position/0/1: must be [x, y, z] (got 2 items)\n");
}

TEST(Motion, MotefxKeepsMotionAndRefusesBadKeys) {
  const bytecode::CompiledEffect effect =
      test::compileJson(orbitJson(R"("spawn": {"rate": 1}, "motion": {"position": [[0, [0, 0,
      0]], [2, [0, 1, 0]]]})"));
  ASSERT_EQ(effect.emitters[0].motion.position.size(), 2u);
  const std::vector<std::uint8_t> bytes = bytecode::saveMotefx(effect);
  const Result<bytecode::CompiledEffect> loaded = bytecode::loadMotefx(bytes);
  ASSERT_TRUE(loaded.ok()) << loaded.status().toString();
  EXPECT_TRUE(*loaded == effect);
  // Every truncated prefix is refused.
  for (std::size_t n = 32; n < bytes.size(); n += 7) {
    std::vector<std::uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    test::sealMotefx(cut);
    EXPECT_FALSE(bytecode::loadMotefx(cut).ok()) << n;
  }
  // A NaN key time, keys out of order, a zero quaternion: refused with the emitter and the key.
  const auto refused = [&](auto&& damage) {
    bytecode::CompiledEffect bad = effect;
    damage(bad.emitters[0]);
    const Result<bytecode::CompiledEffect> r = bytecode::loadMotefx(bytecode::saveMotefx(bad));
    return r.ok() ? std::string("loaded") : r.status().message();
  };
  EXPECT_EQ(refused([](bytecode::CompiledEmitter& em) { em.motion.position[1].timeSeconds = NAN; }),
            "emitter orbiter: position key 1 is not finite");
  EXPECT_EQ(refused([](bytecode::CompiledEmitter& em) { em.motion.position[1].timeSeconds = -1; }),
            "emitter orbiter: position key 1 is before the one before it");
  EXPECT_EQ(refused([](bytecode::CompiledEmitter& em) {
              em.parents[0].motion.rotation[2].value = {0.0f, 0.0f, 0.0f, 0.0f};
            }),
            "emitter orbiter: parent frame 0: rotation key 2 is a zero quaternion");
}

}  // namespace
}  // namespace mote
