// SPDX-License-Identifier: MIT
// declareParticles: laige's particle → sprite conversion pass (seed 000) into
// render::SpriteBatcher.
#pragma once

#include <mote/lockstep/particles.h>
#include <mote/render/depth_key.h>
#include <mote/render/sprite_batcher.h>

#include <cstdint>
#include <span>
#include <type_traits>

namespace mote::lockstep {

using render::isoDepthKey;
using render::kIsoDepthGroundLayer;
using render::kIsoDepthMaxStepHeight;

/// The u8 → render-float tint divisor.
inline constexpr float kTintChannelDivisor = 255.0f;

/// A particle's sim depth → the iso key's integer step height: clamp to ±kIsoDepthMaxStepHeight
/// FIRST (by the backend's own ordering; a NaN fails every comparison and falls through to +2047),
/// then round to nearest, ties to even (Backend::toInt32): 0.5 → 0, 1.5 → 2, ±3000 → ±2047.
/// Pure; O(1). Allocates: never.
template <SimScalar Backend>
constexpr std::int32_t particleDepthToStepHeight(Backend depth) noexcept {
  if (!(depth <= Backend::fromInt(kIsoDepthMaxStepHeight))) return kIsoDepthMaxStepHeight;
  if (depth < Backend::fromInt(-kIsoDepthMaxStepHeight)) return -kIsoDepthMaxStepHeight;
  if constexpr (std::is_same_v<Backend, Fp32>) {
    return detail::roundSmallTiesEven(depth.toFloat());  // clamped above: toInt32's checks hold
  } else {
    return depth.toInt32();
  }
}

/// An emitter set's shared render attributes: one ParticleSystem = one (atlasId, materialId, blend)
/// group = one instanced draw call.
struct ParticleDeclareOptions {
  std::uint32_t atlasId = 0;
  std::uint32_t materialId = 0;
  render::BlendMode blend = render::BlendMode::Additive;
  render::SpriteUvRect uv{};  ///< the shared atlas sub-rect; default the full atlas
  std::int32_t layer = kIsoDepthGroundLayer;
};

/// Declares every live particle of `system`, in live-array order, as one SpriteItem into the
/// batcher's open frame window:
///   pos = p.pos (Backend::toFloat per component), depthKey = isoDepthKey(p.pos,
///   particleDepthToStepHeight(p.depth), options.layer), depthOverride = false, scale = (size,
///   size), tint = (tint.rgb / 255, fadeAlpha(p) / 255), uv = options.uv, frameIndex = 0, rotation
///   = 0, atlasId / materialId / blend = options.
/// The first failed add returns the batcher's error (stopped → BudgetExhausted, closed window →
/// InvalidArgument); batcher overflow is the batcher's policy (oldest dropped) and is not a
/// failure. An empty system attempts no add and succeeds. Never writes to the system. Complexity:
/// O(live). Allocates: never.
template <SimScalar Backend>
Status declareParticles(render::SpriteBatcher& batcher, const ParticleSystem<Backend>& system,
                        const ParticleDeclareOptions& options = {}) noexcept;

/// The same conversion for any particles (a host's own pool, a replay's snapshot), in span order:
/// declareParticles(batcher, system, options) is declareParticles(batcher,
/// system.liveParticles(), options). Every bit pattern is accepted (NaN and out-of-range depths
/// clamp as particleDepthToStepHeight says).
template <SimScalar Backend>
Status declareParticles(render::SpriteBatcher& batcher,
                        std::span<const Particle<Backend>> particles,
                        const ParticleDeclareOptions& options = {}) noexcept;

extern template Status declareParticles(render::SpriteBatcher&, const ParticleSystem<Fpx16_16>&,
                                        const ParticleDeclareOptions&) noexcept;
extern template Status declareParticles(render::SpriteBatcher&, const ParticleSystem<Fp32>&,
                                        const ParticleDeclareOptions&) noexcept;
extern template Status declareParticles(render::SpriteBatcher&, std::span<const Particle<Fpx16_16>>,
                                        const ParticleDeclareOptions&) noexcept;
extern template Status declareParticles(render::SpriteBatcher&, std::span<const Particle<Fp32>>,
                                        const ParticleDeclareOptions&) noexcept;

}  // namespace mote::lockstep
