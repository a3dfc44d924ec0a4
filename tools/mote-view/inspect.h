// SPDX-License-Identifier: MIT
// mote-view's inspector (docs/viewer.md): a particle picked on screen by its projected position,
// and its fields read by name from the emitter's layout. No SDL; pure reads of a ParticleWorld.
// Single-threaded; the readout allocates its lines.
#pragma once

#include <mote/render/camera.h>
#include <mote/runtime/world.h>

#include <glm/vec2.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mote::view {

/// A particle, by emitter index in its effect and id (ids are unique within an emitter).
struct PickedParticle {
  std::uint32_t emitter = 0;
  std::uint32_t id = 0;
};

/// The live particle whose position projects nearest the scene pixel `pixel` (origin top left),
/// within `radius` pixels; nullopt when none does. O(live particles).
std::optional<PickedParticle> pickParticle(const ParticleWorld& world, EffectHandle effect,
                                           std::uint32_t emitters, const render::Camera& camera,
                                           glm::vec2 pixel, glm::uvec2 viewport, float radius);

/// A picked particle now: its projected pixel (onScreen false behind the eye) and one line per
/// field of its layout ("age  1.250"), after its emitter's name and id. nullopt when it died.
struct ParticleReadout {
  glm::vec2 pixel{0.0f};
  bool onScreen = false;
  std::vector<std::string> lines;
};
std::optional<ParticleReadout> readParticle(const ParticleWorld& world, EffectHandle effect,
                                            const PickedParticle& picked,
                                            const render::Camera& camera, glm::uvec2 viewport);

}  // namespace mote::view
