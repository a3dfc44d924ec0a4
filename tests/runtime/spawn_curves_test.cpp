// SPDX-License-Identifier: MIT
// Spawn-time values that follow emitter time (docs/effect-format.md, "Spawn-time values"): a cone's
// spread, a rect's extents and a speed's jitter, each sampled at a newborn's emitter time, checked
// on every particle of a running world against the curve at the time it was born (its emitter time
// now less its age); and a looping emission's, which follow the curve again every cycle.
#include "support/compile_effect.h"

#include <mote/bytecode/compiled_effect.h>
#include <mote/runtime/world.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace mote {
namespace {

// Four emitters, born for two seconds: `cone` along +Y at 1 m/s within a half-angle of 45° per
// second of emitter time; `rect` at rest on a square 2 m wide per second; `jitter` along +Y at
// 2 m/s plus up to 1.5 m/s per second; `falling` born at rest under a gravity of 2 m/s² per second
// of emitter time at its birth, which it keeps; `flipbook` playing an 8-frame sheet (no loop) at
// 4 frames a second per second of emitter time at its birth; `pulled` toward a far target above
// with a pull of 2 m/s² per second of emitter time at its birth.
constexpr const char* kEffect = R"({
  "format": "mote.effect/1", "name": "spawn_curves",
  "materials": [{"name": "m"},
                {"name": "sheet", "sheet": {"columns": 8, "rows": 1, "loop": false,
                                            "fps_over_emitter_time": {"keys": [[0, 0], [2, 8]]}}}],
  "emitters": [
    {"name": "cone", "material": "m", "max_particles": 1000, "spawn": {"rate": 300},
     "init": {"lifetime": 100, "velocity": {"kind": "cone", "speed": 1,
              "spread_over_emitter_time": {"keys": [[0, 0], [2, 90]]}}}},
    {"name": "rect", "material": "m", "max_particles": 1000, "spawn": {"rate": 300},
     "shape": {"kind": "rect", "size_over_emitter_time": [[0, [0, 0, 0]], [2, [4, 0, 4]]]},
     "init": {"lifetime": 100}},
    {"name": "jitter", "material": "m", "max_particles": 1000, "spawn": {"rate": 300},
     "init": {"lifetime": 100, "velocity": {"kind": "direction", "direction": [0, 1, 0],
              "speed": {"range": [0, 1], "over_emitter_time": {"keys": [[0, 2]]},
                        "range_scale_over_emitter_time": {"keys": [[0, 0], [2, 3]]}}}}},
    {"name": "falling", "material": "m", "max_particles": 1000, "spawn": {"rate": 300},
     "init": {"lifetime": 100},
     "update": [{"type": "gravity", "acceleration": [0, -1, 0],
                 "scale_over_emitter_time": {"keys": [[0, 0], [2, 4]]}}]},
    {"name": "flipbook", "material": "sheet", "max_particles": 1000, "spawn": {"rate": 300},
     "init": {"lifetime": 100}},
    {"name": "pulled", "material": "m", "max_particles": 1000, "spawn": {"rate": 300},
     "init": {"lifetime": 100},
     "update": [{"type": "target", "mode": "gravity", "position": [0, 100000, 0],
                 "gravity_over_emitter_time": {"keys": [[0, 0], [2, 4]]}}]}]})";

struct Newborn {
  float bornAt;  // emitter time, s
  std::array<float, 3> position, velocity;
};

std::vector<Newborn> newborns(const ParticleWorld& world, EmitterHandle e, float now) {
  const EmitterView v = world.view(e).value();
  const bytecode::CompiledEmitter& emitter = *v.emitter;
  std::vector<Newborn> out;
  const auto word = [&](std::int32_t channel, std::size_t k, std::uint32_t i) {
    return v.streams[static_cast<std::size_t>(channel) + k][i];
  };
  for (std::uint32_t i = 0; i < v.live; ++i) {
    Newborn n{};
    n.bornAt = now - word(emitter.channels.age, 0, i);
    for (std::size_t k = 0; k < 3; ++k) {
      n.position[k] = word(emitter.channels.position, k, i);
      n.velocity[k] = emitter.channels.velocity >= 0 ? word(emitter.channels.velocity, k, i) : 0.0f;
    }
    out.push_back(n);
  }
  return out;
}

