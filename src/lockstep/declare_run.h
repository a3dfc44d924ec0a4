// SPDX-License-Identifier: MIT
// The particle → sprite conversion of declareParticles, one particle at a time (the contract) and
// as the vector kernels that write a SpriteBatcher run. Private to mote_lockstep and its tests.
#pragma once

#include <mote/lockstep/particle_render.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace mote::lockstep::detail {

// u8 / 255 for every u8, computed at compile time with the single IEEE division the contract
// names (one rounding per channel).
inline constexpr std::array<float, 256> kUnitFromU8 = [] {
  std::array<float, 256> table{};
  for (std::size_t i = 0; i < table.size(); ++i)
    table[i] = static_cast<float>(i) / kTintChannelDivisor;
  return table;
}();

/// The 8-bit tint of one particle's declaration: its RGB and its faded alpha.
template <SimScalar Backend>
std::array<std::uint8_t, 4> declaredTint8(const Particle<Backend>& p) noexcept {
  return {p.tint[0], p.tint[1], p.tint[2], ParticleSystem<Backend>::fadeAlpha(p)};
}

/// One particle's sprite as a full SpriteItem: laige particle_render.md's table.
template <SimScalar Backend>
render::SpriteItem declaredItem(const Particle<Backend>& p, const render::SpriteLook& look,
                                std::int32_t layer) noexcept {
  render::SpriteItem item;
  item.pos = {p.pos.x.toFloat(), p.pos.y.toFloat()};
  item.depthKey = isoDepthKey(p.pos, particleDepthToStepHeight(p.depth), layer);
  const float size = p.size.toFloat();
  item.scale = {size, size};
  const std::array<std::uint8_t, 4> tint = declaredTint8(p);
  item.tint = {kUnitFromU8[tint[0]], kUnitFromU8[tint[1]], kUnitFromU8[tint[2]],
               kUnitFromU8[tint[3]]};
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
/// (which must be available). Each entry is declaredItem's pos, depthKey, scale.x and
/// declaredTint8.
template <SimScalar Backend>
void declareRun(const Particle<Backend>* in, const render::SpriteRunSlots& out, std::int32_t layer,
                DeclareIsa isa) noexcept;

extern template void declareRun(const Particle<Fpx16_16>*, const render::SpriteRunSlots&,
                                std::int32_t, DeclareIsa) noexcept;
extern template void declareRun(const Particle<Fp32>*, const render::SpriteRunSlots&, std::int32_t,
                                DeclareIsa) noexcept;

}  // namespace mote::lockstep::detail
