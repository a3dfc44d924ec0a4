// SPDX-License-Identifier: MIT
// The debug overlay (debug_overlay.h): lines per emitter (axes, bounds, velocity rays) and per
// collider, drawn into a prepared frame with ParticleRenderer::drawLine3D.
#include <mote/render/debug_overlay.h>

#include <glm/geometric.hpp>
#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

namespace mote::render {

namespace {

constexpr std::array<float, 3> kRed{1.0f, 0.15f, 0.1f};
constexpr std::array<float, 3> kGreen{0.2f, 1.0f, 0.2f};
constexpr std::array<float, 3> kBlue{0.25f, 0.4f, 1.0f};
constexpr std::array<float, 3> kYellow{1.0f, 0.85f, 0.1f};
constexpr std::array<float, 3> kCyan{0.1f, 0.9f, 1.0f};
constexpr std::array<float, 3> kMagenta{1.0f, 0.2f, 0.9f};
constexpr float kPi = 3.14159265358979f;

glm::vec3 vec(const std::array<float, 3>& a) {
  return {a[0], a[1], a[2]};
}

bool finite(const std::array<float, 3>& a) {
  return std::isfinite(a[0]) && std::isfinite(a[1]) && std::isfinite(a[2]);
}

// The twelve edges of the box from lo to hi.
Status drawBox(ParticleRenderer& r, glm::vec3 lo, glm::vec3 hi, std::array<float, 3> color,
               float width) {
  const auto corner = [&](int k) {
    return glm::vec3(k & 1 ? hi.x : lo.x, k & 2 ? hi.y : lo.y, k & 4 ? hi.z : lo.z);
  };
  for (int k = 0; k < 8; ++k) {
    for (int bit = 1; bit < 8; bit <<= 1) {
      if (k & bit) continue;  // each edge once: from the corner with the bit clear
      if (Status s = r.drawLine3D(corner(k), corner(k | bit), color, width); !s.ok()) return s;
    }
  }
  return {};
}

// A circle of `radius` about `centre` in the plane of the unit vectors u and v, in 32 segments.
Status drawCircle(ParticleRenderer& r, glm::vec3 centre, glm::vec3 u, glm::vec3 v, float radius,
                  std::array<float, 3> color, float width) {
  constexpr int kSegments = 32;
  glm::vec3 last = centre + u * radius;
  for (int i = 1; i <= kSegments; ++i) {
    const float a = 2.0f * kPi * static_cast<float>(i) / static_cast<float>(kSegments);
    const glm::vec3 next = centre + (u * std::cos(a) + v * std::sin(a)) * radius;
    if (Status s = r.drawLine3D(last, next, color, width); !s.ok()) return s;
    last = next;
  }
  return {};
}

// Two unit vectors perpendicular to the unit n and to each other.
void basisAround(glm::vec3 n, glm::vec3& u, glm::vec3& v) {
  const glm::vec3 helper = std::abs(n.y) < 0.9f ? glm::vec3(0, 1, 0) : glm::vec3(1, 0, 0);
  u = glm::normalize(glm::cross(helper, n));
  v = glm::cross(n, u);
}

Status drawCollider(ParticleRenderer& r, const DebugCollider& c, float width) {
  const glm::vec3 at = vec(c.position);
  switch (c.kind) {
    case DebugCollider::Kind::Plane: {
      // A 4 m square grid of 5 × 5 lines centred on the plane's point, and its normal.
      const glm::vec3 n = glm::normalize(vec(c.normal));
      glm::vec3 u;
      glm::vec3 v;
      basisAround(n, u, v);
      for (int i = -2; i <= 2; ++i) {
        const float t = static_cast<float>(i);
        if (Status s = r.drawLine3D(at + u * t - v * 2.0f, at + u * t + v * 2.0f, kMagenta, width);
            !s.ok())
          return s;
        if (Status s = r.drawLine3D(at + v * t - u * 2.0f, at + v * t + u * 2.0f, kMagenta, width);
            !s.ok())
          return s;
      }
      return r.drawLine3D(at, at + n * 0.5f, kMagenta, width);
    }
    case DebugCollider::Kind::Sphere:
      for (const auto& [u, v] :
           {std::array<glm::vec3, 2>{glm::vec3(1, 0, 0), glm::vec3(0, 1, 0)},
            std::array<glm::vec3, 2>{glm::vec3(0, 1, 0), glm::vec3(0, 0, 1)},
            std::array<glm::vec3, 2>{glm::vec3(0, 0, 1), glm::vec3(1, 0, 0)}}) {
        if (Status s = drawCircle(r, at, u, v, c.radius, kMagenta, width); !s.ok()) return s;
      }
      return {};
    case DebugCollider::Kind::Box:
      return drawBox(r, at - vec(c.size) * 0.5f, at + vec(c.size) * 0.5f, kMagenta, width);
  }
  return {};
}

Status validate(const DebugOverlayOptions& o) {
  if (!(o.axisLength > 0.0f) || !std::isfinite(o.axisLength) || !(o.raySeconds > 0.0f) ||
      !std::isfinite(o.raySeconds) || !(o.lineWidthPixels > 0.0f) ||
      !(o.lineWidthPixels <= 16.0f)) {
    return invalidArgument(
        "DebugOverlayOptions: axisLength and raySeconds must be positive and finite, "
        "lineWidthPixels in (0, 16]");
  }
  for (std::size_t i = 0; i < o.colliders.size(); ++i) {
    const DebugCollider& c = o.colliders[i];
    const bool sized = c.kind == DebugCollider::Kind::Plane ? glm::length(vec(c.normal)) > 0.0f
                       : c.kind == DebugCollider::Kind::Sphere
                           ? c.radius > 0.0f && std::isfinite(c.radius)
                           : c.size[0] > 0.0f && c.size[1] > 0.0f && c.size[2] > 0.0f;
    if (!finite(c.position) || !finite(c.normal) || !finite(c.size) || !sized ||
        static_cast<std::uint8_t>(c.kind) > static_cast<std::uint8_t>(DebugCollider::Kind::Box)) {
      return invalidArgument("DebugOverlayOptions: collider " + std::to_string(i) +
                             " is not finite, has no size or an unknown kind");
    }
  }
  return {};
}

}  // namespace

Status drawDebugOverlay(ParticleRenderer& renderer, const ParticleWorld& world,
                        std::span<const RenderPacket> packets, const DebugOverlayOptions& o) {
  if (Status s = validate(o); !s.ok()) return s;
  const float width = o.lineWidthPixels;
  for (const RenderPacket& p : packets) {
    const glm::quat turn(p.transform.rotation[3], p.transform.rotation[0], p.transform.rotation[1],
                         p.transform.rotation[2]);
    const glm::vec3 origin = vec(p.transform.position);
    if (o.axes) {
      const std::array<std::array<float, 3>, 3> colors{kRed, kGreen, kBlue};
      for (int axis = 0; axis < 3; ++axis) {
        glm::vec3 unit(0.0f);
        unit[axis] = 1.0f;
        if (Status s = renderer.drawLine3D(origin, origin + (turn * unit) * o.axisLength,
                                           colors[static_cast<std::size_t>(axis)], width);
            !s.ok())
          return s;
      }
    }
    if (o.bounds) {
      const Result<EmitterView> view = world.view(p.emitter);
      if (view.ok() && view->bounds.known) {
        if (Status s =
                drawBox(renderer, vec(view->bounds.min), vec(view->bounds.max), kYellow, width);
            !s.ok())
          return s;
      }
    }
    if (o.velocities && p.velocity.present() && p.position.present() && p.count > 0 &&
        o.maxRaysPerEmitter > 0) {
      const std::uint32_t rays = std::min(p.count, o.maxRaysPerEmitter);
      for (std::uint32_t k = 0; k < rays; ++k) {
        // Evenly through the particles: k · count / rays.
        const auto i = static_cast<std::uint32_t>(std::uint64_t{k} * p.count / rays);
        glm::vec3 at(p.position.at(0, i), p.position.at(1, i), p.position.at(2, i));
        glm::vec3 velocity(p.velocity.at(0, i), p.velocity.at(1, i), p.velocity.at(2, i));
        if (p.local) {
          at = origin + turn * at;
          velocity = turn * velocity;
        }
        // A ray needs a finite, moving particle (a broken one is the simulation's to report).
        const glm::vec3 tip = at + velocity * o.raySeconds;
        if (!(glm::length(velocity) > 0.0f) || !std::isfinite(tip.x) || !std::isfinite(tip.y) ||
            !std::isfinite(tip.z) || !std::isfinite(at.x) || !std::isfinite(at.y) ||
            !std::isfinite(at.z))
          continue;
        if (Status s = renderer.drawLine3D(at, tip, kCyan, width); !s.ok()) return s;
      }
    }
  }
  for (const DebugCollider& c : o.colliders) {
    if (Status s = drawCollider(renderer, c, width); !s.ok()) return s;
  }
  return {};
}

}  // namespace mote::render
