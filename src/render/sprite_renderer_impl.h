// SPDX-License-Identifier: MIT
// The sprite layer's rasterizer state (SpriteRenderer::Impl), shared by the files that implement
// it — sprite_renderer.cpp (options, textures, atlases, SpriteBatcher frames) and
// sprite_renderer_raster.cpp (bands, rasterization, resolve) — and embedded by mote_render's
// ParticleRenderer, which fills the same quad list with its 3D quads and draws it through finish().
// Private to the sprite layer and mote_render.
#pragma once

#include "draw_order.h"
#include "post_process.h"
#include "screen_quad.h"
#include "triangle_layer.h"

#include <mote/core/assert.h>
#include <mote/core/job_system.h>
#include <mote/core/status.h>
#include <mote/render/camera.h>
#include <mote/render/frame_resolve.h>
#include <mote/render/image.h>
#include <mote/render/sprite_batcher.h>
#include <mote/render/sprite_renderer.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
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
  // Hidden where a depth-writing triangle (a mesh particle) is in front of `depth` (frames with
  // triangles set it on every particle quad; invSoft stays 0).
  bool depthTested = false;
  // Lit sprites: an index into cornerColors (the colour at each corner, interpolated over the
  // quad), or kNoCorners: the quad's one colour.
  static constexpr std::uint32_t kNoCorners = ~0u;
  std::uint32_t corners = kNoCorners;
  // Billboard cards are planar parallelograms, textured perspective-correctly where it shows;
  // ribbon segments (trapezoids) affinely.
  QuadMapping mapping = QuadMapping::Planar;
};

// The frame's quads (Quad: screen_quad.h) and each one's style (into Impl::styles), room for the
// capacity allocated once: a vector that never grows, so that ParticleRenderer's facing fast path
// can write records in place past size() and then take the ones it keeps (commit).
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

// InvalidArgument, naming `optionsName` and `capacityName`, for a bad viewport, a capacity outside
// [1, 2^24] or a builtin sprite size out of range: the checks SpriteRenderer::create and
// ParticleRenderer::create share.
Status validateRasterOptions(std::string_view optionsName, std::string_view capacityName,
                             Viewport viewport, std::uint32_t capacity,
                             std::uint32_t builtinSpriteSize);

// Where a file a material names lies: `name` itself when it is absolute or `directory` is empty,
// else `directory`/`name` (textures and meshes alike).
inline std::string pathIn(std::string_view directory, std::string_view name) {
  if (directory.empty() || (!name.empty() && name.front() == '/')) return std::string(name);
  return std::string(directory) + "/" + std::string(name);
}

// Not copied or moved: `jobs` may point at `inlineJobs`.
struct SpriteRenderer::Impl {
  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  // options.maxSprites is the quad capacity (ParticleRenderer's maxQuads).
  SpriteRendererOptions options;
  JobSystem* jobs = nullptr;
  InlineJobSystem inlineJobs;
  std::vector<Texture> textures;
  std::vector<std::string> textureNames;  // "" for a caller's image (setAtlasImage)
  QuadList quads;
  std::vector<QuadStyle> styles;  // reserved by the owner: pushing never allocates in a frame
  // The frame's draw order: keys[k].index is the k-th quad drawn (capacity-sized).
  std::vector<DrawKey> keys;
  std::vector<std::array<float, 4>> accum;  // premultiplied linear, viewport-sized
  // Weighted blended OIT (ParticleRenderer's Transparency::Oit): two planes of viewport pixels in
  // one allocation — the weighted sums (rgb·w, a·w), then (additive rgb, revealage) — that the
  // translucent quads accumulate into and each band composites over accum when drawn. Empty
  // unless asked for at init.
  std::vector<std::array<float, 4>> oit;
  bool oitFrame = false;  // this frame draws its translucent quads into oit
  // Triangles (mesh particles, drawTriangle3D) in draw order, drawn in each band after the ground
  // and before the quads, z-tested against sceneDepth; room for triangleCapacity, allocated by
  // ensureTriangles on first use with meshDepth (the depth-writing triangles' depth, which the
  // frame's depth-tested quads test) and sceneDepth where the ground did not need it.
  std::vector<ScreenTriangle> triangles;
  std::size_t triangleCapacity = 0;
  std::vector<float> meshDepth;
  bool meshFrame = false;  // this frame draws triangles: the depth buffers are cleared per band
  // Lit sprites' corner colours (QuadStyle::corners), premultiplied, in billboard corner order;
  // room for every quad, reserved by ensureCornerColors on the first lit frame.
  std::vector<std::array<std::array<float, 4>, 4>> cornerColors;
  void ensureCornerColors() {
    if (cornerColors.capacity() < quads.capacity()) cornerColors.reserve(quads.capacity());
  }
  // View depth of the opaque scene (the ground plane) at each pixel centre, +inf where the view
  // ray misses it; written by clearBand when the ground is drawn. Viewport-sized when init() was
  // asked for it.
  std::vector<float> sceneDepth;
  // Bloom, tone map and sRGB: the frame's resolve into 8 bits (made by init()).
  std::optional<FrameResolver> resolver;
  RenderStats stats;

