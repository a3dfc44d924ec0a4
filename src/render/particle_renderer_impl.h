// SPDX-License-Identifier: MIT
// ParticleRenderer's private state, shared by the files that implement it: particle_renderer.cpp
// (the API, textures, sprite frames), particle_renderer_packets.cpp (walking a frame's render
// packets), particle_renderer_quads.cpp (quads per billboard mode), particle_renderer_ribbons.cpp
// (linked chains and beams) and particle_renderer_raster.cpp (bands, rasterization, resolve).
#pragma once

#include "draw_order.h"
#include "facing_quads.h"

#include <mote/core/assert.h>
#include <mote/render/billboard.h>
// Before sprite_batcher.h (through particle_renderer.h): depth_key.h names mote::detail as
// `detail::`, which mote::render::detail there would hide.
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

enum class Blend : std::uint8_t { Over, Additive, Cutout };

// How a quad's pixels come out, besides its colour: one per packet (or sprite, or ribbon), or one
// per quad where a particle has its own flipbook frame or soft depth.
struct QuadStyle {
  float cutoff = 0.0f;
  // Soft particles: the fade against the scene depth, (sceneDepth − depth) · invSoft clamped to
  // [0, 1]; invSoft 0 draws hard.
  float depth = 0.0f;
  float invSoft = 0.0f;
  // Flipbook cells (texture UV origin) and the cell size; blend weight toward cell b.
  float ua = 0.0f, va = 0.0f, ub = 0.0f, vb = 0.0f, du = 1.0f, dv = 1.0f, frameBlend = 0.0f;
  std::uint32_t texture = 0;
  Blend blend = Blend::Over;
};

// The frame's quads (Quad: facing_quads.h) and each one's style (into Impl::styles), room for
// maxQuads allocated once at create: a vector that never grows, so that the facing fast path can
// write records in place past size() and then take the ones it keeps (commit).
class QuadList {
 public:
  void allocate(std::size_t capacity) {
    quads_ = std::make_unique<Quad[]>(capacity);
    styles_ = std::make_unique<std::uint32_t[]>(capacity);
    capacity_ = capacity;
    size_ = 0;
  }
  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return capacity_; }
  bool empty() const noexcept { return size_ == 0; }
  void clear() noexcept { size_ = 0; }
  // The caller checks the room (size() < capacity()).
  void push_back(const Quad& quad, std::uint32_t style) noexcept {
    MOTE_ASSERT(size_ < capacity_);
    styles_[size_] = style;
    quads_[size_++] = quad;
  }
  // Takes the records written in place up to `size` (at most capacity()), their styles set.
  void commit(std::size_t size) noexcept {
    MOTE_ASSERT(size <= capacity_);
    size_ = size;
  }
  Quad* data() noexcept { return quads_.get(); }
  std::uint32_t* styles() noexcept { return styles_.get(); }
  const Quad& operator[](std::size_t i) const noexcept { return quads_[i]; }
  std::uint32_t style(std::size_t i) const noexcept { return styles_[i]; }

 private:
  std::unique_ptr<Quad[]> quads_;
  std::unique_ptr<std::uint32_t[]> styles_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

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
  JobSystem* jobs = nullptr;
  InlineJobSystem inlineJobs;
  std::vector<Texture> textures;
  std::vector<std::string> textureNames;
  QuadList quads;
  // Quad styles: at most one per quad plus one per packet (reserved for maxQuads + kMaxPackets).
  static constexpr std::uint32_t kMaxPackets = 4096;
  static constexpr std::uint32_t kNoStyle = ~0u;
  std::vector<QuadStyle> styles;
  std::vector<DrawKey> keys;
  std::vector<DrawKey> scratch;
  // The split sort's counters (sortDrawKeys on jobs): kDrawKeyBuckets for each range of keys (one
  // per thread, at most kPrepRanges).
  static constexpr std::uint32_t kPrepRanges = 16;
  std::vector<std::uint32_t> sortCounts;
  // The fast path's ranges when one emitter's quads are made on several threads.
  std::array<FacingTally, kPrepRanges> rangeTallies{};
  std::vector<std::array<float, 4>> accum;  // premultiplied linear, viewport-sized
  // View depth of the opaque scene (the ground plane) at each pixel centre, +inf where the view
  // ray misses it; written by clearBand when the ground is drawn. Viewport-sized when ground is on.
  std::vector<float> sceneDepth;
  RenderPacketBuilder packets;
  std::array<std::uint8_t, 4096> srgbLut{};
  RenderStats stats;
  // Per-frame view.
  glm::mat4 viewProjection{1.0f};
  Camera camera;

  // Sprite atlases bound by setAtlas: atlasId → texture and flipbook grid.
  struct AtlasBinding {
    std::uint32_t atlasId = 0;
    std::uint32_t texture = 0;
    std::uint32_t columns = 1;
    std::uint32_t rows = 1;
  };
  std::vector<AtlasBinding> atlases;
  bool prepared = false;  // a draw list is ready for rasterize()
  // Per 16-row band, the draw positions (into keys) of the quads that touch it, in draw order:
  // band b's are bandQuads[bandStart[b], bandStart[b + 1]). `binned` false when the frame's
  // entries did not fit bandQuads: every band then scans every quad.
  static constexpr std::uint32_t kBand = 16;
  std::vector<std::uint32_t> bandStart;
  std::vector<std::uint32_t> bandCursor;
  std::vector<std::uint32_t> bandQuads;
  bool binned = false;
  bool drawGround = false;  // this frame: the 3D ground grid (render(), not renderSprites())
  KeyRange packetKeys;      // the range of the keys of the packet being emitted
  FacingBlock facing;       // the fast path's corners, one block at a time
  std::array<std::array<float, FacingBlock::kSize>, 3> worldCentres{};  // a block's local → world
  std::vector<glm::vec3> bolt;  // a beam's points (reserved at create: 2^10 + 1)

  // particle_renderer.cpp: textures and sprite frames.
  Result<std::uint32_t> texture(const bytecode::CompiledMaterial* material);
  Result<std::uint32_t> textureNamed(std::string_view name);
  Status bindAtlas(std::uint32_t atlasId, std::uint32_t texture, std::uint32_t columns,
                   std::uint32_t rows);
  void emitSprites(const SpriteBatcher& batcher, const SpriteView& view);

  // particle_renderer_packets.cpp: a packet's quads, by its render mode.
  void emitQuads(const RenderPacket& p, const BillboardView& view, std::uint32_t texture);
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

  // particle_renderer_raster.cpp: draw submission.
  // Rasterizes the frame's quads in key order in parallel bands and resolves them into `out`.
  Status finish(Image& out);
  void binQuads();
  void clearBand(std::uint32_t y0, std::uint32_t y1);
  void rasterizeBand(std::uint32_t y0, std::uint32_t y1);
};

}  // namespace mote::render
