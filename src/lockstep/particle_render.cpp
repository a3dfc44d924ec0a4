// SPDX-License-Identifier: MIT
// declareParticles for Fpx16_16 and Fp32.
#include <mote/lockstep/particle_render.h>

#include <array>
#include <cstddef>

namespace mote::lockstep {
namespace {

// u8 / 255 for every u8, computed at compile time with the same single IEEE division the contract
// names (one rounding per channel), so the per-particle pass loads instead of dividing.
constexpr std::array<float, 256> kUnitFromU8 = [] {
  std::array<float, 256> table{};
  for (std::size_t i = 0; i < table.size(); ++i) {
    table[i] = static_cast<float>(i) / kTintChannelDivisor;
  }
  return table;
}();

}  // namespace

template <SimScalar Backend>
Status declareParticles(render::SpriteBatcher& batcher, const ParticleSystem<Backend>& system,
                        const ParticleDeclareOptions& options) noexcept {
  const render::SpriteUvRect uv = options.uv;
  const std::int32_t layer = options.layer;
  for (const Particle<Backend>& p : system.liveParticles()) {
    // Every field written straight into the batcher's slot (see SpriteBatcher::addInPlace).
    Status status = batcher.addInPlace([&](render::SpriteItem& item) {
      const float size = p.size.toFloat();
      item.pos = {p.pos.x.toFloat(), p.pos.y.toFloat()};
      item.depthKey = isoDepthKey(p.pos, particleDepthToStepHeight(p.depth), layer);
      item.depthOverride = false;
      item.scale = {size, size};
      item.tint = {kUnitFromU8[p.tint[0]], kUnitFromU8[p.tint[1]], kUnitFromU8[p.tint[2]],
                   kUnitFromU8[ParticleSystem<Backend>::fadeAlpha(p)]};
      item.uv = uv;
      item.frameIndex = 0;
      item.rotation = 0.0f;
      item.atlasId = options.atlasId;
      item.materialId = options.materialId;
      item.blend = options.blend;
    });
    if (!status.ok()) return status;  // first failure wins
  }
  return {};
}

template Status declareParticles(render::SpriteBatcher&, const ParticleSystem<Fpx16_16>&,
                                 const ParticleDeclareOptions&) noexcept;
template Status declareParticles(render::SpriteBatcher&, const ParticleSystem<Fp32>&,
                                 const ParticleDeclareOptions&) noexcept;

}  // namespace mote::lockstep
