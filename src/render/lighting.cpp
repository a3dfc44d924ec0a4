// SPDX-License-Identifier: MIT
// Scene lighting (mote/render/lighting.h).
#include <mote/render/lighting.h>

#include <glm/geometric.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace mote::render {
namespace {

// Light l's unit direction toward it from `position` and its strength there (falloff included).
struct Incoming {
  glm::vec3 direction{0.0f};
  float strength = 0.0f;
};

Incoming incoming(const Light& l, glm::vec3 position) {
  const glm::vec3 v(l.vector[0], l.vector[1], l.vector[2]);
  if (l.kind == Light::Kind::Directional) return {glm::normalize(v), 1.0f};
  const glm::vec3 to = v - position;
  const float d = glm::length(to);
  if (!(d > 1e-6f) || !(d < l.radius)) return {};
  const float x = d / l.radius;
  const float window = 1.0f - x * x;
  return {to / d, window * window};
}

template <bool kBehind>
glm::vec3 direct(const Lighting& lighting, glm::vec3 position, glm::vec3 normal) {
  glm::vec3 sum(0.0f);
  for (const Light& l : lighting.lights) {
    const Incoming in = incoming(l, position);
    const float cosine = glm::dot(normal, in.direction) * (kBehind ? -1.0f : 1.0f);
    if (!(cosine > 0.0f) || !(in.strength > 0.0f)) continue;
    sum += glm::vec3(l.color[0], l.color[1], l.color[2]) * (cosine * in.strength);
  }
  return sum;
}

bool finite3(const std::array<float, 3>& v) {
  return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]);
}

bool nonNegative3(const std::array<float, 3>& v) {
  return finite3(v) && v[0] >= 0.0f && v[1] >= 0.0f && v[2] >= 0.0f;
}

}  // namespace

glm::vec3 irradiance(const Lighting& lighting, glm::vec3 position, glm::vec3 normal) noexcept {
  return glm::vec3(lighting.ambient[0], lighting.ambient[1], lighting.ambient[2]) +
         direct<false>(lighting, position, normal);
}

glm::vec3 transmitted(const Lighting& lighting, glm::vec3 position, glm::vec3 normal) noexcept {
  return direct<true>(lighting, position, normal);
}

Status Lighting::validate(std::string_view owner) const {
  const std::string who(owner);
  if (lights.size() > kMaxLights)
    return invalidArgument(who + ": at most " + std::to_string(kMaxLights) + " lights (got " +
                           std::to_string(lights.size()) + ")");
  if (!nonNegative3(ambient)) return invalidArgument(who + ": ambient must be finite and >= 0");
  for (std::size_t i = 0; i < lights.size(); ++i) {
    const Light& l = lights[i];
    const std::string name = who + ": light " + std::to_string(i);
    if (static_cast<std::uint32_t>(l.kind) > static_cast<std::uint32_t>(Light::Kind::Point))
      return invalidArgument(name + ": kind out of range");
    if (!nonNegative3(l.color)) return invalidArgument(name + ": colour must be finite and >= 0");
    const auto x = static_cast<double>(l.vector[0]);
    const auto y = static_cast<double>(l.vector[1]);
    const auto z = static_cast<double>(l.vector[2]);
    const double length = std::sqrt(x * x + y * y + z * z);
    if (!finite3(l.vector) || length > 1e18)
      return invalidArgument(name + ": a coordinate is not finite (or beyond 1e18)");
    if (l.kind == Light::Kind::Directional && l.vector[0] == 0.0f && l.vector[1] == 0.0f &&
        l.vector[2] == 0.0f)
      return invalidArgument(name + ": the direction is zero");
    if (l.kind == Light::Kind::Point && !(std::isfinite(l.radius) && l.radius > 0.0f))
      return invalidArgument(name + ": the radius must be finite and > 0");
  }
  return {};
}

}  // namespace mote::render
