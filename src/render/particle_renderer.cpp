// SPDX-License-Identifier: MIT
// The software particle renderer (docs/rendering.md): quads from the billboard bases, an LSD radix
// sort for draw order, band-parallel rasterization into premultiplied linear floats, sRGB resolve.
#include <mote/core/counter_rng.h>
#include <mote/render/billboard.h>
#include <mote/render/particle_renderer.h>
#include <mote/render/procedural_sprite.h>

#include <glm/geometric.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec4.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
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

namespace {

enum class Blend : std::uint8_t { Over, Additive, Cutout };

struct Quad {
  std::array<float, 4> x{};  // screen pixels, corners in billboard order
  std::array<float, 4> y{};
  float minX = 0.0f, maxX = 0.0f, minY = 0.0f, maxY = 0.0f;
  std::array<float, 4> color{};  // premultiplied linear; alpha 0 for additive
  float cutoff = 0.0f;
  // Flipbook cells (texture UV origin) and the cell size; blend weight toward cell b.
  float ua = 0.0f, va = 0.0f, ub = 0.0f, vb = 0.0f, du = 1.0f, dv = 1.0f, frameBlend = 0.0f;
  std::uint32_t texture = 0;
  Blend blend = Blend::Over;
};

struct DrawKey {
  std::uint32_t key;
  std::uint32_t index;
};

// An order-preserving map of floats to u32 (for radix sorting by depth).
std::uint32_t orderedBits(float f) {
  const auto u = std::bit_cast<std::uint32_t>(f);
  return (u & 0x80000000u) != 0 ? ~u : u | 0x80000000u;
}

// Stable LSD radix sort of keys[0, n) (8-bit digits; uniform digits skip their pass).
void radixSort(DrawKey* keys, DrawKey* scratch, std::size_t n) {
  for (int shift = 0; shift < 32; shift += 8) {
    std::array<std::uint32_t, 257> count{};
    for (std::size_t i = 0; i < n; ++i)
      ++count[((keys[i].key >> shift) & 0xFFu) + 1];
    if (std::any_of(count.begin() + 1, count.end(), [n](std::uint32_t c) { return c == n; }))
      continue;
    for (std::size_t d = 1; d < count.size(); ++d)
      count[d] += count[d - 1];
    for (std::size_t i = 0; i < n; ++i)
      scratch[count[(keys[i].key >> shift) & 0xFFu]++] = keys[i];
    std::memcpy(keys, scratch, n * sizeof(DrawKey));
  }
}

std::array<float, 4> sample(const Texture& t, float u, float v) {
  const float x = u * static_cast<float>(t.width) - 0.5f;
  const float y = v * static_cast<float>(t.height) - 0.5f;
  const float fx = std::floor(x);
  const float fy = std::floor(y);
  const float ax = x - fx;
  const float ay = y - fy;
  const auto clampI = [](float f, std::uint32_t size) {
    return static_cast<std::uint32_t>(std::clamp(f, 0.0f, static_cast<float>(size - 1)));
  };
  const std::uint32_t x0 = clampI(fx, t.width);
  const std::uint32_t x1 = clampI(fx + 1.0f, t.width);
  const std::uint32_t y0 = clampI(fy, t.height);
  const std::uint32_t y1 = clampI(fy + 1.0f, t.height);
  const auto& a = t.texels[std::size_t{y0} * t.width + x0];
  const auto& b = t.texels[std::size_t{y0} * t.width + x1];
  const auto& c = t.texels[std::size_t{y1} * t.width + x0];
  const auto& d = t.texels[std::size_t{y1} * t.width + x1];
  std::array<float, 4> out{};
  for (std::size_t k = 0; k < 4; ++k) {
    const float top = a[k] + (b[k] - a[k]) * ax;
    const float bottom = c[k] + (d[k] - c[k]) * ax;
    out[k] = top + (bottom - top) * ay;
  }
  return out;
}

}  // namespace

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

struct ParticleRenderer::Impl {
  RendererOptions options;
  JobSystem* jobs = nullptr;
  InlineJobSystem inlineJobs;
  std::vector<Texture> textures;
  std::vector<std::string> textureNames;
  std::vector<Quad> quads;
  std::vector<DrawKey> keys;
  std::vector<DrawKey> scratch;
  std::vector<std::array<float, 4>> accum;  // premultiplied linear, viewport-sized
  std::vector<EmitterHandle> emitters;
  std::vector<EmitterView> views;
  std::vector<std::uint32_t> emitterOrder;
  std::array<std::uint8_t, 4096> srgbLut{};
  RenderStats stats;
  // Per-frame view.
  glm::mat4 viewProjection{1.0f};
  Camera camera;

