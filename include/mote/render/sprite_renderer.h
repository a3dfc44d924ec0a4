// SPDX-License-Identifier: MIT
// The sprite layer's software rasterizer: draws a built SpriteBatcher frame into an Image — upright
// textured quads from bound atlases, rasterized in horizontal bands in parallel into a linear
// float buffer with one premultiplied blend equation (alpha, premultiplied, additive — alpha 0 —
// and cutout), resolved to 8-bit sRGB. Needs mote_core only: no VM, no ParticleWorld (the lockstep
// layer draws through it; ParticleRenderer draws its 3D quads through the same rasterizer).
// docs/rendering.md has the details.
#pragma once

#include <mote/core/job_system.h>
#include <mote/core/status.h>
#include <mote/render/camera.h>
#include <mote/render/image.h>
#include <mote/render/sprite_batcher.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mote::render {

/// A texture as the rasterizer samples it: premultiplied linear RGBA, bilinear, clamped.
struct Texture {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  std::vector<std::array<float, 4>> texels;
};

/// The sRGB transfer function and its inverse, for channel values in [0, 1] (IEC 61966-2-1).
/// Pure; thread-safe.
float srgbToLinear(float c) noexcept;
float linearToSrgb(float c) noexcept;

/// Converts an 8-bit sRGB image with straight alpha (PNG files, built-in sprites) to a Texture.
/// Thread-safe. O(pixels). Allocates: the texels.
Texture textureFromImage(const Image& image);

/// The texture a material or atlas names, as the software renderer samples it (and the GPU
/// renderer uploads it): `builtin:NAME` made at `builtinSpriteSize` pixels, else a TGA or DDS file
/// by its extension (any case) or a PNG file, at `name` — relative to `directory` unless `name`
/// is absolute or `directory` empty. The parsers' and loaders' errors (NotFound naming the path,
/// InvalidArgument for a bad file or an unknown built-in). Thread-safe. Allocates: the texels.
Result<Texture> loadTexture(std::string_view name, std::string_view directory,
                            std::uint32_t builtinSpriteSize);

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

/// A sprite atlas as renderSprites samples it: a texture (a PNG, TGA or DDS path, relative to the
/// renderer's textureDirectory, or `builtin:NAME`) divided into columns × rows flipbook cells; a
/// SpriteItem's uv rect is divided into the same grid and frameIndex picks the cell (row-major from
/// the top left, clamped to the last cell).
struct SpriteAtlas {
  std::string texture = "builtin:soft_circle";
  std::uint32_t columns = 1;
  std::uint32_t rows = 1;
};

/// A SpriteBatcher frame's sprite as the rasterizer draws it (SpriteRenderer::spriteQuads), for a
/// rasterizer of another kind to draw (the GPU renderer).
struct ScreenSprite {
  /// The corners on the screen (pixels, y down), in billboard order: the sprite's bottom left,
  /// bottom right, top right, top left; textured affinely over them (a parallelogram).
  std::array<float, 4> x{};
  std::array<float, 4> y{};
  std::array<float, 4> color{};           ///< premultiplied linear; alpha 0 for additive
  std::array<float, 4> cell{0, 0, 1, 1};  ///< the atlas cell: u, v origin and size (v down)
  std::uint32_t texture = 0;              ///< SpriteRenderer::texture(index)
  bool cutout = false;                    ///< alpha-tested at `cutoff`, then opaque
  float cutoff = 0.5f;
};

/// What the last frame drew.
struct RenderStats {
  std::uint32_t quads = 0;      ///< drawn
  std::uint32_t triangles = 0;  ///< drawn (mesh particles, drawTriangle3D), after near clipping
  std::uint32_t culled = 0;     ///< off screen, without size, invisible, or (3D) behind the camera
  std::uint32_t dropped = 0;    ///< past the renderer's capacity (quads and triangles)
  /// ParticleRenderer's draw cache: emitters whose geometry was taken as the last frame made it
  /// (state and view unchanged), and mesh emitters whose kept world-space vertices were projected
  /// again (the view alone changed).
  std::uint32_t cached = 0;
  std::uint32_t reprojected = 0;
};

/// How the linear frame becomes display colour before the sRGB encoding (docs/rendering.md, "Tone
/// mapping and bloom"). Per channel, on linear light.
enum class ToneMap : std::uint8_t {
  None,      ///< clamp to [0, 1]: colours above 1 clip to white (the default)
  Reinhard,  ///< extended Reinhard, c · (1 + c / 16) / (1 + c): white at 4
  Aces,  ///< Narkowicz's fit of the ACES filmic curve, (c(2.51c + 0.03)) / (c(2.43c + 0.59) + 0.14)
};

/// The tone map of one linear channel value (negatives and NaN as 0), as the resolve applies it
/// before clamping to [0, 1]; None returns the value (or 0). Pure; thread-safe.
float toneMapped(ToneMap toneMap, float c) noexcept;
/// The linear value whose tone map is `display` (in [0, 1]; clamped there): what to draw to show
/// `display` — `mote render` puts its background through it. Pure; thread-safe.
float inverseToneMapped(ToneMap toneMap, float display) noexcept;

