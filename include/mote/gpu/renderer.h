// SPDX-License-Identifier: MIT
// The GPU renderer (docs/gpu.md, "The GPU renderer"): particles drawn offscreen on Vulkan — each
// particle (or ribbon segment) one instance, its quad expanded in the vertex stage with the
// software renderer's basis (render/billboard.h, through src/gpu/shaders/billboard.glsl: in exact
// mode the corners are the CPU's bits), its texture cell sampled bilinearly as the software
// rasterizer samples it (a quad under a pixel as one weighted sample, as there), blended by one
// premultiplied equation (alpha, and additive as alpha 0) — or accumulated into weighted blended
// OIT's planes — into a linear RGBA float frame read back to the host.
//
// It draws instances a caller builds (draw()), and render packets or a whole ParticleWorld as the
// software renderer draws them (drawPackets(), render()), in each of its transparency modes — mesh
// particles as the software renderer's own triangle layer makes their triangles, drawn first and
// depth-tested, hiding the particles behind them — and SpriteBatcher frames (renderSprites()) as
// the software sprite layer draws them — and a GPU world's pool where it lives (render() of a
// gpu::ParticleWorld: an alive list made into instances, sorted and drawn indirectly on the GPU).
// What is not built yet: a swapchain.
//
// Ownership: the renderer owns its Vulkan objects and must not outlive its Context; its layout and
// pipelines are the Context's, built by the first renderer of each transparency mode's planes
// (seconds on lavapipe) and reused by every later one, of any viewport. Thread safety: as Context
// (one thread at a time). Allocation: create() and addTexture() allocate;
// draw(), drawPackets() and render() grow their buffers to the largest frame seen and then reuse
// them.
#pragma once

#include <mote/core/status.h>
#include <mote/gpu/context.h>
#include <mote/render/billboard.h>
#include <mote/render/camera.h>
#include <mote/render/debug_overlay.h>
#include <mote/render/image.h>
#include <mote/render/lighting.h>
#include <mote/render/particle_renderer.h>  // Transparency
#include <mote/render/render_packet.h>
#include <mote/render/sprite_batcher.h>
#include <mote/render/sprite_renderer.h>  // PostProcess
#include <mote/runtime/world.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mote::gpu {

class ParticleWorld;  // <mote/gpu/world.h>

/// One particle as the GPU renderer draws it.
struct SpriteInstance {
  static constexpr std::uint32_t kNoCorners = ~0u;
  render::BillboardInput particle;        ///< position, velocity, half size, the two rotations
  std::array<float, 4> color{};           ///< premultiplied linear; alpha 0 for additive
  std::array<float, 4> cell{0, 0, 1, 1};  ///< the texture region: u, v origin and size (v down)
  /// A flipbook's next frame: its cell's origin (the size is `cell`'s) and the weight toward it,
  /// in [0, 1] (render::ParticleCells).
  std::array<float, 2> nextCell{0, 0};
  float frameBlend = 0.0f;
  std::uint32_t texture = 0;  ///< an addTexture() index
  /// Stretched only: the blur length, render::BillboardView::stretchScaleSeconds for this particle
  /// (>= 0; 0 turns stretching off). The software renderer scales an emitter's stretch_scale by
  /// the particle's depth and height, so each particle has its own.
  float stretchScaleSeconds = 1.0f;
  /// Cutout (alpha-tested, then opaque): drawn where the texel's alpha times colour[3] reaches
  /// `cutoff`, in the texel's straight colour times the particle's.
  bool cutout = false;
  float cutoff = 0.5f;
  /// Soft particles: faded by (scene depth − viewDepth) · softInverse, clamped to [0, 1], where
  /// the ground (RendererDesc::ground) or a depth-writing mesh triangle is behind the pixel; 0
  /// draws hard. viewDepth is the centre's view depth, dot(position − eye, forward).
  float softInverse = 0.0f;
  float viewDepth = 0.0f;
  /// One-sided cards: not drawn when the projected corners 0, 1, 2 wind counter-clockwise on the
  /// y-down screen (its back to the eye; render::cullsBackCards).
  bool cullBack = false;
  /// Lit sprites: an index into its draw's cornerColors (the premultiplied colour at each corner,
  /// billboard order, mixed bilinearly over the quad in place of `color`), or kNoCorners.
  std::uint32_t corners = kNoCorners;
  /// A ribbon segment (render::ribbonQuads: linked chains and beams): when `ribbon`, the quad's
  /// world corners are `quad` (billboard order) in place of the particle's billboard (`particle`
  /// and the draw's mode are not used), textured affinely — screen-linear over its two triangles,
  /// as the software renderer textures ribbon segments.
  bool ribbon = false;
  std::array<glm::vec3, 4> quad{};
  /// Weighted blended OIT (RendererDesc::transparency Oit only): above 0, the fragment's depth
  /// weight (render::oitDepthWeight of the particle's view depth) — it accumulates into the OIT
  /// planes, composited over the frame when it is read back (render::compositeOit), instead of
  /// blending; `oitAdditive` adds its colour to the additive sum instead. 0 (cutout particles,
  /// and every particle of the other modes): blended in order.
  float oitWeight = 0.0f;
  bool oitAdditive = false;
  /// Hidden where a depth-writing mesh triangle of the frame is at or in front of viewDepth (the
  /// software renderer's step at the triangles' depth; a soft particle fades against them
  /// instead). drawPackets() sets it on every particle (not ribbon segment) of a frame with mesh
  /// particles; draw() draws no triangles, so it hides nothing there.
  bool depthTested = false;
};

