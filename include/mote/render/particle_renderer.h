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
  JobSystem* jobs = nullptr;  ///< borrowed; null: the calling thread
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

  const RenderStats& stats() const noexcept;

  struct Impl;

 private:
  explicit ParticleRenderer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mote::render
