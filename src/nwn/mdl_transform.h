// SPDX-License-Identifier: MIT
// The static node hierarchy of a model: axis-angle rotations as quaternions, NWN's Z-up axes to
// Mote's Y-up ones, parent resolution, and each node's transform at 0 s — shared by the emitter
// lowering (emitter placement) and the chunk meshes (vertices into model space).
#pragma once

#include "mdl_track.h"

#include <mote/authoring/diagnostic.h>
#include <mote/nwn/mdl.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace mote::nwn::detail {

using Vec3 = std::array<float, 3>;
using Quat = std::array<float, 4>;  ///< x y z w

inline Quat multiply(const Quat& a, const Quat& b) {
  return {a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
          a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
          a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
          a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
}

inline Vec3 rotate(const Quat& q, const Vec3& v) {
  const Quat p{v[0], v[1], v[2], 0.0f};
  const Quat conj{-q[0], -q[1], -q[2], q[3]};
  const Quat r = multiply(multiply(q, p), conj);
  return {r[0], r[1], r[2]};
}

/// NWN axis-angle (x y z angle, radians) → quaternion; a zero or non-finite axis is the identity.
inline Quat axisAngle(float x, float y, float z, float angle) {
  const float len = std::sqrt(x * x + y * y + z * z);
  if (!(len > 1e-12f) || !std::isfinite(len) || !std::isfinite(angle)) return {0, 0, 0, 1};
  const float s = std::sin(angle * 0.5f) / len;
  return {x * s, y * s, z * s, std::cos(angle * 0.5f)};
}

/// NWN is Z up, Mote Y up (both right-handed): (x, y, z) → (x, z, −y), a rotation of −90° about X.
inline Vec3 toMote(const Vec3& v) {
  return {v[0], v[2], -v[1]};
}
inline Quat toMote(const Quat& q) {
  return {q[0], q[2], -q[1], q[3]};
}

/// A node's transform: scale, then rotation, then translation (NWN axes).
struct Xform {
  Vec3 position{0, 0, 0};
  Quat rotation{0, 0, 0, 1};
  float scale = 1.0f;
};

/// `v` (local to `x`) in the frame `x` is expressed in.
inline Vec3 apply(const Xform& x, const Vec3& v) {
  const Vec3 r = rotate(x.rotation, {v[0] * x.scale, v[1] * x.scale, v[2] * x.scale});
  return {x.position[0] + r[0], x.position[1] + r[1], x.position[2] + r[2]};
}

/// `local` placed in `parent`: the child's transform in the parent's frame.
inline Xform compose(const Xform& parent, const Xform& local) {
  return {apply(parent, local.position), multiply(parent.rotation, local.rotation),
          parent.scale * local.scale};
}

/// A node's own transform at 0 s from its position, orientation and scale tracks (absent: identity
/// parts; a scale that is not positive and finite is 1).
inline Xform localXform(const SortedTrack& position, const SortedTrack& orientation,
                        const SortedTrack& scale) {
  Xform x;
  if (position.present())
    x.position = {position.eval(0, 0), position.eval(0, 1), position.eval(0, 2)};
  if (orientation.present()) {
    x.rotation = axisAngle(orientation.eval(0, 0), orientation.eval(0, 1), orientation.eval(0, 2),
                           orientation.eval(0, 3));
  }
  if (scale.present()) {
    const float s = scale.eval(0, 0);
    x.scale = s > 0.0f && std::isfinite(s) ? s : 1.0f;
  }
  return x;
}

/// The shorter-way spherical interpolation from `a` to `b` at u in [0, 1], normalised (nearly
/// equal orientations are interpolated linearly).
Quat slerp(const Quat& a, Quat b, float u);

/// Euler degrees for Emitter::rotation, applied Y·X·Z (R = Ry · Rx · Rz), of `q` (any length;
/// zero: no rotation); angles within 1e-4° of 0 are 0.
Vec3 eulerYXZ(const Quat& q);

/// `v` with every component finite and within ±limit (non-finite → 0); `changed` is set when
/// anything had to be changed.
Vec3 clampVec(const Vec3& v, float limit, bool& changed);

inline constexpr std::size_t kRootNode = static_cast<std::size_t>(-1);

/// The geometry nodes' hierarchy: the first node of each (lower-case) name and every node's
/// parent (kRootNode for `parent NULL`, a missing parent or one declared after the node).
struct NodeHierarchy {
  std::map<std::string, std::size_t> byName;
  std::vector<std::size_t> parent;
};

/// Resolves `model`'s parents, appending a warning (with model.file and the node's line) for a
/// second node of one name and for a parent not declared before its child — which also rules out
/// cycles. Complexity: O(nodes · log nodes).
[[nodiscard]] NodeHierarchy indexHierarchy(const MdlModel& model,
                                           std::vector<authoring::Diagnostic>& diagnostics);

}  // namespace mote::nwn::detail