  Result<std::uint32_t> texture(const bytecode::CompiledMaterial* material);
  void emitQuads(const EmitterView& v, const BillboardView& view, std::uint32_t texture);
  bool project(const std::array<glm::vec3, 4>& corners, Quad& quad);
  void pushStrip(std::span<const glm::vec3> points, float halfWidth,
                 const std::array<float, 4>& color, Blend blend, std::uint32_t texture);
  void emitChain(const EmitterView& v, Blend blend, std::uint32_t texture);
  void emitBeams(const EmitterView& v, Blend blend, std::uint32_t texture);
  std::vector<glm::vec3> bolt;  // a beam's points (reserved at create: 2^10 + 1)
  void rasterizeBand(std::uint32_t y0, std::uint32_t y1);
  void clearBand(std::uint32_t y0, std::uint32_t y1);
};

ParticleRenderer::ParticleRenderer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ParticleRenderer::ParticleRenderer(ParticleRenderer&&) noexcept = default;
ParticleRenderer& ParticleRenderer::operator=(ParticleRenderer&&) noexcept = default;
ParticleRenderer::~ParticleRenderer() = default;

const RenderStats& ParticleRenderer::stats() const noexcept {
  return impl_->stats;
}

Result<ParticleRenderer> ParticleRenderer::create(const RendererOptions& options) {
  if (Status s = options.viewport.validate(); !s.ok()) return s;
  if (Status s = Image::validateSize(options.viewport.width, options.viewport.height); !s.ok())
    return s;
  if (options.maxQuads == 0 || options.maxQuads > (1u << 24)) {
    return invalidArgument("RendererOptions: maxQuads must be in [1, 2^24] (got " +
                           std::to_string(options.maxQuads) + ")");
  }
  if (options.builtinSpriteSize < kMinBuiltinSpriteSizePixels ||
      options.builtinSpriteSize > kMaxBuiltinSpriteSizePixels) {
    return invalidArgument("RendererOptions: builtinSpriteSize out of range");
  }
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->jobs = options.jobs != nullptr ? options.jobs : &impl->inlineJobs;
  impl->quads.reserve(options.maxQuads);
  impl->keys.resize(options.maxQuads);
  impl->scratch.resize(options.maxQuads);
  impl->accum.resize(std::size_t{options.viewport.width} * options.viewport.height);
  impl->emitters.resize(4096);
  impl->emitterOrder.reserve(4096);
  impl->views.reserve(4096);
  impl->bolt.reserve((std::size_t{1} << 10) + 1);
  for (std::size_t i = 0; i < impl->srgbLut.size(); ++i) {
    const float s =
        linearToSrgb(static_cast<float>(i) / static_cast<float>(impl->srgbLut.size() - 1));
    impl->srgbLut[i] = static_cast<std::uint8_t>(std::lround(s * 255.0f));
  }
  return ParticleRenderer(std::move(impl));
}

Result<std::uint32_t> ParticleRenderer::Impl::texture(const bytecode::CompiledMaterial* material) {
  const std::string_view name = material == nullptr || material->texture.empty()
                                    ? std::string_view("builtin:soft_circle")
                                    : std::string_view(material->texture);
  for (std::size_t i = 0; i < textureNames.size(); ++i)
    if (textureNames[i] == name) return static_cast<std::uint32_t>(i);
  Image image;
  if (name.rfind(kBuiltinSpriteUriPrefix, 0) == 0) {
    Result<BuiltinSprite> sprite = parseBuiltinSprite(name);
    if (!sprite.ok()) return sprite.status();
    Result<Image> made = makeBuiltinSprite(sprite.value(), options.builtinSpriteSize);
    if (!made.ok()) return made.status();
    image = std::move(made.value());
  } else {
    const std::string path = options.textureDirectory.empty() || name.front() == '/'
                                 ? std::string(name)
                                 : options.textureDirectory + "/" + std::string(name);
    // TGA by its extension (NWN textures); everything else is read as PNG.
    const bool tga = path.size() >= 4 && (path.compare(path.size() - 4, 4, ".tga") == 0 ||
                                          path.compare(path.size() - 4, 4, ".TGA") == 0);
    Result<Image> loaded = tga ? loadTga(path) : loadPng(path);
    if (!loaded.ok()) return loaded.status();
    image = std::move(loaded.value());
  }
  textures.push_back(textureFromImage(image));
  textureNames.emplace_back(name);
  return static_cast<std::uint32_t>(textures.size() - 1);
}

