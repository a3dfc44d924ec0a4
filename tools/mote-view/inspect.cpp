// SPDX-License-Identifier: MIT
#include "inspect.h"

#include "scene.h"

#include <mote/bytecode/compiled_effect.h>

#include <fmt/core.h>
#include <glm/mat4x4.hpp>

#include <cmath>

namespace mote::view {
namespace {

// The pixel `pos` projects to (origin top left, as the renderer's images); nullopt behind the eye.
std::optional<glm::vec2> project(const glm::mat4& viewProjection, glm::vec3 pos,
                                 glm::uvec2 viewport) {
  const glm::vec4 clip = viewProjection * glm::vec4(pos, 1.0f);
  if (!(clip.w > 1e-6f)) return std::nullopt;
  const float x = clip.x / clip.w;
  const float y = clip.y / clip.w;
  return glm::vec2((x * 0.5f + 0.5f) * static_cast<float>(viewport.x),
                   (0.5f - y * 0.5f) * static_cast<float>(viewport.y));
}

}  // namespace

std::optional<PickedParticle> pickParticle(const ParticleWorld& world, EffectHandle effect,
                                           std::uint32_t emitters, const render::Camera& camera,
                                           glm::vec2 pixel, glm::uvec2 viewport, float radius) {
  const glm::mat4 vp = camera.projectionMatrix() * camera.viewMatrix();
  std::optional<PickedParticle> best;
  float bestDistance = radius;
  for (std::uint32_t e = 0; e < emitters; ++e) {
    const Result<EmitterView> v = world.view(world.emitter(effect, e));
    if (!v.ok() || v->live == 0 || v->emitter->channels.position < 0 || v->ids == nullptr) continue;
    for (std::uint32_t k = 0; k < v->live; ++k) {
      const std::optional<glm::vec2> at = project(vp, cli::particleWorldPosition(*v, k), viewport);
      if (!at) continue;
      const float d = std::hypot(at->x - pixel.x, at->y - pixel.y);
      if (d <= bestDistance) {
        bestDistance = d;
        best = PickedParticle{e, v->ids[k]};
      }
    }
  }
  return best;
}

std::optional<ParticleReadout> readParticle(const ParticleWorld& world, EffectHandle effect,
                                            const PickedParticle& picked,
                                            const render::Camera& camera, glm::uvec2 viewport) {
  const Result<EmitterView> v = world.view(world.emitter(effect, picked.emitter));
  if (!v.ok() || v->ids == nullptr) return std::nullopt;
  std::uint32_t k = 0;
  while (k < v->live && v->ids[k] != picked.id)
    ++k;
  if (k == v->live) return std::nullopt;
  ParticleReadout out;
  if (v->emitter->channels.position >= 0) {
    const std::optional<glm::vec2> at = project(camera.projectionMatrix() * camera.viewMatrix(),
                                                cli::particleWorldPosition(*v, k), viewport);
    out.onScreen = at.has_value();
    if (at) out.pixel = *at;
  }
  out.lines.push_back(fmt::format("{}  particle {}", v->emitter->name, picked.id));
  for (const bytecode::FieldSlot& f : v->emitter->program.particleFields) {
    std::string values;
    for (std::uint32_t w = 0; w < f.width; ++w) {
      const std::size_t word = std::size_t{f.offset} + w;
      if (word >= v->streams.size()) break;
      values += fmt::format("{}{:.4g}", w == 0 ? "" : ", ", v->streams[word][k]);
    }
    out.lines.push_back(fmt::format("{:<14} {}", f.name, values));
  }
  return out;
}

}  // namespace mote::view
