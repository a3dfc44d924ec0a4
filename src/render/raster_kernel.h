// SPDX-License-Identifier: MIT
// The span loop (raster_span.h) as a template over the lane vector: raster_span.cpp instantiates
// it for 4 lanes (the baseline build) and holds the scalar reference, raster_span_avx2.cpp
// instantiates it for 8 lanes under -mavx2. Everything here has internal linkage, so the two
// builds of it never meet at link time (an AVX2 copy picked for a baseline caller would fault on
// older CPUs). Private to those files and sprite_renderer_raster.cpp.
#pragma once

#include "lanes.h"  // F4, F8, MaskOf, kLanesOf
#include "raster_span.h"

#include <mote/render/depth_key.h>  // oitDepthWeight

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace mote::render {
namespace {

// F4 also holds one RGBA texel or pixel.
inline F4 loadF4(const std::array<float, 4>& v) {
  F4 r;
  std::memcpy(&r, v.data(), sizeof r);
  return r;
}

inline void storeF4(std::array<float, 4>& v, F4 r) {
  std::memcpy(v.data(), &r, sizeof r);
}

// A texel's bilinear footprint: the four texels' byte offsets into the texture (16 bytes a texel,
// rows top-down; a texture holds under 2^26 texels, kMaxImageBytes / 4) and the weights toward
// x + 1 and y + 1.
struct Footprint {
  std::uint32_t o00, o01, o10, o11;
  float ax, ay;
};

inline F4 loadTexel(const std::array<float, 4>* texels, std::uint32_t offset) {
  F4 r;
  std::memcpy(&r, reinterpret_cast<const unsigned char*>(texels) + offset, sizeof r);
  return r;
}

// Per channel: top = a + (b − a)·ax, bottom = c + (d − c)·ax, top + (bottom − top)·ay.
inline F4 bilinear(const std::array<float, 4>* texels, const Footprint& f) {
  const F4 a = loadTexel(texels, f.o00);
  const F4 b = loadTexel(texels, f.o01);
  const F4 c = loadTexel(texels, f.o10);
  const F4 d = loadTexel(texels, f.o11);
  const F4 top = a + (b - a) * f.ax;
  const F4 bottom = c + (d - c) * f.ax;
  return top + (bottom - top) * f.ay;
}

// Texture coordinate (u, v) → footprint, clamped to the edge texels.
inline Footprint footprint(const SpanQuad& q, float u, float v) {
  // Coordinates beyond [−1, size] sample the edge texels, as clamping them here does: the clamp
  // keeps the float → int conversions below in range for any input.
  const float x =
      std::clamp(u * static_cast<float>(q.width) - 0.5f, -1.0f, static_cast<float>(q.width));
  const float y =
      std::clamp(v * static_cast<float>(q.height) - 0.5f, -1.0f, static_cast<float>(q.height));
  // floor() by truncation and a correction: exact in this range, and no libm-style sequence.
  const auto floorToInt = [](float f) {
    const auto i = static_cast<std::int32_t>(f);
    return i - static_cast<std::int32_t>(static_cast<float>(i) > f);
  };
  const std::int32_t ix = floorToInt(x);
  const std::int32_t iy = floorToInt(y);
  const auto clampI = [](std::int32_t i, std::uint32_t size) {
    return static_cast<std::uint32_t>(std::clamp(i, 0, static_cast<std::int32_t>(size) - 1));
  };
  const std::uint32_t x0 = clampI(ix, q.width);
  const std::uint32_t x1 = clampI(ix + 1, q.width);
  const std::uint32_t row0 = clampI(iy, q.height) * q.width;
  const std::uint32_t row1 = clampI(iy + 1, q.height) * q.width;
  return {(row0 + x0) * 16, (row0 + x1) * 16,           (row1 + x0) * 16,
          (row1 + x1) * 16, x - static_cast<float>(ix), y - static_cast<float>(iy)};
}

// Bilinear, clamped to the edge texels.
inline F4 sample(const SpanQuad& q, float u, float v) {
  return bilinear(q.texels, footprint(q, u, v));
}

// The bilinear mix of four corner colours (billboard order) at quad parameters (s, t).
inline std::array<float, 4> cornerColorAt(const std::array<std::array<float, 4>, 4>& c, float s,
                                          float t) {
  std::array<float, 4> r;
  for (std::size_t k = 0; k < 4; ++k) {
    const float bottom = c[0][k] + (c[1][k] - c[0][k]) * s;
    const float top = c[3][k] + (c[2][k] - c[3][k]) * s;
    r[k] = bottom + (top - bottom) * t;
  }
  return r;
}

// oitDepthWeight: <mote/render/depth_key.h>.

// Weighted blended OIT (McGuire and Bavoil 2013) for a fragment of premultiplied colour `src`
// (coverage applied): the accumulator dst gains (rgb, a) · a · weight and the revealage (lane 3 of
// the plane entry beside it) is multiplied by 1 − a; an additive fragment adds its rgb to the
// plane's additive sum instead.
inline void blendOit(const SpanQuad& q, std::array<float, 4>& dst, F4 src) {
  std::array<float, 4>& side = (&dst)[q.oitPlane];
  if (q.oitAdditive) {
    side[0] += src[0];
    side[1] += src[1];
    side[2] += src[2];
    return;
  }
  const float a = src[3];
  storeF4(dst, loadF4(dst) + src * (a * q.oitWeight));
  side[3] *= 1.0f - a;
}

// dst.rgb = src.rgb·coverage + dst.rgb·(1 − src.a·coverage), src = texel · colour (cutout: the
// texel's straight colour times the quad's, opaque, or nothing below the cutoff). Lane 3 of the
// accumulator is not read by the resolve. OIT quads accumulate instead (blendOit).
inline void blendPixel(const SpanQuad& q, std::array<float, 4>& dst, F4 texel, float coverage) {
  F4 src = texel * loadF4(q.color);
  if (q.oitPlane != 0) {
    blendOit(q, dst, src * coverage);
    return;
  }
  if (q.cutout) {
    const float a = texel[3] * (q.color[3]);
    if (a < q.cutoff || texel[3] <= 0.0f) return;
    const float inv = 1.0f / texel[3];
    const float alpha = std::max(q.color[3], 1e-6f);
    src = F4{texel[0] * inv * q.color[0] / alpha, texel[1] * inv * q.color[1] / alpha,
             texel[2] * inv * q.color[2] / alpha, 1.0f};
  }
  const float keep = 1.0f - src[3] * coverage;
  storeF4(dst, src * coverage + loadF4(dst) * keep);
}

// std::clamp(v, lo, hi) per lane (NaN passes through, as there).
template <class V>
inline V clampLanes(V v, V lo, V hi) {
  return v < lo ? lo : (hi < v ? hi : v);
}

// std::clamp(i, lo, hi) per integer lane, for lo <= hi: max(min(i, hi), lo), which compiles to
// one min and one max.
template <class I>
inline I clampIndex(I i, I lo, I hi) {
  const I below = i < hi ? i : hi;
  return below > lo ? below : lo;
}

// footprint() on lanes of V, written to lane-indexed arrays.
template <class V>
struct FootprintLanes {
  std::array<std::uint32_t, kLanesOf<V>> o00, o01, o10, o11;
  std::array<float, kLanesOf<V>> ax, ay;

  Footprint operator[](std::size_t k) const {
    return {o00[k], o01[k], o10[k], o11[k], ax[k], ay[k]};
  }
};

// f in every lane (V{} + f would turn −0 into +0).
template <class V>
inline V splat(float f) {
  V v;
  for (std::uint32_t k = 0; k < kLanesOf<V>; ++k)
    v[k] = f;
  return v;
}

// A texture's sizes in every lane, for footprintLanes.
template <class V>
struct TextureLanes {
  V width, height;
  MaskOf<V> lastX, lastY, rowBytes;

  explicit TextureLanes(const SpanQuad& q)
      : width(splat<V>(static_cast<float>(q.width))),
        height(splat<V>(static_cast<float>(q.height))),
        lastX(MaskOf<V>{} + static_cast<std::int32_t>(q.width) - 1),
        lastY(MaskOf<V>{} + static_cast<std::int32_t>(q.height) - 1),
        rowBytes(MaskOf<V>{} + static_cast<std::int32_t>(q.width * 16)) {}
};

// footprint() on lanes of V, written to lane-indexed arrays: the same clamps, floor and weights;
// the offsets (row·width + x)·16 as row·(width·16) + x·16, the same integers.
template <class V>
inline void footprintLanes(const TextureLanes<V>& t, V u, V v, FootprintLanes<V>& out) {
  using I = MaskOf<V>;
  const V x = clampLanes<V>(u * t.width - 0.5f, splat<V>(-1.0f), t.width);
  const V y = clampLanes<V>(v * t.height - 0.5f, splat<V>(-1.0f), t.height);
  // floorToInt: the truncation, minus one where it rounded up (the mask is −1 there).
  I ix = __builtin_convertvector(x, I);
  I iy = __builtin_convertvector(y, I);
  ix += __builtin_convertvector(ix, V) > x;
  iy += __builtin_convertvector(iy, V) > y;
  const V ax = x - __builtin_convertvector(ix, V);
  const V ay = y - __builtin_convertvector(iy, V);
  const I zero{};
  const I x0 = clampIndex(ix, zero, t.lastX) << 4;
  const I x1 = clampIndex(ix + 1, zero, t.lastX) << 4;
  const I row0 = clampIndex(iy, zero, t.lastY) * t.rowBytes;
  const I row1 = clampIndex(iy + 1, zero, t.lastY) * t.rowBytes;
  const I o00 = row0 + x0;
  const I o01 = row0 + x1;
  const I o10 = row1 + x0;
  const I o11 = row1 + x1;
  std::memcpy(out.o00.data(), &o00, sizeof o00);
  std::memcpy(out.o01.data(), &o01, sizeof o01);
  std::memcpy(out.o10.data(), &o10, sizeof o10);
  std::memcpy(out.o11.data(), &o11, sizeof o11);
  std::memcpy(out.ax.data(), &ax, sizeof ax);
  std::memcpy(out.ay.data(), &ay, sizeof ay);
}

// A block of pixels after the addressing stage: each lane's footprints (b: the flipbook's second
// frame, where frameBlend > 0) and soft fade, and which lanes are drawn (bit k: lane k).
template <class V>
struct SpanBlock {
  static constexpr std::uint32_t kAll = (1u << kLanesOf<V>)-1;
  FootprintLanes<V> a, b;
  std::array<float, kLanesOf<V>> fade;
  std::uint32_t live = 0;
};

// Block lane k's pixel: the texel fetches, the bilinear lerps and the blend into dst.
template <bool kBlended, class V>
inline void blendLane(const SpanQuad& q, const SpanBlock<V>& block, std::size_t k,
                      std::array<float, 4>& dst) {
  F4 texel = bilinear(q.texels, block.a[k]);
  if constexpr (kBlended) {
    const F4 other = bilinear(q.texels, block.b[k]);
    texel += (other - texel) * q.frameBlend;
  }
  blendPixel(q, dst, texel, block.fade[k]);
}

// The per-pixel stage one pixel at a time: pixels[k] is lane k's.
struct BlendEachLane {
  template <bool kBlended, bool kSoft, class V>
  [[gnu::always_inline]] static void run(const SpanQuad& q, const SpanBlock<V>& block,
                                         std::array<float, 4>* pixels) {
    for (std::uint32_t live = block.live; live != 0; live &= live - 1) {
      const auto k = static_cast<std::size_t>(__builtin_ctz(live));
      blendLane<kBlended>(q, block, k, pixels[k]);
    }
  }
};

// The span loop across lanes of V for one kind of quad (flipbook blend, soft fade): per block of
// pixels, the addressing (inside test on the edge pixels, soft fade, triangle choice, s and t, the
// texel footprint) lane-wise, then Stage::run's texel fetch, bilinear lerp and blend for the
// drawn pixels. Each lane runs the scalar reference's operations in its order
// (rasterizeSpanScalar), so the bits match.
template <class V, class Stage, bool kBlended, bool kSoft>
void spanLanes(const SpanQuad& quad, float py, RowSpan span, std::array<float, 4>* row,
               const float* depthRow) noexcept {
  using I = MaskOf<V>;
  // A local copy: the stores into row cannot alias it, so its fields stay in registers.
  const SpanQuad q = quad;
  constexpr std::uint32_t kN = kLanesOf<V>;
  I iota{};
  for (std::uint32_t k = 0; k < kN; ++k)
    iota[k] = static_cast<std::int32_t>(k);
  // Per-row terms: b·py is the same product in every pixel's a·px + b·py + c.
  std::array<float, 4> edgeRow;
  for (std::size_t e = 0; e < 4; ++e)
    edgeRow[e] = q.edge[e][1] * py;
  const float diagonalRow = q.dB * py;
  // The projective map's per-row terms: sy·dy, ty·dy and wy·dy, dy = py − ay.
  const float projectiveDy = py - q.projective.ay;
  const std::array<float, 3> projectiveRow{q.projective.sy * projectiveDy,
                                           q.projective.ty * projectiveDy,
                                           q.projective.wy * projectiveDy};
  // The two triangles' maps, each term in every lane.
  const auto lanes = [](const SpanAffine& f) {
    return std::array<V, 8>{splat<V>(f.s0),   splat<V>(f.dsdx), splat<V>(f.dsdy), splat<V>(f.t0),
                            splat<V>(f.dtdx), splat<V>(f.dtdy), splat<V>(f.ax),   splat<V>(f.ay)};
  };
  const std::array<V, 8> lower = lanes(q.lower);
  const std::array<V, 8> upper = lanes(q.upper);
  const TextureLanes<V> texture(q);
  const V zero{};
  const V one = splat<V>(1.0f);
  SpanBlock<V> block;
  for (std::uint32_t x = span.first; x < span.last; x += kN) {
    const I xi = iota + static_cast<std::int32_t>(x);
    const V px = __builtin_convertvector(xi, V) + 0.5f;
    I mask = xi < static_cast<std::int32_t>(span.last);
    if (x < span.innerFirst || x + kN > span.innerLast) {
      I inside = mask;
      for (std::size_t e = 0; e < 4; ++e)
        inside &= q.edge[e][0] * px + edgeRow[e] + q.edge[e][2] >= 0.0f;
      const I inner = (xi >= static_cast<std::int32_t>(span.innerFirst)) &
                      (xi < static_cast<std::int32_t>(span.innerLast));
      mask &= inner | inside;
    }
    V fade = one;
    if constexpr (kSoft) {
      V depth{};
      for (std::uint32_t k = 0; k < kN && x + k < span.last; ++k)
        depth[k] = depthRow[x + k];
      fade = clampLanes<V>((depth - q.depth) * q.invSoft, zero, one);
      mask &= fade > 0.0f;
    }
    block.live = laneBits<V>(mask);
    if (block.live == 0) continue;
    V s, t;
    if (q.perspective) {  // quadParameters' projective map, lane-wise
      const V dx = px - q.projective.ax;
      const V w = q.projective.wx * dx + projectiveRow[2] + 1.0f;
      s = clampLanes<V>((q.projective.sx * dx + projectiveRow[0]) / w, zero, one);
      t = clampLanes<V>((q.projective.tx * dx + projectiveRow[1]) / w, zero, one);
    } else {
      const I lowerSide = (q.dA * px + diagonalRow + q.dC) * q.side1 >= 0.0f;
      std::array<V, 8> f;
      for (std::size_t i = 0; i < 8; ++i)
        f[i] = lowerSide ? lower[i] : upper[i];
      const V dx = px - f[6];
      const V dy = py - f[7];
      s = clampLanes<V>(f[0] + f[1] * dx + f[2] * dy, zero, one);
      t = clampLanes<V>(f[3] + f[4] * dx + f[5] * dy, zero, one);
    }
    // Image rows run top-down; the billboard's t runs bottom-up.
    const V su = s * q.du;
    const V tv = (1.0f - t) * q.dv;
    footprintLanes<V>(texture, q.ua + su, q.va + tv, block.a);
    if constexpr (kBlended) footprintLanes<V>(texture, q.ub + su, q.vb + tv, block.b);
    std::memcpy(block.fade.data(), &fade, sizeof fade);
    Stage::template run<kBlended, kSoft>(q, block, row + x);
  }
}

// spanLanes for q's kind. Stage::run<kBlended, kSoft>(q, block, pixels) draws a block's live
// pixels.
template <class V, class Stage>
void rasterizeSpanLanes(const SpanQuad& q, float py, RowSpan span, std::array<float, 4>* row,
                        const float* depthRow) noexcept {
  const bool blended = q.frameBlend > 0.0f;
  if (q.invSoft != 0.0f) {
    blended ? spanLanes<V, Stage, true, true>(q, py, span, row, depthRow)
            : spanLanes<V, Stage, false, true>(q, py, span, row, depthRow);
  } else {
    blended ? spanLanes<V, Stage, true, false>(q, py, span, row, depthRow)
            : spanLanes<V, Stage, false, false>(q, py, span, row, depthRow);
  }
}

}  // namespace
}  // namespace mote::render
