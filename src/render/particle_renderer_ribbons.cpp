// SPDX-License-Identifier: MIT
// ParticleRenderer's ribbons (docs/rendering.md): camera-facing strips through a path, for
// linked chains (one ribbon through an emitter's particles in age order) and beams (a lightning
// bolt per particle by midpoint subdivision). The geometry is public (<mote/render/particle_
// instance.h>: ribbonQuads, beamPath, beamBolt) so that other renderers draw the same ribbons.
#include "particle_renderer_impl.h"

#include <mote/core/counter_rng.h>
#include <mote/render/particle_instance.h>

#include <glm/geometric.hpp>
#include <glm/gtc/quaternion.hpp>

#include <algorithm>
#include <cmath>

namespace mote::render {

glm::vec3 particleWorldPosition(const RenderPacket& p, std::uint32_t i) noexcept {
  const glm::vec3 q(p.position.streams[0][i], p.position.streams[1][i], p.position.streams[2][i]);
  return p.local ? emitterPositionOf(p) + emitterRotationOf(p) * q : q;
}

std::size_t ribbonQuads(const Camera& camera, std::span<const glm::vec3> points, float halfWidth,
                        std::span<std::array<glm::vec3, 4>> out) noexcept {
  if (points.size() < 2 || !(halfWidth > 0.0f)) return 0;
  const auto side = [&](std::size_t i) {
    const glm::vec3 tangent =
        points[std::min(i + 1, points.size() - 1)] - points[i > 0 ? i - 1 : 0];
    glm::vec3 n = glm::cross(tangent, towardEye(camera, points[i]));
    const float len = glm::length(n);
    n = len > 1e-12f && std::isfinite(len) ? n / len : camera.up;
    return n * halfWidth;
  };
  glm::vec3 sideA = side(0);
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const glm::vec3 sideB = side(i + 1);
    out[i] = {points[i] - sideA, points[i + 1] - sideB, points[i + 1] + sideB, points[i] + sideA};
    sideA = sideB;
  }
  return points.size() - 1;
}

void linkedChainOrder(const RenderPacket& p, std::span<std::uint64_t> keys) noexcept {
  for (std::uint32_t i = 0; i < p.count; ++i)
    keys[i] = (p.sources != nullptr ? std::uint64_t{p.sources[i]} << 32 : 0) | i;
  if (p.sources != nullptr) std::sort(keys.begin(), keys.begin() + p.count);
}

bool beamPath(const RenderPacket& p, BeamPath& out) noexcept {
  const bytecode::CompiledRender& rd = p.description->render;
  const glm::quat rotation = emitterRotationOf(p);
  out.start = emitterPositionOf(p);
  glm::vec3 target(rd.beamTargetMeters[0], rd.beamTargetMeters[1], rd.beamTargetMeters[2]);
  if (rd.beamTargetFieldWord >= 0 &&
      static_cast<std::size_t>(rd.beamTargetFieldWord) + 3 <= p.emitterWords.size()) {
    const auto f = static_cast<std::size_t>(rd.beamTargetFieldWord);
    target = glm::vec3(p.emitterWords[f], p.emitterWords[f + 1], p.emitterWords[f + 2]);
  }
  out.end = out.start + rotation * target;
  const glm::vec3 axis = out.end - out.start;
  const float length = glm::length(axis);
  if (!(length > 1e-6f) || !std::isfinite(length)) return false;
  const glm::vec3 dir = axis / length;
  const glm::vec3 helper = std::abs(dir.y) < 0.9f ? glm::vec3(0, 1, 0) : glm::vec3(1, 0, 0);
  out.u = glm::normalize(glm::cross(dir, helper));
  out.w = glm::cross(dir, out.u);
  out.levels = std::min(rd.beamSubdivisions, kMaxBeamLevels);
  out.shape = static_cast<std::uint64_t>(
      rd.beamUpdateIntervalSeconds > 0.0f
          ? std::floor(std::max(p.time, 0.0f) / rd.beamUpdateIntervalSeconds)
          : std::floor(std::max(p.time, 0.0f) * 60.0f));
  out.radius = rd.beamRadiusMeters;
  out.roughness = rd.beamRoughness;
  out.halfWidth = rd.beamWidthMeters * 0.5f;
  return true;
}

void beamBolt(const BeamPath& path, std::uint32_t id, std::span<glm::vec3> bolt) noexcept {
  const std::size_t segments = path.points() - 1;
  std::fill(bolt.begin(), bolt.begin() + static_cast<std::ptrdiff_t>(segments), path.start);
  bolt[segments] = path.end;
  // Midpoint subdivision, level by level: spacing halves, displacement shrinks by roughness.
  float scale = path.radius;
  std::uint32_t draw = 0;
  for (std::size_t step = segments; step > 1; step /= 2) {
    for (std::size_t at = step / 2; at < segments; at += step) {
      const std::array<std::uint32_t, 4> bits = counterRandom4(id, path.shape, draw++);
      const float angle = unitFloatFromU32(bits[0]) * 6.2831853f;
      const float amount = (unitFloatFromU32(bits[1]) * 2.0f - 1.0f) * scale;
      bolt[at] = (bolt[at - step / 2] + bolt[at + step / 2]) * 0.5f +
                 (path.u * std::cos(angle) + path.w * std::sin(angle)) * amount;
    }
    scale *= path.roughness;
  }
}

// The quads ribbonQuads made through `points`, in path order; `style` is pushed with the first
// quad drawn unless a strip of the packet pushed it.
void ParticleRenderer::Impl::pushStrip(std::span<const glm::vec3> points,
                                       std::span<const std::array<glm::vec3, 4>> segments,
                                       const std::array<float, 4>& color, Blend blend,
                                       std::uint32_t texture, std::uint32_t& style) {
  for (std::size_t i = 0; i < segments.size(); ++i) {
    ScreenQuad quad;
    if (!project(segments[i], quad)) continue;
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
}

// linked_chain: ribbons through the emitter's particles in linkedChainOrder (one, or a trail's
// one per source particle), `chain_width` wide, each segment in its older particle's colour.
void ParticleRenderer::Impl::emitChain(const RenderPacket& p, Blend blend, std::uint32_t texture) {
  const float halfWidth = p.description->render.chainWidthMeters * 0.5f;
  std::uint32_t style = kNoStyle;
  chainKeys.resize(std::max<std::size_t>(chainKeys.size(), p.count));
  forEachChainSegment(p, chainKeys, [&](std::uint32_t older, glm::vec3 from, glm::vec3 to) {
    const std::array<glm::vec3, 2> segment{from, to};
    std::array<std::array<glm::vec3, 4>, 1> quad;
    const std::size_t n = ribbonQuads(raster.camera, segment, halfWidth, quad);
    pushStrip(segment, std::span(quad).first(n), particleColor(p, older), blend, texture, style);
  });
}

// beam: per particle a bolt (beamPath, beamBolt) in the particle's colour.
void ParticleRenderer::Impl::emitBeams(const RenderPacket& p, Blend blend, std::uint32_t texture) {
  BeamPath path;
  if (!beamPath(p, path)) return;
  bolt.resize(path.points());
  boltQuads.resize(path.points() - 1);
  std::uint32_t style = kNoStyle;
  for (std::uint32_t i = 0; i < p.count; ++i) {
    beamBolt(path, p.ids[i], bolt);
    const std::size_t n = ribbonQuads(raster.camera, bolt, path.halfWidth, boltQuads);
    pushStrip(bolt, std::span(boltQuads).first(n), particleColor(p, i), blend, texture, style);
  }
}

}  // namespace mote::render
