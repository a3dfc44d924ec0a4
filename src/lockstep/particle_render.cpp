// SPDX-License-Identifier: MIT
// declareParticles for Fpx16_16 and Fp32.
#include <mote/lockstep/particle_render.h>

#include <array>
#include <cstddef>
#include <cstring>

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

// The per-call constant part of every declared sprite: SpriteItem from uv to the end.
struct SpriteTail {
  render::SpriteUvRect uv;
  std::uint32_t frameIndex;
  float rotation;
  std::uint32_t atlasId;
  std::uint32_t materialId;
  render::BlendMode blend;
};
static_assert(offsetof(render::SpriteItem, blend) - offsetof(render::SpriteItem, uv) ==
              offsetof(SpriteTail, blend));
constexpr std::size_t kTailBytes = offsetof(render::SpriteItem, blend) + sizeof(render::BlendMode) -
                                   offsetof(render::SpriteItem, uv);

// One particle's sprite, written field by field into `item` (the contract's table).
template <SimScalar Backend>
inline void declareOne(const Particle<Backend>& p, render::SpriteItem* __restrict item,
                       std::int32_t layer, const SpriteTail& tail) {
  const Vec2<Backend> pos = p.pos;
  const float size = p.size.toFloat();
  const std::uint32_t key = isoDepthKey(pos, particleDepthToStepHeight(p.depth), layer);
  const float r = kUnitFromU8[p.tint[0]];
  const float g = kUnitFromU8[p.tint[1]];
  const float b = kUnitFromU8[p.tint[2]];
  const float a = kUnitFromU8[ParticleSystem<Backend>::fadeAlpha(p)];
  item->pos = {pos.x.toFloat(), pos.y.toFloat()};
  item->depthKey = key;
  item->depthOverride = false;
  item->scale = {size, size};
  item->tint = {r, g, b, a};
  std::memcpy(static_cast<void*>(&item->uv), &tail, kTailBytes);
}

}  // namespace

template <SimScalar Backend>
Status declareParticles(render::SpriteBatcher& batcher, const ParticleSystem<Backend>& system,
                        const ParticleDeclareOptions& options) noexcept {
  const std::span<const Particle<Backend>> live = system.liveParticles();
  if (live.empty()) return {};
  const SpriteTail tail{options.uv, 0, 0.0f, options.atlasId, options.materialId, options.blend};
  const std::int32_t layer = options.layer;
  // The slots the frame has room for, filled in one tight loop (no per-sprite window checks)...
  const std::span<render::SpriteItem> slots =
      batcher.claim(static_cast<std::uint32_t>(live.size()));
  render::SpriteItem* __restrict const out = slots.data();
  const Particle<Backend>* __restrict const in = live.data();
  const std::size_t claimed = slots.size();
  for (std::size_t i = 0; i < claimed; ++i)
    declareOne(in[i], out + i, layer, tail);
  // ...and the rest one by one: the batcher's errors (stopped, closed) and its overflow policy.
  for (std::size_t i = claimed; i < live.size(); ++i) {
    Status status = batcher.addInPlace(
        [&](render::SpriteItem& item) { declareOne(live[i], &item, layer, tail); });
    if (!status.ok()) return status;  // first failure wins
  }
  return {};
}

template Status declareParticles(render::SpriteBatcher&, const ParticleSystem<Fpx16_16>&,
                                 const ParticleDeclareOptions&) noexcept;
template Status declareParticles(render::SpriteBatcher&, const ParticleSystem<Fp32>&,
                                 const ParticleDeclareOptions&) noexcept;

}  // namespace mote::lockstep
