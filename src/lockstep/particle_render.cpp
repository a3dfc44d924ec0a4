// SPDX-License-Identifier: MIT
// declareParticles for Fpx16_16 and Fp32.
#include "declare_run.h"

#include <mote/lockstep/particle_render.h>

#include <cstddef>

namespace mote::lockstep {

template <SimScalar Backend>
Status declareParticles(render::SpriteBatcher& batcher,
                        std::span<const Particle<Backend>> particles,
                        const ParticleDeclareOptions& options) noexcept {
  if (particles.empty()) return {};
  render::SpriteLook look;
  look.uv = options.uv;
  look.atlasId = options.atlasId;
  look.materialId = options.materialId;
  look.blend = options.blend;
  // The declarations the frame has room for, written in one tight loop as a run...
  const render::SpriteRunSlots run =
      batcher.claimRun(static_cast<std::uint32_t>(particles.size()), look);
  detail::declareRun(particles.data(), run, options.layer, detail::bestDeclareIsa());
  // ...and the rest one by one: the batcher's errors (stopped, closed) and its overflow policy.
  for (std::size_t i = run.count; i < particles.size(); ++i) {
    Status status = batcher.add(detail::declaredItem(particles[i], look, options.layer));
    if (!status.ok()) return status;  // first failure wins
  }
  return {};
}

template <SimScalar Backend>
Status declareParticles(render::SpriteBatcher& batcher, const ParticleSystem<Backend>& system,
                        const ParticleDeclareOptions& options) noexcept {
  return declareParticles(batcher, system.liveParticles(), options);
}

template Status declareParticles(render::SpriteBatcher&, std::span<const Particle<Fpx16_16>>,
                                 const ParticleDeclareOptions&) noexcept;
template Status declareParticles(render::SpriteBatcher&, std::span<const Particle<Fp32>>,
                                 const ParticleDeclareOptions&) noexcept;
template Status declareParticles(render::SpriteBatcher&, const ParticleSystem<Fpx16_16>&,
                                 const ParticleDeclareOptions&) noexcept;
template Status declareParticles(render::SpriteBatcher&, const ParticleSystem<Fp32>&,
                                 const ParticleDeclareOptions&) noexcept;

}  // namespace mote::lockstep