/// Instances drawn with one projection mode, in order (later ones over earlier ones).
struct SpriteDraw {
  render::BillboardMode mode = render::BillboardMode::Billboard;
  std::span<const SpriteInstance> instances;
  std::span<const std::array<std::array<float, 4>, 4>> cornerColors;  ///< lit instances'
};

struct RendererDesc {
  render::Viewport viewport{640, 360};
  std::array<float, 3> background{0.012f, 0.012f, 0.018f};  ///< linear
  /// Billboard modes' world up (render::BillboardView::worldUp).
  std::array<float, 3> worldUp{0.0f, 1.0f, 0.0f};
  /// The software renderer's dim grid on the ground plane y = 0 (RendererOptions::ground), drawn
  /// behind the particles; soft particles fade against it.
  bool ground = false;
  /// drawPackets() and render(): where relative material texture paths are looked up (the effect
  /// file's folder), the size built-in sprites are made at, the lights of `lit` and
  /// `ambient_tint` materials, and render()'s tone mapping and bloom — RendererOptions' fields of
  /// the same names.
  std::string textureDirectory;
  std::uint32_t builtinSpriteSize = 128;
  render::Lighting lighting;
  render::PostProcess post;
  /// Emitter (packets in order, each in its own order), Sorted (every particle and ribbon segment
  /// of every packet by view depth, back to front, stably: equal depths keep the packets' order,
  /// then slot or path order, ordered on the host as the software renderer orders it) or Oit
  /// (weighted blended order-independent transparency: translucent and additive particles
  /// accumulate into two more planes, composited over the frame as the software renderer
  /// composites its own; cutout ones draw in emitter order) — RendererOptions::transparency's
  /// meaning. drawPackets() orders and weighs by it; draw() accepts SpriteInstance::oitWeight only
  /// under Oit.
  render::Transparency transparency = render::Transparency::Emitter;
};

class Renderer {
 public:
  /// A renderer on `context`'s device. Unavailable where the context's queue cannot draw
  /// (DeviceInfo::graphics); InvalidArgument for an invalid viewport (or one past the device's
  /// largest framebuffer), world up, builtinSpriteSize, lighting, post-process or transparency;
  /// the device's errors otherwise.
  static Result<std::unique_ptr<Renderer>> create(Context& context, const RendererDesc& desc);
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  /// Adds a width × height texture (rows top-down, premultiplied linear RGBA) and returns its
  /// index. InvalidArgument for a zero side or texels.size() != width · height.
  Result<std::uint32_t> addTexture(std::uint32_t width, std::uint32_t height,
                                   std::span<const std::array<float, 4>> texels);

  /// Draws `draws` in order over the background from `camera` and reads the frame back into
  /// `linear` (width · height pixels, rows top-down, linear premultiplied RGB, alpha 1).
  /// InvalidArgument for an invalid camera, a texture index never added, a negative or NaN
  /// stretchScaleSeconds, a frameBlend outside [0, 1], a softInverse that is negative or not
  /// finite, an oitWeight other than 0 outside Oit (or negative or not finite), a corners index
  /// past its draw's cornerColors, or a mode outside render::BillboardMode (nothing is drawn then);
  /// the device's errors otherwise.
  Status draw(const render::Camera& camera, std::span<const SpriteDraw> draws,
              std::vector<std::array<float, 4>>& linear);

  /// Draws render packets (a CPU-simulated ParticleWorld's, by upload) as render::ParticleRenderer
  /// draws them with RendererDesc::transparency — Emitter: each packet in order
  /// (RenderPacketBuilder's: emitters by sort_order), its particles in its own order
  /// (particleDrawKey, ties in slot order); Sorted: all of them by view depth; Oit: translucent
  /// ones weighed by their depth (render::oitDepthWeight), cutout ones in emitter order — each
  /// particle what
  /// <mote/render/particle_instance.h> makes of it (billboard input, premultiplied colour, ambient
  /// tint, flipbook cells, stretch, one-sided cards, deadspace, lit corners), linked chains' and
  /// beams' ribbons (render::ribbonQuads, beamBolt), the material's texture (loaded by name once,
  /// as the software renderer loads it), cutout and soft depth against the ground, and mesh
  /// particles' triangles (render::ParticleRenderer::prepareTriangles: transformed, lit,
  /// near-clipped and culled on the host, drawn first, z-tested, the particles hidden behind them)
  /// — and reads the frame back into `linear` as draw() does. A mesh's or texture's load errors,
  /// naming the emitter or path (NotFound, InvalidArgument, IoError; nothing is drawn then);
  /// draw()'s otherwise. Allocates: a texture's or mesh's first sight, and the instance and
  /// triangle lists grown to the largest frame.
  Status drawPackets(std::span<const render::RenderPacket> packets, const render::Camera& camera,
                     std::vector<std::array<float, 4>>& linear);