void ParticleRenderer::Impl::emitQuads(const EmitterView& v, const BillboardView& view,
                                       std::uint32_t textureIndex) {
  const bytecode::CompiledEmitter& e = *v.emitter;
  const bytecode::ParticleChannels& ch = e.channels;
  if (ch.position < 0) return;
  const auto stream = [&](std::int32_t channel, std::size_t lane) -> const float* {
    return channel < 0 ? nullptr : v.streams[static_cast<std::size_t>(channel) + lane];
  };
  const bytecode::CompiledMaterial* m = v.material;
  const bytecode::BlendMode materialBlend = m != nullptr ? m->blend : bytecode::BlendMode::Alpha;
  const Blend blend = materialBlend == bytecode::BlendMode::Additive ? Blend::Additive
                      : materialBlend == bytecode::BlendMode::Cutout ? Blend::Cutout
                                                                     : Blend::Over;
  const std::uint32_t columns = m != nullptr ? std::max(1u, m->columns) : 1u;
  const std::uint32_t rows = m != nullptr ? std::max(1u, m->rows) : 1u;
  const std::uint32_t cells = columns * rows;
  const bool local = bytecode::movesWithEmitter(e.space);
  const glm::quat emitterRotation(v.transform.rotation[3], v.transform.rotation[0],
                                  v.transform.rotation[1], v.transform.rotation[2]);
  const glm::vec3 emitterPosition(v.transform.position[0], v.transform.position[1],
                                  v.transform.position[2]);
  const auto mode = static_cast<BillboardMode>(
      std::min<int>(static_cast<int>(e.render.mode), kBillboardModeCount - 1));
  BillboardView bv = view;
  bv.stretchScaleSeconds = e.render.stretchScale;
  if (e.render.mode == bytecode::RenderMode::LinkedChain) {
    emitChain(v, blend, textureIndex);
    return;
  }
  if (e.render.mode == bytecode::RenderMode::Beam) {
    emitBeams(v, blend, textureIndex);
    return;
  }
  const std::uint32_t first = static_cast<std::uint32_t>(quads.size());
  bytecode::ParticleSort sort = e.render.sort;
  if (sort == bytecode::ParticleSort::Auto) {
    sort = blend == Blend::Additive ? bytecode::ParticleSort::None
                                    : bytecode::ParticleSort::BackToFront;
  }
  for (std::uint32_t i = 0; i < v.live; ++i) {
    std::array<float, 4> color{1.0f, 1.0f, 1.0f, 1.0f};
    if (ch.color >= 0) {
      for (std::size_t c = 0; c < 4; ++c)
        color[c] = stream(ch.color, c)[i];
    }
    const float alpha = std::clamp(color[3], 0.0f, 1.0f);
    if (!(alpha > 0.0f) && blend != Blend::Additive) continue;
    BillboardInput in;
    in.position =
        glm::vec3(stream(ch.position, 0)[i], stream(ch.position, 1)[i], stream(ch.position, 2)[i]);
    if (ch.velocity >= 0) {
      in.velocity = glm::vec3(stream(ch.velocity, 0)[i], stream(ch.velocity, 1)[i],
                              stream(ch.velocity, 2)[i]);
    }
    if (local) {
      in.position = emitterPosition + emitterRotation * in.position;
      in.velocity = emitterRotation * in.velocity;
    }
    if (ch.size >= 0) in.halfSize = glm::vec2(stream(ch.size, 0)[i], stream(ch.size, 1)[i]) * 0.5f;
    if (!(in.halfSize.x > 0.0f) || !(in.halfSize.y > 0.0f)) continue;
    glm::quat q(1.0f, 0.0f, 0.0f, 0.0f);
    if (ch.orientation >= 0) {
      q = normalizedOrientation(
          glm::quat(stream(ch.orientation, 3)[i], stream(ch.orientation, 0)[i],
                    stream(ch.orientation, 1)[i], stream(ch.orientation, 2)[i]));
    }
    if (ch.rotation >= 0) q = q * glm::angleAxis(stream(ch.rotation, 0)[i], glm::vec3(0, 0, 1));
    in.orientation = q;
    in.emitterRotation = emitterRotation;
    if (mode == BillboardMode::Stretched) {
      // stretch_scale is seconds of motion added to the length (metres per m/s of on-screen
      // speed); billboard.h measures screen speed in viewport heights, so convert at this depth.
      const float depth = glm::dot(in.position - camera.position, camera.forward);
      const float metresPerHeight =
          2.0f * camera.halfHeightExtent() *
          (camera.projection == Projection::Perspective ? std::max(depth, camera.nearZ) : 1.0f);
      bv.stretchScaleSeconds = e.render.stretchScale * metresPerHeight / (2.0f * in.halfSize.y);
    }
    const std::array<glm::vec3, 4> corners = billboardCorners(bv, mode, in);
    Quad quad;
    if (!project(corners, quad)) continue;
    const float r = std::max(color[0], 0.0f) * alpha;
    const float g = std::max(color[1], 0.0f) * alpha;
    const float b = std::max(color[2], 0.0f) * alpha;
    quad.color = {r, g, b, blend == Blend::Additive ? 0.0f : alpha};
    quad.cutoff = m != nullptr ? m->alphaCutoff : 0.5f;
    quad.blend = blend;
    quad.texture = textureIndex;
    quad.du = 1.0f / static_cast<float>(columns);
    quad.dv = 1.0f / static_cast<float>(rows);
    if (cells > 1 && ch.frame >= 0) {
      const float frame = stream(ch.frame, 0)[i];
      const float whole = std::floor(frame);
      const auto cellOf = [&](float f) {
        const auto k =
            static_cast<std::uint32_t>(std::clamp(f, 0.0f, static_cast<float>(cells - 1)));
        return std::array<float, 2>{static_cast<float>(k % columns) * quad.du,
                                    static_cast<float>(k / columns) * quad.dv};
      };
      const auto a = cellOf(whole);
      const float next = whole + 1.0f < static_cast<float>(cells)
                             ? whole + 1.0f
                             : static_cast<float>(m != nullptr ? m->frameBegin : 0);
      const auto nb = cellOf(next);
      quad.ua = a[0];
      quad.va = a[1];
      quad.ub = nb[0];
      quad.vb = nb[1];
      quad.frameBlend = m != nullptr && m->frameBlend ? frame - whole : 0.0f;
    }
    const glm::vec4 center = viewProjection * glm::vec4(in.position, 1.0f);
    const auto index = static_cast<std::uint32_t>(quads.size());
    quads.push_back(quad);
    // Back to front: larger depth first. Oldest first: smaller id (spawn order) first.
    const std::uint32_t id = v.ids[i];
    std::uint32_t key = ~orderedBits(center.w);
    if (sort == bytecode::ParticleSort::FrontToBack) key = orderedBits(center.w);
    if (sort == bytecode::ParticleSort::OldestFirst) key = id;
    if (sort == bytecode::ParticleSort::NewestFirst) key = ~id;
    keys[index] = {key, index};
  }
  // Order within the emitter (slot order needs no sort).
  const std::uint32_t count = static_cast<std::uint32_t>(quads.size()) - first;
  if (sort != bytecode::ParticleSort::None) radixSort(keys.data() + first, scratch.data(), count);
}

