// SPDX-License-Identifier: MIT
// The sprite layer's rasterizer (sprite_renderer.h): its creation, textures and atlases, and
// SpriteBatcher frames turned into the quad list that sprite_renderer_raster.cpp draws.
#include "sprite_renderer_impl.h"

#include <mote/render/procedural_sprite.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace mote::render {

float srgbToLinear(float c) noexcept {
  return c <= 0.04045f ? c / 12.92f : std::pow((c + 0.055f) / 1.055f, 2.4f);
}

float linearToSrgb(float c) noexcept {
  c = std::clamp(c, 0.0f, 1.0f);
  return c <= 0.0031308f ? c * 12.92f : 1.055f * std::pow(c, 1.0f / 2.4f) - 0.055f;
}

Texture textureFromImage(const Image& image) {
  Texture t;
  t.width = image.width();
  t.height = image.height();
  t.texels.resize(std::size_t{t.width} * t.height);
  std::array<float, 256> lut{};
  for (int i = 0; i < 256; ++i)
    lut[static_cast<std::size_t>(i)] = srgbToLinear(static_cast<float>(i) / 255.0f);
  for (std::uint32_t y = 0; y < t.height; ++y) {
    for (std::uint32_t x = 0; x < t.width; ++x) {
      const Rgba8 p = image.pixel(x, y);
      const float a = static_cast<float>(p.a) / 255.0f;
      t.texels[std::size_t{y} * t.width + x] = {lut[p.r] * a, lut[p.g] * a, lut[p.b] * a, a};
    }
  }
  return t;
}

Result<Texture> loadTexture(std::string_view name, std::string_view directory,
                            std::uint32_t builtinSpriteSize) {
  if (name.rfind(kBuiltinSpriteUriPrefix, 0) == 0) {
    Result<BuiltinSprite> sprite = parseBuiltinSprite(name);
    if (!sprite.ok()) return sprite.status();
    Result<Image> made = makeBuiltinSprite(sprite.value(), builtinSpriteSize);
    if (!made.ok()) return made.status();
    return textureFromImage(made.value());
  }
  const std::string path = pathIn(directory, name);
  // TGA and DDS (NWN textures) by their extension, in any case; everything else is read as PNG.
  const auto hasExtension = [&path](std::string_view extension) {
    return path.size() >= extension.size() &&
           std::equal(
               extension.begin(), extension.end(),
               path.end() - static_cast<std::ptrdiff_t>(extension.size()),
               [](char e, char c) { return e == std::tolower(static_cast<unsigned char>(c)); });
  };
  Result<Image> loaded = hasExtension(".tga")   ? loadTga(path)
                         : hasExtension(".dds") ? loadDds(path)
                                                : loadPng(path);
  if (!loaded.ok()) return loaded.status();
  return textureFromImage(loaded.value());
}

Status validateRasterOptions(std::string_view optionsName, std::string_view capacityName,
                             Viewport viewport, std::uint32_t capacity,
                             std::uint32_t builtinSpriteSize) {
  if (Status s = viewport.validate(); !s.ok()) return s;
  if (Status s = Image::validateSize(viewport.width, viewport.height); !s.ok()) return s;
  if (capacity == 0 || capacity > (1u << 24)) {
    return invalidArgument(std::string(optionsName) + ": " + std::string(capacityName) +
                           " must be in [1, 2^24] (got " + std::to_string(capacity) + ")");
  }
  if (builtinSpriteSize < kMinBuiltinSpriteSizePixels ||
      builtinSpriteSize > kMaxBuiltinSpriteSizePixels) {
    return invalidArgument(std::string(optionsName) + ": builtinSpriteSize out of range");
  }
  return {};
}

