// SPDX-License-Identifier: MIT
// Links mote::lockstep and mote::authoring from an installed package and checks known answers.
#include <mote/authoring/effect_json.h>
#include <mote/core/fixed.h>
#include <mote/core/fnv1a.h>
#include <mote/core/job_system.h>
#include <mote/core/prng.h>
#include <mote/core/version.h>
#include <mote/lockstep/particle_render.h>

#include <cstdio>

int main() {
  mote::Prng prng(0);
  const bool prngOk = prng.nextU64() == 0xdec90d521e93e35dULL;
  const bool fnvOk = mote::fnv1a64("foobar") == 0x85944171f73967e8ULL;
  const bool fixedOk = (mote::Fpx16_16::fromInt(3) / mote::Fpx16_16::fromInt(4)).raw() == 0xC000;
  mote::InlineJobSystem jobs;
  std::size_t total = 0;
  mote::parallelFor(jobs, 10, 3, [&](std::size_t begin, std::size_t end) { total += end - begin; });
  auto system =
      std::move(mote::lockstep::ParticleSystem<mote::Fpx16_16>::create({16, 1, 1})).takeValue();
  mote::lockstep::ParticleEmitterDef<mote::Fpx16_16> def;
  def.continuousRate = 3;
  const bool emitterOk = system.addEmitter(def).ok();
  system.update();
  auto batcher = std::move(mote::render::SpriteBatcher::create({16})).takeValue();
  const bool declaredOk = mote::lockstep::declareParticles(batcher, system).ok() &&
                          batcher.build().ok() && batcher.batches().size() == 1 &&
                          batcher.sorted().size() == 3;
  const mote::authoring::EffectLoadResult effect = mote::authoring::parseEffect(
      R"({"format": "mote.effect/1", "emitters": [{"name": "a", "spawn": {"rate": 2}}]})");
  const bool effectOk = effect.ok() && effect.effect.emitters.at(0).spawn.rate == 2.0f;
  const bool ok = prngOk && fnvOk && fixedOk && total == 10 && emitterOk && declaredOk && effectOk;
  std::printf("consumer of mote %s: %s\n", MOTE_VERSION_STRING, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