class SpawnCurves : public ::testing::Test {
 protected:
  void SetUp() override {
    effect_ = test::compileJson(kEffect);
    world_ = ParticleWorld::create(worldDescFor(effect_)).takeValue();
    const Result<EffectHandle> h = world_->addEffect(effect_);
    ASSERT_TRUE(h.ok()) << h.status().toString();
    handle_ = *h;
    for (int t = 0; t < 120; ++t)
      world_->tick(1.0f / 60.0f);
  }
  std::vector<Newborn> of(std::uint32_t emitter) const {
    std::vector<Newborn> n = newborns(*world_, world_->emitter(handle_, emitter), 2.0f);
    EXPECT_GT(n.size(), 500u);
    return n;
  }
  bytecode::CompiledEffect effect_;
  std::unique_ptr<ParticleWorld> world_;
  EffectHandle handle_{};
};

TEST_F(SpawnCurves, AConesSpreadFollowsEmitterTime) {
  float widestEarly = 0.0f;  // born in the first tenth of a second: within 4.5°
  float widestLate = 0.0f;   // born after 1.5 s: up to 90°
  for (const Newborn& n : of(0)) {
    const float speed = std::hypot(n.velocity[0], n.velocity[1], n.velocity[2]);
    EXPECT_NEAR(speed, 1.0f, 1e-5f);
    const float degrees = std::acos(std::clamp(n.velocity[1] / speed, -1.0f, 1.0f)) * 57.29578f;
    EXPECT_LE(degrees, 45.0f * n.bornAt + 0.05f) << "born at " << n.bornAt;
    if (n.bornAt < 0.1f) widestEarly = std::max(widestEarly, degrees);
    if (n.bornAt > 1.5f) widestLate = std::max(widestLate, degrees);
  }
  EXPECT_LT(widestEarly, 4.6f);
  EXPECT_GT(widestLate, 60.0f);
}

TEST_F(SpawnCurves, ARectsExtentsFollowEmitterTime) {
  float widestLate = 0.0f;
  for (const Newborn& n : of(1)) {
    // Born on a square of half-width bornAt (the extents are 2 m a second), in local XZ.
    EXPECT_EQ(n.position[1], 0.0f);
    EXPECT_LE(std::fabs(n.position[0]), n.bornAt + 1e-3f) << "born at " << n.bornAt;
    EXPECT_LE(std::fabs(n.position[2]), n.bornAt + 1e-3f) << "born at " << n.bornAt;
    if (n.bornAt > 1.5f)
      widestLate = std::max({widestLate, std::fabs(n.position[0]), std::fabs(n.position[2])});
  }
  EXPECT_GT(widestLate, 1.4f);
}

TEST_F(SpawnCurves, ASpeedsJitterScalesWithEmitterTime) {
  float fastestEarly = 0.0f;
  float fastestLate = 0.0f;
  for (const Newborn& n : of(2)) {
    EXPECT_EQ(n.velocity[0], 0.0f);
    EXPECT_EQ(n.velocity[2], 0.0f);
    // 2 m/s plus u · 1.5 · bornAt, u in [0, 1].
    EXPECT_GE(n.velocity[1], 2.0f - 1e-5f);
    EXPECT_LE(n.velocity[1], 2.0f + 1.5f * n.bornAt + 1e-3f) << "born at " << n.bornAt;
    if (n.bornAt < 0.1f) fastestEarly = std::max(fastestEarly, n.velocity[1]);
    if (n.bornAt > 1.5f) fastestLate = std::max(fastestLate, n.velocity[1]);
  }
  EXPECT_LT(fastestEarly, 2.16f);
  EXPECT_GT(fastestLate, 4.0f);
}