void SpriteRenderer::Impl::init(const SpriteRendererOptions& o, bool withSceneDepth, bool withOit) {
  options = o;
  jobs = o.jobs != nullptr ? o.jobs : &inlineJobs;
  quads.allocate(o.maxSprites);
  keys.resize(o.maxSprites);
  accum.resize(std::size_t{o.viewport.width} * o.viewport.height);
  if (withSceneDepth) sceneDepth.resize(std::size_t{o.viewport.width} * o.viewport.height);
  if (withOit) oit.resize(std::size_t{o.viewport.width} * o.viewport.height * 2);
  const std::uint32_t bands = (o.viewport.height + kBand - 1) / kBand;
  bandStart.resize(std::size_t{bands} + 1);
  bandCursor.resize(bands);
  // Room for every quad to touch two bands on average; a frame that needs more scans all quads.
  bandQuads.resize(std::size_t{o.maxSprites} * 2);
  resolver = FrameResolver::create(o.viewport, o.post).takeValue();  // validated by the caller
}

SpriteRenderer::SpriteRenderer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SpriteRenderer::SpriteRenderer(SpriteRenderer&&) noexcept = default;
SpriteRenderer& SpriteRenderer::operator=(SpriteRenderer&&) noexcept = default;
SpriteRenderer::~SpriteRenderer() = default;

Result<SpriteRenderer> SpriteRenderer::create(const SpriteRendererOptions& options) {
  if (Status s = validateRasterOptions("SpriteRendererOptions", "maxSprites", options.viewport,
                                       options.maxSprites, options.builtinSpriteSize);
      !s.ok()) {
    return s;
  }
  if (Status s = options.post.validate("SpriteRendererOptions"); !s.ok()) return s;
  auto impl = std::make_unique<Impl>();
  impl->init(options, false);
  impl->styles.reserve(options.maxSprites);  // one style a sprite
  return SpriteRenderer(std::move(impl));
}

Status SpriteRenderer::setAtlas(std::uint32_t atlasId, const SpriteAtlas& atlas) {
  return impl_->setAtlas(atlasId, atlas);
}

Status SpriteRenderer::setAtlasImage(std::uint32_t atlasId, const Image& image,
                                     std::uint32_t columns, std::uint32_t rows) {
  return impl_->setAtlasImage(atlasId, image, columns, rows);
}

Status SpriteRenderer::renderSprites(const SpriteBatcher& batcher, const SpriteView& view,
                                     Image& out) {
  return impl_->renderSprites(batcher, view, out);
}

Status SpriteRenderer::spriteQuads(const SpriteBatcher& batcher, const SpriteView& view,
                                   std::vector<ScreenSprite>& sprites,
                                   std::vector<std::uint32_t>& batchEnds) {
  sprites.clear();
  batchEnds.clear();
  Impl& r = *impl_;
  if (Status s = r.prepareSprites(batcher, view, &batchEnds); !s.ok()) {
    batchEnds.clear();
    return s;
  }
  sprites.reserve(r.quads.size());
  for (std::uint32_t i = 0; i < r.quads.size(); ++i) {
    const Quad& q = r.quads[i];
    const QuadStyle& st = r.styles[r.quads.style(i)];
    ScreenSprite& made = sprites.emplace_back();
    made.x = q.x;
    made.y = q.y;
    made.color = q.color;
    made.cell = {st.ua, st.va, st.du, st.dv};
    made.texture = st.texture;
    made.cutout = st.blend == Blend::Cutout;
    made.cutoff = st.cutoff;
  }
  return {};
}

Result<const Texture*> SpriteRenderer::Impl::textureAt(std::uint32_t index) const {
  if (index >= textures.size())
    return invalidArgument("texture " + std::to_string(index) + " is past the " +
                           std::to_string(textures.size()) + " loaded");
  return &textures[index];
}

Result<const Texture*> SpriteRenderer::texture(std::uint32_t index) const {
  return impl_->textureAt(index);
}

const RenderStats& SpriteRenderer::stats() const noexcept {
  return impl_->stats;
}

