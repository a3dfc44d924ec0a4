// SPDX-License-Identifier: MIT
// The sprite layer's draw submission (docs/rendering.md), for SpriteRenderer's frames and
// ParticleRenderer's alike: the frame's quads binned to bands of rows, the bands cleared (with the
// 3D ground grid where asked) and rasterized in parallel in draw-key order, and the sRGB resolve.
#include "raster_kernel.h"
#include "sprite_renderer_impl.h"

#include <mote/render/depth_key.h>
#include <mote/render/frame_resolve.h>

#include <glm/geometric.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace mote::render {
namespace {

// The ground grid's arithmetic on one pixel (T = float) or four (T = F4), the same IEEE
// operations in the same order either way, so both give the same bits (F4: lanes.h).
using I4 = std::int32_t __attribute__((vector_size(16)));

float laneAbs(float x) {
  return std::fabs(x);
}
F4 laneAbs(F4 x) {
  return std::bit_cast<F4>(std::bit_cast<I4>(x) & 0x7FFFFFFF);
}
float laneSqrt(float x) {
  return std::sqrt(x);
}
F4 laneSqrt(F4 x) {
#if defined(__SSE__)
  return __builtin_ia32_sqrtps(x);  // IEEE square root, as std::sqrt
#else
  for (int k = 0; k < 4; ++k)
    x[k] = std::sqrt(x[k]);
  return x;
#endif
}

// std::round (half away from zero) without the C library's call, exact for every float (checked
// against std::round for all 2^32): below 2^23 the truncation and x − trunc(x) are exact; from
// there on every float is an integer.
template <class T>
T roundHalfAway(T x) {
  if constexpr (std::is_same_v<T, float>) {
    if (!(std::fabs(x) < 8388608.0f)) return x;  // an integer, an infinity or NaN
    const float t = static_cast<float>(static_cast<std::int32_t>(x));
    const float r = std::fabs(x - t) >= 0.5f ? t + std::copysign(1.0f, x) : t;
    return std::copysign(r, x);
  } else {
    const I4 sign = std::bit_cast<I4>(x) & static_cast<std::int32_t>(0x80000000u);
    const F4 t = __builtin_convertvector(__builtin_convertvector(x, I4), F4);
    const F4 one = std::bit_cast<F4>(std::bit_cast<I4>(F4{} + 1.0f) | sign);
    const F4 r = laneAbs(x - t) >= 0.5f ? t + one : t;
    const F4 signedR = std::bit_cast<F4>((std::bit_cast<I4>(r) & 0x7FFFFFFF) | sign);
    return laneAbs(x) < 8388608.0f ? signedR : x;
  }
}

// What the ground grid needs of a frame: the camera's frame and the background.
struct GroundView {
  glm::vec3 position;
  glm::vec3 forward;
  glm::vec3 right;
  bool perspective = true;
  float halfWidth = 0.0f;  // the camera's half extents (tan of the half field of view, or ortho)
  std::array<float, 4> background{};
};

// The grid on y = 0 at pixels whose NDC x is `ndcX`, on a row whose up term (camera.up · ndcY ·
// halfHeight) is `upTerm`: the view ray through each pixel centre, lines every metre. Returns
// where the ray meets the ground in front of the eye; there `depth` is the ground point's view
// depth and `rgb` the colour.
template <class T>
auto groundLanes(const GroundView& g, glm::vec3 upTerm, T ndcX, T& depth, std::array<T, 3>& rgb) {
  const T s = ndcX * g.halfWidth;
  // glm: right · s + upTerm, componentwise.
  const T sx = g.right.x * s + upTerm.x;
  const T sy = g.right.y * s + upTerm.y;
  const T sz = g.right.z * s + upTerm.z;
  const T zero = T{} + 0.0f;
  const T ox = g.perspective ? zero + g.position.x : g.position.x + sx;
  const T oy = g.perspective ? zero + g.position.y : g.position.y + sy;
  const T oz = g.perspective ? zero + g.position.z : g.position.z + sz;
  const T dx = g.perspective ? g.forward.x + sx : zero + g.forward.x;
  const T dy = g.perspective ? g.forward.y + sy : zero + g.forward.y;
  const T dz = g.perspective ? g.forward.z + sz : zero + g.forward.z;
  const auto downward = dy < -1e-4f;
  const T t = -oy / dy;
  const auto hit = downward & (t > 0.0f);
  // dir is forward plus a sideways part (perspective) or forward (orthographic): t is the
  // ground point's view depth either way.
  depth = t;
  const T gx = ox + dx * t;
  const T gz = oz + dz * t;
  const T dist = t * laneSqrt(dx * dx + dy * dy + dz * dz);  // glm::length
  // Line width grows with distance (a pixel's footprint), fading out far away. std::max(a, b)
  // is a < b ? b : a; std::clamp(v, 0, 1) is v < 0 ? 0 : (1 < v ? 1 : v).
  const T scaled = dist * 0.004f;
  const T footprint = 0.02f < scaled ? scaled : zero + 0.02f;
  const auto unit = [&](T v) {
    const T low = v < 0.0f ? zero : v;
    return 1.0f < v ? zero + 1.0f : low;
  };
  const T cx = unit(1.0f - laneAbs(gx - roundHalfAway(gx)) / footprint);
  const T cz = unit(1.0f - laneAbs(gz - roundHalfAway(gz)) / footprint);
  const T line = cx < cz ? cz : cx;
  const T fade = unit(1.0f - dist / 40.0f);
  const T base = 0.02f * fade;
  const T ink = 0.035f * line * fade;
  rgb = {g.background[0] + base + ink, g.background[1] + base + ink,
         g.background[2] + base * 1.2f + ink};
  return hit;
}

// The ground grid over one row of `w` pixels at `upTerm` (as in groundLanes), where it meets the
// ground: `row`'s colours and `depthRow`'s scene depths. Four pixels a step, then one at a time.
void groundRow(const GroundView& g, glm::vec3 upTerm, std::uint32_t w, std::array<float, 4>* row,
               float* depthRow) {
  const float width = static_cast<float>(w);
  std::uint32_t x = 0;
  for (; x + 4 <= w; x += 4) {  // four pixels a step
    const F4 xs = F4{0.0f, 1.0f, 2.0f, 3.0f} + static_cast<float>(x);
    F4 depth;
    std::array<F4, 3> rgb;
    const I4 hit = groundLanes(g, upTerm, (xs + 0.5f) / width * 2.0f - 1.0f, depth, rgb);
    if ((hit[0] & hit[1] & hit[2] & hit[3]) != 0) {  // all four: the pixels by a transpose
      const F4 one = F4{} + 1.0f;
      const F4 rg01 = __builtin_shufflevector(rgb[0], rgb[1], 0, 4, 1, 5);
      const F4 rg23 = __builtin_shufflevector(rgb[0], rgb[1], 2, 6, 3, 7);
      const F4 b01 = __builtin_shufflevector(rgb[2], one, 0, 4, 1, 5);
      const F4 b23 = __builtin_shufflevector(rgb[2], one, 2, 6, 3, 7);
      const std::array<F4, 4> pixels{__builtin_shufflevector(rg01, b01, 0, 1, 4, 5),
                                     __builtin_shufflevector(rg01, b01, 2, 3, 6, 7),
                                     __builtin_shufflevector(rg23, b23, 0, 1, 4, 5),
                                     __builtin_shufflevector(rg23, b23, 2, 3, 6, 7)};
      std::memcpy(row + x, pixels.data(), sizeof pixels);
      std::memcpy(depthRow + x, &depth, sizeof depth);
      continue;
    }
    for (std::uint32_t k = 0; k < 4; ++k) {
      if (hit[k] == 0) continue;
      depthRow[x + k] = depth[k];
      row[x + k] = {rgb[0][k], rgb[1][k], rgb[2][k], 1.0f};
    }
  }
  for (; x < w; ++x) {
    float depth;
    std::array<float, 3> rgb;
    if (!groundLanes(g, upTerm, (static_cast<float>(x) + 0.5f) / width * 2.0f - 1.0f, depth, rgb))
      continue;
    depthRow[x] = depth;
    row[x] = {rgb[0], rgb[1], rgb[2], 1.0f};
  }
}

// What the span loop needs of quad `q` drawn in style `st` from texture `tex`, but its edges
// (setupSpanQuad sets those).
SpanQuad spanQuadOf(const Quad& q, const QuadStyle& st, const Texture& tex) {
  SpanQuad sq;
  sq.texels = tex.texels.data();
  sq.width = tex.width;
  sq.height = tex.height;
  sq.color = q.color;
  sq.cutout = st.blend == Blend::Cutout;
  sq.cutoff = st.cutoff;
  sq.depth = st.depth;
  sq.invSoft = st.invSoft;
  sq.ua = st.ua;
  sq.va = st.va;
  sq.ub = st.ub;
  sq.vb = st.vb;
  sq.du = st.du;
  sq.dv = st.dv;
  sq.frameBlend = st.frameBlend;
  return sq;
}

}  // namespace

