// SPDX-License-Identifier: MIT
// Parent resolution of the geometry nodes, slerp, Euler angles and clamping (mdl_transform.h).
#include "mdl_transform.h"

#include "mdl_report.h"
#include "mdl_tables.h"

#include <algorithm>

namespace mote::nwn::detail {

Quat slerp(const Quat& a, Quat b, float u) {
  float dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  if (dot < 0.0f) {  // the shorter way
    for (float& v : b)
      v = -v;
    dot = -dot;
  }
  float wa = 1.0f - u;
  float wb = u;
  if (dot < 0.9995f) {
    const float angle = std::acos(std::min(dot, 1.0f));
    const float s = std::sin(angle);
    wa = std::sin((1.0f - u) * angle) / s;
    wb = std::sin(u * angle) / s;
  }
  Quat q{};
  float n = 0.0f;
  for (std::size_t i = 0; i < 4; ++i) {
    q[i] = wa * a[i] + wb * b[i];
    n += q[i] * q[i];
  }
  n = std::sqrt(n);
  if (!(n > 0.0f)) return {0, 0, 0, 1};
  for (float& v : q)
    v /= n;
  return q;
}

Vec3 eulerYXZ(const Quat& qIn) {
  const float n = std::sqrt(qIn[0] * qIn[0] + qIn[1] * qIn[1] + qIn[2] * qIn[2] + qIn[3] * qIn[3]);
  if (!(n > 0.0f)) return {0, 0, 0};
  const float x = qIn[0] / n, y = qIn[1] / n, z = qIn[2] / n, w = qIn[3] / n;
  const float m00 = 1 - 2 * (y * y + z * z);
  const float m02 = 2 * (x * z + w * y);
  const float m10 = 2 * (x * y + w * z);
  const float m11 = 1 - 2 * (x * x + z * z);
  const float m12 = 2 * (y * z - w * x);
  const float m20 = 2 * (x * z - w * y);
  const float m22 = 1 - 2 * (x * x + y * y);
  const float sx = std::clamp(-m12, -1.0f, 1.0f);
  const float ax = std::asin(sx);
  float ay = 0.0f;
  float az = 0.0f;
  if (std::fabs(sx) < 0.99999f) {
    ay = std::atan2(m02, m22);
    az = std::atan2(m10, m11);
  } else {
    ay = std::atan2(-m20, m00);
  }
  const auto deg = [](float r) {
    const float d = r * 57.2957795f;
    return std::fabs(d) < 1e-4f ? 0.0f : d;
  };
  return {deg(ax), deg(ay), deg(az)};
}

Vec3 clampVec(const Vec3& v, float limit, bool& changed) {
  Vec3 out = v;
  for (float& c : out) {
    const float before = c;
    c = std::isfinite(c) ? std::clamp(c, -limit, limit) : 0.0f;
    changed = changed || c != before;
  }
  return out;
}

NodeHierarchy indexHierarchy(const MdlModel& model,
                             std::vector<authoring::Diagnostic>& diagnostics) {
  const Reporter report{&diagnostics, model.file};
  NodeHierarchy h;
  h.parent.assign(model.nodes.size(), kRootNode);
  for (std::size_t i = 0; i < model.nodes.size(); ++i) {
    const MdlNode& node = model.nodes[i];
    if (!h.byName.emplace(lowerCopy(node.name), i).second)
      report.warn(node.line,
                  "a second node named '" + node.name + "'; children attach to the first");
    if (node.parent.empty()) continue;
    const auto it = h.byName.find(lowerCopy(node.parent));
    if (it == h.byName.end() || it->second == i) {
      report.warn(node.line, "the parent '" + node.parent + "' of '" + node.name +
                                 "' is not declared before it; the node is placed at the root");
    } else {
      h.parent[i] = it->second;
    }
  }
  return h;
}

}  // namespace mote::nwn::detail