Result<std::uint32_t> SpriteRenderer::Impl::textureNamed(std::string_view name) {
  for (std::size_t i = 0; i < textureNames.size(); ++i)
    if (textureNames[i] == name) return static_cast<std::uint32_t>(i);
  Result<Texture> loaded = loadTexture(name, options.textureDirectory, options.builtinSpriteSize);
  if (!loaded.ok()) return loaded.status();
  textures.push_back(std::move(loaded.value()));
  textureNames.emplace_back(name);
  return static_cast<std::uint32_t>(textures.size() - 1);
}

// ---- SpriteBatcher frames -------------------------------------------------------------------

namespace {

bool finite2(const std::array<float, 2>& v) {
  return std::isfinite(v[0]) && std::isfinite(v[1]);
}

}  // namespace

SpriteView SpriteView::orthographic(Viewport viewport, std::array<float, 2> centre,
                                    float pixelsPerUnit) noexcept {
  SpriteView v;
  v.axisX = {pixelsPerUnit, 0.0f};
  v.axisY = {0.0f, -pixelsPerUnit};
  v.origin = {0.5f * static_cast<float>(viewport.width) - centre[0] * pixelsPerUnit,
              0.5f * static_cast<float>(viewport.height) + centre[1] * pixelsPerUnit};
  v.pixelsPerUnit = pixelsPerUnit;
  return v;
}

SpriteView SpriteView::isometric(Viewport viewport, std::array<float, 2> centre,
                                 float tileWidthPixels) noexcept {
  SpriteView v;
  v.axisX = {0.5f * tileWidthPixels, 0.25f * tileWidthPixels};
  v.axisY = {-0.5f * tileWidthPixels, 0.25f * tileWidthPixels};
  v.origin = {
      0.5f * static_cast<float>(viewport.width) - centre[0] * v.axisX[0] - centre[1] * v.axisY[0],
      0.5f * static_cast<float>(viewport.height) - centre[0] * v.axisX[1] - centre[1] * v.axisY[1]};
  v.pixelsPerUnit = 0.5f * tileWidthPixels;
  return v;
}

Status SpriteView::validate() const {
  if (!finite2(origin)) return invalidArgument("SpriteView.origin must be finite");
  if (!finite2(axisX)) return invalidArgument("SpriteView.axisX must be finite");
  if (!finite2(axisY)) return invalidArgument("SpriteView.axisY must be finite");
  if (!(pixelsPerUnit > 0.0f) || !std::isfinite(pixelsPerUnit))
    return invalidArgument("SpriteView.pixelsPerUnit must be finite and > 0");
  const float det = axisX[0] * axisY[1] - axisX[1] * axisY[0];
  if (!(std::abs(det) > 0.0f) || !std::isfinite(det))
    return invalidArgument("SpriteView: axisX and axisY must span the screen (not parallel)");
  return {};
}

// A sprite atlas's flipbook grid: columns and rows in [1, 256].
static Status validateAtlasGrid(std::uint32_t atlasId, std::uint32_t columns, std::uint32_t rows) {
  constexpr std::uint32_t kMaxCells = 256;
  if (columns == 0 || rows == 0 || columns > kMaxCells || rows > kMaxCells) {
    return invalidArgument("SpriteAtlas " + std::to_string(atlasId) +
                           ": columns and rows must be in [1, " + std::to_string(kMaxCells) +
                           "] (got " + std::to_string(columns) + " x " + std::to_string(rows) +
                           ")");
  }
  return {};
}

Status SpriteRenderer::Impl::bindAtlas(std::uint32_t atlasId, std::uint32_t textureIndex,
                                       std::uint32_t columns, std::uint32_t rows) {
  if (Status s = validateAtlasGrid(atlasId, columns, rows); !s.ok()) return s;
  const AtlasBinding binding{atlasId, textureIndex, columns, rows};
  for (AtlasBinding& a : atlases) {
    if (a.atlasId == atlasId) {
      a = binding;
      return {};
    }
  }
  atlases.push_back(binding);
  return {};
}