// Projects a quad's world corners to the screen; false (counted) when it is behind the camera,
// off screen, or the quad budget is spent.
bool ParticleRenderer::Impl::project(const std::array<glm::vec3, 4>& corners, Quad& quad) {
  const float width = static_cast<float>(options.viewport.width);
  const float height = static_cast<float>(options.viewport.height);
  for (std::size_t c = 0; c < 4; ++c) {
    const glm::vec4 clip = viewProjection * glm::vec4(corners[c], 1.0f);
    if (!(clip.w > camera.nearZ * 0.5f) || !std::isfinite(clip.x) || !std::isfinite(clip.y)) {
      ++stats.culled;
      return false;
    }
    quad.x[c] = (clip.x / clip.w * 0.5f + 0.5f) * width;
    quad.y[c] = (0.5f - clip.y / clip.w * 0.5f) * height;
  }
  quad.minX = std::min({quad.x[0], quad.x[1], quad.x[2], quad.x[3]});
  quad.maxX = std::max({quad.x[0], quad.x[1], quad.x[2], quad.x[3]});
  quad.minY = std::min({quad.y[0], quad.y[1], quad.y[2], quad.y[3]});
  quad.maxY = std::max({quad.y[0], quad.y[1], quad.y[2], quad.y[3]});
  if (quad.maxX < 0.0f || quad.minX >= width || quad.maxY < 0.0f || quad.minY >= height) {
    ++stats.culled;
    return false;
  }
  if (quads.size() == quads.capacity()) {
    ++stats.dropped;
    return false;
  }
  return true;
}

