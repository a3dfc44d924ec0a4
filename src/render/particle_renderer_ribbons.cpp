// SPDX-License-Identifier: MIT
// ParticleRenderer's ribbons (docs/rendering.md): camera-facing strips through a path, for
// linked chains (one ribbon through an emitter's particles in age order) and beams (a lightning
// bolt per particle by midpoint subdivision).
#include "particle_renderer_impl.h"

#include <mote/core/counter_rng.h>

#include <glm/geometric.hpp>
#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <cmath>

namespace mote::render {

// path order.
void ParticleRenderer::Impl::pushStrip(std::span<const glm::vec3> points, float halfWidth,
                                       const std::array<float, 4>& color, Blend blend,
                                       std::uint32_t texture) {
  if (points.size() < 2 || !(halfWidth > 0.0f)) return;
  const auto side = [&](std::size_t i) {
    const glm::vec3 tangent =
        points[std::min(i + 1, points.size() - 1)] - points[i > 0 ? i - 1 : 0];
    const glm::vec3 toEye = raster.camera.projection == Projection::Perspective
                                ? raster.camera.position - points[i]
                                : -raster.camera.forward;
    glm::vec3 n = glm::cross(tangent, toEye);
    const float len = glm::length(n);
    n = len > 1e-12f && std::isfinite(len) ? n / len : raster.camera.up;
    return n * halfWidth;
  };
  glm::vec3 sideA = side(0);
  std::uint32_t style = kNoStyle;  // pushed with the first quad drawn
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const glm::vec3 sideB = side(i + 1);
    ScreenQuad quad;
    if (project(
            {points[i] - sideA, points[i + 1] - sideB, points[i + 1] + sideB, points[i] + sideA},
            quad)) {
      if (style == kNoStyle) {
        style = static_cast<std::uint32_t>(raster.styles.size());
        QuadStyle& st = raster.styles.emplace_back();
        st.blend = blend;
        st.texture = texture;
        st.ua = 0.5f;  // the middle column, all along the segment
        st.du = 0.0f;
        st.mapping = QuadMapping::Affine;  // a segment is a trapezoid, not a card
      }
      const auto index = static_cast<std::uint32_t>(raster.quads.size());
      raster.quads.push_back(Quad{quad, premultiplied(color, blend)}, style);
      // Path order, or (sorted and OIT frames) the segment's view depth at its middle.
      std::uint32_t key = index;
      if (depthKeyedStrips) {
        const glm::vec3 middle = (points[i] + points[i + 1]) * 0.5f;
        key = viewDepthKey((viewProjection * glm::vec4(middle, 1.0f)).w);
      }
      raster.keys[index] = {key, index};
      packetKeys.add(key);
    }
    sideA = sideB;
  }
}

// linked_chain: one ribbon through the emitter's particles in slot order (the world keeps chain
// emitters in age order), `chain_width` wide, each segment in its older particle's colour.
void ParticleRenderer::Impl::emitChain(const RenderPacket& p, Blend blend, std::uint32_t texture) {
  const glm::quat rotation = emitterRotationOf(p);
  const glm::vec3 origin = emitterPositionOf(p);
  const auto point = [&](std::uint32_t i) {
    const glm::vec3 q(p.position.streams[0][i], p.position.streams[1][i], p.position.streams[2][i]);
    return p.local ? origin + rotation * q : q;
  };
  const auto colorOf = [&](std::uint32_t i) {
    return std::array<float, 4>{p.color.at(0, i), p.color.at(1, i), p.color.at(2, i),
                                p.color.at(3, i)};
  };
  const float halfWidth = p.description->render.chainWidthMeters * 0.5f;
  for (std::uint32_t i = 0; i + 1 < p.count; ++i) {
    const std::array<glm::vec3, 2> segment{point(i), point(i + 1)};
    pushStrip(segment, halfWidth, colorOf(i), blend, texture);
  }
}

// beam: per particle a bolt from the emitter to the beam target (emitter-local, or the vec3
// emitter field `target_field`), built by midpoint subdivision — 2^subdivisions segments, level k
// displacing each midpoint sideways by up to radius · roughness^k — re-shaped every
// update_interval of emitter time; the particle's colour, `width` wide.
void ParticleRenderer::Impl::emitBeams(const RenderPacket& p, Blend blend, std::uint32_t texture) {
  const bytecode::CompiledRender& rd = p.description->render;
  const glm::quat rotation = emitterRotationOf(p);
  const glm::vec3 start = emitterPositionOf(p);
  glm::vec3 target(rd.beamTargetMeters[0], rd.beamTargetMeters[1], rd.beamTargetMeters[2]);
  if (rd.beamTargetFieldWord >= 0 &&
      static_cast<std::size_t>(rd.beamTargetFieldWord) + 3 <= p.emitterWords.size()) {
    const auto f = static_cast<std::size_t>(rd.beamTargetFieldWord);
    target = glm::vec3(p.emitterWords[f], p.emitterWords[f + 1], p.emitterWords[f + 2]);
  }
  const glm::vec3 end = start + rotation * target;
  const glm::vec3 axis = end - start;
  const float length = glm::length(axis);
  if (!(length > 1e-6f) || !std::isfinite(length)) return;
  const glm::vec3 dir = axis / length;
  const glm::vec3 helper = std::abs(dir.y) < 0.9f ? glm::vec3(0, 1, 0) : glm::vec3(1, 0, 0);
  const glm::vec3 u = glm::normalize(glm::cross(dir, helper));
  const glm::vec3 w = glm::cross(dir, u);
  const std::uint32_t levels = std::min(rd.beamSubdivisions, 10u);
  const std::size_t segments = std::size_t{1} << levels;
  const auto shape = static_cast<std::uint64_t>(
      rd.beamUpdateIntervalSeconds > 0.0f
          ? std::floor(std::max(p.time, 0.0f) / rd.beamUpdateIntervalSeconds)
          : std::floor(std::max(p.time, 0.0f) * 60.0f));
  for (std::uint32_t i = 0; i < p.count; ++i) {
    bolt.assign(segments + 1, start);
    bolt[segments] = end;
    // Midpoint subdivision, level by level: spacing halves, displacement shrinks by roughness.
    float scale = rd.beamRadiusMeters;
    std::uint32_t draw = 0;
    for (std::size_t step = segments; step > 1; step /= 2) {
      for (std::size_t at = step / 2; at < segments; at += step) {
        const std::array<std::uint32_t, 4> bits = counterRandom4(p.ids[i], shape, draw++);
        const float angle = unitFloatFromU32(bits[0]) * 6.2831853f;
        const float amount = (unitFloatFromU32(bits[1]) * 2.0f - 1.0f) * scale;
        bolt[at] = (bolt[at - step / 2] + bolt[at + step / 2]) * 0.5f +
                   (u * std::cos(angle) + w * std::sin(angle)) * amount;
      }
      scale *= rd.beamRoughness;
    }
    const std::array<float, 4> color{p.color.at(0, i), p.color.at(1, i), p.color.at(2, i),
                                     p.color.at(3, i)};
    pushStrip(bolt, rd.beamWidthMeters * 0.5f, color, blend, texture);
  }
}

}  // namespace mote::render