Status SpriteRenderer::Impl::setAtlas(std::uint32_t atlasId, const SpriteAtlas& atlas) {
  if (atlas.texture.empty())
    return invalidArgument("SpriteAtlas " + std::to_string(atlasId) + ": texture is empty");
  Result<std::uint32_t> texture = textureNamed(atlas.texture);
  if (!texture.ok()) return texture.status();
  return bindAtlas(atlasId, texture.value(), atlas.columns, atlas.rows);
}

Status SpriteRenderer::Impl::setAtlasImage(std::uint32_t atlasId, const Image& image,
                                           std::uint32_t columns, std::uint32_t rows) {
  if (image.width() == 0 || image.height() == 0)
    return invalidArgument("SpriteAtlas " + std::to_string(atlasId) + ": the image is empty");
  if (Status s = validateAtlasGrid(atlasId, columns, rows); !s.ok()) return s;
  // Caller images are never shared by name: each gets a slot of its own. A slot no other atlas
  // uses (this id's previous image, or one orphaned by a rebinding) is reused, so rebinding an id
  // every frame does not grow the texture list.
  std::size_t slot = textures.size();
  for (std::size_t i = 0; i < textures.size() && slot == textures.size(); ++i) {
    if (!textureNames[i].empty()) continue;
    bool used = false;
    for (const AtlasBinding& a : atlases)
      used = used || (a.texture == i && a.atlasId != atlasId);
    if (!used) slot = i;
  }
  if (slot == textures.size()) {
    textures.push_back(textureFromImage(image));
    textureNames.emplace_back();
  } else {
    textures[slot] = textureFromImage(image);
  }
  return bindAtlas(atlasId, static_cast<std::uint32_t>(slot), columns, rows);
}

namespace {

// Sprite s's quad on screen through `view`: billboard corner order (-1,-1), (1,-1), (1,1), (-1,1)
// with +y up, rotated counter-clockwise as seen on screen (screen y runs down). False when its
// centre, size or rotation is not finite or it has no size.
bool spriteQuad(const SpriteView& view, const SpriteItem& s, ScreenQuad& quad) {
  const float cx = view.origin[0] + s.pos.x * view.axisX[0] + s.pos.y * view.axisY[0];
  const float cy = view.origin[1] + s.pos.x * view.axisX[1] + s.pos.y * view.axisY[1];
  const float hx = 0.5f * s.scale.x * view.pixelsPerUnit;
  const float hy = 0.5f * s.scale.y * view.pixelsPerUnit;
  if (!std::isfinite(cx) || !std::isfinite(cy) || !(hx > 0.0f) || !(hy > 0.0f) ||
      !std::isfinite(hx) || !std::isfinite(hy) || !std::isfinite(s.rotation)) {
    return false;
  }
  const float c = std::cos(s.rotation);
  const float sn = std::sin(s.rotation);
  static constexpr std::array<float, 4> kCx{-1.0f, 1.0f, 1.0f, -1.0f};
  static constexpr std::array<float, 4> kCy{-1.0f, -1.0f, 1.0f, 1.0f};
  for (std::size_t k = 0; k < 4; ++k) {
    const float ox = kCx[k] * hx;
    const float oy = kCy[k] * hy;
    quad.x[k] = cx + (ox * c - oy * sn);
    quad.y[k] = cy - (ox * sn + oy * c);
  }
  return true;
}

// Sprite s's style: its atlas's texture and flipbook cell (frameIndex, clamped to the grid) within
// the sprite's UV rectangle.
QuadStyle spriteStyle(const SpriteRenderer::Impl::AtlasBinding& atlas, Blend blend,
                      const SpriteItem& s) {
  const std::uint32_t cells = atlas.columns * atlas.rows;
  QuadStyle st;
  st.cutoff = 0.5f;
  st.blend = blend;
  st.texture = atlas.texture;
  const std::uint32_t cell = std::min(s.frameIndex, cells - 1);
  st.du = (s.uv.u1 - s.uv.u0) / static_cast<float>(atlas.columns);
  st.dv = (s.uv.v1 - s.uv.v0) / static_cast<float>(atlas.rows);
  st.ua = s.uv.u0 + static_cast<float>(cell % atlas.columns) * st.du;
  st.va = s.uv.v0 + static_cast<float>(cell / atlas.columns) * st.dv;
  return st;
}

}  // namespace

