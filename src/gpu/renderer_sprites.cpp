// SPDX-License-Identifier: MIT
// gpu::Renderer's SpriteBatcher frames (docs/gpu.md, "The GPU renderer"): the software sprite
// layer (render::SpriteRenderer) binds the atlases and makes each sprite's screen quad, which is
// drawn here as a ribbon-style instance of pixel corners through a matrix from pixels to clip
// space — one draw a batch, in batch order.
#include "renderer_impl.h"

#include <glm/mat4x4.hpp>

#include <algorithm>
#include <cstring>

namespace mote::gpu {

Status Renderer::Impl::ensureSprites() {
  if (sprites) return {};
  render::SpriteRendererOptions o;
  o.viewport = desc.viewport;
  o.textureDirectory = desc.textureDirectory;
  o.builtinSpriteSize = desc.builtinSpriteSize;
  Result<render::SpriteRenderer> made = render::SpriteRenderer::create(o);
  if (!made.ok()) return made.status();
  sprites.emplace(std::move(made.value()));
  return {};
}

Result<std::uint32_t> Renderer::Impl::uploaded(Renderer& owner, const render::Texture& texture,
                                               UploadedTexture& known) {
  if (known.index != ~0u && !known.stale) return known.index;
  if (known.index != ~0u && known.width == texture.width && known.height == texture.height) {
    // Rebound with the same size: its texels replaced where they are.
    std::copy(texture.texels.begin(), texture.texels.end(),
              texelData.begin() + static_cast<std::ptrdiff_t>(table[known.index][0]));
    texturesDirty = true;
    known.stale = false;
    return known.index;
  }
  Result<std::uint32_t> index = owner.addTexture(texture.width, texture.height, texture.texels);
  if (!index.ok()) return index.status();
  known = {index.value(), texture.width, texture.height, false};
  return known.index;
}

Status Renderer::setAtlas(std::uint32_t atlasId, const render::SpriteAtlas& atlas) {
  Impl& r = *impl_;
  MOTE_RETURN_IF_ERROR(r.ensureSprites());
  // A named texture is loaded into a slot of its own (or shares one by name): no slot changes.
  return r.sprites->setAtlas(atlasId, atlas);
}

Status Renderer::setAtlasImage(std::uint32_t atlasId, const render::Image& image,
                               std::uint32_t columns, std::uint32_t rows) {
  Impl& r = *impl_;
  MOTE_RETURN_IF_ERROR(r.ensureSprites());
  MOTE_RETURN_IF_ERROR(r.sprites->setAtlasImage(atlasId, image, columns, rows));
  for (Impl::UploadedTexture& t : r.spriteTextures)  // a rebound id's slot holds another image
    t.stale = true;
  return {};
}

Status Renderer::renderSprites(const render::SpriteBatcher& batcher, const render::SpriteView& view,
                               render::Image& out) {
  Impl& r = *impl_;
  MOTE_RETURN_IF_ERROR(r.ensureSprites());
  MOTE_RETURN_IF_ERROR(r.sprites->spriteQuads(batcher, view, r.screenSprites, r.batchEnds));
  r.spriteInstances.clear();
  for (const render::ScreenSprite& q : r.screenSprites) {
    Result<std::uint32_t> index = r.uploadedFrom(*this, *r.sprites, q.texture, r.spriteTextures);
    if (!index.ok()) return index.status();
    SpriteInstance s;
    s.ribbon = true;
    for (std::size_t k = 0; k < 4; ++k)
      s.quad[k] = glm::vec3(q.x[k], q.y[k], 0.0f);
    s.color = q.color;
    s.cell = q.cell;
    s.texture = index.value();
    s.cutout = q.cutout;
    s.cutoff = q.cutoff;
    r.spriteInstances.push_back(s);
  }
  // One draw a batch (the batcher's draw calls), every batch's instances one after the other.
  r.spriteDraws.clear();
  std::uint32_t from = 0;
  for (const std::uint32_t to : r.batchEnds) {
    SpriteDraw d;
    d.instances = std::span<const SpriteInstance>(r.spriteInstances.data() + from, to - from);
    r.spriteDraws.push_back(d);
    from = to;
  }
  // Pixels (x right, y down) to clip space as sprite.vert reads it (Mote's y up): x / width · 2 −
  // 1, 1 − y / height · 2.
  glm::mat4 screen(1.0f);
  screen[0][0] = 2.0f / static_cast<float>(r.desc.viewport.width);
  screen[1][1] = -2.0f / static_cast<float>(r.desc.viewport.height);
  screen[3][0] = -1.0f;
  screen[3][1] = 1.0f;
  // Any valid camera: the instances are ribbons, projected by `screen` alone.
  const render::Camera camera = render::Camera::perspective(1.0f, 1.0f, 0.1f, 10.0f).value();
  MOTE_RETURN_IF_ERROR(r.drawFrame(camera, r.spriteDraws, r.linear, &screen));
  return r.resolver->resolve(r.linear, out);
}

}  // namespace mote::gpu