void SpriteRenderer::Impl::clearBand(std::uint32_t y0, std::uint32_t y1) {
  const std::uint32_t w = options.viewport.width;
  const std::array<float, 4> bg{options.background[0], options.background[1], options.background[2],
                                1.0f};
  GroundView g;
  g.position = camera.position;
  g.forward = camera.forward;
  g.right = camera.right;
  g.perspective = camera.projection == Projection::Perspective;
  g.halfWidth = camera.halfWidthExtent();  // tan of the half field of view: once
  g.background = bg;
  const float halfHeight = camera.halfHeightExtent();
  for (std::uint32_t y = y0; y < y1; ++y) {
    std::array<float, 4>* row = accum.data() + std::size_t{y} * w;
    std::fill(row, row + w, bg);
    if (meshFrame) {
      float* meshRow = meshDepth.data() + std::size_t{y} * w;
      std::fill(meshRow, meshRow + w, std::numeric_limits<float>::infinity());
      if (!drawGround) {
        float* depthRow = sceneDepth.data() + std::size_t{y} * w;
        std::fill(depthRow, depthRow + w, std::numeric_limits<float>::infinity());
      }
    }
    if (oitFrame) {
      std::array<float, 4>* sums = oit.data() + std::size_t{y} * w;
      std::fill(sums, sums + w, std::array<float, 4>{});
      std::array<float, 4>* side = sums + accum.size();
      std::fill(side, side + w, std::array<float, 4>{0.0f, 0.0f, 0.0f, 1.0f});
    }
    if (!drawGround) continue;
    float* depthRow = sceneDepth.data() + std::size_t{y} * w;
    std::fill(depthRow, depthRow + w, std::numeric_limits<float>::infinity());
    const float ndcY =
        1.0f - (static_cast<float>(y) + 0.5f) / static_cast<float>(options.viewport.height) * 2.0f;
    const glm::vec3 upTerm = camera.up * (ndcY * halfHeight);
    groundRow(g, upTerm, w, row, depthRow);
  }
}

