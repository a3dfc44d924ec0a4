// SPDX-License-Identifier: MIT
// The software particle renderer (docs/rendering.md): its creation, material textures, the frame
// API (prepare, rasterize, render) and the SpriteBatcher forwards. A frame's packets become quads
// in particle_renderer_packets.cpp (billboards in _quads, chains and beams in _ribbons), ordered
// per emitter by an LSD radix sort, and drawn by the sprite layer's rasterizer
// (sprite_renderer_raster.cpp): band-parallel rasterization into premultiplied linear floats, sRGB
// resolve.
#include "particle_renderer_impl.h"

#include <mote/render/procedural_sprite.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace mote::render {

ParticleRenderer::ParticleRenderer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ParticleRenderer::ParticleRenderer(ParticleRenderer&&) noexcept = default;
ParticleRenderer& ParticleRenderer::operator=(ParticleRenderer&&) noexcept = default;
ParticleRenderer::~ParticleRenderer() = default;

const RenderStats& ParticleRenderer::stats() const noexcept {
  return impl_->raster.stats;
}

Result<ParticleRenderer> ParticleRenderer::create(const RendererOptions& options) {
  if (Status s = validateRasterOptions("RendererOptions", "maxQuads", options.viewport,
                                       options.maxQuads, options.builtinSpriteSize);
      !s.ok()) {
    return s;
  }
  if (static_cast<std::uint32_t>(options.transparency) >
      static_cast<std::uint32_t>(Transparency::Oit)) {
    return invalidArgument("RendererOptions: transparency out of range");
  }
  if (Status s = options.post.validate("RendererOptions"); !s.ok()) return s;
  if (Status s = options.lighting.validate("RendererOptions.lighting"); !s.ok()) return s;
  if (options.maxTriangles > (1u << 24))
    return invalidArgument("RendererOptions: maxTriangles must be at most 2^24");
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  SpriteRendererOptions raster;
  raster.viewport = options.viewport;
  raster.maxSprites = options.maxQuads;
  raster.background = options.background;
  raster.textureDirectory = options.textureDirectory;
  raster.builtinSpriteSize = options.builtinSpriteSize;
  raster.post = options.post;
  raster.jobs = options.jobs;
  impl->raster.init(raster, options.ground, options.transparency == Transparency::Oit);
  impl->scratch.resize(options.maxQuads);
  impl->sortCounts.resize(
      std::size_t{std::min(impl->raster.jobs->concurrency(), Impl::kPrepRanges)} * kDrawKeyBuckets);
  impl->raster.styles.reserve(std::size_t{options.maxQuads} + Impl::kMaxPackets);
  impl->packets = RenderPacketBuilder::create(Impl::kMaxPackets).takeValue();
  impl->bolt.reserve((std::size_t{1} << kMaxBeamLevels) + 1);
  impl->boltQuads.reserve(std::size_t{1} << kMaxBeamLevels);
  if (options.drawCache) {
    impl->cache.versions.reserve(Impl::kMaxPackets);
    impl->cache.meshes.reserve(Impl::kMaxPackets);
    impl->cache.previousMeshes.reserve(Impl::kMaxPackets);
  }
  return ParticleRenderer(std::move(impl));
}

Result<std::uint32_t> ParticleRenderer::Impl::texture(const bytecode::CompiledMaterial* material) {
  return raster.textureNamed(material == nullptr || material->texture.empty()
                                 ? std::string_view("builtin:soft_circle")
                                 : std::string_view(material->texture));
}

void ParticleRenderer::Impl::beginView(const Camera& camera) {
  raster.stats = {};
  raster.drawGround = options.ground;
  raster.oitFrame = options.transparency == Transparency::Oit;
  raster.camera = camera;
  viewProjection = camera.projectionMatrix() * camera.viewMatrix();
  projector = {viewProjection,
               camera.position,
               camera.forward,
               static_cast<float>(options.viewport.width),
               static_cast<float>(options.viewport.height),
               camera.nearZ};
}

Status ParticleRenderer::prepare(const ParticleWorld& world, const Camera& camera) {
  Impl& r = *impl_;
  SpriteRenderer::Impl& raster = r.raster;
  raster.prepared = false;
  if (Status s = camera.validate(); !s.ok()) return s;
  r.beginView(camera);
  const BillboardView view = BillboardView::fromCamera(camera);
  // Emitters by sort_order (stable: equal orders keep the effect's order).
  r.packets.build(world, raster.jobs);
  r.debugStyle = Impl::kNoStyle;
  if (Status s = r.prepareMeshes(r.packets.packets()); !s.ok()) return s;
  if (r.reuseFrame()) {  // nothing the last frame showed changed (the draw cache)
    raster.prepared = true;
    return {};
  }
  if (Status s = r.emitFrame(r.packets.packets(), view, false); !s.ok()) return s;
  r.recordFrame();
  raster.prepared = true;
  return {};
}

Status ParticleRenderer::Impl::emitFrame(std::span<const RenderPacket> frame,
                                         const BillboardView& view, bool meshesOnly) {
  beginFrame();
  raster.quads.clear();
  raster.styles.clear();
  raster.cornerColors.clear();
  raster.triangles.clear();
  frameKeys = {};
  for (const RenderPacket& packet : frame) {
    if (meshesOnly && packet.mode != bytecode::RenderMode::Mesh) continue;
    Result<std::uint32_t> index = texture(packet.material);
    if (!index.ok()) return index.status();
    emitQuads(packet, view, index.value());
  }
  orderFrame();
  raster.stats.quads = static_cast<std::uint32_t>(raster.quads.size());
  raster.stats.triangles = static_cast<std::uint32_t>(raster.triangles.size());
  return {};
}

Status ParticleRenderer::rasterize(Image& out) {
  if (!impl_->raster.prepared) {
    return invalidArgument("ParticleRenderer::rasterize: no frame prepared (call prepare() first)");
  }
  return impl_->raster.finish(out);
}

Status ParticleRenderer::render(const ParticleWorld& world, const Camera& camera, Image& out) {
  if (Status s = prepare(world, camera); !s.ok()) return s;
  return impl_->raster.finish(out);
}

// ---- SpriteBatcher frames: the sprite layer's rasterizer, on this renderer's textures ---------

Status ParticleRenderer::setAtlas(std::uint32_t atlasId, const SpriteAtlas& atlas) {
  return impl_->raster.setAtlas(atlasId, atlas);
}

Status ParticleRenderer::setAtlasImage(std::uint32_t atlasId, const Image& image,
                                       std::uint32_t columns, std::uint32_t rows) {
  return impl_->raster.setAtlasImage(atlasId, image, columns, rows);
}

Status ParticleRenderer::renderSprites(const SpriteBatcher& batcher, const SpriteView& view,
                                       Image& out) {
  impl_->cache.frameValid = false;  // the lists are the sprites' now
  return impl_->raster.renderSprites(batcher, view, out);
}

}  // namespace mote::render
