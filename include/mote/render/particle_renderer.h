// SPDX-License-Identifier: MIT
// The headless software renderer: turns a ParticleWorld's particles into camera-facing quads
// (billboard.h's bases, per the emitter's render mode), orders them (emitters by sort_order,
// particles back to front where the blend needs it, by a radix sort), and rasterizes them in
// horizontal bands in parallel into a linear float buffer with one premultiplied blend equation
// (alpha, premultiplied, additive — alpha 0 — and cutout), resolved to 8-bit sRGB.
// docs/rendering.md has the details.
//
// Thread safety: one thread uses a renderer; render() fans bands out to the JobSystem. Output is
// deterministic: every pixel is written by one band in the same quad order, whatever the threads.
// Allocation: create() and the first sight of a material's texture allocate; render() otherwise
// never does.
#pragma once

#include <mote/core/job_system.h>
#include <mote/core/status.h>
#include <mote/render/camera.h>
#include <mote/render/image.h>
#include <mote/render/sprite_batcher.h>
#include <mote/runtime/world.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>

namespace mote::render {

/// A texture as the rasterizer samples it: premultiplied linear RGBA, bilinear, clamped.
struct Texture {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::array<float, 4>> texels;
};

/// The sRGB transfer function and its inverse, for channel values in [0, 1] (IEC 61966-2-1).
float srgbToLinear(float c) noexcept;
float linearToSrgb(float c) noexcept;

/// Converts an 8-bit sRGB image with straight alpha (PNG files, built-in sprites) to a Texture.
Texture textureFromImage(const Image& image);

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
  /// Borrowed; null: the calling thread. Runs the raster bands, and in prepare() an emitter's
  /// camera-facing quads (from 2 × 1,024 particles) and its depth sort (from 2^16 quads) in ranges
  /// — the same frame, bit for bit, on any thread count.
  JobSystem* jobs = nullptr;
};

/// How SpriteBatcher positions (world units on a 2D plane) land on the screen, in pixels:
///   screen = origin + pos.x · axisX + pos.y · axisY
/// and a sprite's scale (world units) is drawn at pixelsPerUnit pixels per unit, upright on screen
/// (sprites are billboards: the axes place their centres, they do not shear them). Screen y runs
/// down. A plain value.
struct SpriteView {
  std::array<float, 2> origin{0.0f, 0.0f};
  std::array<float, 2> axisX{1.0f, 0.0f};
  std::array<float, 2> axisY{0.0f, 1.0f};
  float pixelsPerUnit = 1.0f;

  /// A top-down 2D view: `centre` (world) at the viewport's centre, x right, y up,
  /// `pixelsPerUnit` pixels per world unit.
  static SpriteView orthographic(Viewport viewport, std::array<float, 2> centre,
                                 float pixelsPerUnit) noexcept;
  /// The classic 2:1 isometric view of a tile grid (laige's iso plane): world x runs right-down,
  /// world y left-down, a unit tile is a diamond `tileWidthPixels` wide and half as tall, `centre`
  /// (world) at the viewport's centre. Depth along the view is x + y, as isoDepthKey orders it.
  /// Sprites are drawn at tileWidthPixels / √2 pixels per unit (a tile's edge length).
  static SpriteView isometric(Viewport viewport, std::array<float, 2> centre,
                              float tileWidthPixels) noexcept;

  /// InvalidArgument naming the field when a value is not finite, pixelsPerUnit is not > 0, or
  /// the axes are degenerate.
  Status validate() const;
};

/// A sprite atlas as renderSprites samples it: a texture (a PNG path, relative to
/// RendererOptions::textureDirectory, or `builtin:NAME`) divided into columns × rows flipbook
/// cells; a SpriteItem's uv rect is divided into the same grid and frameIndex picks the cell
/// (row-major from the top left, clamped to the last cell).
struct SpriteAtlas {
  std::string texture = "builtin:soft_circle";
  std::uint32_t columns = 1;
  std::uint32_t rows = 1;
};

struct RenderStats {
  std::uint32_t quads = 0;    ///< drawn
  std::uint32_t culled = 0;   ///< behind the camera, outside the view, or under a pixel
  std::uint32_t dropped = 0;  ///< past maxQuads
};

class ParticleRenderer {
 public:
  /// InvalidArgument for a bad viewport or maxQuads 0 (or above 2^24).
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

  /// Binds atlasId to a texture for renderSprites, loading it now (IoError / ParseError naming the
  /// file; NotFound for an unknown builtin sprite; InvalidArgument for an empty name or a zero or
  /// above-256 column/row count).
  /// Rebinding an id replaces it. Atlas 0 is bound to builtin:soft_circle until set.
  /// Allocates: the texture.
  Status setAtlas(std::uint32_t atlasId, const SpriteAtlas& atlas);
  /// setAtlas with an image made by the caller (8-bit sRGB, straight alpha), copied. Rebinding an
  /// id reuses its image's texture slot, so the renderer's memory does not grow with rebinds.
  /// InvalidArgument for an empty image or a bad grid (nothing changes then).
  Status setAtlasImage(std::uint32_t atlasId, const Image& image, std::uint32_t columns = 1,
                       std::uint32_t rows = 1);

  /// Draws a built SpriteBatcher frame: batch by batch in batches() order (one draw call each, as
  /// a GPU would), each batch's sprites in its depth order, as upright quads of size scale (world
  /// units), rotated by `rotation` radians counter-clockwise on screen, tinted (linear, straight
  /// alpha) and blended by the batch's BlendMode (cutout at alpha 0.5). An atlasId with no atlas
  /// bound → NotFound naming it; a frame not built → InvalidArgument. Same threads, determinism and
  /// allocation as render(); the ground grid is not drawn (it belongs to 3D cameras).
  /// O(sprites + covered pixels).
  Status renderSprites(const SpriteBatcher& batcher, const SpriteView& view, Image& out);

  const RenderStats& stats() const noexcept;

  struct Impl;

 private:
  explicit ParticleRenderer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mote::render
