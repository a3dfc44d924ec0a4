// SPDX-License-Identifier: MIT
// Bloom and the tone-mapped resolve (post_process.h, docs/rendering.md "Tone mapping and bloom").
// The bloom is the usual chain of half-size levels (as in Jimenez, "Next Generation Post
// Processing in Call of Duty: Advanced Warfare", SIGGRAPH 2014, simplified): a bright pass and 2×2
// box down into the first level, 2×2 boxes further down, a 5-tap binomial blur on each level, and
// bilinear steps back up, each level adding the one below; the frame gains the first level's
// average over the chain, times the strength. Every output value is computed on its own from its
// inputs, rows in parallel, so the bits do not depend on the thread count.
#include "post_process.h"

#include "raster_kernel.h"  // F4, loadF4, storeF4

#include <mote/core/assert.h>
#include <mote/render/frame_resolve.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>

namespace mote::render {
namespace {

using I4 = std::int32_t __attribute__((vector_size(16)));

constexpr std::size_t kRowsPerTask = 16;

// The light above `threshold` in each channel (NaN and negative as 0), capped so a runaway value
// cannot turn the blur into infinities; alpha 0.
F4 brightPart(const LinearPixel& p, float threshold) {
  F4 c = loadF4(p) - threshold;
  c = c > 0.0f ? c : F4{};
  c = c < 1e4f ? c : F4{} + 1e4f;
  c[3] = 0.0f;
  return c;
}

// The pixel at (x, y) of a w × h image, coordinates clamped to the edges.
const LinearPixel& at(const std::vector<LinearPixel>& image, std::uint32_t w, std::uint32_t h,
                      std::int64_t x, std::int64_t y) {
  const auto cx = static_cast<std::size_t>(std::clamp<std::int64_t>(x, 0, w - 1));
  const auto cy = static_cast<std::size_t>(std::clamp<std::int64_t>(y, 0, h - 1));
  return image[cy * w + cx];
}

// Bilinear sample of a w × h image at continuous pixel coordinates (u, v) (pixel centres at
// k + 0.5), edges clamped.
F4 bilinearAt(const std::vector<LinearPixel>& image, std::uint32_t w, std::uint32_t h, float u,
              float v) {
  const float x = u - 0.5f;
  const float y = v - 0.5f;
  const float fx = std::floor(x);
  const float fy = std::floor(y);
  const float ax = x - fx;
  const float ay = y - fy;
  const auto ix = static_cast<std::int64_t>(fx);
  const auto iy = static_cast<std::int64_t>(fy);
  const F4 a = loadF4(at(image, w, h, ix, iy));
  const F4 b = loadF4(at(image, w, h, ix + 1, iy));
  const F4 c = loadF4(at(image, w, h, ix, iy + 1));
  const F4 d = loadF4(at(image, w, h, ix + 1, iy + 1));
  const F4 top = a + (b - a) * ax;
  const F4 bottom = c + (d - c) * ax;
  return top + (bottom - top) * ay;
}

// One pass of the binomial blur [1 4 6 4 1] / 16 along x (dx 1) or y (dy 1), edges clamped, of
// rows [y0, y1).
void blurRows(const std::vector<LinearPixel>& from, std::vector<LinearPixel>& to, std::uint32_t w,
              std::uint32_t h, bool alongX, std::size_t y0, std::size_t y1) {
  constexpr std::array<float, 5> kWeights{1.0f / 16, 4.0f / 16, 6.0f / 16, 4.0f / 16, 1.0f / 16};
  for (std::size_t y = y0; y < y1; ++y) {
    for (std::uint32_t x = 0; x < w; ++x) {
      F4 sum{};
      for (std::int64_t k = -2; k <= 2; ++k) {
        const std::int64_t sx = alongX ? std::int64_t{x} + k : std::int64_t{x};
        const std::int64_t sy =
            alongX ? static_cast<std::int64_t>(y) : static_cast<std::int64_t>(y) + k;
        sum += loadF4(at(from, w, h, sx, sy)) * kWeights[static_cast<std::size_t>(k + 2)];
      }
      storeF4(to[y * w + x], sum);
    }
  }
}

}  // namespace

void BloomChain::allocate(std::uint32_t width, std::uint32_t height) {
  width_ = width;
  height_ = height;
  levels_.clear();
  std::uint32_t w = width;
  std::uint32_t h = height;
  while (levels_.size() < kMaxLevels) {
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    if (!levels_.empty() && (w < 4 || h < 4)) break;
    Level& level = levels_.emplace_back();
    level.width = w;
    level.height = h;
    level.image.resize(std::size_t{w} * h);
    level.scratch.resize(std::size_t{w} * h);
  }
}

void BloomChain::apply(std::span<LinearPixel> frame, const PostProcess& post,
                       JobSystem& jobs) noexcept {
  MOTE_ASSERT(allocated() && frame.size() == std::size_t{width_} * height_);
  // Down: the bright pass into level 0, 2×2 boxes below it.
  for (std::size_t k = 0; k < levels_.size(); ++k) {
    Level& level = levels_[k];
    parallelFor(jobs, level.height, kRowsPerTask, [&](std::size_t y0, std::size_t y1) {
      for (std::size_t y = y0; y < y1; ++y) {
        for (std::uint32_t x = 0; x < level.width; ++x) {
          const std::int64_t sx = std::int64_t{x} * 2;
          const auto sy = static_cast<std::int64_t>(y) * 2;
          F4 sum{};
          for (std::int64_t j = 0; j < 2; ++j) {
            for (std::int64_t i = 0; i < 2; ++i) {
              if (k == 0) {
                const auto fx =
                    static_cast<std::size_t>(std::min<std::int64_t>(sx + i, width_ - 1));
                const auto fy =
                    static_cast<std::size_t>(std::min<std::int64_t>(sy + j, height_ - 1));
                sum += brightPart(frame[fy * width_ + fx], post.bloomThreshold);
              } else {
                const Level& above = levels_[k - 1];
                sum += loadF4(at(above.image, above.width, above.height, sx + i, sy + j));
              }
            }
          }
          storeF4(level.image[y * level.width + x], sum * 0.25f);
        }
      }
    });
  }
  // Blur every level: along x into scratch, along y back.
  for (Level& level : levels_) {
    parallelFor(jobs, level.height, kRowsPerTask, [&](std::size_t y0, std::size_t y1) {
      blurRows(level.image, level.scratch, level.width, level.height, true, y0, y1);
    });
    parallelFor(jobs, level.height, kRowsPerTask, [&](std::size_t y0, std::size_t y1) {
      blurRows(level.scratch, level.image, level.width, level.height, false, y0, y1);
    });
  }
  // Up: each level gains the one below it, sampled at its pixel centres (into scratch, then
  // copied, so no row reads a row another task writes).
  for (std::size_t k = levels_.size(); k-- > 1;) {
    const Level& below = levels_[k];
    Level& level = levels_[k - 1];
    const float sx = static_cast<float>(below.width) / static_cast<float>(level.width);
    const float sy = static_cast<float>(below.height) / static_cast<float>(level.height);
    parallelFor(jobs, level.height, kRowsPerTask, [&](std::size_t y0, std::size_t y1) {
      for (std::size_t y = y0; y < y1; ++y) {
        const float v = (static_cast<float>(y) + 0.5f) * sy;
        for (std::uint32_t x = 0; x < level.width; ++x) {
          const float u = (static_cast<float>(x) + 0.5f) * sx;
          const std::size_t i = y * level.width + x;
          storeF4(level.scratch[i], loadF4(level.image[i]) +
                                        bilinearAt(below.image, below.width, below.height, u, v));
        }
      }
    });
    std::swap(level.image, level.scratch);
  }
  // The frame gains the first level, averaged over the levels, times the strength.
  const Level& first = levels_[0];
  const float scale = post.bloom / static_cast<float>(levels_.size());
  const float sx = static_cast<float>(first.width) / static_cast<float>(width_);
  const float sy = static_cast<float>(first.height) / static_cast<float>(height_);
  parallelFor(jobs, height_, kRowsPerTask, [&](std::size_t y0, std::size_t y1) {
    for (std::size_t y = y0; y < y1; ++y) {
      const float v = (static_cast<float>(y) + 0.5f) * sy;
      for (std::uint32_t x = 0; x < width_; ++x) {
        const float u = (static_cast<float>(x) + 0.5f) * sx;
        LinearPixel& p = frame[y * width_ + x];
        F4 glow = bilinearAt(first.image, first.width, first.height, u, v) * scale;
        glow[3] = 0.0f;
        storeF4(p, loadF4(p) + glow);
      }
    }
  });
}

namespace {

// The tone map on four lanes (negatives and NaN as 0 first): the formulas of ToneMap's comments.
F4 toneMapLanes(ToneMap toneMap, F4 c) {
  c = c > 0.0f ? c : F4{};
  switch (toneMap) {
    case ToneMap::Reinhard:
      return c * (1.0f + c * (1.0f / 16.0f)) / (1.0f + c);
    case ToneMap::Aces:
      return (c * (2.51f * c + 0.03f)) / (c * (2.43f * c + 0.59f) + 0.14f);
    case ToneMap::None:
      break;
  }
  return c;
}

}  // namespace

float toneMapped(ToneMap toneMap, float c) noexcept {
  return toneMapLanes(toneMap, F4{} + c)[0];
}

float inverseToneMapped(ToneMap toneMap, float display) noexcept {
  const double y = std::clamp(static_cast<double>(display), 0.0, 1.0);
  switch (toneMap) {
    case ToneMap::Reinhard: {
      // x²/16 + (1 − y)x − y = 0, the positive root.
      const double b = 1.0 - y;
      return static_cast<float>(8.0 * (std::sqrt(b * b + y / 4.0) - b));
    }
    case ToneMap::Aces: {
      // (2.43y − 2.51)x² + (0.59y − 0.03)x + 0.14y = 0: the leading coefficient is negative on
      // [0, 1], so the roots' product is <= 0 and this is the one >= 0.
      const double a = 2.43 * y - 2.51;
      const double b = 0.59 * y - 0.03;
      const double c = 0.14 * y;
      return static_cast<float>((-b - std::sqrt(b * b - 4.0 * a * c)) / (2.0 * a));
    }
    case ToneMap::None:
      break;
  }
  return static_cast<float>(y);
}

SrgbTable makeSrgbTable() noexcept {
  SrgbTable table{};
  for (std::size_t i = 0; i < table.size(); ++i) {
    const float s = linearToSrgb(static_cast<float>(i) / static_cast<float>(table.size() - 1));
    table[i] = static_cast<std::uint8_t>(std::lround(s * 255.0f));
  }
  return table;
}

void resolveFrame(std::span<const LinearPixel> accum, ToneMap toneMap, const SrgbTable& table,
                  Image& out) noexcept {
  MOTE_ASSERT(accum.size() == std::size_t{out.width()} * out.height());
  const float lutScale = static_cast<float>(table.size() - 1);
  std::uint8_t* px = out.pixels().data();
  const F4 one{1.0f, 1.0f, 1.0f, 1.0f};
  for (const LinearPixel& pixel : accum) {
    F4 c = loadF4(pixel);
    if (toneMap != ToneMap::None) c = toneMapLanes(toneMap, c);
    // Lane-wise: c > 0 ? (c < 1 ? c : 1) : 0, then the table index c · scale + 0.5, truncated.
    const I4 positive = c > F4{};
    const I4 below = c < one;
    const I4 bits = ((std::bit_cast<I4>(c) & below) | (std::bit_cast<I4>(one) & ~below)) & positive;
    const I4 index = __builtin_convertvector(std::bit_cast<F4>(bits) * lutScale + 0.5f, I4);
    px[0] = table[static_cast<std::uint32_t>(index[0])];
    px[1] = table[static_cast<std::uint32_t>(index[1])];
    px[2] = table[static_cast<std::uint32_t>(index[2])];
    px[3] = 255;
    px += 4;
  }
}

struct FrameResolver::Impl {
  Viewport viewport;
  PostProcess post;
  BloomChain bloom;  // allocated when post.bloom > 0
  SrgbTable table{};
  InlineJobSystem inlineJobs;
};

FrameResolver::FrameResolver(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
FrameResolver::FrameResolver(FrameResolver&&) noexcept = default;
FrameResolver& FrameResolver::operator=(FrameResolver&&) noexcept = default;
FrameResolver::~FrameResolver() = default;

Result<FrameResolver> FrameResolver::create(Viewport viewport, const PostProcess& post) {
  MOTE_RETURN_IF_ERROR(viewport.validate());
  MOTE_RETURN_IF_ERROR(post.validate("FrameResolver"));
  auto impl = std::make_unique<Impl>();
  impl->viewport = viewport;
  impl->post = post;
  if (post.bloom > 0.0f) impl->bloom.allocate(viewport.width, viewport.height);
  impl->table = makeSrgbTable();
  return FrameResolver(std::move(impl));
}

void compositeOit(std::span<std::array<float, 4>> frame, std::span<const std::array<float, 4>> sums,
                  std::span<const std::array<float, 4>> side) noexcept {
  MOTE_ASSERT(sums.size() == frame.size() && side.size() == frame.size(),
              "compositeOit: the planes are the frame's size");
  for (std::size_t i = 0; i < frame.size(); ++i) {
    const F4 s = loadF4(sums[i]);
    const F4 add = loadF4(side[i]);
    const float reveal = add[3];
    if (reveal == 1.0f && s[3] == 0.0f && add[0] == 0.0f && add[1] == 0.0f && add[2] == 0.0f)
      continue;  // nothing translucent here: the pixel stays as drawn, bit for bit
    const float weight = std::clamp(s[3], 1e-4f, 5e4f);
    F4 c = loadF4(frame[i]) * reveal + s / weight * (1.0f - reveal) + add;
    c[3] = 1.0f;
    storeF4(frame[i], c);
  }
}

Status FrameResolver::resolve(std::span<std::array<float, 4>> frame, Image& out, JobSystem* jobs) {
  Impl& r = *impl_;
  const std::uint32_t width = r.viewport.width;
  const std::uint32_t height = r.viewport.height;
  if (frame.size() != std::size_t{width} * height)
    return invalidArgument("FrameResolver::resolve: " + std::to_string(frame.size()) +
                           " pixels for a " + std::to_string(width) + " x " +
                           std::to_string(height) + " frame");
  if (out.width() != width || out.height() != height) {
    Result<Image> made = Image::create(width, height);
    if (!made.ok()) return made.status();
    out = std::move(made.value());
  }
  if (r.post.bloom > 0.0f) r.bloom.apply(frame, r.post, jobs != nullptr ? *jobs : r.inlineJobs);
  resolveFrame(frame, r.post.toneMap, r.table, out);
  return {};
}

Status PostProcess::validate(std::string_view owner) const {
  const std::string who(owner);
  if (static_cast<std::uint32_t>(toneMap) > static_cast<std::uint32_t>(ToneMap::Aces))
    return invalidArgument(who + ": post.toneMap out of range");
  if (!std::isfinite(bloom) || bloom < 0.0f || bloom > 16.0f)
    return invalidArgument(who + ": post.bloom must be in [0, 16] (got " + std::to_string(bloom) +
                           ")");
  if (!std::isfinite(bloomThreshold) || bloomThreshold < 0.0f)
    return invalidArgument(who + ": post.bloomThreshold must be finite and >= 0 (got " +
                           std::to_string(bloomThreshold) + ")");
  return {};
}

}  // namespace mote::render
