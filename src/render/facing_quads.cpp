// SPDX-License-Identifier: MIT
// The facing-quad fast path (facing_quads.h): billboardCorners() and projectCorner() for four
// particles at a time.
#include "facing_quads.h"

#include <mote/render/billboard.h>

#include <glm/vec4.hpp>

#include <bit>
#include <cmath>
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

// Row r of viewProjection · (x, y, z, 1) in glm's order: (m0·x + m1·y) + (m2·z + m3·1).
F4 clipRow(const glm::mat4& m, int r, F4 x, F4 y, F4 z) {
  return (m[0][r] * x + m[1][r] * y) + (m[2][r] * z + m[3][r]);
}

}  // namespace

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
  const glm::mat4& m = setup.viewProjection;
  const F4 half = F4{} + 0.5f;
  for (std::uint32_t i = 0; i < n; i += 4) {
    const F4 x = load4(px, i, n);
    const F4 y = load4(py, i, n);
    const F4 z = load4(pz, i, n);
    // particleBasis: column 0 = right · halfSize.x, column 1 = up · (halfSize.y · 1).
    const F4 hx = sizeX != nullptr ? load4(sizeX, i, n) * 0.5f : half;
    const F4 hy = sizeY != nullptr ? load4(sizeY, i, n) * 0.5f : half;
    const F4 rx = setup.right.x * hx;
    const F4 ry = setup.right.y * hx;
    const F4 rz = setup.right.z * hx;
    const F4 ux = setup.up.x * hy;
    const F4 uy = setup.up.y * hy;
    const F4 uz = setup.up.z * hy;
    I4 ok = ~I4{};
    for (std::size_t c = 0; c < 4; ++c) {
      const float sx = kBillboardCornerSigns[c].x;
      const float sy = kBillboardCornerSigns[c].y;
      // billboardCorners: position + (basis[0] · sign.x + basis[1] · sign.y).
      const F4 cx = x + (rx * sx + ux * sy);
      const F4 cy = y + (ry * sx + uy * sy);
      const F4 cz = z + (rz * sx + uz * sy);
      const F4 clipX = clipRow(m, 0, cx, cy, cz);
      const F4 clipY = clipRow(m, 1, cx, cy, cz);
      const F4 clipW = clipRow(m, 3, cx, cy, cz);
      ok &= (clipW > setup.minW) & finite4(clipX) & finite4(clipY);
      store4(out.x[c].data() + i, (clipX / clipW * 0.5f + 0.5f) * setup.width);
      store4(out.y[c].data() + i, (0.5f - clipY / clipW * 0.5f) * setup.height);
    }
    store4(out.centerW.data() + i, clipRow(m, 3, x, y, z));
    std::memcpy(out.ok.data() + i, &ok, sizeof ok);
  }
}

}  // namespace mote::render
