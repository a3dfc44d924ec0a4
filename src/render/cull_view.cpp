// SPDX-License-Identifier: MIT
// CullView and the reference Frustum. Both sphere tests live in this one translation unit, compiled
// with -ffp-contract=off (mote_build_flags), so no FMA can make their roundings differ: that is
// part of the bit-for-bit boundary guarantee documented on Frustum. Keep them out of the header,
// where a consumer's flags would compile them.
#include <mote/render/cull_view.h>

#include <algorithm>
#include <cmath>

namespace mote::render {
namespace {

// Inward unit normal of a perspective side plane through the eye with slope t = tan(half-angle):
// (-1, t)/sqrt(1 + t^2) in (lateral, depth). Computed in double, rounded once to float.
SidePlanePair perspectivePair(double t) {
  const double norm = std::sqrt(1.0 + t * t);
  return {static_cast<float>(1.0 / norm), static_cast<float>(t / norm), 0.0f};
}

// The signed distance of the nearer plane of a mirrored pair; see SidePlanePair.
float pairDistance(const SidePlanePair& pair, float lateral, float z) noexcept {
  return (pair.along * z - pair.across * std::fabs(lateral)) + pair.offset;
}

// A sphere counts as touching when it reaches a subpixel radius within this relative margin; it
// absorbs the float rounding of the inputs so isSubPixel stays conservative.
constexpr double kSubPixelMargin = 1.0001;

}  // namespace

float eyeZ(glm::vec3 p, glm::vec3 camPos, glm::vec3 camFwd) noexcept {
  const float dx = p.x - camPos.x;
  const float dy = p.y - camPos.y;
  const float dz = p.z - camPos.z;
  return (dx * camFwd.x + dy * camFwd.y) + dz * camFwd.z;
}

void CullView::build(const Camera& camera, const Viewport& viewport) {
  MOTE_ASSERT(camera.validate().ok(), "CullView::build needs a valid camera (Camera::validate)");
  MOTE_ASSERT(viewport.validate().ok(), "CullView::build needs a valid viewport");
  pos = camera.position;
  fwd = camera.forward;
  right = camera.right;
  up = camera.up;
  nearZ = camera.nearZ;
  farZ = camera.farZ;
  orthographic = camera.projection == Projection::Orthographic;
  // Half extents: at depth 1 (perspective) or everywhere (orthographic). The one tan of the path.
  const double halfH = orthographic ? static_cast<double>(camera.orthoHalfHeight)
                                    : std::tan(0.5 * static_cast<double>(camera.fovYRadians));
  const double halfW = static_cast<double>(camera.aspect) * halfH;
  projScale = static_cast<float>(static_cast<double>(viewport.height) / (2.0 * halfH));
  if (orthographic) {
    sideX = {1.0f, 0.0f, static_cast<float>(halfW)};
    sideY = {1.0f, 0.0f, static_cast<float>(halfH)};
  } else {
    sideX = perspectivePair(halfW);
    sideY = perspectivePair(halfH);
  }
}

// pip3d's one pass. Depth first: a sphere wholly in front of the near plane or past the far one is
// rejected after the 3 multiplications of eyeZ. Then the right/up coordinates (6) and, per mirrored
// side pair, only the nearer plane via |lateral| (2 + 2): 13 in all, never a trig call or division.
SphereHit CullView::testSphere(glm::vec3 center, float radius) const noexcept {
  SphereHit hit;
  const float z = render::eyeZ(center, pos, fwd);
  hit.eyeZ = z;
  const float negRadius = -radius;
  const float dNear = z - nearZ;
  const float dFar = farZ - z;
  if (dNear < negRadius || dFar < negRadius) return hit;
  const float x = render::eyeZ(center, pos, right);
  const float y = render::eyeZ(center, pos, up);
  const float dX = pairDistance(sideX, x, z);
  const float dY = pairDistance(sideY, y, z);
  hit.visible = dX >= negRadius && dY >= negRadius;
  hit.inside = hit.visible && dNear >= radius && dFar >= radius && dX >= radius && dY >= radius;
  return hit;
}

float CullView::eyeZ(glm::vec3 p) const noexcept {
  return render::eyeZ(p, pos, fwd);
}

float CullView::screenRadius(float radius, float z) const noexcept {
  return orthographic ? radius * projScale : radius * projScale / z;
}

bool CullView::isSubPixel(glm::vec3 center, float radius, float centerEyeZ) const noexcept {
  const double s = static_cast<double>(projScale) * kSubPixelMargin;
  const double r = static_cast<double>(radius);
  if (orthographic) return r * s < 1.0;
  const double z = static_cast<double>(centerEyeZ);
  if (z <= r) return false;  // reaches the eye plane: the projection is unbounded
  const double dx = static_cast<double>(center.x) - static_cast<double>(pos.x);
  const double dy = static_cast<double>(center.y) - static_cast<double>(pos.y);
  const double dz = static_cast<double>(center.z) - static_cast<double>(pos.z);
  const double r2 = r * r;
  const double l2 = std::max(dx * dx + dy * dy + dz * dz, z * z);
  const double zr = z * z - r2;
  // Semi-major axis s * r * sqrt(l2 - r2) / zr < 1, squared to avoid the root.
  return s * s * r2 * (l2 - r2) < zr * zr;
}

Frustum Frustum::fromCamera(const Camera& camera, const Viewport& viewport) {
  CullView view;
  view.build(camera, viewport);
  return fromCullView(view);
}

Frustum Frustum::fromCullView(const CullView& view) noexcept {
  Frustum f;
  f.pos = view.pos;
  f.fwd = view.fwd;
  f.right = view.right;
  f.up = view.up;
  const SidePlanePair& sx = view.sideX;
  const SidePlanePair& sy = view.sideY;
  f.planes[kNear] = {{0.0f, 0.0f, 1.0f}, -view.nearZ};
  f.planes[kFar] = {{0.0f, 0.0f, -1.0f}, view.farZ};
  f.planes[kLeft] = {{sx.across, 0.0f, sx.along}, sx.offset};
  f.planes[kRight] = {{-sx.across, 0.0f, sx.along}, sx.offset};
  f.planes[kBottom] = {{0.0f, sy.across, sy.along}, sy.offset};
  f.planes[kTop] = {{0.0f, -sy.across, sy.along}, sy.offset};
  return f;
}

glm::vec3 Frustum::toCameraSpace(glm::vec3 p) const noexcept {
  return {render::eyeZ(p, pos, right), render::eyeZ(p, pos, up), render::eyeZ(p, pos, fwd)};
}

float Frustum::planeDistance(int index, glm::vec3 p) const noexcept {
  const Plane& plane = planes[static_cast<std::size_t>(index)];
  return ((plane.normal.x * p.x + plane.normal.y * p.y) + plane.normal.z * p.z) + plane.offset;
}

SphereHit Frustum::testSphere(glm::vec3 center, float radius) const noexcept {
  const glm::vec3 p = toCameraSpace(center);
  SphereHit hit;
  hit.eyeZ = p.z;
  hit.visible = true;
  hit.inside = true;
  for (int i = 0; i < kPlaneCount; ++i) {
    const float d = planeDistance(i, p);
    hit.visible = hit.visible && d >= -radius;
    hit.inside = hit.inside && d >= radius;
  }
  return hit;
}

}  // namespace mote::render
