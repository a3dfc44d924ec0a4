// SPDX-License-Identifier: MIT
#include <mote/render/world_culling.h>

#include <glm/geometric.hpp>

#include <cmath>

namespace mote::render {

bool CullViewVisibility::visible(const Bounds& bounds) const noexcept {
  const glm::vec3 lo(bounds.min[0], bounds.min[1], bounds.min[2]);
  const glm::vec3 hi(bounds.max[0], bounds.max[1], bounds.max[2]);
  const glm::vec3 center = (lo + hi) * 0.5f;
  const float radius = glm::length(hi - lo) * 0.5f;
  if (!std::isfinite(center.x) || !std::isfinite(center.y) || !std::isfinite(center.z) ||
      !std::isfinite(radius)) {
    return true;
  }
  return view_->testSphere(center, radius).visible;
}

}  // namespace mote::render