void SpriteRenderer::Impl::compositeOitBand(std::uint32_t y0, std::uint32_t y1) {
  const std::size_t from = std::size_t{y0} * options.viewport.width;
  const std::size_t count = std::size_t{y1 - y0} * options.viewport.width;
  const std::size_t plane = accum.size();
  compositeOit(std::span(accum).subspan(from, count), std::span(oit).subspan(from, count),
               std::span(oit).subspan(plane + from, count));
}

void SpriteRenderer::Impl::ensureTriangles(std::size_t capacity) {
  if (triangleCapacity >= capacity) return;
  triangles.reserve(capacity);
  triangleCapacity = capacity;
  const std::size_t pixels = accum.size();
  meshDepth.resize(pixels);
  if (sceneDepth.size() != pixels) sceneDepth.resize(pixels);
}

void SpriteRenderer::Impl::rasterizeTriangles(std::uint32_t y0, std::uint32_t y1) {
  const TriangleTarget target{options.viewport.width, accum.data(), sceneDepth.data(),
                              meshDepth.data(), oit.data()};
  for (const ScreenTriangle& t : triangles) {
    if (t.maxY < static_cast<float>(y0) || t.minY >= static_cast<float>(y1)) continue;
    const QuadStyle& st = styles[t.style];
    const Texture& tex = textures[st.texture];
    SpanQuad sq;
    sq.texels = tex.texels.data();
    sq.width = tex.width;
    sq.height = tex.height;
    sq.cutout = st.blend == Blend::Cutout;
    sq.cutoff = st.cutoff;
    if (oitFrame && !sq.cutout) {
      sq.oitPlane = static_cast<std::uint32_t>(accum.size());
      sq.oitAdditive = st.blend == Blend::Additive;
    }
    rasterizeTriangle(t, sq, y0, y1, target);
  }
}

