// SPDX-License-Identifier: MIT
// gpu::Renderer's render packets (docs/gpu.md, "The GPU renderer"): each packet's particles become
// instances by the software renderer's own per-particle functions (<mote/render/particle_
// instance.h>), in its order, with its material's texture — a linked chain's or beam's ribbon
// segments by the same ribbon functions — and are drawn by draw(); render()
// builds a world's packets and resolves the frame as the software renderer resolves its own.
#include "billboard_words.h"
#include "renderer_impl.h"

#include <mote/core/effect_enums.h>
#include <mote/render/debug_overlay.h>
#include <mote/render/depth_key.h>
#include <mote/render/particle_instance.h>
#include <mote/render/sprite_renderer.h>

#include <fmt/format.h>
#include <glm/geometric.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec4.hpp>

#include <algorithm>
#include <numeric>
#include <string>

namespace mote::gpu {

Result<std::uint32_t> Renderer::Impl::textureNamed(Renderer& owner, std::string_view name) {
  for (const auto& [known, index] : named)
    if (known == name) return index;
  Result<render::Texture> texture =
      render::loadTexture(name, desc.textureDirectory, desc.builtinSpriteSize);
  if (!texture.ok()) return texture.status();
  Result<std::uint32_t> index = owner.addTexture(texture->width, texture->height, texture->texels);
  if (index.ok()) named.emplace_back(std::string(name), index.value());
  return index;
}

// The frame's mesh particles: the software renderer's own triangles (its triangle layer: the
// particles in its order, transformed, lit, near-clipped and culled), each drawn as it is with
// that renderer's texture, uploaded here once.
Status Renderer::Impl::addMeshTriangles(Renderer& owner,
                                        std::span<const render::RenderPacket> packets,
                                        const render::Camera& camera,
                                        const mote::ParticleWorld* world,
                                        const render::DebugOverlayOptions* overlay) {
  if (!meshes) {
    render::RendererOptions o;
    o.viewport = desc.viewport;
    o.ground = desc.ground;
    o.textureDirectory = desc.textureDirectory;
    o.builtinSpriteSize = desc.builtinSpriteSize;
    o.transparency = desc.transparency;
    o.lighting = desc.lighting;
    Result<render::ParticleRenderer> made = render::ParticleRenderer::create(o);
    if (!made.ok()) return made.status();
    meshes.emplace(std::move(made.value()));
  }
  MOTE_RETURN_IF_ERROR(meshes->prepareTriangles(packets, camera));
  if (overlay != nullptr)
    MOTE_RETURN_IF_ERROR(render::drawDebugOverlay(*meshes, *world, packets, *overlay));
  MOTE_RETURN_IF_ERROR(meshes->triangles(rasterTriangles));
  const bool oit = desc.transparency == render::Transparency::Oit;
  for (const render::RasterTriangle& t : rasterTriangles) {
    Result<std::uint32_t> index = uploadedFrom(owner, *meshes, t.texture, meshTextures);
    if (!index.ok()) return index.status();
    for (const render::TriangleVertex& v : t.v) {
      for (const float f : {v.x, v.y, v.invW, v.depth, v.u, v.v})
        putWord(triangleWords, f);
      for (const float c : v.color)
        putWord(triangleWords, c);
    }
    const bool cutout = t.blend == render::TriangleBlend::Cutout;
    // An OIT frame's translucent triangles accumulate (16), additive ones into the side plane (8).
    triangleWords.push_back(index.value());
    triangleWords.push_back((cutout ? 1u : 0u) | (oit && !cutout ? 16u : 0u) |
                            (oit && t.blend == render::TriangleBlend::Additive ? 8u : 0u));
    putWord(triangleWords, t.cutoff);
    triangleWrites.push_back(t.depthWrite);
  }
  return {};
}

// A linked chain's or beam's ribbon segments as the software renderer makes them
// (particle_renderer_ribbons.cpp): each a quad of world corners in its particle's premultiplied
// colour, textured at the middle column of the texture, in path order.
void Renderer::Impl::addRibbons(const render::RenderPacket& p, const render::Camera& camera,
                                const glm::mat4& viewProjection, std::uint32_t texture) {
  // OIT frames weigh translucent segments by their depth; cutout ones draw in order.
  const bool oit =
      desc.transparency == render::Transparency::Oit && p.blend != bytecode::BlendMode::Cutout;
  SpriteInstance s;
  s.ribbon = true;
  s.oitAdditive = oit && p.blend == bytecode::BlendMode::Additive;
  s.texture = texture;
  s.cell = {0.5f, 0.0f, 0.0f, 1.0f};
  s.cutout = p.blend == bytecode::BlendMode::Cutout;
  s.cutoff = 0.0f;  // the software renderer's ribbon style keeps its default
  const auto strip = [&](std::span<const glm::vec3> points, float halfWidth, std::uint32_t i) {
    const std::size_t n = render::ribbonQuads(camera, points, halfWidth, ribbonQuads);
    s.color = render::particlePremultipliedColor(p, i);
    for (std::size_t k = 0; k < n; ++k) {
      s.quad = ribbonQuads[k];
      packetInstances.push_back(s);
      // The sorted order's key: the segment's view depth at its middle, as the software
      // renderer keys it.
      const glm::vec3 middle = (points[k] + points[k + 1]) * 0.5f;
      const float w = (viewProjection * glm::vec4(middle, 1.0f)).w;
      if (oit) packetInstances.back().oitWeight = render::oitDepthWeight(w);
      instanceKeys.push_back(render::particleDrawKey(bytecode::ParticleSort::BackToFront, w, 0));
    }
  };
  if (p.mode == bytecode::RenderMode::LinkedChain) {
    ribbonQuads.resize(1);
    const float halfWidth = p.description->render.chainWidthMeters * 0.5f;
    chainKeys.resize(std::max<std::size_t>(chainKeys.size(), p.count));
    render::forEachChainSegment(p, chainKeys,
                                [&](std::uint32_t older, glm::vec3 from, glm::vec3 to) {
                                  const std::array<glm::vec3, 2> segment{from, to};
                                  strip(segment, halfWidth, older);
                                });
    return;
  }
  render::BeamPath path;
  if (!render::beamPath(p, path)) return;
  bolt.resize(path.points());
  ribbonQuads.resize(path.points() - 1);
  for (std::uint32_t i = 0; i < p.count; ++i) {
    render::beamBolt(path, p.ids[i], bolt);
    strip(bolt, path.halfWidth, i);
  }
}

Status Renderer::drawPackets(std::span<const render::RenderPacket> packets,
                             const render::Camera& camera,
                             std::vector<std::array<float, 4>>& linear) {
  return impl_->drawPacketFrame(*this, packets, camera, linear, nullptr, nullptr);
}

Status Renderer::Impl::drawPacketFrame(Renderer& owner,
                                       std::span<const render::RenderPacket> packets,
                                       const render::Camera& camera,
                                       std::vector<std::array<float, 4>>& frameOut,
                                       const mote::ParticleWorld* world,
                                       const render::DebugOverlayOptions* overlay) {
  MOTE_RETURN_IF_ERROR(camera.validate());
  Impl& r = *this;
  // A frame with mesh emitters draws their triangles first; its particles are hidden behind them
  // and soft ones fade against them, as the software renderer's (its meshFrame, as prepare() sees
  // it: the debug overlay's lines, drawn with the triangles, neither write depth nor change it).
  r.triangleWords.clear();
  r.triangleWrites.clear();
  const bool meshFrame =
      std::any_of(packets.begin(), packets.end(), [](const render::RenderPacket& p) {
        return p.mode == bytecode::RenderMode::Mesh && p.description != nullptr;
      });
  if (meshFrame || overlay != nullptr)
    MOTE_RETURN_IF_ERROR(r.addMeshTriangles(owner, packets, camera, world, overlay));
  const glm::mat4 viewProjection = camera.projectionMatrix() * camera.viewMatrix();
  const render::BillboardView view = render::BillboardView::fromCamera(
      camera, glm::vec3(r.desc.worldUp[0], r.desc.worldUp[1], r.desc.worldUp[2]), 0.0f);
  const bool sorted = r.desc.transparency == render::Transparency::Sorted;
  r.packetInstances.clear();
  r.instanceKeys.clear();
  r.packetCorners.clear();
  r.packetDraws.clear();
  r.ranges.clear();
  for (const render::RenderPacket& p : packets) {
    if (!p.position.present() || p.count == 0 || p.mode == bytecode::RenderMode::Mesh) continue;
    const bytecode::CompiledMaterial* m = p.material;
    Result<std::uint32_t> texture = r.textureNamed(
        owner, m == nullptr || m->texture.empty() ? std::string_view("builtin:soft_circle")
                                                  : std::string_view(m->texture));
    if (!texture.ok()) return texture.status();
    if (p.mode == bytecode::RenderMode::LinkedChain || p.mode == bytecode::RenderMode::Beam) {
      const std::size_t begin = r.packetInstances.size();
      r.addRibbons(p, camera, viewProjection, texture.value());
      r.ranges.push_back({render::BillboardMode::Billboard, begin, r.packetInstances.size(),
                          r.packetCorners.size(), r.packetCorners.size()});
      continue;
    }
    const render::BillboardMode mode = render::packetBillboardMode(p);
    const bool additive = p.blend == bytecode::BlendMode::Additive;
    const bool cutout = p.blend == bytecode::BlendMode::Cutout;
    // Sorted frames, and OIT frames' translucent packets, key every particle by its view depth
    // (OIT weighs it by that depth; cutout packets keep their emitter's order).
    const bool oit = r.desc.transparency == render::Transparency::Oit && !cutout;
    const bool depthKeyed = sorted || oit;
    const bool cullBack = render::cullsBackCards(p, mode);
    const bool lit = render::litSprites(p);
    const float stretchScale = p.description->render.stretchScaleSeconds;
    // Soft particles fade against the scene's depth, as the software renderer's do where it has
    // one (the ground, mesh triangles).
    const float softInverse =
        (r.desc.ground || meshFrame) && m != nullptr && m->softDistanceMeters > 0.0f
            ? 1.0f / m->softDistanceMeters
            : 0.0f;
    r.unsorted.clear();
    r.keys.clear();
    // Sorted: every lit instance indexes the frame's corner colours, which all its draws share.
    const std::size_t cornersBegin = sorted ? 0 : r.packetCorners.size();
    for (std::uint32_t i = 0; i < p.count; ++i) {
      SpriteInstance s;
      s.color = render::ambientTinted(render::particlePremultipliedColor(p, i), m, r.desc.lighting);
      if (!additive && !(s.color[3] > 0.0f)) continue;  // nothing shows
      s.particle = render::particleBillboardInput(p, i);
      if (!(s.particle.halfSize.x > 0.0f) || !(s.particle.halfSize.y > 0.0f)) continue;
      if (render::inDeadspace(p, camera, s.particle)) continue;
      if (mode == render::BillboardMode::Stretched)
        s.stretchScaleSeconds = render::particleStretchSeconds(camera, stretchScale, s.particle);
      const render::ParticleCells cells = render::particleCells(p, i);
      s.cell = {cells.ua, cells.va, cells.du, cells.dv};
      s.nextCell = {cells.ub, cells.vb};
      s.frameBlend = cells.frameBlend;
      s.texture = texture.value();
      s.cutout = cutout;
      s.cutoff = m != nullptr ? m->alphaCutoff : 0.5f;
      s.softInverse = softInverse;
      s.viewDepth = glm::dot(s.particle.position - camera.position, camera.forward);
      s.cullBack = cullBack;
      s.depthTested = meshFrame;
      if (lit) {
        render::BillboardView own = view;
        own.stretchScaleSeconds = s.stretchScaleSeconds;
        s.corners = static_cast<std::uint32_t>(r.packetCorners.size() - cornersBegin);
        r.packetCorners.push_back(render::litCornerColors(
            r.desc.lighting, camera, render::billboardCorners(own, mode, s.particle),
            s.particle.position, s.color));
      }
      const float w = (viewProjection * glm::vec4(s.particle.position, 1.0f)).w;
      if (oit) {
        s.oitWeight = render::oitDepthWeight(w);
        s.oitAdditive = additive;
      }
      r.unsorted.push_back(s);
      r.keys.push_back(render::particleDrawKey(
          depthKeyed ? bytecode::ParticleSort::BackToFront : p.sort, w, p.ids[i]));
    }
    // The emitter's own order: ascending keys, stably (slot order breaks ties); None, every packet
    // of a sorted frame (sorted as a whole below) and an OIT frame's translucent ones: slot order.
    r.order.resize(r.unsorted.size());
    std::iota(r.order.begin(), r.order.end(), 0u);
    if (p.sort != bytecode::ParticleSort::None && !depthKeyed)
      std::stable_sort(r.order.begin(), r.order.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return r.keys[a] < r.keys[b]; });
    const std::size_t begin = r.packetInstances.size();
    for (const std::uint32_t k : r.order) {
      r.packetInstances.push_back(r.unsorted[k]);
      r.instanceKeys.push_back(r.keys[k]);
    }
    r.ranges.push_back(
        {mode, begin, r.packetInstances.size(), cornersBegin, r.packetCorners.size()});
  }
  if (sorted) {
    r.sortInstances();
  } else {
    r.emitterDraws();
  }
  return r.drawFrame(camera, r.packetDraws, frameOut);
}

