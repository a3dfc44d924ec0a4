// SPDX-License-Identifier: MIT
// The headless software renderer: turns a ParticleWorld's particles into camera-facing quads
// (billboard.h's bases, per the emitter's render mode) and mesh particles into triangles (the
// triangle layer: near clipping, z-buffer), orders them (emitters by sort_order, particles back to
// front where the blend needs it, by a radix sort; or Transparency), and rasterizes them in
// horizontal bands in parallel into a linear float buffer with one premultiplied blend equation
// (alpha, premultiplied, additive — alpha 0 — and cutout), resolved to 8-bit sRGB. The rasterizer
// is the sprite layer's (sprite_renderer.h, target mote_sprite), which this renderer embeds;
// drawing SpriteBatcher frames without a ParticleWorld is SpriteRenderer's job.
// docs/rendering.md has the details.
//
// Thread safety: one thread uses a renderer; render() fans bands out to the JobSystem. Output is
// deterministic: every pixel is written by one band in the same quad order, whatever the threads.
// Allocation: create(), the first sight of a material's texture or mesh, the first frame with
// triangles (mesh particles, drawTriangle3D) and a mesh emitter with more particles than any before
// allocate; render() otherwise never does.
#pragma once

#include <mote/core/job_system.h>
#include <mote/core/status.h>
#include <mote/render/camera.h>
#include <mote/render/image.h>
#include <mote/render/lighting.h>
#include <mote/render/mesh.h>
#include <mote/render/raster_triangle.h>
#include <mote/render/render_packet.h>
#include <mote/render/sprite_batcher.h>
#include <mote/render/sprite_renderer.h>  // Texture, SpriteView, SpriteAtlas, RenderStats
#include <mote/runtime/world.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace mote::render {

/// How translucent particles of different emitters are ordered (docs/rendering.md,
/// "Transparency").
enum class Transparency : std::uint8_t {
  /// Emitters by sort_order (lower first; equal orders keep the effect's order), each emitter's
  /// particles in its own order (`sort`) — NWN's renderorder relies on it. The default.
  Emitter,
  /// Every quad of every emitter by view depth, back to front (additive ones too, so a spark
  /// behind smoke is behind it), emitters interleaved; a stable sort, so equal depths keep
  /// sort_order's order, then the emitter's own.
  Sorted,
  /// Weighted blended order-independent transparency (McGuire and Bavoil, JCGT 2013): alpha and
  /// premultiplied quads accumulate weighted by coverage and view depth, additive ones add into
  /// the same pass, and one resolve per pixel composites them over the background; no sort.
  /// Cutout quads are opaque: drawn first, in emitter order, behind every translucent one.
  Oit,
};

struct RendererOptions {
  Viewport viewport{640, 360};
  std::uint32_t maxQuads = 1u << 20;  ///< particles drawn per frame; the rest are counted
  /// Linear RGB behind the particles.
  std::array<float, 3> background{0.012f, 0.012f, 0.018f};
  /// A dim grid on the ground plane y = 0, for scale and motion.
  bool ground = false;
  /// Where relative texture paths are looked up (the effect file's folder).
  std::string textureDirectory;
  /// Built-in sprites are made at this size, px.
  std::uint32_t builtinSpriteSize = 128;
  /// Draw order across emitters; Emitter by default.
  Transparency transparency = Transparency::Emitter;
  /// Tone mapping and bloom (sprite_renderer.h); none by default.
  PostProcess post;
  /// The scene's lights, for `lit` materials (meshes, sprites), `ambient_tint` and
  /// drawTriangle3D; Lighting's defaults unless set.
  Lighting lighting;
  /// Triangles drawn per frame (mesh particles after near clipping, drawTriangle3D); the rest are
  /// counted in stats().dropped. Their buffers are allocated by the first frame that draws one.
  std::uint32_t maxTriangles = 1u << 18;
  /// Loads `render.mesh` values that are neither builtin: nor .obj files (NWN chunk .mdl models:
  /// `mote render` passes one built on mote_nwn); empty: such a mesh is an error naming it.
  MeshLoader meshLoader;
  /// The draw cache (docs/rendering.md, "The draw cache"): an emitter whose state version
  /// (EmitterView::version) and the view are unchanged since the last prepare() takes its geometry
  /// again with no vertex work; a mesh emitter whose state alone is unchanged projects the world
  /// vertices it kept. The same frame, bit for bit, as without it. It holds a second copy of the
  /// frame's lists (quads, styles, keys, triangles), allocated by the first frame that reuses an
  /// emitter: off, a renderer never allocates them.
  bool drawCache = true;
  /// Borrowed; null: the calling thread. Runs the raster bands, and in prepare() an emitter's
  /// camera-facing quads (from 2 × 1,024 particles) and its depth sort (from 2^16 quads) in ranges
  /// — the same frame, bit for bit, on any thread count.
  JobSystem* jobs = nullptr;
};

class ParticleRenderer {
 public:
  /// InvalidArgument for a bad viewport, maxQuads 0 (or above 2^24), maxTriangles above 2^24, a
  /// transparency out of range, a bad post-process (PostProcess::validate) or bad lights
  /// (Lighting::validate).
  static Result<ParticleRenderer> create(const RendererOptions& options);
  ParticleRenderer(ParticleRenderer&&) noexcept;
  ParticleRenderer& operator=(ParticleRenderer&&) noexcept;
  ~ParticleRenderer();

