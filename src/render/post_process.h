// SPDX-License-Identifier: MIT
// The sprite layer's steps between the rasterized linear frame and the 8-bit image
// (docs/rendering.md, "Tone mapping and bloom"): the bloom chain and the tone-mapped sRGB resolve.
// Both run after the bands are drawn, for SpriteRenderer and ParticleRenderer frames alike.
// Private to the sprite layer and mote_render.
#pragma once

#include <mote/core/job_system.h>
#include <mote/render/image.h>
#include <mote/render/sprite_renderer.h>

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace mote::render {

/// One pixel of the linear frame: premultiplied RGB (the alpha lane is not read).
using LinearPixel = std::array<float, 4>;

/// The bloom's buffers for one frame size (allocated once) and the pass itself.
///
/// Ownership: owns its levels. Thread safety: apply() fans rows out to `jobs`; one caller at a
/// time. Allocation: allocate() only.
class BloomChain {
 public:
  /// The most half-size levels the chain keeps; it stops earlier once a side would fall below 4.
  static constexpr std::uint32_t kMaxLevels = 6;

  /// Sizes the levels for a width × height frame (each level half the one above, rounded up).
  void allocate(std::uint32_t width, std::uint32_t height);
  bool allocated() const noexcept { return !levels_.empty(); }

  /// frame += post.bloom · (the light above post.bloomThreshold, blurred), in place, on the frame
  /// size given to allocate(). Every value is one fixed sequence of float operations, so the
  /// frame is the same on any thread count. O(frame pixels). Allocates: never.
  void apply(std::span<LinearPixel> frame, const PostProcess& post, JobSystem& jobs) noexcept;

 private:
  struct Level {
    std::uint32_t width = 0;
    std::uint32_t height = 0;
    std::vector<LinearPixel> image;
    std::vector<LinearPixel> scratch;  // the horizontal blur's output
  };
  std::uint32_t width_ = 0;
  std::uint32_t height_ = 0;
  std::vector<Level> levels_;
};

/// The 4,096-entry table from linear [0, 1] (index = c · 4095 + 0.5, truncated) to 8-bit sRGB.
using SrgbTable = std::array<std::uint8_t, 4096>;
SrgbTable makeSrgbTable() noexcept;

/// accum (linear, over an opaque background) → out (its size; pixels row-major) through the tone
/// map, then clamped to [0, 1] (NaN as 0) and encoded by `table`; alpha 255. O(pixels).
/// Allocates: never.
void resolveFrame(std::span<const LinearPixel> accum, ToneMap toneMap, const SrgbTable& table,
                  Image& out) noexcept;

}  // namespace mote::render
