// SPDX-License-Identifier: MIT
// The sprite layer's span loops (src/render/raster_span.h): the 4- and 8-lane builds against the
// scalar reference, bit for bit.
#include "raster_span.h"

#include <mote/core/prng.h>

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace mote::render {
namespace {

float uniform(Prng& prng, float lo, float hi) {
  const float u = static_cast<float>(prng.nextTap24()) / static_cast<float>(Prng::kTapRange);
  return lo + (hi - lo) * u;
}

// The span loops' 4- and (where the CPU has AVX2) 8-lane builds against the scalar reference, bit
// for bit, on random quads partly off a 70 × 50 screen: magnified (down to a texel for 8 pixels and
// more, where the 8-lane loop loads shared texels once) and minified textures, UVs past
// the edges, cutout, frame blending, soft fade against a depth row with gaps, edge pixels.
TEST(RasterSpan, TheSpanLoopsDrawTheScalarReferencesBits) {
  constexpr std::uint32_t kW = 70;
  constexpr std::uint32_t kH = 50;
  Prng prng(0x5eed0fu);
  std::vector<float> depth(std::size_t{kW} * kH);
  for (float& d : depth)
    d = prng.nextRange(0, 8) == 0 ? std::numeric_limits<float>::infinity()
                                  : uniform(prng, 0.0f, 4.0f);
  std::vector<std::array<float, 4>> background(std::size_t{kW} * kH);
  for (auto& p : background)
    p = {uniform(prng, 0.0f, 1.0f), uniform(prng, 0.0f, 1.0f), uniform(prng, 0.0f, 1.0f), 1.0f};
  std::vector<RasterSpanFn> kernels{rasterizeSpan4};
  if (rasterAvx2Available()) kernels.push_back(rasterizeSpan8);
  std::uint64_t drawn = 0;
  for (std::uint32_t n = 0; n < 400; ++n) {
    SCOPED_TRACE(n);
    // A texture of 1 to 64 texels a side, premultiplied, some texels clear.
    const std::uint32_t tw = 1 + prng.nextRange(0, 64);
    const std::uint32_t th = 1 + prng.nextRange(0, n % 2 == 0 ? 4 : 64);
    std::vector<std::array<float, 4>> texels(std::size_t{tw} * th);
    for (auto& t : texels) {
      const float a = prng.nextRange(0, 6) == 0 ? 0.0f : uniform(prng, 0.0f, 1.0f);
      t = {uniform(prng, 0.0f, 1.0f) * a, uniform(prng, 0.0f, 1.0f) * a,
           uniform(prng, 0.0f, 1.0f) * a, a};
    }
    // A quad of 1 to 90 pixels around a centre on or near the screen, turned and skewed.
    ScreenQuad quad;
    const float cx = uniform(prng, -10.0f, 80.0f);
    const float cy = uniform(prng, -10.0f, 60.0f);
    const float size = uniform(prng, 0.5f, n % 3 == 0 ? 6.0f : 45.0f);
    const float angle = uniform(prng, 0.0f, 6.2831853f);
    for (std::size_t c = 0; c < 4; ++c) {
      const float a = angle + 1.5707964f * static_cast<float>(c) + uniform(prng, -0.3f, 0.3f);
      const float r = size * uniform(prng, 0.6f, 1.4f);
      quad.x[c] = cx + r * std::cos(a);
      quad.y[c] = cy + r * std::sin(a);
    }
    if (!boundOnScreen(quad, static_cast<float>(kW), static_cast<float>(kH))) continue;
    SpanQuad q;
    if (!setupSpanQuad(quad, q)) continue;
    q.texels = texels.data();
    q.width = tw;
    q.height = th;
    const float alpha = uniform(prng, 0.0f, 1.0f);
    q.color = {uniform(prng, 0.0f, 1.0f) * alpha, uniform(prng, 0.0f, 1.0f) * alpha,
               uniform(prng, 0.0f, 1.0f) * alpha, prng.nextRange(0, 4) == 0 ? 0.0f : alpha};
    q.cutout = prng.nextRange(0, 4) == 0;
    q.cutoff = uniform(prng, 0.0f, 0.6f);
    if (prng.nextRange(0, 3) == 0) {
      q.depth = uniform(prng, 0.0f, 3.0f);
      q.invSoft = uniform(prng, 0.5f, 8.0f);
    }
    q.du = uniform(prng, 0.1f, 1.3f);
    q.dv = uniform(prng, 0.1f, 1.3f);
    q.ua = uniform(prng, -0.2f, 0.9f);
    q.va = uniform(prng, -0.2f, 0.9f);
    if (prng.nextRange(0, 3) == 0) {
      q.ub = uniform(prng, -0.2f, 0.9f);
      q.vb = uniform(prng, -0.2f, 0.9f);
      q.frameBlend = uniform(prng, 0.0f, 1.0f);
    }
    const auto draw = [&](RasterSpanFn kernel) {
      std::vector<std::array<float, 4>> image = background;
      rasterizeQuad(q, quad, 0, kH, kW, image.data(), depth.data(), kernel);
      return image;
    };
    const std::vector<std::array<float, 4>> reference = draw(rasterizeSpanScalar);
    for (std::size_t i = 0; i < reference.size(); ++i)
      drawn += reference[i] != background[i] ? 1 : 0;
    for (const RasterSpanFn kernel : kernels) {
      const std::vector<std::array<float, 4>> image = draw(kernel);
      for (std::size_t i = 0; i < image.size(); ++i) {
        for (std::size_t c = 0; c < 4; ++c) {
          ASSERT_EQ(std::bit_cast<std::uint32_t>(reference[i][c]),
                    std::bit_cast<std::uint32_t>(image[i][c]))
              << "pixel " << i % kW << ", " << i / kW << " channel " << c << " of "
              << (kernel == rasterizeSpan4 ? "4" : "8") << " lanes";
        }
      }
    }
  }
  EXPECT_GT(drawn, 100000u);  // the quads cover the screen many times over
}

}  // namespace
}  // namespace mote::render
