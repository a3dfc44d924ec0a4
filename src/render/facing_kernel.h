// SPDX-License-Identifier: MIT
// The facing-quad kernel (facing_quads.h) as a template over the lane vector: facing_quads.cpp
// instantiates it for 4 lanes (the baseline build), facing_quads_avx2.cpp for 8 lanes under
// -mavx2. Everything here has internal linkage, so the two builds of it never meet at link time
// (an AVX2 copy picked for the baseline caller would fault on older CPUs).
// Private to those two files.
#pragma once

#include "facing_quads.h"

#include <mote/render/billboard.h>

#include <glm/mat4x4.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace mote::render {
namespace {

// GCC/clang vector extensions: lane by lane the same IEEE operations as scalar floats (fp
// contraction is off project-wide), so each lane is bit-identical to the scalar formulation.
using F4 = float __attribute__((vector_size(16)));
using F8 = float __attribute__((vector_size(32)));
template <class V>
using MaskOf = decltype(V{} < V{});
template <class V>
constexpr std::uint32_t kLanesOf = sizeof(V) / sizeof(float);

// Lanes [i, i + lanes) of p, the lanes at or past n zero.
template <class V>
inline V loadLanes(const float* p, std::uint32_t i, std::uint32_t n) {
  V r{};
  if (i + kLanesOf<V> <= n) {
    std::memcpy(&r, p + i, sizeof r);
    return r;
  }
  for (std::uint32_t k = 0; i + k < n; ++k)
    r[k] = p[i + k];
  return r;
}

template <class V>
inline void storeLanes(float* p, V v) {
  std::memcpy(p, &v, sizeof v);
}

// std::isfinite per lane (the exponent not all ones), as a lane mask.
template <class V>
inline MaskOf<V> finiteLanes(V v) {
  const auto exponent = std::bit_cast<MaskOf<V>>(v) & 0x7f800000;
  return exponent != 0x7f800000;
}

template <class V>
inline V minLanes(V a, V b) {
  return a < b ? a : b;
}

template <class V>
inline V maxLanes(V a, V b) {
  return a < b ? b : a;
}

// One row of viewProjection, each element in every lane (locals: the compiler need not reload
// them around the block's stores).
template <class V>
struct Row {
  V m0, m1, m2, m3;
};

template <class V>
inline Row<V> row(const glm::mat4& m, int r) {
  return {V{} + m[0][r], V{} + m[1][r], V{} + m[2][r], V{} + m[3][r]};
}

// Row r of viewProjection · (x, y, z, 1) in glm's order: (m0·x + m1·y) + (m2·z + m3·1).
template <class V>
inline V clipRow(const Row<V>& m, V x, V y, V z) {
  return (m.m0 * x + m.m1 * y) + (m.m2 * z + m.m3);
}

// Rows a, b, c, d (lane k: particle k) to columns: particle k's (a[k], b[k], c[k], d[k]).
inline std::array<F4, 4> transpose(F4 a, F4 b, F4 c, F4 d) {
  const F4 ab0 = __builtin_shufflevector(a, b, 0, 4, 1, 5);
  const F4 ab1 = __builtin_shufflevector(a, b, 2, 6, 3, 7);
  const F4 cd0 = __builtin_shufflevector(c, d, 0, 4, 1, 5);
  const F4 cd1 = __builtin_shufflevector(c, d, 2, 6, 3, 7);
  return {
      __builtin_shufflevector(ab0, cd0, 0, 1, 4, 5), __builtin_shufflevector(ab0, cd0, 2, 3, 6, 7),
      __builtin_shufflevector(ab1, cd1, 0, 1, 4, 5), __builtin_shufflevector(ab1, cd1, 2, 3, 6, 7)};
}

// projectFacingBlock writes the bounds as one 4-float vector.
static_assert(offsetof(ScreenQuad, maxY) == offsetof(ScreenQuad, minX) + 3 * sizeof(float));

// Four particles' quads from 4-lane corner x, y and bounds rows.
inline void storeQuads4(ScreenQuad* quads, const std::array<F4, 4>& x, const std::array<F4, 4>& y,
                        const std::array<F4, 4>& bounds) {
  const std::array<F4, 4> cornersX = transpose(x[0], x[1], x[2], x[3]);
  const std::array<F4, 4> cornersY = transpose(y[0], y[1], y[2], y[3]);
  const std::array<F4, 4> boundsT = transpose(bounds[0], bounds[1], bounds[2], bounds[3]);
  for (std::size_t k = 0; k < 4; ++k) {
    storeLanes(quads[k].x.data(), cornersX[k]);
    storeLanes(quads[k].y.data(), cornersY[k]);
    storeLanes(&quads[k].minX, boundsT[k]);
  }
}

template <class V>
inline void storeQuads(ScreenQuad* quads, const std::array<V, 4>& x, const std::array<V, 4>& y,
                       const std::array<V, 4>& bounds) {
  if constexpr (kLanesOf<V> == 4) {
    storeQuads4(quads, x, y, bounds);
  } else {
    static_assert(kLanesOf<V> == 8);
    const auto half = [](const std::array<V, 4>& rows, bool high) {
      std::array<F4, 4> h;
      for (std::size_t r = 0; r < 4; ++r) {
        h[r] = high ? __builtin_shufflevector(rows[r], rows[r], 4, 5, 6, 7)
                    : __builtin_shufflevector(rows[r], rows[r], 0, 1, 2, 3);
      }
      return h;
    };
    storeQuads4(quads, half(x, false), half(y, false), half(bounds, false));
    storeQuads4(quads + 4, half(x, true), half(y, true), half(bounds, true));
  }
}

// projectFacingBlock on lanes of V (FacingBlock::kSize is a multiple of every lane count).
template <class V>
void projectFacingLanes(const FacingSetup& setup, const float* px, const float* py, const float* pz,
                        const float* sizeX, const float* sizeY, std::uint32_t n,
                        FacingBlock& out) noexcept {
  constexpr std::uint32_t kLanes = kLanesOf<V>;
  static_assert(FacingBlock::kSize % kLanes == 0);
  const Row<V> rowX = row<V>(setup.viewProjection, 0);
  const Row<V> rowY = row<V>(setup.viewProjection, 1);
  const Row<V> rowW = row<V>(setup.viewProjection, 3);
  const V half = V{} + 0.5f;
  const V minW = V{} + setup.minW;
  const V width = V{} + setup.width;
  const V height = V{} + setup.height;
  const glm::vec3 right = setup.right;
  const glm::vec3 up = setup.up;
  for (std::uint32_t i = 0; i < n; i += kLanes) {
    const V x = loadLanes<V>(px, i, n);
    const V y = loadLanes<V>(py, i, n);
    const V z = loadLanes<V>(pz, i, n);
    // particleBasis: column 0 = right · halfSize.x, column 1 = up · (halfSize.y · 1).
    const V hx = sizeX != nullptr ? loadLanes<V>(sizeX, i, n) * 0.5f : half;
    const V hy = sizeY != nullptr ? loadLanes<V>(sizeY, i, n) * 0.5f : half;
    const V rx = right.x * hx;
    const V ry = right.y * hx;
    const V rz = right.z * hx;
    const V ux = up.x * hy;
    const V uy = up.y * hy;
    const V uz = up.z * hy;
    // billboardCorners' offsets basis[0]·sx + basis[1]·sy for the signs (−,−), (+,−), (+,+),
    // (−,+) are −S, D, S, −D with S = r + u, D = r − u: IEEE rounding is symmetric, so
    // (−r) + (−u) = −(r + u) and (−r) + u = −(r − u) exactly, but for the sign of a zero sum —
    // which no screen coordinate can show (a zero clip x or y lands on 0.5 · size either way).
    const std::array<V, 3> sum{rx + ux, ry + uy, rz + uz};
    const std::array<V, 3> diff{rx - ux, ry - uy, rz - uz};
    std::array<V, 4> screenX;
    std::array<V, 4> screenY;
    MaskOf<V> ok = ~MaskOf<V>{};
    for (std::size_t c = 0; c < 4; ++c) {
      const std::array<V, 3>& offset = c % 2 == 0 ? sum : diff;
      const bool negative = c == 0 || c == 3;
      const V cx = negative ? x - offset[0] : x + offset[0];
      const V cy = negative ? y - offset[1] : y + offset[1];
      const V cz = negative ? z - offset[2] : z + offset[2];
      const V clipX = clipRow(rowX, cx, cy, cz);
      const V clipY = clipRow(rowY, cx, cy, cz);
      const V clipW = clipRow(rowW, cx, cy, cz);
      ok &= (clipW > minW) & finiteLanes(clipX) & finiteLanes(clipY);
      screenX[c] = (clipX / clipW * 0.5f + 0.5f) * width;
      screenY[c] = (0.5f - clipY / clipW * 0.5f) * height;
    }
    // Where every corner projects, no coordinate is NaN or −0 (see projectCorner: q · 0.5 + 0.5
    // and 0.5 − q are never −0), so lane-wise min and max equal std::min / std::max.
    const V minX = minLanes(minLanes(screenX[0], screenX[1]), minLanes(screenX[2], screenX[3]));
    const V maxX = maxLanes(maxLanes(screenX[0], screenX[1]), maxLanes(screenX[2], screenX[3]));
    const V minY = minLanes(minLanes(screenY[0], screenY[1]), minLanes(screenY[2], screenY[3]));
    const V maxY = maxLanes(maxLanes(screenY[0], screenY[1]), maxLanes(screenY[2], screenY[3]));
    ok &= ~((maxX < 0.0f) | (minX >= width) | (maxY < 0.0f) | (minY >= height));
    storeQuads(out.quads.data() + i, screenX, screenY, {minX, maxX, minY, maxY});
    const MaskOf<V> sized = (hx > 0.0f) & (hy > 0.0f);
    storeLanes(out.centerW.data() + i, clipRow(rowW, x, y, z));
    std::memcpy(out.sized.data() + i, &sized, sizeof sized);
    std::memcpy(out.visible.data() + i, &ok, sizeof ok);
  }
}

}  // namespace
}  // namespace mote::render