  /// Draws every emitter of `world` seen by `camera` into `out` (made viewport-sized). A material
  /// texture that cannot be loaded is an error naming it (IoError / ParseError); built-in sprites
  /// never fail. O(particles · log + covered pixels).
  Status render(const ParticleWorld& world, const Camera& camera, Image& out);

  /// render() in two steps. prepare() builds the frame's draw list from the world — render
  /// packets, camera-facing quads, per-emitter order (the "render prep"); the world may change
  /// afterwards. rasterize() draws the last prepared list (again, if called twice) into `out`;
  /// InvalidArgument before any prepare(), or after a prepare() that failed. stats() describe the
  /// prepared list. Same errors, threads and allocation as render().
  Status prepare(const ParticleWorld& world, const Camera& camera);
  Status rasterize(Image& out);
  /// prepare() from packets the caller chose (a RenderPacketBuilder's, in draw order, some left
  /// out — a viewer's hidden emitters): every render mode, as prepare() draws them. The packets
  /// borrow their world, which must outlive the call. The draw cache neither reuses nor records
  /// this frame (a later prepare() of a world builds its frame anew). Same errors, threads and
  /// allocation as render().
  Status prepare(std::span<const RenderPacket> packets, const Camera& camera);

  /// Adds a triangle in world coordinates to the prepared frame (after prepare(), before
  /// rasterize()): projected with the frame's camera, cut at the near plane, z-tested and drawn
  /// opaque in linear RGB `color` (alpha ignored), like a mesh particle's — for debug geometry,
  /// markers and rays. InvalidArgument before prepare(), for a non-finite input, or past
  /// maxTriangles (the triangle is then counted in stats().dropped). The first triangle of a
  /// renderer allocates its triangle buffers. O(1).
  Status drawTriangle3D(glm::vec3 v0, glm::vec3 v1, glm::vec3 v2, std::array<float, 3> color);
  /// Adds a line from a to b to the prepared frame: two unlit triangles in linear RGB `color`,
  /// `widthPixels` wide on screen at each end (in (0, 16]), turned to face the eye, cut at the
  /// near plane, z-tested against the ground and the depth-writing meshes and writing no depth
  /// (render/debug_overlay.h draws `mote render --debug` with it). A line seen end on draws
  /// nothing. Errors, counting and allocation as drawTriangle3D (two triangles' room needed).
  Status drawLine3D(glm::vec3 a, glm::vec3 b, std::array<float, 3> color, float widthPixels = 1.5f);

  /// Prepares a frame of the mesh particles of `packets` alone (a RenderPacketBuilder's, in draw
  /// order; other render modes are skipped) under `camera`: each emitter's particles in the order
  /// prepare() gives them (its sort, or view depth for Sorted frames and an Oit frame's
  /// translucent ones), transformed, lit, cut at the near plane and culled where they show their
  /// backs — the triangles prepare() makes of them, for triangles() to hand to a rasterizer of
  /// another kind (the GPU renderer). drawTriangle3D() and drawLine3D() add to it; rasterize()
  /// draws it (the triangles over the background and ground). Errors: an invalid camera; a mesh or
  /// texture that cannot be loaded (naming the emitter); no frame is prepared then. Past
  /// maxTriangles the rest are counted in stats().dropped. Allocates: a mesh's or texture's first
  /// sight. O(particles · mesh triangles).
  Status prepareTriangles(std::span<const RenderPacket> packets, const Camera& camera);
  /// The prepared frame's triangles (mesh particles and debug geometry, in draw order) as the fill
  /// takes them, into `out` (replaced). InvalidArgument when no frame is prepared. Allocates:
  /// `out` grown. O(triangles).
  Status triangles(std::vector<RasterTriangle>& out) const;
  /// Texture `index` of this renderer (a RasterTriangle's): rows top-down, premultiplied linear.
  /// InvalidArgument past the textures loaded. The pointer is valid until this renderer loads
  /// another texture (a call that draws or makes triangles). O(1).
  Result<const Texture*> texture(std::uint32_t index) const;

  /// SpriteRenderer's setAtlas, setAtlasImage and renderSprites (sprite_renderer.h: the same
  /// contracts, errors and allocation), run by the sprite layer's rasterizer that this renderer
  /// embeds, on its textures (material and atlas textures share one cache by name) and options.
  /// Thin forwards, kept so that callers that draw sprites and worlds with one renderer keep
  /// working; a program that draws sprites alone links mote_sprite and uses SpriteRenderer.
  /// renderSprites() replaces the prepared list: a rasterize() after it draws the sprite frame
  /// again.
  Status setAtlas(std::uint32_t atlasId, const SpriteAtlas& atlas);
  Status setAtlasImage(std::uint32_t atlasId, const Image& image, std::uint32_t columns = 1,
                       std::uint32_t rows = 1);
  Status renderSprites(const SpriteBatcher& batcher, const SpriteView& view, Image& out);

  /// The last prepared (or sprite) frame's counts.
  const RenderStats& stats() const noexcept;

  struct Impl;

 private:
  explicit ParticleRenderer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mote::render
