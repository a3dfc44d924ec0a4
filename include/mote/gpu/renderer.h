// SPDX-License-Identifier: MIT
// The GPU renderer's core (docs/gpu.md, "The GPU renderer"): billboard quads drawn offscreen on
// Vulkan — each particle one instance, its quad expanded in the vertex stage with the software
// renderer's basis (render/billboard.h, through src/gpu/shaders/billboard.glsl: in exact mode the
// corners are the CPU's bits), its texture cell sampled bilinearly as the software rasterizer
// samples it (a quad under a pixel as one weighted sample, as there), blended by one premultiplied
// equation (alpha, and additive as alpha 0), into a linear RGBA float frame read back to the host.
//
// What is not built yet (and is not drawn): render packets and ParticleWorlds as input (the
// caller builds the instances), per-particle draw order, flipbook blending, soft depth, the
// ground, meshes, lighting, ribbons, the transparency modes, tone mapping and `mote render
// --gpu`'s use of it.
//
// Ownership: the renderer owns its Vulkan objects and must not outlive its Context. Thread
// safety: as Context (one thread at a time). Allocation: create() and addTexture() allocate;
// draw() grows its buffers to the largest frame seen and then reuses them.
#pragma once

#include <mote/core/status.h>
#include <mote/gpu/context.h>
#include <mote/render/billboard.h>
#include <mote/render/camera.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace mote::gpu {

/// One particle as the GPU renderer draws it.
struct SpriteInstance {
  render::BillboardInput particle;        ///< position, velocity, half size, the two rotations
  std::array<float, 4> color{};           ///< premultiplied linear; alpha 0 for additive
  std::array<float, 4> cell{0, 0, 1, 1};  ///< the texture region: u, v origin and size (v down)
  std::uint32_t texture = 0;              ///< an addTexture() index
  /// Stretched only: the blur length, render::BillboardView::stretchScaleSeconds for this particle
  /// (>= 0; 0 turns stretching off). The software renderer scales an emitter's stretch_scale by
  /// the particle's depth and height, so each particle has its own.
  float stretchScaleSeconds = 1.0f;
};

/// Instances drawn with one projection mode, in order (later ones over earlier ones).
struct SpriteDraw {
  render::BillboardMode mode = render::BillboardMode::Billboard;
  std::span<const SpriteInstance> instances;
};

struct RendererDesc {
  render::Viewport viewport{640, 360};
  std::array<float, 3> background{0.012f, 0.012f, 0.018f};  ///< linear
  /// Billboard modes' world up (render::BillboardView::worldUp).
  std::array<float, 3> worldUp{0.0f, 1.0f, 0.0f};
};

class Renderer {
 public:
  /// A renderer on `context`'s device. Unavailable where the context's queue cannot draw
  /// (DeviceInfo::graphics); InvalidArgument for an invalid viewport (or one past the device's
  /// largest framebuffer) or world up; the device's
  /// errors otherwise.
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
  /// stretchScaleSeconds, or a mode outside
  /// render::BillboardMode (nothing is drawn then); the device's errors otherwise.
  Status draw(const render::Camera& camera, std::span<const SpriteDraw> draws,
              std::vector<std::array<float, 4>>& linear);

  /// The frame's colour format: "R32G32B32A32_SFLOAT" where the device blends it, else
  /// "R16G16B16A16_SFLOAT".
  const char* colorFormat() const noexcept;

  struct Impl;

 private:
  explicit Renderer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mote::gpu
