// SPDX-License-Identifier: MIT
// The facing-quad fast path (facing_quads.h): billboardCorners() and projectCorner() for four
// particles at a time.
#include "facing_quads.h"

#include <mote/render/billboard.h>

#include <glm/vec4.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstring>

namespace mote::render {
namespace {

// GCC/clang vector extensions: lane by lane the same IEEE operations as scalar floats (fp
// contraction is off project-wide), so each lane is bit-identical to the scalar formulation.
using F4 = float __attribute__((vector_size(16)));
using I4 = std::int32_t __attribute__((vector_size(16)));

// Lanes [i, i + 4) of p, the lanes at or past n zero.
F4 load4(const float* p, std::uint32_t i, std::uint32_t n) {
  F4 r{};
  if (i + 4 <= n) {
    std::memcpy(&r, p + i, sizeof r);
    return r;
  }
  for (std::uint32_t k = 0; i + k < n; ++k)
    r[k] = p[i + k];
  return r;
}

void store4(float* p, F4 v) {
  std::memcpy(p, &v, sizeof v);
}

// std::isfinite per lane (the exponent not all ones), as a lane mask.
I4 finite4(F4 v) {
  const auto exponent = std::bit_cast<I4>(v) & 0x7f800000;
  return exponent != 0x7f800000;
}

// One row of viewProjection, each element in every lane (locals: the compiler need not reload
// them around the block's stores).
struct Row {
  F4 m0, m1, m2, m3;
};

Row row(const glm::mat4& m, int r) {
  return {F4{} + m[0][r], F4{} + m[1][r], F4{} + m[2][r], F4{} + m[3][r]};
}

// Row r of viewProjection · (x, y, z, 1) in glm's order: (m0·x + m1·y) + (m2·z + m3·1).
F4 clipRow(const Row& m, F4 x, F4 y, F4 z) {
  return (m.m0 * x + m.m1 * y) + (m.m2 * z + m.m3);
}

F4 min4(F4 a, F4 b) {
  return a < b ? a : b;
}

F4 max4(F4 a, F4 b) {
  return a < b ? b : a;
}

// Rows a, b, c, d (lane k: particle k) to columns: particle k's (a[k], b[k], c[k], d[k]).
std::array<F4, 4> transpose(F4 a, F4 b, F4 c, F4 d) {
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

}  // namespace

bool boundOnScreen(ScreenQuad& quad, float width, float height) noexcept {
  quad.minX = std::min({quad.x[0], quad.x[1], quad.x[2], quad.x[3]});
  quad.maxX = std::max({quad.x[0], quad.x[1], quad.x[2], quad.x[3]});
  quad.minY = std::min({quad.y[0], quad.y[1], quad.y[2], quad.y[3]});
  quad.maxY = std::max({quad.y[0], quad.y[1], quad.y[2], quad.y[3]});
  return !(quad.maxX < 0.0f || quad.minX >= width || quad.maxY < 0.0f || quad.minY >= height);
}

ScreenPoint projectCorner(const glm::mat4& viewProjection, glm::vec3 p, float width, float height,
                          float minW) noexcept {
  const glm::vec4 clip = viewProjection * glm::vec4(p, 1.0f);
  ScreenPoint s;
  s.w = clip.w;
  s.ok = clip.w > minW && std::isfinite(clip.x) && std::isfinite(clip.y);
  s.x = (clip.x / clip.w * 0.5f + 0.5f) * width;
  s.y = (0.5f - clip.y / clip.w * 0.5f) * height;
  return s;
}

void projectFacingBlock(const FacingSetup& setup, const float* px, const float* py, const float* pz,
                        const float* sizeX, const float* sizeY, std::uint32_t n,
                        FacingBlock& out) noexcept {
  const Row rowX = row(setup.viewProjection, 0);
  const Row rowY = row(setup.viewProjection, 1);
  const Row rowW = row(setup.viewProjection, 3);
  const F4 half = F4{} + 0.5f;
  const F4 minW = F4{} + setup.minW;
  const F4 width = F4{} + setup.width;
  const F4 height = F4{} + setup.height;
  const glm::vec3 right = setup.right;
  const glm::vec3 up = setup.up;
  for (std::uint32_t i = 0; i < n; i += 4) {
    const F4 x = load4(px, i, n);
    const F4 y = load4(py, i, n);
    const F4 z = load4(pz, i, n);
    // particleBasis: column 0 = right · halfSize.x, column 1 = up · (halfSize.y · 1).
    const F4 hx = sizeX != nullptr ? load4(sizeX, i, n) * 0.5f : half;
    const F4 hy = sizeY != nullptr ? load4(sizeY, i, n) * 0.5f : half;
    const F4 rx = right.x * hx;
    const F4 ry = right.y * hx;
    const F4 rz = right.z * hx;
    const F4 ux = up.x * hy;
    const F4 uy = up.y * hy;
    const F4 uz = up.z * hy;
    // billboardCorners' offsets basis[0]·sx + basis[1]·sy for the signs (−,−), (+,−), (+,+),
    // (−,+) are −S, D, S, −D with S = r + u, D = r − u: IEEE rounding is symmetric, so
    // (−r) + (−u) = −(r + u) and (−r) + u = −(r − u) exactly, but for the sign of a zero sum —
    // which no screen coordinate can show (a zero clip x or y lands on 0.5 · size either way).
    const std::array<F4, 3> sum{rx + ux, ry + uy, rz + uz};
    const std::array<F4, 3> diff{rx - ux, ry - uy, rz - uz};
    std::array<F4, 4> screenX;
    std::array<F4, 4> screenY;
    I4 ok = ~I4{};
    for (std::size_t c = 0; c < 4; ++c) {
      const std::array<F4, 3>& offset = c % 2 == 0 ? sum : diff;
      const bool negative = c == 0 || c == 3;
      const F4 cx = negative ? x - offset[0] : x + offset[0];
      const F4 cy = negative ? y - offset[1] : y + offset[1];
      const F4 cz = negative ? z - offset[2] : z + offset[2];
      const F4 clipX = clipRow(rowX, cx, cy, cz);
      const F4 clipY = clipRow(rowY, cx, cy, cz);
      const F4 clipW = clipRow(rowW, cx, cy, cz);
      ok &= (clipW > minW) & finite4(clipX) & finite4(clipY);
      screenX[c] = (clipX / clipW * 0.5f + 0.5f) * width;
      screenY[c] = (0.5f - clipY / clipW * 0.5f) * height;
    }
    // Where every corner projects, no coordinate is NaN or −0 (see projectCorner: q · 0.5 + 0.5
    // and 0.5 − q are never −0), so lane-wise min and max equal std::min / std::max.
    const F4 minX = min4(min4(screenX[0], screenX[1]), min4(screenX[2], screenX[3]));
    const F4 maxX = max4(max4(screenX[0], screenX[1]), max4(screenX[2], screenX[3]));
    const F4 minY = min4(min4(screenY[0], screenY[1]), min4(screenY[2], screenY[3]));
    const F4 maxY = max4(max4(screenY[0], screenY[1]), max4(screenY[2], screenY[3]));
    ok &= ~((maxX < 0.0f) | (minX >= width) | (maxY < 0.0f) | (minY >= height));
    const std::array<F4, 4> cornersX = transpose(screenX[0], screenX[1], screenX[2], screenX[3]);
    const std::array<F4, 4> cornersY = transpose(screenY[0], screenY[1], screenY[2], screenY[3]);
    const std::array<F4, 4> bounds = transpose(minX, maxX, minY, maxY);
    for (std::uint32_t k = 0; k < 4; ++k) {
      ScreenQuad& quad = out.quads[i + k];
      store4(quad.x.data(), cornersX[k]);
      store4(quad.y.data(), cornersY[k]);
      store4(&quad.minX, bounds[k]);
    }
    const I4 sized = (hx > 0.0f) & (hy > 0.0f);
    store4(out.centerW.data() + i, clipRow(rowW, x, y, z));
    std::memcpy(out.sized.data() + i, &sized, sizeof sized);
    std::memcpy(out.visible.data() + i, &ok, sizeof ok);
  }
}

}  // namespace mote::render
