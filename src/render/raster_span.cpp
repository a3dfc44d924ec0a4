// SPDX-License-Identifier: MIT
// The rasterizer's span loop (raster_span.h): quad bounds and setup, the row spans, the scalar
// reference and its 4-lane build, and the choice of kernel.
#include "raster_kernel.h"

#include <mote/core/cpu_features.h>

#include <algorithm>
#include <cmath>

namespace mote::render {

bool boundOnScreen(ScreenQuad& quad, float width, float height) noexcept {
  quad.minX = std::min({quad.x[0], quad.x[1], quad.x[2], quad.x[3]});
  quad.maxX = std::max({quad.x[0], quad.x[1], quad.x[2], quad.x[3]});
  quad.minY = std::min({quad.y[0], quad.y[1], quad.y[2], quad.y[3]});
  quad.maxY = std::max({quad.y[0], quad.y[1], quad.y[2], quad.y[3]});
  return !(quad.maxX < 0.0f || quad.minX >= width || quad.maxY < 0.0f || quad.minY >= height);
}

namespace {

// Affine maps misplace a texel of a foreshortened parallelogram by at most about 0.35 · (r − 1) ·
// extent pixels (r: the largest corner w over the smallest; extent: the quad's larger screen side;
// measured over random cards): below this bound on (r − 1) · extent, a quarter of a pixel, they
// stay.
constexpr double kProjectiveAbove = 0.7;

// The projective map of quad q (Heckbert 1989, §2.2.3), where it differs enough from the affine
// ones: the square-to-quad map x = (a·u + b·v) / (g·u + h·v + 1) (corner 0 at the origin) solved
// from the corners, then inverted by its adjugate and scaled so its denominator is 1 at corner 0.
// In double: the corners' differences cancel. False: affine (a parallelogram on screen, a map with
// a corner at or behind the eye, or one too faint to show).
bool projectiveMap(const ScreenQuad& q, SpanProjective& out) {
  const auto from0 = [](const std::array<float, 4>& v, std::size_t k) {
    return static_cast<double>(v[k]) - static_cast<double>(v[0]);
  };
  const double x1 = from0(q.x, 1), y1 = from0(q.y, 1);
  const double x2 = from0(q.x, 2), y2 = from0(q.y, 2);
  const double x3 = from0(q.x, 3), y3 = from0(q.y, 3);
  const double sumX = x2 - x1 - x3;
  const double sumY = y2 - y1 - y3;
  const double dx1 = x1 - x2, dx2 = x3 - x2, dy1 = y1 - y2, dy2 = y3 - y2;
  const double det = dx1 * dy2 - dx2 * dy1;
  if (!(std::abs(det) > 1e-12)) return false;
  const double g = (sumX * dy2 - dx2 * sumY) / det;
  const double h = (dx1 * sumY - sumX * dy1) / det;
  // The corners' w (up to one scale): 1, 1 + g, 1 + g + h, 1 + h.
  const double w1 = 1.0 + g, w2 = 1.0 + g + h, w3 = 1.0 + h;
  const double lo = std::min({1.0, w1, w2, w3});
  const double hi = std::max({1.0, w1, w2, w3});
  if (!(lo > 1e-6) || !std::isfinite(hi)) return false;
  const double extent = std::max(static_cast<double>(q.maxX) - static_cast<double>(q.minX),
                                 static_cast<double>(q.maxY) - static_cast<double>(q.minY));
  if (!((hi / lo - 1.0) * extent > kProjectiveAbove)) return false;
  const double a = x1 * w1, b = x3 * w3, d = y1 * w1, e = y3 * w3;
  const double inv = a * e - b * d;
  if (!(std::abs(inv) > 1e-12)) return false;
  out.sx = static_cast<float>(e / inv);
  out.sy = static_cast<float>(-b / inv);
  out.tx = static_cast<float>(-d / inv);
  out.ty = static_cast<float>(a / inv);
  out.wx = static_cast<float>((d * h - e * g) / inv);
  out.wy = static_cast<float>((b * g - a * h) / inv);
  out.ax = q.x[0];
  out.ay = q.y[0];
  return true;
}

}  // namespace

bool setupSpanQuad(const ScreenQuad& q, SpanQuad& out, QuadMapping mapping) noexcept {
  // Edges, oriented so the inside is positive.
  const float area2 = (q.x[1] - q.x[0]) * (q.y[2] - q.y[0]) -
                      (q.x[2] - q.x[0]) * (q.y[1] - q.y[0]) +
                      (q.x[2] - q.x[0]) * (q.y[3] - q.y[0]) - (q.x[3] - q.x[0]) * (q.y[2] - q.y[0]);
  if (!(std::abs(area2) > 1e-6f)) return false;
  const float sign = area2 > 0.0f ? 1.0f : -1.0f;
  for (std::size_t e = 0; e < 4; ++e) {
    const std::size_t n = (e + 1) & 3u;
    const float a = -(q.y[n] - q.y[e]) * sign;
    const float b = (q.x[n] - q.x[e]) * sign;
    out.edge[e] = {a, b, -(a * q.x[e] + b * q.y[e])};
  }
  // Corner parameters (s, t): billboard order (-1,-1), (1,-1), (1,1), (-1,1) → (0,0) .. (0,1).
  static constexpr std::array<float, 4> kS{0.0f, 1.0f, 1.0f, 0.0f};
  static constexpr std::array<float, 4> kT{0.0f, 0.0f, 1.0f, 1.0f};
  const auto affine = [&](std::size_t a, std::size_t b, std::size_t c, SpanAffine& f) {
    const float det = (q.x[b] - q.x[a]) * (q.y[c] - q.y[a]) - (q.x[c] - q.x[a]) * (q.y[b] - q.y[a]);
    if (!(std::abs(det) > 1e-9f)) return false;
    const auto grad = [&](const std::array<float, 4>& p, float& ddx, float& ddy) {
      ddx = ((p[b] - p[a]) * (q.y[c] - q.y[a]) - (p[c] - p[a]) * (q.y[b] - q.y[a])) / det;
      ddy = ((p[c] - p[a]) * (q.x[b] - q.x[a]) - (p[b] - p[a]) * (q.x[c] - q.x[a])) / det;
    };
    grad(kS, f.dsdx, f.dsdy);
    grad(kT, f.dtdx, f.dtdy);
    f.s0 = kS[a];
    f.t0 = kT[a];
    f.ax = q.x[a];
    f.ay = q.y[a];
    return true;
  };
  SpanAffine lower;
  SpanAffine upper;
  const bool lowerOk = affine(0, 1, 2, lower);
  const bool upperOk = affine(0, 2, 3, upper);
  out.lower = lowerOk ? lower : upper;
  out.upper = upperOk ? upper : lower;
  // The diagonal 0 → 2 splits the quad: the side of corner 1 uses the lower triangle.
  out.dA = -(q.y[2] - q.y[0]);
  out.dB = q.x[2] - q.x[0];
  out.dC = -(out.dA * q.x[0] + out.dB * q.y[0]);
  out.side1 = out.dA * q.x[1] + out.dB * q.y[1] + out.dC;
  out.perspective = mapping == QuadMapping::Planar && projectiveMap(q, out.projective);
  return true;
}

std::array<float, 2> quadParameters(const SpanQuad& q, float px, float py) noexcept {
  if (q.perspective) {
    const SpanProjective& h = q.projective;
    const float dx = px - h.ax;
    const float dy = py - h.ay;
    const float w = h.wx * dx + h.wy * dy + 1.0f;
    return {(h.sx * dx + h.sy * dy) / w, (h.tx * dx + h.ty * dy) / w};
  }
  const SpanAffine& f = (q.dA * px + q.dB * py + q.dC) * q.side1 >= 0.0f ? q.lower : q.upper;
  return {f.s0 + f.dsdx * (px - f.ax) + f.dsdy * (py - f.ay),
          f.t0 + f.dtdx * (px - f.ax) + f.dtdy * (py - f.ay)};
}

RowSpan edgeSpan(const SpanQuad& q, float py, std::uint32_t first, std::uint32_t last) noexcept {
  float lo = static_cast<float>(first);
  float hi = static_cast<float>(last);
  float innerLo = lo;
  float innerHi = hi;
  for (const auto& e : q.edge) {
    const float rest = e[1] * py + e[2];
    if (e[0] == 0.0f) {
      // (0·px + b·py) + c is exactly rest: the whole row is in, or out.
      if (!(rest >= 0.0f)) return {first, first, first, first};
      continue;
    }
    const float cross = -rest / e[0];  // the edge's x at this row
    // The exact test's rounding, in pixels: a few ulps of its largest term, over |a|.
    const float scale = std::abs(e[0]) * std::max(hi, 1.0f) + std::abs(e[1] * py) + std::abs(e[2]);
    const float margin = 2.0f + scale * 0x1p-20f / std::abs(e[0]);
    if (e[0] > 0.0f) {  // inside for px >= cross
      lo = std::max(lo, cross - 1.5f);
      innerLo = std::max(innerLo, cross + margin);
    } else {  // inside for px <= cross
      hi = std::min(hi, cross + 1.5f);
      innerHi = std::min(innerHi, cross - margin);
    }
  }
  if (!(lo < hi)) return {first, first, first, first};  // empty, or NaN
  // Pixel x is centred at x + 0.5.
  const float from = std::max(static_cast<float>(first), std::floor(lo - 0.5f));
  const float to = std::max(from, std::min(static_cast<float>(last), std::ceil(hi - 0.5f) + 1.0f));
  RowSpan span{static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(to), 0, 0};
  span.innerFirst = span.innerLast = span.first;
  if (innerLo < innerHi) {
    const float a = std::clamp(std::ceil(innerLo - 0.5f), from, to);
    const float b = std::clamp(std::floor(innerHi - 0.5f) + 1.0f, a, to);
    span.innerFirst = static_cast<std::uint32_t>(a);
    span.innerLast = static_cast<std::uint32_t>(b);
  }
  return span;
}

void rasterizeSpanScalar(const SpanQuad& q, float py, RowSpan span, std::array<float, 4>* row,
                         const float* depthRow) noexcept {
  for (std::uint32_t x = span.first; x < span.last; ++x) {
    const float px = static_cast<float>(x) + 0.5f;
    if (x < span.innerFirst || x >= span.innerLast) {
      bool inside = true;
      for (const auto& e : q.edge)
        inside = inside && e[0] * px + e[1] * py + e[2] >= 0.0f;
      if (!inside) continue;
    }
    // Soft particles: how much of the quad shows in front of the scene.
    const float fade =
        q.invSoft == 0.0f ? 1.0f : std::clamp((depthRow[x] - q.depth) * q.invSoft, 0.0f, 1.0f);
    if (!(fade > 0.0f)) continue;
    const auto [su, tv] = quadParameters(q, px, py);
    const float s = std::clamp(su, 0.0f, 1.0f);
    const float t = std::clamp(tv, 0.0f, 1.0f);
    // Image rows run top-down; the billboard's t runs bottom-up.
    F4 texel = sample(q, q.ua + s * q.du, q.va + (1.0f - t) * q.dv);
    if (q.frameBlend > 0.0f) {
      const F4 other = sample(q, q.ub + s * q.du, q.vb + (1.0f - t) * q.dv);
      texel += (other - texel) * q.frameBlend;
    }
    if (q.corners != nullptr) {  // a lit sprite: its colour across the quad
      SpanQuad lit = q;
      lit.color = cornerColorAt(*q.corners, s, t);
      blendPixel(lit, row[x], texel, fade);
      continue;
    }
    blendPixel(q, row[x], texel, fade);
  }
}

void rasterizeQuad(const SpanQuad& q, const ScreenQuad& bounds, std::uint32_t y0, std::uint32_t y1,
                   std::uint32_t width, std::array<float, 4>* image, const float* sceneDepth,
                   RasterSpanFn kernel) noexcept {
  const auto ya =
      static_cast<std::uint32_t>(std::max(static_cast<float>(y0), std::floor(bounds.minY)));
  const auto yb =
      static_cast<std::uint32_t>(std::min(static_cast<float>(y1), std::ceil(bounds.maxY) + 1.0f));
  const auto xa = static_cast<std::uint32_t>(std::max(0.0f, std::floor(bounds.minX)));
  const auto xb = static_cast<std::uint32_t>(
      std::min(static_cast<float>(width), std::ceil(bounds.maxX) + 1.0f));
  for (std::uint32_t y = ya; y < yb; ++y) {
    const float py = static_cast<float>(y) + 0.5f;
    const RowSpan span = edgeSpan(q, py, xa, xb);
    if (span.first == span.last) continue;
    const std::size_t at = std::size_t{y} * width;
    kernel(q, py, span, image + at, q.invSoft == 0.0f ? nullptr : sceneDepth + at);
  }
}

void blendCellCentre(const SpanQuad& q, std::array<float, 4>& dst, float coverage) noexcept {
  blendPixel(q, dst, sample(q, q.ua + 0.5f * q.du, q.va + 0.5f * q.dv), coverage);
}

void rasterizeSpan4(const SpanQuad& q, float py, RowSpan span, std::array<float, 4>* row,
                    const float* depthRow) noexcept {
  rasterizeSpanLanes<F4, BlendEachLane>(q, py, span, row, depthRow);
}

#if !MOTE_RASTER_AVX2
// No 8-lane build here: the 4-lane loop stands in (rasterAvx2Available() is false).
void rasterizeSpan8(const SpanQuad& q, float py, RowSpan span, std::array<float, 4>* row,
                    const float* depthRow) noexcept {
  rasterizeSpan4(q, py, span, row, depthRow);
}
#endif

bool rasterAvx2Available() noexcept {
#if MOTE_RASTER_AVX2
  return cpuFeatures().avx2;  // the build's -mavx2 file, on a CPU that runs it
#else
  return false;
#endif
}

RasterSpanFn rasterSpanKernel() noexcept {
  return rasterAvx2Available() ? rasterizeSpan8 : rasterizeSpan4;
}

}  // namespace mote::render
