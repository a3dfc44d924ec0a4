// SPDX-License-Identifier: MIT
// The render scene's lights (docs/rendering.md, "Lit particles"): directional and point lights and
// an ambient colour, and the irradiance they give a surface — what `lit` materials (mesh particles
// flat or Gouraud, sprites with a bent normal and back-face transmission) and drawTriangle3D are
// shaded by. One evaluation for every renderer, so the GPU's agrees with the software one's.
#pragma once

#include <mote/core/status.h>

#include <glm/vec3.hpp>

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace mote::render {

struct Light {
  enum class Kind : std::uint8_t { Directional, Point };
  Kind kind = Kind::Directional;
  /// Directional: the direction toward the light (normalised at use); Point: its position, m.
  std::array<float, 3> vector{0.0f, 1.0f, 0.0f};
  /// Linear RGB: the irradiance a surface facing the light receives (at the light, for a point).
  std::array<float, 3> color{1.0f, 1.0f, 1.0f};
  /// Point: the distance at which it has faded to nothing, m; its falloff is (1 − (d / r)²)²
  /// (smooth, windowed, no singularity at the light).
  float radius = 10.0f;
};

/// The most lights a scene holds.
inline constexpr std::size_t kMaxLights = 16;

/// The lights of a render scene. A plain value.
struct Lighting {
  /// The defaults: a warm key light from above, left and in front, and a cool back light from
  /// behind, so lit smoke and meshes read as lit from any of `mote render`'s cameras.
  std::vector<Light> lights = {
      Light{Light::Kind::Directional, {-0.5f, 0.9f, 0.6f}, {1.0f, 0.93f, 0.82f}, 10.0f},
      Light{Light::Kind::Directional, {0.45f, 0.35f, -0.85f}, {0.3f, 0.38f, 0.52f}, 10.0f}};
  /// Linear RGB light from everywhere (and the colour `ambient_tint` materials are tinted by).
  std::array<float, 3> ambient{0.2f, 0.21f, 0.25f};

  /// InvalidArgument naming `owner` for more than kMaxLights lights, a non-finite or negative
  /// colour or ambient, a zero or non-finite direction or position, or a point radius that is not
  /// finite and > 0.
  Status validate(std::string_view owner) const;
};

/// Ambient plus the direct light on a surface at `position` facing `normal` (unit):
/// Σ max(0, n · l) · colour · falloff. Pure; O(lights).
glm::vec3 irradiance(const Lighting& lighting, glm::vec3 position, glm::vec3 normal) noexcept;

/// The direct light arriving from behind the surface, Σ max(0, −n · l) · colour · falloff (no
/// ambient): what a thin particle lets through (Persson, "Practical Particle Lighting", GDC 2012).
/// Pure; O(lights).
glm::vec3 transmitted(const Lighting& lighting, glm::vec3 position, glm::vec3 normal) noexcept;

}  // namespace mote::render