/// The steps between the linear frame and the resolve. A plain value.
struct PostProcess {
  ToneMap toneMap = ToneMap::None;
  /// Bloom: the light above `bloomThreshold` (per channel), blurred over a chain of half-size
  /// levels (2×2 box down, 5-tap binomial blur, bilinear up, the levels averaged) and added back
  /// times `bloom`. 0: off. Deterministic: the same bits on any thread count.
  float bloom = 0.0f;
  float bloomThreshold = 1.0f;
  /// InvalidArgument naming `owner` and the field for a tone map out of range, a bloom that is not
  /// finite or outside [0, 16], or a threshold that is not finite or below 0.
  Status validate(std::string_view owner) const;
};

struct SpriteRendererOptions {
  Viewport viewport{640, 360};
  std::uint32_t maxSprites = 1u << 20;  ///< sprites drawn per frame; the rest are counted
  /// Linear RGB behind the sprites.
  std::array<float, 3> background{0.012f, 0.012f, 0.018f};
  /// Where relative atlas texture paths are looked up.
  std::string textureDirectory;
  /// Built-in sprites are made at this size, px.
  std::uint32_t builtinSpriteSize = 128;
  /// Tone mapping and bloom; none by default.
  PostProcess post;
  /// Borrowed; null: the calling thread. Runs the raster bands — the same image, bit for bit, on
  /// any thread count.
  JobSystem* jobs = nullptr;
};

/// Draws SpriteBatcher frames. A move-only handle.
///
/// Thread safety: one thread uses a renderer; renderSprites() fans bands out to the JobSystem.
/// Output is deterministic: every pixel is written by one band in the same quad order, whatever the
/// threads. Allocation: create(), setAtlas() and setAtlasImage() allocate (buffers sized by the
/// options; textures); renderSprites() allocates only to bind atlas 0's default texture the first
/// time a frame uses it unbound, and to size `out` when it is not the viewport's size.
class SpriteRenderer {
 public:
  /// InvalidArgument for a bad viewport, maxSprites 0 (or above 2^24), builtinSpriteSize out of
  /// range, or a bad post-process. Allocates: the frame buffers (O(viewport pixels + maxSprites);
  /// with bloom, its levels, about half a frame more).
  static Result<SpriteRenderer> create(const SpriteRendererOptions& options);
  SpriteRenderer(SpriteRenderer&&) noexcept;
  SpriteRenderer& operator=(SpriteRenderer&&) noexcept;
  ~SpriteRenderer();

  /// Binds atlasId to a texture for renderSprites, loading it now (IoError / ParseError naming the
  /// file; NotFound for an unknown builtin sprite; InvalidArgument for an empty name or a zero or
  /// above-256 column/row count). A texture already loaded under the same name is shared.
  /// Rebinding an id replaces it. Atlas 0 is bound to builtin:soft_circle until set.
  /// Allocates: the texture.
  Status setAtlas(std::uint32_t atlasId, const SpriteAtlas& atlas);
  /// setAtlas with an image made by the caller (8-bit sRGB, straight alpha), copied. Rebinding an
  /// id reuses its image's texture slot, so the renderer's memory does not grow with rebinds.
  /// InvalidArgument for an empty image or a bad grid (nothing changes then).
  /// Allocates: the texture. O(image pixels).
  Status setAtlasImage(std::uint32_t atlasId, const Image& image, std::uint32_t columns = 1,
                       std::uint32_t rows = 1);

  /// Draws a built SpriteBatcher frame into `out` (made viewport-sized): batch by batch in
  /// batches() order (one draw call each, as a GPU would), each batch's sprites in its depth
  /// order, as upright quads of size scale (world units), rotated by `rotation` radians
  /// counter-clockwise on screen, tinted (linear, straight alpha) and blended by the batch's
  /// BlendMode (cutout at alpha 0.5), over the background. An atlasId with no atlas bound →
  /// NotFound naming it; a frame still open → InvalidArgument; a bad view → InvalidArgument (out
  /// is left alone on every error). A stopped (default-constructed) batcher draws the background.
  /// Complexity: O(sprites + covered pixels + viewport pixels). Allocates: see the class.
  Status renderSprites(const SpriteBatcher& batcher, const SpriteView& view, Image& out);

  /// The sprites renderSprites() would draw, not drawn: into `sprites` (replaced) in draw order,
  /// and the end of each batch's run of them into `batchEnds` (one a batch, in batches() order;
  /// culled and dropped sprites are counted in stats() as there). renderSprites()'s errors;
  /// allocates: the two vectors grown, and atlas 0's default texture as there. O(sprites).
  Status spriteQuads(const SpriteBatcher& batcher, const SpriteView& view,
                     std::vector<ScreenSprite>& sprites, std::vector<std::uint32_t>& batchEnds);
  /// Texture `index` (a ScreenSprite's): rows top-down, premultiplied linear. InvalidArgument past
  /// the textures loaded. Valid until the renderer loads or rebinds a texture. O(1).
  Result<const Texture*> texture(std::uint32_t index) const;

  /// The last renderSprites() frame's counts (zero before the first).
  const RenderStats& stats() const noexcept;

  /// The rasterizer's state, private to the library (src/render/sprite_renderer_impl.h);
  /// ParticleRenderer embeds one to draw its quads.
  struct Impl;

 private:
  explicit SpriteRenderer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mote::render