// Emitter order: one draw a packet, its instances and corner colours.
void Renderer::Impl::emitterDraws() {
  for (const PacketRange& range : ranges) {
    SpriteDraw d;
    d.mode = range.mode;
    d.instances = std::span<const SpriteInstance>(packetInstances.data() + range.begin,
                                                  range.end - range.begin);
    d.cornerColors = std::span<const std::array<std::array<float, 4>, 4>>(
        packetCorners.data() + range.cornersBegin, range.cornersEnd - range.cornersBegin);
    packetDraws.push_back(d);
  }
}

// Sorted: every instance of the frame by its key (view depth, back to front), stably — equal keys
// keep the packets' order and each packet's slot or path order, as the software renderer's one
// stable sort of the frame's quads keeps them — then one draw a run of one projection mode, every
// draw sharing the frame's corner colours.
void Renderer::Impl::sortInstances() {
  modes.resize(packetInstances.size());
  for (const PacketRange& range : ranges)
    std::fill(modes.begin() + static_cast<std::ptrdiff_t>(range.begin),
              modes.begin() + static_cast<std::ptrdiff_t>(range.end), range.mode);
  order.resize(packetInstances.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return instanceKeys[a] < instanceKeys[b];
  });
  sortedInstances.clear();
  for (const std::uint32_t k : order)
    sortedInstances.push_back(packetInstances[k]);
  std::size_t runBegin = 0;
  for (std::size_t k = 0; k <= order.size(); ++k) {
    if (k < order.size() && (k == runBegin || modes[order[k]] == modes[order[runBegin]])) continue;
    if (k > runBegin) {
      SpriteDraw d;
      d.mode = modes[order[runBegin]];
      d.instances =
          std::span<const SpriteInstance>(sortedInstances.data() + runBegin, k - runBegin);
      d.cornerColors = packetCorners;
      packetDraws.push_back(d);
    }
    runBegin = k;
  }
}

Status Renderer::render(const mote::ParticleWorld& world, const render::Camera& camera,
                        render::Image& out) {
  return impl_->renderWorld(*this, world, camera, out, nullptr);
}

Status Renderer::render(const mote::ParticleWorld& world, const render::Camera& camera,
                        render::Image& out, const render::DebugOverlayOptions& overlay) {
  return impl_->renderWorld(*this, world, camera, out, &overlay);
}

Status Renderer::Impl::renderWorld(Renderer& owner, const mote::ParticleWorld& world,
                                   const render::Camera& camera, render::Image& out,
                                   const render::DebugOverlayOptions* overlay) {
  if (!builder) {
    Result<render::RenderPacketBuilder> made = render::RenderPacketBuilder::create(4096);
    if (!made.ok()) return made.status();
    builder.emplace(std::move(made.value()));
  }
  builder->build(world);
  MOTE_RETURN_IF_ERROR(drawPacketFrame(owner, builder->packets(), camera, linear, &world, overlay));
  return resolver->resolve(linear, out);
}

}  // namespace mote::gpu