// A camera-facing ribbon through `points`, `halfWidth` to each side: one quad per segment, the
// texture's middle column stretched across it (so a soft sprite gives a soft-edged line), drawn in
// path order.
void ParticleRenderer::Impl::pushStrip(std::span<const glm::vec3> points, float halfWidth,
                                       const std::array<float, 4>& color, Blend blend,
                                       std::uint32_t texture) {
  if (points.size() < 2 || !(halfWidth > 0.0f)) return;
  const auto side = [&](std::size_t i) {
    const glm::vec3 tangent =
        points[std::min(i + 1, points.size() - 1)] - points[i > 0 ? i - 1 : 0];
    const glm::vec3 toEye = camera.projection == Projection::Perspective
                                ? camera.position - points[i]
                                : -camera.forward;
    glm::vec3 n = glm::cross(tangent, toEye);
    const float len = glm::length(n);
    n = len > 1e-12f && std::isfinite(len) ? n / len : camera.up;
    return n * halfWidth;
  };
  const float alpha = std::clamp(color[3], 0.0f, 1.0f);
  glm::vec3 sideA = side(0);
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const glm::vec3 sideB = side(i + 1);
    Quad quad;
    if (project(
            {points[i] - sideA, points[i + 1] - sideB, points[i + 1] + sideB, points[i] + sideA},
            quad)) {
      quad.color = {std::max(color[0], 0.0f) * alpha, std::max(color[1], 0.0f) * alpha,
                    std::max(color[2], 0.0f) * alpha, blend == Blend::Additive ? 0.0f : alpha};
      quad.blend = blend;
      quad.texture = texture;
      quad.ua = 0.5f;  // the middle column, all along the segment
      quad.du = 0.0f;
      const auto index = static_cast<std::uint32_t>(quads.size());
      quads.push_back(quad);
      keys[index] = {index, index};
    }
    sideA = sideB;
  }
}

// linked_chain: one ribbon through the emitter's particles in slot order (the world keeps chain
// emitters in age order), `chain_width` wide, each segment in its older particle's colour.
void ParticleRenderer::Impl::emitChain(const EmitterView& v, Blend blend, std::uint32_t texture) {
  const bytecode::ParticleChannels& ch = v.emitter->channels;
  const bool local = bytecode::movesWithEmitter(v.emitter->space);
  const glm::quat rotation(v.transform.rotation[3], v.transform.rotation[0],
                           v.transform.rotation[1], v.transform.rotation[2]);
  const glm::vec3 origin(v.transform.position[0], v.transform.position[1], v.transform.position[2]);
  const auto point = [&](std::uint32_t i) {
    const auto p = static_cast<std::size_t>(ch.position);
    const glm::vec3 q(v.streams[p][i], v.streams[p + 1][i], v.streams[p + 2][i]);
    return local ? origin + rotation * q : q;
  };
  const auto colorOf = [&](std::uint32_t i) {
    std::array<float, 4> c{1.0f, 1.0f, 1.0f, 1.0f};
    if (ch.color >= 0) {
      for (std::size_t k = 0; k < 4; ++k)
        c[k] = v.streams[static_cast<std::size_t>(ch.color) + k][i];
    }
    return c;
  };
  const float halfWidth = v.emitter->render.chainWidth * 0.5f;
  for (std::uint32_t i = 0; i + 1 < v.live; ++i) {
    const std::array<glm::vec3, 2> segment{point(i), point(i + 1)};
    pushStrip(segment, halfWidth, colorOf(i), blend, texture);
  }
}

// beam: per particle a bolt from the emitter to the beam target (emitter-local, or the vec3
// emitter field `target_field`), built by midpoint subdivision — 2^subdivisions segments, level k
// displacing each midpoint sideways by up to radius · roughness^k — re-shaped every
// update_interval of emitter time; the particle's colour, `width` wide.
void ParticleRenderer::Impl::emitBeams(const EmitterView& v, Blend blend, std::uint32_t texture) {
  const bytecode::CompiledRender& rd = v.emitter->render;
  const bytecode::ParticleChannels& ch = v.emitter->channels;
  const glm::quat rotation(v.transform.rotation[3], v.transform.rotation[0],
                           v.transform.rotation[1], v.transform.rotation[2]);
  const glm::vec3 start(v.transform.position[0], v.transform.position[1], v.transform.position[2]);
  glm::vec3 target(rd.beamTarget[0], rd.beamTarget[1], rd.beamTarget[2]);
  if (rd.beamTargetField >= 0 &&
      static_cast<std::size_t>(rd.beamTargetField) + 3 <= v.emitterWords.size()) {
    const auto f = static_cast<std::size_t>(rd.beamTargetField);
    target = glm::vec3(v.emitterWords[f], v.emitterWords[f + 1], v.emitterWords[f + 2]);
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
      rd.beamUpdateInterval > 0.0f ? std::floor(std::max(v.time, 0.0f) / rd.beamUpdateInterval)
                                   : std::floor(std::max(v.time, 0.0f) * 60.0f));
  for (std::uint32_t i = 0; i < v.live; ++i) {
    bolt.assign(segments + 1, start);
    bolt[segments] = end;
    // Midpoint subdivision, level by level: spacing halves, displacement shrinks by roughness.
    float scale = rd.beamRadius;
    std::uint32_t draw = 0;
    for (std::size_t step = segments; step > 1; step /= 2) {
      for (std::size_t at = step / 2; at < segments; at += step) {
        const std::array<std::uint32_t, 4> bits = counterRandom4(v.ids[i], shape, draw++);
        const float angle = unitFloatFromU32(bits[0]) * 6.2831853f;
        const float amount = (unitFloatFromU32(bits[1]) * 2.0f - 1.0f) * scale;
        bolt[at] = (bolt[at - step / 2] + bolt[at + step / 2]) * 0.5f +
                   (u * std::cos(angle) + w * std::sin(angle)) * amount;
      }
      scale *= rd.beamRoughness;
    }
    std::array<float, 4> color{1.0f, 1.0f, 1.0f, 1.0f};
    if (ch.color >= 0) {
      for (std::size_t k = 0; k < 4; ++k)
        color[k] = v.streams[static_cast<std::size_t>(ch.color) + k][i];
    }
    pushStrip(bolt, rd.beamWidth * 0.5f, color, blend, texture);
  }
}

