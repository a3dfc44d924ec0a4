// SPDX-License-Identifier: MIT
// CullView (pip3d "Culling"): a per-frame camera snapshot with a one-pass sphere test, and the
// six-plane Frustum whose boundaries it matches bit for bit.
#pragma once

#include <mote/render/camera.h>

#include <glm/vec3.hpp>

#include <array>

namespace mote::render {

/// The answer of a sphere test (pip3d SphereHit).
struct SphereHit {
  bool visible = false;  ///< at least partly inside the frustum (touching a plane counts)
  bool inside = false;   ///< entirely inside: at least `radius` inside every plane
  float eyeZ = 0.0f;     ///< depth of the centre along the view, dot(center - pos, fwd)
};

/// Depth of `p` along the view without a CullView: dot(p - camPos, camFwd), evaluated as
/// (dx*fx + dy*fy) + dz*fz. For perspective cameras it is the projector's clip w. CullView::eyeZ,
/// CullView::testSphere and Frustum::testSphere return exactly this number (same function, same
/// translation unit, built without FMA contraction). Thread safety: pure. O(1). Allocates: never.
float eyeZ(glm::vec3 p, glm::vec3 camPos, glm::vec3 camFwd) noexcept;

/// A mirrored pair of side planes (left/right or bottom/top) in camera coordinates. The inward unit
/// normals are (-/+across, along) in the (lateral, depth) plane, so the signed distance (positive
/// inside) of a camera-space point from the NEARER of the two planes is
///   (along * z - across * |lateral|) + offset.
/// Perspective: the planes pass through the eye; with t = tan(half-angle), across = 1/sqrt(1+t^2),
/// along = t/sqrt(1+t^2), offset = 0. Orthographic: parallel planes; across = 1, along = 0,
/// offset = half-extent, so the test degenerates to |lateral| <= halfExtent + r.
struct SidePlanePair {
  float across = 0.0f;
  float along = 0.0f;
  float offset = 0.0f;
};

/// pip3d's CullView: a snapshot of the active camera built once per frame; afterwards the object
/// is read-only and may be shared by any number of threads. The sphere test costs 13
/// multiplications in the worst case and 3 when the sphere is behind the near plane (or past the
/// far one): no world planes, no trig, no globals.
///
/// Conservative: testSphere's `visible` equals Frustum::testSphere's bit for bit, and a six-plane
/// sphere test never rejects a sphere that intersects the frustum (it may accept one near an edge
/// or corner that misses it: the usual plane-test false positive). "Intersects" is measured in the
/// frustum's float planes, which sit within ~1e-7 relative of the exact ones.
///
/// Thread safety: build() is a write; every const method is pure and may run concurrently.
/// Allocates: never (build included, for a valid camera and viewport).
struct CullView {
  glm::vec3 pos{0.0f, 0.0f, 0.0f};    ///< camera position
  glm::vec3 fwd{0.0f, 0.0f, -1.0f};   ///< unit view direction
  glm::vec3 right{1.0f, 0.0f, 0.0f};  ///< unit screen right
  glm::vec3 up{0.0f, 1.0f, 0.0f};     ///< unit screen up
  /// Pixels per metre at depth 1 (perspective: viewportHeight / (2 tan(fovY/2))), so a radius r at
  /// depth z covers r * projScale / z pixels. Orthographic: pixels per metre at every depth
  /// (viewportHeight / (2 orthoHalfHeight)); the projection does not shrink with depth.
  float projScale = 1.0f;
  float nearZ = 0.0f;  ///< near plane, metres along fwd
  float farZ = 0.0f;   ///< far plane, metres along fwd
  bool orthographic = false;
  SidePlanePair sideX;  ///< left/right planes (lateral coordinate: dot(d, right))
  SidePlanePair sideY;  ///< bottom/top planes (lateral coordinate: dot(d, up))

  /// Builds the snapshot. The engine calls it once per frame; call it by hand only when rendering
  /// through your own pipeline. Requires camera.validate() and viewport.validate() to be ok
  /// (MOTE_ASSERT). The only trig of the culling path (one tan) happens here. O(1).
  void build(const Camera& camera, const Viewport& viewport);

  /// Sphere against the frustum in one pass: eyeZ first (3 multiplications; a sphere entirely in
  /// front of the near plane or past the far plane returns at once, visible = false), then the
  /// right/up coordinates and one pairwise check per mirrored side pair (10 more). Boundaries:
  /// a plane at signed distance d (positive inside) passes when d >= -radius (touching is
  /// visible) and counts for `inside` when d >= radius; identical to Frustum::testSphere.
  /// `radius` >= 0 and finite inputs are the caller's contract (not checked).
  /// Complexity: O(1), no trig, no division. Allocates: never.
  SphereHit testSphere(glm::vec3 center, float radius) const noexcept;