  // Sprite atlases bound by setAtlas: atlasId → texture and flipbook grid.
  struct AtlasBinding {
    std::uint32_t atlasId = 0;
    std::uint32_t texture = 0;
    std::uint32_t columns = 1;
    std::uint32_t rows = 1;
  };
  std::vector<AtlasBinding> atlases;
  bool prepared = false;  // a draw list is ready for finish() (ParticleRenderer::rasterize)
  // Per 16-row band, the draw positions (into keys) of the quads that touch it, in draw order:
  // band b's are bandQuads[bandStart[b], bandStart[b + 1]). `binned` false when the frame's
  // entries did not fit bandQuads: every band then scans every quad.
  static constexpr std::uint32_t kBand = 16;
  std::vector<std::uint32_t> bandStart;
  std::vector<std::uint32_t> bandCursor;
  std::vector<std::uint32_t> bandQuads;
  bool binned = false;
  // This frame: the 3D ground grid seen by `camera` (ParticleRenderer::prepare sets both; sprite
  // frames draw no ground).
  bool drawGround = false;
  Camera camera;

  // sprite_renderer.cpp. Sizes every buffer for `o` (validated by the caller), a scene depth
  // buffer too where `withSceneDepth`, the OIT planes where `withOit`; styles are left for the
  // owner to reserve.
  void init(const SpriteRendererOptions& o, bool withSceneDepth, bool withOit = false);
  Result<std::uint32_t> textureNamed(std::string_view name);
  Status bindAtlas(std::uint32_t atlasId, std::uint32_t texture, std::uint32_t columns,
                   std::uint32_t rows);
  Status setAtlas(std::uint32_t atlasId, const SpriteAtlas& atlas);
  Status setAtlasImage(std::uint32_t atlasId, const Image& image, std::uint32_t columns,
                       std::uint32_t rows);
  // The frame's quads, the end of each batch's into `batchEnds` where given.
  void emitSprites(const SpriteBatcher& batcher, const SpriteView& view,
                   std::vector<std::uint32_t>* batchEnds = nullptr);
  // renderSprites' checks and atlas 0's default binding, then emitSprites.
  Status prepareSprites(const SpriteBatcher& batcher, const SpriteView& view,
                        std::vector<std::uint32_t>* batchEnds);
  Status renderSprites(const SpriteBatcher& batcher, const SpriteView& view, Image& out);
  // texture(index), for SpriteRenderer and ParticleRenderer.
  Result<const Texture*> textureAt(std::uint32_t index) const;

  // sprite_renderer_raster.cpp: draw submission.
  // Rasterizes the frame's quads in key order in parallel bands and resolves them into `out`.
  Status finish(Image& out);
  void binQuads();
  void clearBand(std::uint32_t y0, std::uint32_t y1);
  // The OIT planes' resolve over accum for rows [y0, y1) (McGuire–Bavoil's composite).
  void compositeOitBand(std::uint32_t y0, std::uint32_t y1);
  // Room for `capacity` triangles and the depth buffers (allocates the first time only).
  void ensureTriangles(std::size_t capacity);
  void rasterizeTriangles(std::uint32_t y0, std::uint32_t y1);
  void rasterizeBand(std::uint32_t y0, std::uint32_t y1);
};

}  // namespace mote::render