  /// Every emitter of `world` drawn with drawPackets() and resolved into `out` (made
  /// viewport-sized) by render::FrameResolver — the software renderer's bloom, tone map and sRGB
  /// (RendererDesc::post). drawPackets()'s errors.
  Status render(const mote::ParticleWorld& world, const render::Camera& camera, render::Image& out);
  /// render() with the debug overlay of `world` over the frame (<mote/render/debug_overlay.h>:
  /// emitter axes, bounds, velocity rays, colliders), as the software renderer draws `mote render
  /// --debug`: its lines made into triangles by the software renderer's triangle layer, drawn with
  /// the mesh triangles — z-tested against the ground and meshes, under the particles, as there.
  /// render()'s errors and the overlay's (render::drawDebugOverlay).
  Status render(const mote::ParticleWorld& world, const render::Camera& camera, render::Image& out,
                const render::DebugOverlayOptions& overlay);

  /// A GPU world's particles drawn where they live (docs/gpu.md, "Drawing the pool in place"),
  /// as render() draws the same particles read back — without reading them back: one submission
  /// runs a compute pass over the alive list the world's last frame left, which makes each live
  /// particle's instance from its record (the software renderer's per-particle decisions, ported)
  /// and its key, a bitonic sort of the keys on the GPU (emitter order: the emitters by sort
  /// order, each emitter's particles by its draw key, then id; sorted: view depth, emitter, id;
  /// OIT: emitter, then id for translucent particles — one order on every run, whatever order the
  /// world's atomics left the list in), and one indirect draw whose instance count the world's
  /// frame wrote (WorldBuffers::drawArgsOffset). Only the emitters' settings go up (O(emitters)
  /// words) and only the frame comes back. Lit sprites' corner colours are made in the vertex
  /// stage. A frame with an emitter this path does not draw yet — linked chains, beams, mesh
  /// particles — is drawn by render() from the particles read back (world.readParticles());
  /// drewInPlace() says which path the last frame took. `world` must be on this renderer's Context,
  /// and its last tick completed (tick(), or a recordTick() the host has submitted and waited for).
  /// Errors: InvalidArgument for a world on another context or an invalid camera; a texture's load
  /// errors naming its path; the world's and the device's errors. Allocates: the sort and instance
  /// buffers grown to the world's pool (4 words a sort entry, the pool's capacity rounded up to a
  /// power of two; 36 words an instance), a texture's first sight.
  Status render(ParticleWorld& world, const render::Camera& camera, render::Image& out);
  /// Whether the last render() of a GPU world drew its pool in place (false: it drew the
  /// particles read back, or no GPU world has been drawn).
  bool drewInPlace() const noexcept;
  /// Why the last render() of a GPU world drew the particles read back ("emitter 'trail' draws
  /// linked chains"); empty when it drew in place or failed. Valid until the next call.
  std::string_view readBackReason() const noexcept;

  /// SpriteBatcher frames (laige's frame protocol, <mote/render/sprite_batcher.h>) drawn as
  /// render::SpriteRenderer::renderSprites draws them: setAtlas() and setAtlasImage() bind atlases
  /// with its contracts and errors (atlas 0 is builtin:soft_circle until set); renderSprites()
  /// draws a built frame batch by batch, one instanced draw call a batch, each batch's sprites in
  /// depth order — the software sprite layer's own screen quads (ScreenSprite: corners,
  /// premultiplied tint, atlas cell, cutout), textured affinely over them — over the background (no
  /// ground, no triangles), resolved into `out` as render() resolves. renderSprites()'s errors (an
  /// open frame, an unbound atlas, a bad view) and the device's. Allocates: a texture's first sight
  /// (a rebound atlas image of the same size is replaced in place), the instance lists grown to the
  /// largest frame.
  Status setAtlas(std::uint32_t atlasId, const render::SpriteAtlas& atlas);
  Status setAtlasImage(std::uint32_t atlasId, const render::Image& image, std::uint32_t columns = 1,
                       std::uint32_t rows = 1);
  Status renderSprites(const render::SpriteBatcher& batcher, const render::SpriteView& view,
                       render::Image& out);

  /// The last frame's time on the GPU's clock, from its first command to the end of its render
  /// pass (uploads before the submission and the readback after it not included; for a GPU
  /// world's pool, its instance, sort and draw passes); 0 where the queue writes no timestamps.
  double lastFrameGpuSeconds() const noexcept;

  /// The frame's colour format: "R32G32B32A32_SFLOAT" where the device blends it, else
  /// "R16G16B16A16_SFLOAT".
  const char* colorFormat() const noexcept;

  struct Impl;

 private:
  explicit Renderer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mote::gpu
