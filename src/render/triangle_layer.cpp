// SPDX-License-Identifier: MIT
// The triangle layer's fill (triangle_layer.h): top-left edge functions at pixel centres,
// perspective-correct interpolation, the z-test against the scene depth and the rasterizer's blend.
#include "triangle_layer.h"

#include "raster_kernel.h"  // sample, blendPixel, oitDepthWeight

#include <algorithm>
#include <cmath>

namespace mote::render {

bool boundTriangle(ScreenTriangle& t, float width, float height) noexcept {
  t.minX = std::min({t.v[0].x, t.v[1].x, t.v[2].x});
  t.maxX = std::max({t.v[0].x, t.v[1].x, t.v[2].x});
  t.minY = std::min({t.v[0].y, t.v[1].y, t.v[2].y});
  t.maxY = std::max({t.v[0].y, t.v[1].y, t.v[2].y});
  const float area =
      (t.v[1].x - t.v[0].x) * (t.v[2].y - t.v[0].y) - (t.v[2].x - t.v[0].x) * (t.v[1].y - t.v[0].y);
  // NaN fails every comparison: such a triangle is culled here.
  return t.maxX >= 0.0f && t.minX < width && t.maxY >= 0.0f && t.minY < height && area != 0.0f &&
         std::isfinite(area);
}

void rasterizeTriangle(const ScreenTriangle& t, SpanQuad q, std::uint32_t y0, std::uint32_t y1,
                       const TriangleTarget& target) noexcept {
  // Orient the edges so the inside is positive: (a, b, c) with a positive doubled area.
  const TriangleVertex* a = &t.v[0];
  const TriangleVertex* b = &t.v[1];
  const TriangleVertex* c = &t.v[2];
  float area = (b->x - a->x) * (c->y - a->y) - (c->x - a->x) * (b->y - a->y);
  if (area < 0.0f) {
    std::swap(b, c);
    area = -area;
  }
  if (!(area > 0.0f)) return;
  // Edge e of (p, q): E(x, y) = (q.x − p.x)(y − p.y) − (q.y − p.y)(x − p.x); the edge opposite
  // vertex k weighs vertex k. Top edges run right (dy = 0, dx > 0), left edges up (dy < 0).
  struct Edge {
    float px, py, dx, dy;
    bool topLeft;
  };
  const auto edge = [](const TriangleVertex& p, const TriangleVertex& r) {
    const float dx = r.x - p.x;
    const float dy = r.y - p.y;
    return Edge{p.x, p.y, dx, dy, (dy == 0.0f && dx > 0.0f) || dy < 0.0f};
  };
  const std::array<Edge, 3> edges{edge(*b, *c), edge(*c, *a), edge(*a, *b)};
  const std::array<const TriangleVertex*, 3> corner{a, b, c};
  const float invArea = 1.0f / area;
  const auto rowFrom =
      static_cast<std::uint32_t>(std::max(static_cast<float>(y0), std::floor(t.minY)));
  const auto rowTo = static_cast<std::uint32_t>(
      std::clamp(std::ceil(t.maxY) + 1.0f, static_cast<float>(y0), static_cast<float>(y1)));
  const auto colFrom = static_cast<std::uint32_t>(std::max(0.0f, std::floor(t.minX)));
  const auto colTo = static_cast<std::uint32_t>(
      std::clamp(std::ceil(t.maxX) + 1.0f, 0.0f, static_cast<float>(target.width)));
  for (std::uint32_t y = rowFrom; y < rowTo; ++y) {
    const float py = static_cast<float>(y) + 0.5f;
    const std::size_t row = std::size_t{y} * target.width;
    for (std::uint32_t x = colFrom; x < colTo; ++x) {
      const float px = static_cast<float>(x) + 0.5f;
      std::array<float, 3> w;
      bool inside = true;
      for (std::size_t e = 0; e < 3; ++e) {
        const Edge& g = edges[e];
        w[e] = g.dx * (py - g.py) - g.dy * (px - g.px);
        inside = inside && (w[e] > 0.0f || (w[e] == 0.0f && g.topLeft));
      }
      if (!inside) continue;
      // Barycentric weights, then perspective-correct: attributes over 1/w.
      std::array<float, 3> k;
      float invW = 0.0f;
      for (std::size_t i = 0; i < 3; ++i) {
        k[i] = w[i] * invArea * corner[i]->invW;
        invW += k[i];
      }
      if (!(invW > 0.0f)) continue;
      const float wOf = 1.0f / invW;
      const auto mix = [&](auto member) {
        return (k[0] * member(*corner[0]) + k[1] * member(*corner[1]) + k[2] * member(*corner[2])) *
               wOf;
      };
      const float depth = mix([](const TriangleVertex& v) { return v.depth; });
      const std::size_t at = row + x;
      if (!(depth < target.sceneDepth[at])) continue;
      const float u = mix([](const TriangleVertex& v) { return v.u; });
      const float v = mix([](const TriangleVertex& tv) { return tv.v; });
      for (std::size_t ch = 0; ch < 4; ++ch)
        q.color[ch] = mix([ch](const TriangleVertex& tv) { return tv.color[ch]; });
      const F4 texel = sample(q, u, v);
      if (q.cutout && (texel[3] * q.color[3] < q.cutoff || texel[3] <= 0.0f)) continue;
      if (q.oitPlane != 0) {  // a translucent fragment of an OIT frame: accumulated, no depth
        q.oitWeight = oitDepthWeight(depth);
        blendPixel(q, target.oit[at], texel, 1.0f);
        continue;
      }
      blendPixel(q, target.frame[at], texel, 1.0f);
      if (t.depthWrite) {
        target.sceneDepth[at] = depth;
        target.meshDepth[at] = depth;
      }
    }
  }
}

}  // namespace mote::render