void ParticleRenderer::Impl::clearBand(std::uint32_t y0, std::uint32_t y1) {
  const std::uint32_t w = options.viewport.width;
  const std::array<float, 4> bg{options.background[0], options.background[1], options.background[2],
                                1.0f};
  for (std::uint32_t y = y0; y < y1; ++y) {
    std::array<float, 4>* row = accum.data() + std::size_t{y} * w;
    std::fill(row, row + w, bg);
    if (!options.ground) continue;
    // A grid on y = 0: the view ray through each pixel centre, lines every metre.
    for (std::uint32_t x = 0; x < w; ++x) {
      const float ndcX = (static_cast<float>(x) + 0.5f) / static_cast<float>(w) * 2.0f - 1.0f;
      const float ndcY = 1.0f - (static_cast<float>(y) + 0.5f) /
                                    static_cast<float>(options.viewport.height) * 2.0f;
      glm::vec3 origin = camera.position;
      glm::vec3 dir = camera.forward;
      if (camera.projection == Projection::Perspective) {
        dir += camera.right * (ndcX * camera.halfWidthExtent()) +
               camera.up * (ndcY * camera.halfHeightExtent());
      } else {
        origin += camera.right * (ndcX * camera.halfWidthExtent()) +
                  camera.up * (ndcY * camera.halfHeightExtent());
      }
      if (!(dir.y < -1e-4f)) continue;
      const float t = -origin.y / dir.y;
      const float gx = origin.x + dir.x * t;
      const float gz = origin.z + dir.z * t;
      const float dist = t * glm::length(dir);
      // Line width grows with distance (a pixel's footprint), fading out far away.
      const float footprint = std::max(0.02f, dist * 0.004f);
      const float lx = std::abs(gx - std::round(gx));
      const float lz = std::abs(gz - std::round(gz));
      const float line = std::max(std::clamp(1.0f - lx / footprint, 0.0f, 1.0f),
                                  std::clamp(1.0f - lz / footprint, 0.0f, 1.0f));
      const float fade = std::clamp(1.0f - dist / 40.0f, 0.0f, 1.0f);
      const float base = 0.02f * fade;
      const float ink = 0.035f * line * fade;
      row[x] = {bg[0] + base + ink, bg[1] + base + ink, bg[2] + base * 1.2f + ink, 1.0f};
    }
  }
}

