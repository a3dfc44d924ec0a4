// SPDX-License-Identifier: MIT
// ParticleRenderer's private state, shared by the files that implement it: particle_renderer.cpp
// (the API, material textures, the sprite forwards), particle_renderer_packets.cpp (walking a
// frame's render packets), particle_renderer_quads.cpp (quads per billboard mode) and
// particle_renderer_ribbons.cpp (linked chains and beams). The quads are drawn by the sprite
// layer's rasterizer, which it embeds (sprite_renderer_impl.h: bands, rasterization, resolve).
#pragma once

#include "draw_order.h"
#include "facing_quads.h"
#include "sprite_renderer_impl.h"  // the rasterizer: quads, styles, draw keys, textures, finish()

#include <mote/core/assert.h>
#include <mote/render/billboard.h>
#include <mote/render/depth_key.h>
#include <mote/render/particle_renderer.h>
#include <mote/render/render_packet.h>

#include <glm/gtc/quaternion.hpp>
#include <glm/mat4x4.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mote::render {

// The premultiplied colour of a particle of straight-alpha `color` (alpha clamped to [0, 1]):
// rgb (negatives as 0) times alpha, and alpha — 0 for additive.
inline std::array<float, 4> premultiplied(const std::array<float, 4>& color, Blend blend) {
  const float alpha = std::clamp(color[3], 0.0f, 1.0f);
  return {std::max(color[0], 0.0f) * alpha, std::max(color[1], 0.0f) * alpha,
          std::max(color[2], 0.0f) * alpha, blend == Blend::Additive ? 0.0f : alpha};
}

// The packet's emitter transform (x, y, z, w rotation; position) as glm values.
inline glm::quat emitterRotationOf(const RenderPacket& p) {
  return glm::quat(p.transform.rotation[3], p.transform.rotation[0], p.transform.rotation[1],
                   p.transform.rotation[2]);
}
inline glm::vec3 emitterPositionOf(const RenderPacket& p) {
  return glm::vec3(p.transform.position[0], p.transform.position[1], p.transform.position[2]);
}

struct ParticleRenderer::Impl {
  RendererOptions options;
  // The sprite layer's rasterizer: the frame's quads, styles and draw keys, the textures (material
  // and atlas ones alike), the stats, and the draw (finish). Its jobs run this renderer's ranges.
  SpriteRenderer::Impl raster;
  // Quad styles: at most one per quad plus one per packet (reserved for maxQuads + kMaxPackets).
  static constexpr std::uint32_t kMaxPackets = 4096;
  static constexpr std::uint32_t kNoStyle = ~0u;
  std::vector<DrawKey> scratch;
  // The split sort's counters (sortDrawKeys on jobs): kDrawKeyBuckets for each range of keys (one
  // per thread, at most kPrepRanges).
  static constexpr std::uint32_t kPrepRanges = 16;
  std::vector<std::uint32_t> sortCounts;
  // The fast path's ranges when one emitter's quads are made on several threads.
  std::array<FacingTally, kPrepRanges> rangeTallies{};
  RenderPacketBuilder packets;
  // Per-frame view (the camera itself is raster.camera, which the ground grid reads too).
  glm::mat4 viewProjection{1.0f};
  KeyRange packetKeys;  // the range of the keys of the packet being emitted
  KeyRange frameKeys;   // and of the frame's
  // Ribbon segments are keyed by their view depth (Transparency Sorted and Oit), not in path order.
  bool depthKeyedStrips = false;
  FacingBlock facing;  // the fast path's corners, one block at a time
  std::array<std::array<float, FacingBlock::kSize>, 3> worldCentres{};  // a block's local → world
  std::vector<glm::vec3> bolt;  // a beam's points (reserved at create: 2^10 + 1)

  // particle_renderer.cpp: a material's texture (loaded once, by name, into raster.textures).
  Result<std::uint32_t> texture(const bytecode::CompiledMaterial* material);

  // particle_renderer_packets.cpp: a packet's quads, by its render mode, and the frame's order
  // across packets once all are emitted (Transparency::Sorted).
  void emitQuads(const RenderPacket& p, const BillboardView& view, std::uint32_t texture);
  void orderFrame();
  // A packet's style, shared by its quads unless each needs its own (a flipbook frame or a soft
  // depth per particle).
  struct PacketStyle {
    QuadStyle style;
    bool perQuad = false;
    std::uint32_t shared = 0;  // into styles, when not perQuad
  };
  PacketStyle beginPacket(const RenderPacket& p, Blend blend, std::uint32_t texture);
  // Appends particle i's quad (bounds set, room checked) with its style and draw key.
  void pushParticleQuad(const PacketStyle& ps, const RenderPacket& p, std::uint32_t i,
                        const ScreenQuad& screen, const std::array<float, 4>& color,
                        glm::vec3 centre, float centreW);

  // particle_renderer_quads.cpp: billboard quads.
  bool emitFacingQuads(const RenderPacket& p, const BillboardView& view, BillboardMode mode,
                       const PacketStyle& style);
  FacingSetup facingSetup(const BillboardView& view, BillboardMode mode,
                          const BillboardInput& unit) const;
  std::array<const float*, 3> blockCentres(const RenderPacket& p, std::uint32_t begin,
                                           std::uint32_t n, const BillboardInput& unit);
  void appendFacingDirect(const FacingSetup& setup, const FacingAppend& append,
                          const FacingParticles& in, std::uint32_t style);
  void appendFacingInRanges(const FacingSetup& setup, const FacingAppend& append,
                            const FacingParticles& in, FacingTally& tally);
  void pushFacingBlock(const RenderPacket& p, const FacingSetup& setup, const PacketStyle& style,
                       std::uint32_t begin, const FacingParticles& in,
                       const std::array<float, 4>& uniformColor);
  void emitBillboards(const RenderPacket& p, BillboardView view, BillboardMode mode,
                      const PacketStyle& style);
  bool project(const std::array<glm::vec3, 4>& corners, ScreenQuad& quad);
  bool placeQuad(ScreenQuad& quad);

  // particle_renderer_ribbons.cpp: linked chains and beams.
  void pushStrip(std::span<const glm::vec3> points, float halfWidth,
                 const std::array<float, 4>& color, Blend blend, std::uint32_t texture);
  void emitChain(const RenderPacket& p, Blend blend, std::uint32_t texture);
  void emitBeams(const RenderPacket& p, Blend blend, std::uint32_t texture);
};

}  // namespace mote::render