void SpriteRenderer::Impl::emitSprites(const SpriteBatcher& batcher, const SpriteView& view,
                                       std::vector<std::uint32_t>* batchEnds) {
  const float width = static_cast<float>(options.viewport.width);
  const float height = static_cast<float>(options.viewport.height);
  const std::span<const SpriteItem> sprites = batcher.sorted();
  for (const SpriteBatch& batch : batcher.batches()) {
    const AtlasBinding* atlas = nullptr;
    for (const AtlasBinding& a : atlases)
      if (a.atlasId == batch.atlasId) atlas = &a;
    const Blend blend = batch.blend == BlendMode::Additive ? Blend::Additive
                        : batch.blend == BlendMode::Cutout ? Blend::Cutout
                                                           : Blend::Over;
    for (const SpriteItem& s : sprites.subspan(batch.first, batch.count)) {
      const float alpha = std::clamp(s.tint.a, 0.0f, 1.0f);
      if (!(alpha > 0.0f) && blend != Blend::Additive) {
        ++stats.culled;
        continue;
      }
      ScreenQuad quad;
      if (!spriteQuad(view, s, quad) || !boundOnScreen(quad, width, height)) {
        ++stats.culled;
        continue;
      }
      if (quads.size() == quads.capacity()) {
        ++stats.dropped;
        continue;
      }
      const float r = std::max(s.tint.r, 0.0f);
      const float g = std::max(s.tint.g, 0.0f);
      const float b = std::max(s.tint.b, 0.0f);
      const float k = batch.blend == BlendMode::Premultiplied ? 1.0f : alpha;
      const auto styleIndex = static_cast<std::uint32_t>(styles.size());
      styles.push_back(spriteStyle(*atlas, blend, s));
      const auto index = static_cast<std::uint32_t>(quads.size());
      quads.push_back(Quad{quad, {r * k, g * k, b * k, blend == Blend::Additive ? 0.0f : alpha}},
                      styleIndex);
      keys[index] = {index, index};
    }
    if (batchEnds != nullptr) batchEnds->push_back(static_cast<std::uint32_t>(quads.size()));
  }
}

Status SpriteRenderer::Impl::prepareSprites(const SpriteBatcher& batcher, const SpriteView& view,
                                            std::vector<std::uint32_t>* batchEnds) {
  prepared = false;
  if (Status s = view.validate(); !s.ok()) return s;
  if (batcher.valid() && batcher.frameOpen()) {
    return invalidArgument("renderSprites: the batcher's frame is still open (call build() first)");
  }
  // Every batch needs an atlas; atlas 0 defaults to the soft circle.
  for (const SpriteBatch& batch : batcher.batches()) {
    bool bound = false;
    for (const AtlasBinding& a : atlases)
      bound = bound || a.atlasId == batch.atlasId;
    if (bound) continue;
    if (batch.atlasId != 0) {
      return notFound("renderSprites: atlas " + std::to_string(batch.atlasId) +
                      " has no texture (bind it with setAtlas)");
    }
    if (Status s = setAtlas(0, SpriteAtlas{}); !s.ok()) return s;
  }
  stats = {};
  quads.clear();
  styles.clear();
  emitSprites(batcher, view, batchEnds);
  stats.quads = static_cast<std::uint32_t>(quads.size());
  return {};
}

Status SpriteRenderer::Impl::renderSprites(const SpriteBatcher& batcher, const SpriteView& view,
                                           Image& out) {
  if (Status s = prepareSprites(batcher, view, nullptr); !s.ok()) return s;
  drawGround = false;
  oitFrame = false;  // sprite frames draw in batch order
  meshFrame = false;
  triangles.clear();
  prepared = true;
  return finish(out);
}

}  // namespace mote::render