void ParticleRenderer::Impl::rasterizeBand(std::uint32_t y0, std::uint32_t y1) {
  const std::uint32_t w = options.viewport.width;
  const auto quadCount = static_cast<std::uint32_t>(quads.size());
  for (std::uint32_t k = 0; k < quadCount; ++k) {
    const Quad& q = quads[keys[k].index];
    if (q.maxY < static_cast<float>(y0) || q.minY >= static_cast<float>(y1)) continue;
    const Texture& tex = textures[q.texture];
    const auto blendPixel = [&](std::array<float, 4>& dst, std::array<float, 4> texel,
                                float coverage) {
      std::array<float, 4> src{texel[0] * q.color[0], texel[1] * q.color[1], texel[2] * q.color[2],
                               texel[3] * q.color[3]};
      if (q.blend == Blend::Cutout) {
        const float a = texel[3] * (q.color[3]);
        if (a < q.cutoff || texel[3] <= 0.0f) return;
        const float inv = 1.0f / texel[3];
        src = {texel[0] * inv * q.color[0] / std::max(q.color[3], 1e-6f),
               texel[1] * inv * q.color[1] / std::max(q.color[3], 1e-6f),
               texel[2] * inv * q.color[2] / std::max(q.color[3], 1e-6f), 1.0f};
      }
      const float keep = 1.0f - src[3] * coverage;
      for (std::size_t c = 0; c < 3; ++c)
        dst[static_cast<std::size_t>(c)] =
            src[static_cast<std::size_t>(c)] * coverage + dst[static_cast<std::size_t>(c)] * keep;
    };
    // Under a pixel: one sample at the centre, weighted by the quad's area (energy kept).
    const float spanX = q.maxX - q.minX;
    const float spanY = q.maxY - q.minY;
    if (spanX < 1.0f && spanY < 1.0f) {
      const float cx = (q.minX + q.maxX) * 0.5f;
      const float cy = (q.minY + q.maxY) * 0.5f;
      if (cy < static_cast<float>(y0) || cy >= static_cast<float>(y1) || cx < 0.0f ||
          cx >= static_cast<float>(w))
        continue;
      const float area = 0.5f * std::abs((q.x[2] - q.x[0]) * (q.y[3] - q.y[1]) -
                                         (q.x[3] - q.x[1]) * (q.y[2] - q.y[0]));
      // The sprite's average texel stands in for the whole.
      const std::array<float, 4> texel = sample(tex, q.ua + 0.5f * q.du, q.va + 0.5f * q.dv);
      blendPixel(accum[std::size_t(cy) * w + std::size_t(cx)], texel, std::min(area, 1.0f));
      continue;
    }
    // Edges, oriented so the inside is positive.
    const float area2 =
        (q.x[1] - q.x[0]) * (q.y[2] - q.y[0]) - (q.x[2] - q.x[0]) * (q.y[1] - q.y[0]) +
        (q.x[2] - q.x[0]) * (q.y[3] - q.y[0]) - (q.x[3] - q.x[0]) * (q.y[2] - q.y[0]);
    if (!(std::abs(area2) > 1e-6f)) continue;
    const float sign = area2 > 0.0f ? 1.0f : -1.0f;
    std::array<std::array<float, 3>, 4> edge{};
    for (std::size_t e = 0; e < 4; ++e) {
      const std::size_t n = (e + 1) & 3u;
      const float a = -(q.y[n] - q.y[e]) * sign;
      const float b = (q.x[n] - q.x[e]) * sign;
      edge[e] = {a, b, -(a * q.x[e] + b * q.y[e])};
    }
    // Corner parameters (s, t): billboard order (-1,-1), (1,-1), (1,1), (-1,1) → (0,0) .. (0,1).
    static constexpr std::array<float, 4> kS{0.0f, 1.0f, 1.0f, 0.0f};
    static constexpr std::array<float, 4> kT{0.0f, 0.0f, 1.0f, 1.0f};
    struct Affine {
      float s0, dsdx, dsdy, t0, dtdx, dtdy, ax, ay;
      bool ok;
    };
    const auto affine = [&](std::size_t a, std::size_t b, std::size_t c) {
      const float det =
          (q.x[b] - q.x[a]) * (q.y[c] - q.y[a]) - (q.x[c] - q.x[a]) * (q.y[b] - q.y[a]);
      Affine f{};
      f.ok = std::abs(det) > 1e-9f;
      if (!f.ok) return f;
      const auto grad = [&](const std::array<float, 4>& p, float& ddx, float& ddy) {
        ddx = ((p[b] - p[a]) * (q.y[c] - q.y[a]) - (p[c] - p[a]) * (q.y[b] - q.y[a])) / det;
        ddy = ((p[c] - p[a]) * (q.x[b] - q.x[a]) - (p[b] - p[a]) * (q.x[c] - q.x[a])) / det;
      };
      grad(kS, f.dsdx, f.dsdy);
      grad(kT, f.dtdx, f.dtdy);
      f.s0 = kS[a];
      f.t0 = kT[a];
      f.ax = q.x[a];
      f.ay = q.y[a];
      return f;
    };
    Affine lower = affine(0, 1, 2);
    Affine upper = affine(0, 2, 3);
    if (!lower.ok) lower = upper;
    if (!upper.ok) upper = lower;
    // The diagonal 0 → 2 splits the quad: the side of corner 1 uses the lower triangle.
    const float dA = -(q.y[2] - q.y[0]);
    const float dB = q.x[2] - q.x[0];
    const float dC = -(dA * q.x[0] + dB * q.y[0]);
    const float side1 = dA * q.x[1] + dB * q.y[1] + dC;
    const auto ya =
        static_cast<std::uint32_t>(std::max(static_cast<float>(y0), std::floor(q.minY)));
    const auto yb =
        static_cast<std::uint32_t>(std::min(static_cast<float>(y1), std::ceil(q.maxY) + 1.0f));
    const auto xa = static_cast<std::uint32_t>(std::max(0.0f, std::floor(q.minX)));
    const auto xb =
        static_cast<std::uint32_t>(std::min(static_cast<float>(w), std::ceil(q.maxX) + 1.0f));
    for (std::uint32_t y = ya; y < yb; ++y) {
      const float py = static_cast<float>(y) + 0.5f;
      std::array<float, 4>* row = accum.data() + std::size_t{y} * w;
      for (std::uint32_t x = xa; x < xb; ++x) {
        const float px = static_cast<float>(x) + 0.5f;
        bool inside = true;
        for (const auto& e : edge)
          inside = inside && e[0] * px + e[1] * py + e[2] >= 0.0f;
        if (!inside) continue;
        const Affine& f = (dA * px + dB * py + dC) * side1 >= 0.0f ? lower : upper;
        const float s = std::clamp(f.s0 + f.dsdx * (px - f.ax) + f.dsdy * (py - f.ay), 0.0f, 1.0f);
        const float t = std::clamp(f.t0 + f.dtdx * (px - f.ax) + f.dtdy * (py - f.ay), 0.0f, 1.0f);
        // Image rows run top-down; the billboard's t runs bottom-up.
        std::array<float, 4> texel = sample(tex, q.ua + s * q.du, q.va + (1.0f - t) * q.dv);
        if (q.frameBlend > 0.0f) {
          const std::array<float, 4> other = sample(tex, q.ub + s * q.du, q.vb + (1.0f - t) * q.dv);
          for (std::size_t c = 0; c < 4; ++c)
            texel[c] += (other[c] - texel[c]) * q.frameBlend;
        }
        blendPixel(row[x], texel, 1.0f);
      }
    }
  }
}