  /// Depth of a point along the view: ::mote::render::eyeZ(p, pos, fwd). O(1). Allocates: never.
  float eyeZ(glm::vec3 p) const noexcept;

  /// Screen radius in pixels of a sphere of `radius` whose centre is at depth z (z > 0):
  /// radius * projScale / z (perspective), radius * projScale (orthographic, z ignored). This is
  /// pip3d's estimate at the centre depth; for the skip decision use isSubPixel, which is
  /// conservative. O(1). Allocates: never.
  float screenRadius(float radius, float z) const noexcept;

  /// True when the sphere's whole projection fits in a disc of radius under one pixel, so the
  /// caller may skip it ("a radius under one pixel is always skipped"). Conservative: it never
  /// skips a sphere whose projection reaches one pixel from its centre. Perspective: the
  /// projection is an ellipse with semi-major axis projScale * r * sqrt(L^2 - r^2) / (z^2 - r^2)
  /// (L = distance to the eye, z = eyeZ). On the axis that is r * projScale / sqrt(z^2 - r^2);
  /// off the axis it grows by about 1/cos(off-axis angle) over screenRadius(r, z) (x2 at 60
  /// degrees), which is why neither the centre-depth estimate nor the one at the nearest depth
  /// z - r is used: both can drop a sphere that covers a pixel near the screen's edge. A sphere
  /// reaching the eye plane (z <= r) is never sub-pixel. Orthographic: r * projScale < 1.
  /// `centerEyeZ` is the eyeZ from testSphere. Complexity: O(1), no trig. Allocates: never.
  bool isSubPixel(glm::vec3 center, float radius, float centerEyeZ) const noexcept;
};

/// A signed plane in camera coordinates: distance = (normal.x*x + normal.y*y) + normal.z*z +
/// offset, positive on the inner side; normal is unit.
struct Plane {
  glm::vec3 normal{0.0f, 0.0f, 1.0f};
  float offset = 0.0f;
};

/// The reference six-plane frustum (pip3d Frustum). The planes are stored in camera coordinates
/// (x = dot(d, right), y = dot(d, up), z = dot(d, fwd), d = p - pos) and every test evaluates all
/// six plane distances independently, with no early exit.
///
/// Why CullView matches it bit for bit: both take the camera's coordinates from the same eyeZ
/// function; the plane normals are built from CullView's own constants (±across, along, 0, ±1
/// exactly); and both live in one translation unit compiled with -ffp-contract=off, so each side
/// plane distance is the correctly rounded fl(fl(along*z) - fl(across*x)) (+ offset) in both (a
/// product with an exact 0 or ±1 adds or changes nothing). Rounding is monotone and
/// sign-symmetric, so the smaller of a mirrored pair is exactly CullView's |x| form, and the
/// comparisons (>= -r, >= r) are the same operators on the same values.
/// Thread safety: read-only after construction. Allocates: never.
struct Frustum {
  enum PlaneIndex { kNear = 0, kFar, kLeft, kRight, kBottom, kTop, kPlaneCount };

  glm::vec3 pos{0.0f, 0.0f, 0.0f};
  glm::vec3 fwd{0.0f, 0.0f, -1.0f};
  glm::vec3 right{1.0f, 0.0f, 0.0f};
  glm::vec3 up{0.0f, 1.0f, 0.0f};
  std::array<Plane, kPlaneCount> planes{};

  /// The frustum of `camera` drawn into `viewport` (same contract as CullView::build).
  static Frustum fromCamera(const Camera& camera, const Viewport& viewport);
  /// The frustum of an already built CullView.
  static Frustum fromCullView(const CullView& view) noexcept;

  /// Signed distance of camera-space point `p` to plane `index` (the formula documented on Plane).
  float planeDistance(int index, glm::vec3 cameraSpacePoint) const noexcept;
  /// (x, y, z) of a world point in the camera frame: eyeZ against right, up and fwd.
  glm::vec3 toCameraSpace(glm::vec3 p) const noexcept;
  /// visible: every plane distance >= -radius; inside: every distance >= radius; eyeZ: z.
  /// Complexity: O(1) (six dot products). Allocates: never.
  SphereHit testSphere(glm::vec3 center, float radius) const noexcept;
};

}  // namespace mote::render
