// SPDX-License-Identifier: MIT
// The steps from a drawn linear frame to display pixels (docs/rendering.md, "Tone mapping and
// bloom"): the OIT composite, the bloom, the tone map and the sRGB encoding, as the software
// renderers resolve their frames — public so that a frame drawn elsewhere (the GPU renderer's, read
// back) is resolved by the same code, bit for bit the same from the same linear values.
//
// Ownership: owns its bloom levels. Thread safety: one caller at a time; resolve() fans the bloom's
// rows out to `jobs`. Allocation: create() (the bloom levels, when bloom is on); resolve() only
// when `out` is not the viewport's size.
#pragma once

#include <mote/core/job_system.h>
#include <mote/core/status.h>
#include <mote/render/camera.h>
#include <mote/render/image.h>
#include <mote/render/sprite_renderer.h>  // PostProcess

#include <array>
#include <memory>
#include <span>

namespace mote::render {

/// Weighted blended OIT's composite (McGuire and Bavoil, JCGT 2013) of `sums` (each pixel's
/// accumulated rgb·w and a·w) and `side` (the additive fragments' rgb sum and the revealage, the
/// product of 1 − a) over `frame`, pixel by pixel: frame·reveal + sums.rgb / clamp(sums.a, 1e-4,
/// 5e4) · (1 − reveal) + side.rgb, alpha 1. A pixel no translucent fragment touched (revealage 1,
/// nothing accumulated) is left bit for bit. The three spans are the same length (checked by
/// assertion). O(pixels); allocates nothing.
void compositeOit(std::span<std::array<float, 4>> frame, std::span<const std::array<float, 4>> sums,
                  std::span<const std::array<float, 4>> side) noexcept;

class FrameResolver {
 public:
  /// InvalidArgument for a bad viewport or post-process (PostProcess::validate).
  static Result<FrameResolver> create(Viewport viewport, const PostProcess& post);
  FrameResolver(FrameResolver&&) noexcept;
  FrameResolver& operator=(FrameResolver&&) noexcept;
  ~FrameResolver();

  /// `frame` (viewport-sized, rows top-down, linear premultiplied RGB over an opaque background;
  /// the fourth lane is not read) → `out` (made viewport-sized): the bloom added to `frame` in
  /// place (when on), then the tone map, clamped to [0, 1] (NaN as 0), sRGB, alpha 255. The same
  /// bits on any thread count. InvalidArgument when frame.size() is not the viewport's pixels.
  /// O(pixels).
  Status resolve(std::span<std::array<float, 4>> frame, Image& out, JobSystem* jobs = nullptr);

  struct Impl;

 private:
  explicit FrameResolver(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mote::render
