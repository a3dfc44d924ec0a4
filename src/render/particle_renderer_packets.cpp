// SPDX-License-Identifier: MIT
// ParticleRenderer's packet walk (docs/rendering.md): each emitter's render packet to quads by its
// render mode (billboards, linked chains, beams), with the packet's style, the flipbook cells and
// soft depth per particle where they differ, the draw keys, and the sort within the emitter.
#include "particle_renderer_impl.h"

#include <mote/render/particle_instance.h>

#include <glm/geometric.hpp>

#include <algorithm>
#include <cmath>

namespace mote::render {

BillboardInput particleBillboardInput(const RenderPacket& p, std::uint32_t i) noexcept {
  const glm::quat emitterRotation = emitterRotationOf(p);
  BillboardInput in = billboardInput(p, i, emitterPositionOf(p), emitterRotation);
  in.orientation = particleOrientation(p, i);
  in.emitterRotation = emitterRotation;
  return in;
}

std::array<float, 4> particlePremultipliedColor(const RenderPacket& p, std::uint32_t i) noexcept {
  return premultiplied(particleColor(p, i),
                       p.blend == bytecode::BlendMode::Additive ? Blend::Additive : Blend::Over);
}

// A stretched particle's stretch in billboard.h's terms. stretch_scale is seconds of motion added
// to the length (metres per m/s of on-screen speed); billboard.h measures screen speed in
// viewport heights, so convert at the particle's depth.
float particleStretchSeconds(const Camera& camera, float stretchScale,
                             const BillboardInput& in) noexcept {
  const float depth = glm::dot(in.position - camera.position, camera.forward);
  const float metresPerHeight =
      2.0f * camera.halfHeightExtent() *
      (camera.projection == Projection::Perspective ? std::max(depth, camera.nearZ) : 1.0f);
  return stretchScale * metresPerHeight / (2.0f * in.halfSize.y);
}

std::uint32_t particleDrawKey(bytecode::ParticleSort sort, float depth, std::uint32_t id) noexcept {
  switch (sort) {
    case bytecode::ParticleSort::FrontToBack:
      return viewDepthKeyFrontToBack(depth);
    case bytecode::ParticleSort::OldestFirst:
      return id;
    case bytecode::ParticleSort::NewestFirst:
      return ~id;
    default:
      return viewDepthKey(depth);
  }
}

ParticleCells particleCells(const RenderPacket& p, std::uint32_t i) noexcept {
  ParticleCells out;
  const std::uint32_t columns = p.sheet.columns;
  const std::uint32_t cells = columns * p.sheet.rows;
  out.du = 1.0f / static_cast<float>(columns);
  out.dv = 1.0f / static_cast<float>(p.sheet.rows);
  if (cells <= 1 || !p.frame.present()) return out;
  const float frame = p.frame.at(0, i);
  const float whole = std::floor(frame);
  const auto cellOf = [&](float f) {
    const auto k = static_cast<std::uint32_t>(std::clamp(f, 0.0f, static_cast<float>(cells - 1)));
    return std::array<float, 2>{static_cast<float>(k % columns) * out.du,
                                static_cast<float>(k / columns) * out.dv};
  };
  const auto a = cellOf(whole);
  const float next = whole + 1.0f < static_cast<float>(cells)
                         ? whole + 1.0f
                         : static_cast<float>(p.sheet.frameBegin);
  const auto b = cellOf(next);
  out.ua = a[0];
  out.va = a[1];
  out.ub = b[0];
  out.vb = b[1];
  out.frameBlend = p.sheet.frameBlend ? frame - whole : 0.0f;
  return out;
}

std::array<float, 4> ambientTinted(std::array<float, 4> premul,
                                   const bytecode::CompiledMaterial* material,
                                   const Lighting& lighting) noexcept {
  if (material == nullptr || !material->ambientTint) return premul;
  for (std::size_t c = 0; c < 3; ++c)
    premul[c] *= lighting.ambient[c];
  return premul;
}

BillboardMode packetBillboardMode(const RenderPacket& p) noexcept {
  return static_cast<BillboardMode>(
      std::min<int>(static_cast<int>(p.mode), kBillboardModeCount - 1));
}

bool cullsBackCards(const RenderPacket& p, BillboardMode mode) noexcept {
  if (p.material != nullptr && p.material->doubleSided) return false;
  return mode == BillboardMode::Horizontal || mode == BillboardMode::FacingWorld ||
         mode == BillboardMode::BillboardLocalZ || mode == BillboardMode::BillboardWorldZ ||
         p.orientation.present();
}

bool litSprites(const RenderPacket& p) noexcept {
  return p.material != nullptr && p.material->lit && p.blend != bytecode::BlendMode::Additive;
}

glm::vec3 towardEye(const Camera& camera, glm::vec3 point) noexcept {
  return camera.projection == Projection::Perspective ? camera.position - point : -camera.forward;
}

bool inDeadspace(const RenderPacket& p, const Camera& camera, const BillboardInput& in) noexcept {
  if (p.mode != bytecode::RenderMode::VelocityAligned) return false;
  const float deadspace = p.description->render.deadspaceRadians;
  if (!(deadspace > 0.0f)) return false;
  const glm::vec3 axis = glm::normalize(towardEye(camera, in.position));
  const float speed = glm::length(in.velocity);
  return speed > 0.0f && std::fabs(glm::dot(in.velocity / speed, axis)) > std::cos(deadspace);
}

namespace {

// The style every particle of the packet shares: blend, texture, cutoff, the flipbook cell size,
// the soft-particle scale (invSoft 0 when soft particles are off this frame).
QuadStyle packetStyle(const RenderPacket& p, Blend blend, std::uint32_t texture, bool soft) {
  const bytecode::CompiledMaterial* m = p.material;
  QuadStyle style;
  style.cutoff = m != nullptr ? m->alphaCutoff : 0.5f;
  if (soft && m != nullptr && m->softDistanceMeters > 0.0f)
    style.invSoft = 1.0f / m->softDistanceMeters;
  style.blend = blend;
  style.texture = texture;
  style.du = 1.0f / static_cast<float>(p.sheet.columns);
  style.dv = 1.0f / static_cast<float>(p.sheet.rows);
  return style;
}

// Particle i's flipbook cells into its style (the cell size is the packet's already).
void setFrameCells(QuadStyle& quad, const RenderPacket& p, std::uint32_t i) {
  const ParticleCells c = particleCells(p, i);
  quad.ua = c.ua;
  quad.va = c.va;
  quad.ub = c.ub;
  quad.vb = c.vb;
  quad.frameBlend = c.frameBlend;
}

}  // namespace

ParticleRenderer::Impl::PacketStyle ParticleRenderer::Impl::beginPacket(const RenderPacket& p,
                                                                        Blend blend,
                                                                        std::uint32_t texture) {
  PacketStyle ps;
  // Soft particles fade against the ground and the frame's mesh particles; with meshes every
  // quad is depth-tested against them, so it needs its own depth.
  ps.style = packetStyle(p, blend, texture, raster.drawGround || raster.meshFrame);
  ps.style.depthTested = raster.meshFrame;
  ps.perQuad = ps.style.invSoft != 0.0f || raster.meshFrame || litSprites(p) ||
               (p.sheet.columns * p.sheet.rows > 1 && p.frame.present());
  if (litSprites(p)) raster.ensureCornerColors();
  if (!ps.perQuad) {
    ps.shared = static_cast<std::uint32_t>(raster.styles.size());
    raster.styles.push_back(ps.style);
  }
  return ps;
}

void ParticleRenderer::Impl::pushParticleQuad(const PacketStyle& ps, const RenderPacket& p,
                                              std::uint32_t i, const ScreenQuad& screen,
                                              const std::array<float, 4>& color, glm::vec3 centre,
                                              float centreW,
                                              const std::array<std::array<float, 4>, 4>* corners) {
  std::uint32_t style = ps.shared;
  if (ps.perQuad) {
    style = static_cast<std::uint32_t>(raster.styles.size());
    QuadStyle& own = raster.styles.emplace_back(ps.style);
    if (corners != nullptr) {
      own.corners = static_cast<std::uint32_t>(raster.cornerColors.size());
      raster.cornerColors.push_back(*corners);
    }
    if (own.invSoft != 0.0f || own.depthTested)
      own.depth = glm::dot(centre - raster.camera.position, raster.camera.forward);
    setFrameCells(own, p, i);
  }
  const auto index = static_cast<std::uint32_t>(raster.quads.size());
  raster.quads.push_back(Quad{screen, color}, style);
  const std::uint32_t key = particleDrawKey(p.sort, centreW, p.ids[i]);
  raster.keys[index] = {key, index};
  packetKeys.add(key);
}

// Blend, texture, mode: a linked chain or a beam draws its ribbons; every other mode its billboards
// (the facing fast path where the frame is uniform), then the emitter's quads sorted by key. Under
// Transparency::Sorted and ::Oit every translucent quad is keyed by its view depth instead
// (prepare() sorts them all at once, or the OIT pass needs no order but the depths).
void ParticleRenderer::Impl::emitQuads(const RenderPacket& p, const BillboardView& view,
                                       std::uint32_t textureIndex) {
  if (!p.position.present()) return;
  const Blend blend = packetBlend(p);
  const bool emitterOrder = emitterOrdered(options.transparency, blend);
  RenderPacket drawn = p;
  if (!emitterOrder) drawn.sort = bytecode::ParticleSort::BackToFront;
  depthKeyedStrips = !emitterOrder;
  const std::uint32_t first = static_cast<std::uint32_t>(raster.quads.size());
  packetKeys = {};
  if (p.mode == bytecode::RenderMode::LinkedChain) {
    emitChain(drawn, blend, textureIndex);
  } else if (p.mode == bytecode::RenderMode::Beam) {
    emitBeams(drawn, blend, textureIndex);
  } else if (p.mode == bytecode::RenderMode::Mesh) {
    emitMeshes(drawn, blend, textureIndex);
  } else {
    const BillboardMode mode = packetBillboardMode(p);
    BillboardView bv = view;
    bv.stretchScaleSeconds = p.description->render.stretchScaleSeconds;
    const PacketStyle style = beginPacket(drawn, blend, textureIndex);
    if (!emitFacingQuads(drawn, bv, mode, style)) emitBillboards(drawn, bv, mode, style);
    // Order within the emitter (slot order needs no sort).
    const std::uint32_t count = static_cast<std::uint32_t>(raster.quads.size()) - first;
    if (emitterOrder && drawn.sort != bytecode::ParticleSort::None)
      sortDrawKeys(*raster.jobs, raster.keys.data() + first, scratch.data(), count, packetKeys,
                   sortCounts);
  }
  if (packetKeys.lo <= packetKeys.hi) {
    frameKeys.add(packetKeys.lo);
    frameKeys.add(packetKeys.hi);
  }
}

void ParticleRenderer::Impl::orderFrame() {
  // Sorted: every quad by its view-depth key, stably, so equal depths keep the emitters' order.
  if (options.transparency != Transparency::Sorted) return;
  sortDrawKeys(*raster.jobs, raster.keys.data(), scratch.data(), raster.quads.size(), frameKeys,
               sortCounts);
}

}  // namespace mote::render
