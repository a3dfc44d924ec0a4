// SPDX-License-Identifier: MIT
// The particle → sprite conversion of declareParticles, one particle at a time (the contract) and
// as the vector kernels that write a SpriteBatcher run. Private to mote_lockstep and its tests.
#pragma once

#include <mote/lockstep/particle_render.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace mote::lockstep::detail {

// The contract's tint divisor is the one the batcher decodes a run's 8-bit tint with.
static_assert(kTintChannelDivisor == 255.0f && render::kSpriteTintFromU8[51] == 51.0f / 255.0f);

/// One particle's declaration as a run stores it: position, key, size and 8-bit tint (its RGB and
/// its faded alpha) — laige particle_render.md's table, before the tint is divided by 255.
struct DeclaredEntry {
  float x = 0.0f;
  float y = 0.0f;
  std::uint32_t depthKey = 0;
  float size = 0.0f;
  std::array<std::uint8_t, 4> tint8{};
};

template <SimScalar Backend>
DeclaredEntry declaredEntry(const Particle<Backend>& p, std::int32_t layer) noexcept {
  return {p.pos.x.toFloat(),
          p.pos.y.toFloat(),
          isoDepthKey(p.pos, particleDepthToStepHeight(p.depth), layer),
          p.size.toFloat(),
          {p.tint[0], p.tint[1], p.tint[2], ParticleSystem<Backend>::fadeAlpha(p)}};
}

/// The same declaration as a full SpriteItem, for add().
template <SimScalar Backend>
render::SpriteItem declaredItem(const Particle<Backend>& p, const render::SpriteLook& look,
                                std::int32_t layer) noexcept {
  const DeclaredEntry e = declaredEntry(p, layer);
  const auto& unit = render::kSpriteTintFromU8;
  render::SpriteItem item;
  item.pos = {e.x, e.y};
  item.depthKey = e.depthKey;
  item.scale = {e.size, e.size};
  item.tint = {unit[e.tint8[0]], unit[e.tint8[1]], unit[e.tint8[2]], unit[e.tint8[3]]};
  item.uv = look.uv;
  item.atlasId = look.atlasId;
  item.materialId = look.materialId;
  item.blend = look.blend;
  return item;
}

/// The instruction sets declareRun has a kernel for. Every kernel writes the same bits.
enum class DeclareIsa : std::uint8_t { Scalar, Sse2, Avx2 };

/// Whether this build and this CPU run `isa`.
bool declareIsaAvailable(DeclareIsa isa) noexcept;
/// The widest available (checked once).
DeclareIsa bestDeclareIsa() noexcept;

/// Writes the declarations of in[0, out.count) into a claimed run, with the kernel of `isa`
/// (which must be available). Entry i is declaredEntry(in[i], layer).
template <SimScalar Backend>
void declareRun(const Particle<Backend>* in, const render::SpriteRunSlots& out, std::int32_t layer,
                DeclareIsa isa) noexcept;

extern template void declareRun(const Particle<Fpx16_16>*, const render::SpriteRunSlots&,
                                std::int32_t, DeclareIsa) noexcept;
extern template void declareRun(const Particle<Fp32>*, const render::SpriteRunSlots&, std::int32_t,
                                DeclareIsa) noexcept;

}  // namespace mote::lockstep::detail