TEST_F(SpawnCurves, AGravitysScaleAndATargetsPullAreSampledAtBirthAndKept) {
  for (const auto& [emitter, sign] : {std::pair{3u, -1.0f}, std::pair{5u, 1.0f}}) {
    std::uint32_t late = 0;
    for (const Newborn& n : of(emitter)) {
      // |v| = 2 · bornAt · age: the acceleration of its birth for all of its age (2 s − bornAt),
      // down for the gravity, up toward the target.
      const float age = 2.0f - n.bornAt;
      EXPECT_NEAR(n.velocity[1], sign * 2.0f * n.bornAt * age, 2e-3f) << "born at " << n.bornAt;
      EXPECT_EQ(n.velocity[0], 0.0f);
      if (n.bornAt > 1.5f) ++late;
    }
    EXPECT_GT(late, 100u) << emitter;
  }
}

TEST_F(SpawnCurves, ASheetsFrameRateIsSampledAtBirthAndKept) {
  const EmitterView v = world_->view(world_->emitter(handle_, 4)).value();
  const auto& ch = v.emitter->channels;
  ASSERT_GE(ch.frame, 0);
  std::uint32_t moving = 0;
  for (std::uint32_t i = 0; i < v.live; ++i) {
    const float age = v.streams[static_cast<std::size_t>(ch.age)][i];
    const float bornAt = 2.0f - age;
    // frame = ⌊min(age · 4 · bornAt, 8)⌋, the last frame held (skipping values at a boundary).
    const float played = age * 4.0f * bornAt;
    if (std::fabs(played - std::round(played)) < 1e-2f) continue;
    EXPECT_EQ(v.streams[static_cast<std::size_t>(ch.frame)][i], std::min(std::floor(played), 7.0f))
        << "born at " << bornAt;
    if (played > 1.0f && played < 7.0f) ++moving;
  }
  EXPECT_GT(moving, 100u);
}

// A looping emission (loop, duration 0.5 s): `sized` takes a size of 2 · its emitter time in the
// cycle, so the curve starts again every half second; `pulses` fires its effect event at 0.25 s in
// every cycle, 10 particles each.
constexpr const char* kLooping = R"({
  "format": "mote.effect/1", "name": "looping", "materials": [{"name": "m"}],
  "emitters": [
    {"name": "sized", "material": "m", "max_particles": 1000,
     "spawn": {"rate": 300, "duration": 0.5, "loop": true},
     "init": {"lifetime": 100, "size": {"over_emitter_time": {"keys": [[0, 0], [0.5, 1]]}}}},
    {"name": "pulses", "material": "m", "max_particles": 100,
     "spawn": {"mode": "event_burst", "rate": 10, "event_times": [0.25], "duration": 0.5,
               "loop": true},
     "init": {"lifetime": 100}}]})";

TEST(SpawnCurvesLooping, EmitterTimeCurvesAndEventsRepeatEveryCycle) {
  const bytecode::CompiledEffect effect = test::compileJson(kLooping);
  auto world = ParticleWorld::create(worldDescFor(effect)).takeValue();
  const EffectHandle handle = world->addEffect(effect).value();
  for (int t = 0; t < 90; ++t)  // 1.5 s: three cycles
    world->tick(1.0f / 60.0f);

  const EmitterView sized = world->view(world->emitter(handle, 0)).value();
  const auto& ch = sized.emitter->channels;
  ASSERT_GE(ch.size, 0);
  std::uint32_t wrapped = 0;
  for (std::uint32_t i = 0; i < sized.live; ++i) {
    const double bornAt =
        1.5 - static_cast<double>(sized.streams[static_cast<std::size_t>(ch.age)][i]);
    const double inCycle = bornAt - 0.5 * std::floor(bornAt / 0.5);
    const float size = sized.streams[static_cast<std::size_t>(ch.size)][i];
    // Within a float age's rounding of a cycle's start the particle may be in either cycle.
    if (std::fabs(inCycle) < 1e-4 || std::fabs(inCycle - 0.5) < 1e-4) continue;
    EXPECT_NEAR(size, 2.0 * inCycle, 1e-3) << "born at " << bornAt;
    if (bornAt > 1.0 && size < 0.2f) ++wrapped;
  }
  EXPECT_GT(sized.live, 400u);
  EXPECT_GT(wrapped, 20u);  // the third cycle starts small again

  // Three events: at 0.25, 0.75 and 1.25 s, ten particles each.
  const EmitterView pulses = world->view(world->emitter(handle, 1)).value();
  ASSERT_EQ(pulses.live, 30u);
  std::vector<float> ages(
      pulses.streams[static_cast<std::size_t>(pulses.emitter->channels.age)],
      pulses.streams[static_cast<std::size_t>(pulses.emitter->channels.age)] + pulses.live);
  std::sort(ages.begin(), ages.end());
  for (std::uint32_t i = 0; i < 30; ++i)
    EXPECT_NEAR(ages[i], 0.25f + 0.5f * static_cast<float>(i / 10), 1e-4f) << i;
}