Status ParticleRenderer::render(const ParticleWorld& world, const Camera& camera, Image& out) {
  Impl& r = *impl_;
  if (Status s = camera.validate(); !s.ok()) return s;
  r.stats = {};
  r.camera = camera;
  r.viewProjection = camera.projectionMatrix() * camera.viewMatrix();
  const BillboardView view = BillboardView::fromCamera(camera);
  const std::uint32_t count = world.emitters(r.emitters);
  const std::uint32_t shown =
      std::min<std::uint32_t>(count, static_cast<std::uint32_t>(r.emitters.size()));
  // Emitters by sort_order (stable: equal orders keep the effect's order).
  r.emitterOrder.clear();
  std::vector<EmitterView>& views = r.views;
  views.clear();
  for (std::uint32_t i = 0; i < shown; ++i) {
    Result<EmitterView> v = world.view(r.emitters[i]);
    if (!v.ok()) continue;
    views.push_back(v.value());
    r.emitterOrder.push_back(static_cast<std::uint32_t>(views.size() - 1));
  }
  // Insertion sort: stable, allocation-free, and emitters are few.
  for (std::size_t i = 1; i < r.emitterOrder.size(); ++i) {
    const std::uint32_t moving = r.emitterOrder[i];
    const std::int32_t order = views[moving].emitter->render.sortOrder;
    std::size_t at = i;
    for (; at > 0 && views[r.emitterOrder[at - 1]].emitter->render.sortOrder > order; --at)
      r.emitterOrder[at] = r.emitterOrder[at - 1];
    r.emitterOrder[at] = moving;
  }
  r.quads.clear();
  for (const std::uint32_t k : r.emitterOrder) {
    Result<std::uint32_t> texture = r.texture(views[k].material);
    if (!texture.ok()) return texture.status();
    r.emitQuads(views[k], view, texture.value());
  }
  r.stats.quads = static_cast<std::uint32_t>(r.quads.size());
  // Bands of 16 rows, in parallel.
  constexpr std::uint32_t kBand = 16;
  const std::uint32_t height = r.options.viewport.height;
  parallelFor(*r.jobs, height, kBand, [&](std::size_t begin, std::size_t end) {
    r.clearBand(static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end));
    r.rasterizeBand(static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end));
  });
  if (out.width() != r.options.viewport.width || out.height() != height) {
    Result<Image> made = Image::create(r.options.viewport.width, height);
    if (!made.ok()) return made.status();
    out = std::move(made.value());
  }
  const float lutScale = static_cast<float>(r.srgbLut.size() - 1);
  std::uint8_t* px = out.pixels().data();
  for (const std::array<float, 4>& c : r.accum) {
    for (std::size_t k = 0; k < 3; ++k)
      *px++ = r.srgbLut[static_cast<std::size_t>(std::clamp(c[k], 0.0f, 1.0f) * lutScale + 0.5f)];
    *px++ = 255;
  }
  return {};
}

}  // namespace mote::render
