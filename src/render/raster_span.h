// SPDX-License-Identifier: MIT
// The rasterizer's per-pixel loop (sprite_renderer_raster.cpp draws a quad row by row through
// it): a scalar reference, and the same formulas across 4 lanes (any x86-64) and 8 (AVX2,
// raster_span_avx2.cpp), all three giving the same bits. Private to the renderer and its tests.
#pragma once

#include "screen_quad.h"

#include <array>
#include <cstdint>

namespace mote::render {

/// Where row centre py crosses a convex quad: [first, last) bounds every pixel that can be inside
/// (widened by a pixel and a half each side), and [innerFirst, innerLast) holds pixels inside every
/// edge by a margin far above the rounding of the exact per-pixel test, which that range may skip.
/// Both lie within the [first, last) given to edgeSpan.
struct RowSpan {
  std::uint32_t first = 0, last = 0, innerFirst = 0, innerLast = 0;
};

/// One of a quad's two triangles as an affine map from pixel centre to (s, t):
/// s = s0 + dsdx·(px − ax) + dsdy·(py − ay), likewise t.
struct SpanAffine {
  float s0 = 0.0f, dsdx = 0.0f, dsdy = 0.0f, t0 = 0.0f, dtdx = 0.0f, dtdy = 0.0f, ax = 0.0f,
        ay = 0.0f;
};

/// A quad's projective map from pixel centre to (s, t), for a planar parallelogram (a billboard's
/// card) seen in perspective: with dx = px − ax, dy = py − ay,
/// s = (sx·dx + sy·dy) / (wx·dx + wy·dy + 1), t = (tx·dx + ty·dy) / (the same). Exact where the
/// two triangles' affine maps are not (Heckbert, "Fundamentals of Texture Mapping and Image
/// Warping", 1989, §2.2.3: the square-to-quadrilateral map, inverted).
struct SpanProjective {
  float sx = 0.0f, sy = 0.0f, tx = 0.0f, ty = 0.0f, wx = 0.0f, wy = 0.0f, ax = 0.0f, ay = 0.0f;
};

/// Everything the per-pixel loop needs of one drawn quad: its edges and texture mapping (from
/// setupSpanQuad) and its style (set by the caller).
struct SpanQuad {
  /// Edge functions a·px + b·py + c, oriented so the inside is >= 0.
  std::array<std::array<float, 3>, 4> edge{};
  /// The diagonal 0 → 2 (dA·px + dB·py + dC) splits the quad: where its product with side1 is
  /// >= 0, the lower triangle (corners 0, 1, 2) maps the pixel, else the upper (0, 2, 3).
  SpanAffine lower, upper;
  float dA = 0.0f, dB = 0.0f, dC = 0.0f, side1 = 0.0f;
  /// Set: (s, t) come from `projective` instead of the two triangles' maps.
  bool perspective = false;
  SpanProjective projective;
  // The texture (width × height texels, rows top-down, premultiplied linear RGBA).
  const std::array<float, 4>* texels = nullptr;
  std::uint32_t width = 1, height = 1;
  std::array<float, 4> color{};  ///< premultiplied linear; alpha 0 for additive
  bool cutout = false;           ///< alpha-tested (texel alpha · colour alpha >= cutoff), opaque
  float cutoff = 0.0f;
  // Soft particles: the fade (sceneDepth − depth) · invSoft clamped to [0, 1]; invSoft 0 draws
  // hard.
  float depth = 0.0f, invSoft = 0.0f;
  // Flipbook cells (texture UV origins a and b), the cell size, and the blend weight toward b.
  float ua = 0.0f, va = 0.0f, ub = 0.0f, vb = 0.0f, du = 1.0f, dv = 1.0f, frameBlend = 0.0f;
  /// Weighted blended OIT: 0 blends into the pixel by the equation; otherwise the pixel is an OIT
  /// accumulator (rgb·w, a·w) and the entry oitPlane pixels on holds (additive rgb, revealage),
  /// w = the fragment's alpha · oitWeight, the quad's depth weight (blendPixel).
  std::uint32_t oitPlane = 0;
  float oitWeight = 0.0f;
  bool oitAdditive = false;  ///< adds its colour into the additive sum instead
  /// Lit sprites: the premultiplied colour at each corner (billboard order: (s, t) = (0, 0),
  /// (1, 0), (1, 1), (0, 1)), interpolated bilinearly over (s, t) in place of `color`; null: one
  /// colour. Drawn by the scalar span loop only (rasterizeQuad's caller picks it).
  const std::array<std::array<float, 4>, 4>* corners = nullptr;
};

/// How a quad's texture coordinates follow its corners.
enum class QuadMapping : std::uint8_t {
  Affine,  ///< each of the two triangles affinely (a ribbon's trapezoid segments)
  /// The quad is a planar parallelogram (a billboard card): where perspective foreshortens it
  /// enough that the affine maps would misplace a texel by over a quarter of a pixel, through the
  /// projective map its four corners define; elsewhere affinely (the same bits as Affine).
  Planar,
};

/// Sets quad's edges, texture maps and diagonal in out (its style is left alone); false where
/// the quad has no area (nothing to draw). Pure; O(1). Allocates: never.
bool setupSpanQuad(const ScreenQuad& quad, SpanQuad& out, QuadMapping mapping) noexcept;

/// The (s, t) that q's span loops give pixel centre (px, py), unclamped: the projective map where
/// q.perspective, else the affine map of the triangle holding it. Pure; O(1).
std::array<float, 2> quadParameters(const SpanQuad& q, float px, float py) noexcept;

/// Row centre py against q's edges, within pixel columns [first, last). Pure; O(1).
RowSpan edgeSpan(const SpanQuad& q, float py, std::uint32_t first, std::uint32_t last) noexcept;

/// Samples and blends q's pixels [span.first, span.last) of the row at centre py into row (pixel x
/// at row[x]); depthRow is the scene depth row (read only where q.invSoft != 0). The three give the
/// same bits; the 8-lane one runs only where rasterAvx2Available(). Complexity: O(span length).
/// Allocates: never.
using RasterSpanFn = void (*)(const SpanQuad& q, float py, RowSpan span, std::array<float, 4>* row,
                              const float* depthRow);
void rasterizeSpanScalar(const SpanQuad& q, float py, RowSpan span, std::array<float, 4>* row,
                         const float* depthRow) noexcept;
void rasterizeSpan4(const SpanQuad& q, float py, RowSpan span, std::array<float, 4>* row,
                    const float* depthRow) noexcept;
void rasterizeSpan8(const SpanQuad& q, float py, RowSpan span, std::array<float, 4>* row,
                    const float* depthRow) noexcept;

/// Draws q's pixels in rows [y0, y1) through kernel (the rows and columns its bounds can touch,
/// each row's span from edgeSpan) into a width-pixel-wide image, pixel (x, y) at
/// image[y·width + x]; sceneDepth is laid out likewise (read only where q.invSoft != 0).
/// Complexity: O(pixels in the bounds). Allocates: never.
void rasterizeQuad(const SpanQuad& q, const ScreenQuad& bounds, std::uint32_t y0, std::uint32_t y1,
                   std::uint32_t width, std::array<float, 4>* image, const float* sceneDepth,
                   RasterSpanFn kernel) noexcept;

/// A quad under a pixel: blends its cell's centre texel (standing in for the whole sprite) into
/// dst, weighted by coverage. Pure but for dst; O(1). Allocates: never.
void blendCellCentre(const SpanQuad& q, std::array<float, 4>& dst, float coverage) noexcept;

/// The CPU runs AVX2 and the build has the 8-lane span loop (x86-64, GCC or clang).
bool rasterAvx2Available() noexcept;

/// The fastest of the span loops this CPU runs.
RasterSpanFn rasterSpanKernel() noexcept;

}  // namespace mote::render