void SpriteRenderer::Impl::rasterizeBand(std::uint32_t y0, std::uint32_t y1) {
  const std::uint32_t w = options.viewport.width;
  // finish() cuts bands at multiples of kBand, so [y0, y1) is one band.
  const std::uint32_t band = y0 / kBand;
  const std::uint32_t from = binned ? bandStart[band] : 0;
  const auto to = binned ? bandStart[band + 1] : static_cast<std::uint32_t>(quads.size());
  const RasterSpanFn kernel = rasterSpanKernel();
  for (std::uint32_t entry = from; entry < to; ++entry) {
    const std::uint32_t index = keys[binned ? bandQuads[entry] : entry].index;
    const Quad& q = quads[index];
    if (q.maxY < static_cast<float>(y0) || q.minY >= static_cast<float>(y1)) continue;
    const QuadStyle& st = styles[quads.style(index)];
    SpanQuad sq = spanQuadOf(q, st, textures[st.texture]);
    // Lit sprites: their colour interpolated from the corners, by the scalar span loop.
    RasterSpanFn quadKernel = kernel;
    if (st.corners != QuadStyle::kNoCorners) {
      sq.corners = &cornerColors[st.corners];
      sq.color = cornerColorAt(*sq.corners, 0.5f, 0.5f);  // what a sub-pixel quad shows
      quadKernel = rasterizeSpanScalar;
    }
    // OIT frames: translucent quads accumulate into the OIT planes (their keys are view-depth
    // keys), cutout ones draw opaque into the frame.
    // Quads depth-tested against the frame's triangles: a step at the triangles' depth.
    const float* depthBuffer = sceneDepth.data();
    if (st.depthTested && sq.invSoft == 0.0f) {
      sq.invSoft = 1e30f;
      depthBuffer = meshDepth.data();
    }
    std::array<float, 4>* target = accum.data();
    if (oitFrame && st.blend != Blend::Cutout) {
      target = oit.data();
      sq.oitPlane = static_cast<std::uint32_t>(accum.size());
      sq.oitAdditive = st.blend == Blend::Additive;
      sq.oitWeight = oitDepthWeight(viewDepthOfKey(keys[binned ? bandQuads[entry] : entry].key));
    }
    // Under a pixel: one sample at the centre, weighted by the quad's area (energy kept).
    const float spanX = q.maxX - q.minX;
    const float spanY = q.maxY - q.minY;
    if (spanX < 1.0f && spanY < 1.0f) {
      const float cx = (q.minX + q.maxX) * 0.5f;
      const float cy = (q.minY + q.maxY) * 0.5f;
      if (cy < static_cast<float>(y0) || cy >= static_cast<float>(y1) || cx < 0.0f ||
          cx >= static_cast<float>(w))
        continue;
      const float area = 0.5f * std::abs((q.x[2] - q.x[0]) * (q.y[3] - q.y[1]) -
                                         (q.x[3] - q.x[1]) * (q.y[2] - q.y[0]));
      const std::size_t at = std::size_t(cy) * w + std::size_t(cx);
      const float fade = sq.invSoft == 0.0f
                             ? 1.0f
                             : std::clamp((depthBuffer[at] - st.depth) * sq.invSoft, 0.0f, 1.0f);
      if (!(fade > 0.0f)) continue;
      blendCellCentre(sq, target[at], std::min(area, 1.0f) * fade);
      continue;
    }
    if (!setupSpanQuad(q, sq, st.mapping)) continue;
    rasterizeQuad(sq, q, y0, y1, w, target, sq.invSoft == 0.0f ? nullptr : depthBuffer, quadKernel);
  }
}

// The quad's bands [first, last] (first > last: none), from its screen bounds.
static std::array<std::uint32_t, 2> bandRange(float minY, float maxY, std::uint32_t height,
                                              std::uint32_t band) {
  if (!(maxY >= 0.0f) || !(minY < static_cast<float>(height))) return {1, 0};
  const auto first = minY <= 0.0f ? 0u : static_cast<std::uint32_t>(minY) / band;
  const auto last =
      static_cast<std::uint32_t>(std::min(maxY, static_cast<float>(height - 1))) / band;
  return {first, last};
}

void SpriteRenderer::Impl::binQuads() {
  const std::uint32_t height = options.viewport.height;
  const std::size_t bands = bandCursor.size();
  std::fill(bandStart.begin(), bandStart.end(), 0u);
  std::size_t total = 0;
  for (std::size_t k = 0; k < quads.size(); ++k) {
    const Quad& q = quads[keys[k].index];
    const auto [first, last] = bandRange(q.minY, q.maxY, height, kBand);
    for (std::uint32_t b = first; b <= last; ++b)
      ++bandStart[b + 1];
    total += last >= first ? last - first + 1 : 0;
  }
  binned = total <= bandQuads.size();
  if (!binned) return;
  for (std::size_t b = 0; b < bands; ++b) {
    bandStart[b + 1] += bandStart[b];
    bandCursor[b] = bandStart[b];
  }
  for (std::size_t k = 0; k < quads.size(); ++k) {
    const Quad& q = quads[keys[k].index];
    const auto [first, last] = bandRange(q.minY, q.maxY, height, kBand);
    for (std::uint32_t b = first; b <= last; ++b)
      bandQuads[bandCursor[b]++] = static_cast<std::uint32_t>(k);
  }
}

Status SpriteRenderer::Impl::finish(Image& out) {
  // Bands of kBand rows, in parallel, each drawing only the quads binned to it.
  binQuads();
  const std::uint32_t height = options.viewport.height;
  parallelFor(*jobs, height, kBand, [&](std::size_t begin, std::size_t end) {
    clearBand(static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end));
    if (meshFrame)
      rasterizeTriangles(static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end));
    rasterizeBand(static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end));
    if (oitFrame)
      compositeOitBand(static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end));
  });
  return resolver->resolve(accum, out, jobs);
}

}  // namespace mote::render
