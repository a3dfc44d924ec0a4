// SPDX-License-Identifier: MIT
// The sprite layer's span loops (src/render/raster_span.h): the 4- and 8-lane builds against the
// scalar reference, bit for bit, and the projective map of foreshortened cards.
#include "raster_span.h"

#include <mote/core/prng.h>

#include <gtest/gtest.h>

#include <algorithm>
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
  std::uint32_t projective = 0;  // quads textured through their projective map
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
    if (!setupSpanQuad(quad, q, QuadMapping::Planar)) continue;
    projective += q.perspective ? 1 : 0;
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
  EXPECT_GT(drawn, 100000u);    // the quads cover the screen many times over
  EXPECT_GT(projective, 100u);  // skewed corners: both maps are checked
}

// A pinhole camera at the origin looking down +Z (focal length 300 pixels, the screen centred on
// (400, 300)): where world point p lands.
std::array<float, 2> pinhole(const std::array<double, 3>& p) {
  return {static_cast<float>(400.0 + 300.0 * p[0] / p[2]),
          static_cast<float>(300.0 + 300.0 * p[1] / p[2])};
}

// A card (centre c, half axes a and b) as the renderer's quad: corners c − a − b, c + a − b,
// c + a + b, c − a + b (billboard order), and the world point at card parameters (s, t).
struct Card {
  std::array<double, 3> c, a, b;
  std::array<double, 3> at(double s, double t) const {
    std::array<double, 3> p;
    for (std::size_t k = 0; k < 3; ++k)
      p[k] = c[k] + a[k] * (2.0 * s - 1.0) + b[k] * (2.0 * t - 1.0);
    return p;
  }
  ScreenQuad quad() const {
    ScreenQuad q;
    static constexpr std::array<std::array<double, 2>, 4> kCorner{
        {{0.0, 0.0}, {1.0, 0.0}, {1.0, 1.0}, {0.0, 1.0}}};
    for (std::size_t k = 0; k < 4; ++k) {
      const std::array<float, 2> xy = pinhole(at(kCorner[k][0], kCorner[k][1]));
      q.x[k] = xy[0];
      q.y[k] = xy[1];
    }
    EXPECT_TRUE(boundOnScreen(q, 800.0f, 600.0f));
    return q;
  }
};

// The largest distance, in (s, t), between the parameters the span loops give the projections of
// card points on a 17 × 17 grid and the points' own.
double worstParameterError(const Card& card, const SpanQuad& q) {
  double worst = 0.0;
  for (int i = 0; i <= 16; ++i) {
    for (int j = 0; j <= 16; ++j) {
      const double s = i / 16.0;
      const double t = j / 16.0;
      const std::array<float, 2> xy = pinhole(card.at(s, t));
      const std::array<float, 2> st = quadParameters(q, xy[0], xy[1]);
      worst = std::max({worst, std::abs(static_cast<double>(st[0]) - s),
                        std::abs(static_cast<double>(st[1]) - t)});
    }
  }
  return worst;
}

// A card lying back from the eye (depth 1.5 m at its near edge, 4.5 m at its far one, about 330
// pixels on screen): the two triangles' affine maps misplace its middle by a tenth of the card,
// its projective map puts every point where it projects (to float rounding).
TEST(RasterSpan, AForeshortenedCardIsTexturedThroughItsProjectiveMap) {
  const Card card{{0.2, 0.3, 3.0}, {1.0, 0.1, 0.2}, {0.1, -0.3, 1.5}};
  const ScreenQuad quad = card.quad();
  SpanQuad affine;
  ASSERT_TRUE(setupSpanQuad(quad, affine, QuadMapping::Affine));
  EXPECT_FALSE(affine.perspective);
  EXPECT_GT(worstParameterError(card, affine), 0.05);
  SpanQuad planar;
  ASSERT_TRUE(setupSpanQuad(quad, planar, QuadMapping::Planar));
  ASSERT_TRUE(planar.perspective);
  EXPECT_LT(worstParameterError(card, planar), 2e-5);
  // Hand-checked on the corners: (0, 0), (1, 0), (1, 1), (0, 1).
  static constexpr std::array<std::array<float, 2>, 4> kCorner{
      {{0.0f, 0.0f}, {1.0f, 0.0f}, {1.0f, 1.0f}, {0.0f, 1.0f}}};
  for (std::size_t k = 0; k < 4; ++k) {
    const std::array<float, 2> st = quadParameters(planar, quad.x[k], quad.y[k]);
    EXPECT_NEAR(st[0], kCorner[k][0], 1e-5f) << "corner " << k;
    EXPECT_NEAR(st[1], kCorner[k][1], 1e-5f) << "corner " << k;
  }
}

// Cards the affine maps draw to within a quarter of a pixel keep them, bit for bit: a card facing
// the eye (a parallelogram on screen), and one turned a little, small on screen.
TEST(RasterSpan, CardsThatShowNoForeshorteningStayAffine) {
  const std::array<Card, 2> cards{
      Card{{0.2, 0.3, 3.0}, {0.8, 0.0, 0.0}, {0.0, 0.6, 0.0}},       // facing: w equal
      Card{{0.2, 0.3, 6.0}, {0.05, 0.0, 0.002}, {0.0, 0.05, 0.0}}};  // 5 px, turned 2°
  for (const Card& card : cards) {
    const ScreenQuad quad = card.quad();
    SpanQuad affine;
    SpanQuad planar;
    ASSERT_TRUE(setupSpanQuad(quad, affine, QuadMapping::Affine));
    ASSERT_TRUE(setupSpanQuad(quad, planar, QuadMapping::Planar));
    EXPECT_FALSE(planar.perspective);
    const std::array<float, 2> a = quadParameters(affine, 401.3f, 300.7f);
    const std::array<float, 2> p = quadParameters(planar, 401.3f, 300.7f);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(a[0]), std::bit_cast<std::uint32_t>(p[0]));
    EXPECT_EQ(std::bit_cast<std::uint32_t>(a[1]), std::bit_cast<std::uint32_t>(p[1]));
  }
}

}  // namespace
}  // namespace mote::render