// A sheet's frame range sampled at birth and kept (NWN keyed frameStart/frameEnd): a 4×4 sheet
// still at fps 0. `first` shows the first frame of its birth's range, round(5 · t); `ranged` a
// random frame of [round(5 · t), round(min(3 + 8.5 · t, 15))] (the end's last key, 20, is past
// the sheet and clamped to 15).
constexpr const char* kFrameRange = R"({
  "format": "mote.effect/1", "name": "frame_range",
  "materials": [{"name": "still", "sheet": {"columns": 4, "rows": 4, "fps": 0,
                  "frame_begin_over_emitter_time": {"keys": [[0, 0], [2, 10]]},
                  "frame_end_over_emitter_time": {"keys": [[0, 3], [2, 20]]}}},
                {"name": "random", "sheet": {"columns": 4, "rows": 4, "fps": 0,
                  "random_start": true,
                  "frame_begin_over_emitter_time": {"keys": [[0, 0], [2, 10]]},
                  "frame_end_over_emitter_time": {"keys": [[0, 3], [2, 20]]}}}],
  "emitters": [
    {"name": "first", "material": "still", "max_particles": 1000, "spawn": {"rate": 300},
     "init": {"lifetime": 100}},
    {"name": "ranged", "material": "random", "max_particles": 1000, "spawn": {"rate": 300},
     "init": {"lifetime": 100}}]})";

TEST(SpawnCurvesFrames, ASheetsFrameRangeIsSampledAtBirthAndKept) {
  const bytecode::CompiledEffect effect = test::compileJson(kFrameRange);
  auto world = ParticleWorld::create(worldDescFor(effect)).takeValue();
  const EffectHandle handle = world->addEffect(effect).value();
  for (int t = 0; t < 120; ++t)  // 2 s
    world->tick(1.0f / 60.0f);
  // Frames within a rounding of a half cell of a boundary may round either way: skipped.
  const auto nearHalf = [](double x) { return std::fabs(x - std::floor(x) - 0.5) < 1e-3; };
  std::array<std::uint32_t, 2> checked{};
  std::array<bool, 16> seen{};
  for (std::uint32_t e = 0; e < 2; ++e) {
    const EmitterView v = world->view(world->emitter(handle, e)).value();
    const auto& ch = v.emitter->channels;
    ASSERT_GE(ch.frame, 0);
    ASSERT_GT(v.live, 500u);
    for (std::uint32_t i = 0; i < v.live; ++i) {
      const double bornAt =
          2.0 - static_cast<double>(v.streams[static_cast<std::size_t>(ch.age)][i]);
      const double begin = 5.0 * bornAt;
      const double end = std::min(3.0 + 8.5 * bornAt, 15.0);
      if (nearHalf(begin) || nearHalf(end)) continue;
      const float frame = v.streams[static_cast<std::size_t>(ch.frame)][i];
      if (e == 0) {
        EXPECT_EQ(frame, std::round(begin)) << "born at " << bornAt;
      } else {
        EXPECT_GE(frame, std::round(begin)) << "born at " << bornAt;
        EXPECT_LE(frame, std::round(end)) << "born at " << bornAt;
        seen[static_cast<std::size_t>(frame)] = true;
      }
      ++checked[e];
    }
  }
  EXPECT_GT(checked[0], 500u);
  EXPECT_GT(checked[1], 500u);
  EXPECT_TRUE(seen[0] && seen[15]);  // the range's ends are both reached
}

}  // namespace
}  // namespace mote
