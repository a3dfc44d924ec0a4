// SPDX-License-Identifier: MIT
// Shared fixtures of the lockstep tests: emitter defs and the scenario the Python reference models.
#pragma once

#include <mote/lockstep/particles.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

namespace mote::lockstep::fixtures {

template <typename B>
B num(float v) {
  return B::fromFloat(v);
}
template <typename B>
Vec2<B> vec(float x, float y) {
  return {B::fromFloat(x), B::fromFloat(y)};
}

template <typename B>
ParticleSystem<B> makeSystem(std::uint32_t maxParticles, std::uint32_t maxEmitters,
                             std::uint64_t seed) {
  Result<ParticleSystem<B>> r = ParticleSystem<B>::create({maxParticles, maxEmitters, seed});
  EXPECT_TRUE(r.ok()) << r.status().toString();
  return std::move(r).takeValue();
}

// The sparks emitter of laige's example: dyadic values (the cross-backend exactness zone).
template <typename B>
ParticleEmitterDef<B> sparks() {
  ParticleEmitterDef<B> def;
  def.origin = vec<B>(1.5f, -2.0f);
  def.depth = num<B>(3.0f);
  def.velMin = vec<B>(-1.0f, -1.0f);
  def.velMax = vec<B>(1.0f, 1.0f);
  def.lifeMin = 12;
  def.lifeMax = 24;
  def.sizeMin = num<B>(0.25f);
  def.sizeMax = num<B>(0.5f);
  def.tint = {255, 180, 60, 255};
  def.fadeTicks = 8;
  def.continuousRate = 0;
  return def;
}

// The scenario of tests/lockstep/reference/lockstep_reference.py, an independent Python model of
// the seed: three emitters (one burst-only), a 96-particle pool that overflows, 300 ticks.
template <typename B>
ParticleSystem<B> runScenario(std::uint64_t seed) {
  auto s = makeSystem<B>(96, 4, seed);
  ParticleEmitterDef<B> e0;
  e0.origin = vec<B>(10.0f, 20.0f);
  e0.depth = num<B>(2.5f);
  e0.velMin = vec<B>(-0.5f, -0.25f);
  e0.velMax = vec<B>(0.5f, 0.75f);
  e0.lifeMin = 10;
  e0.lifeMax = 40;
  e0.sizeMin = num<B>(0.25f);
  e0.sizeMax = num<B>(1.0f);
  e0.tint = {255, 180, 60, 255};
  e0.fadeTicks = 8;
  e0.continuousRate = 3;
  ParticleEmitterDef<B> e1;
  e1.origin = vec<B>(-5.0f, 0.0f);
  e1.depth = num<B>(-1.0f);
  e1.velMin = vec<B>(0.0f, 0.125f);
  e1.velMax = vec<B>(0.25f, 0.5f);
  e1.lifeMin = e1.lifeMax = 5;
  e1.sizeMin = e1.sizeMax = num<B>(1.0f);
  e1.tint = {80, 80, 255, 200};
  e1.continuousRate = 1;
  ParticleEmitterDef<B> e2;
  e2.velMin = vec<B>(-2.0f, -2.0f);
  e2.velMax = vec<B>(2.0f, 2.0f);
  e2.lifeMin = 1;
  e2.lifeMax = 60;
  e2.sizeMax = num<B>(2.0f);
  e2.tint = {255, 255, 255, 128};
  e2.fadeTicks = 30;
  EXPECT_TRUE(s.addEmitter(e0).ok());
  EXPECT_TRUE(s.addEmitter(e1).ok());
  const ParticleEmitterId burstId = s.addEmitter(e2).value();
  for (int t = 0; t < 300; ++t) {
    if (t % 50 == 0) {
      EXPECT_TRUE(s.burst(burstId, 40).ok());
    }
    s.update();
  }
  return s;
}

}  // namespace mote::lockstep::fixtures
