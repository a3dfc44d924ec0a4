// SPDX-License-Identifier: MIT
// The software particle renderer (docs/rendering.md): quads from the billboard bases, an LSD radix
// sort for draw order, band-parallel rasterization into premultiplied linear floats, sRGB resolve.
#include "draw_order.h"
#include "facing_quads.h"
#include "raster_kernel.h"

#include <mote/core/assert.h>
#include <mote/core/counter_rng.h>
#include <mote/render/billboard.h>
#include <mote/render/depth_key.h>
#include <mote/render/particle_renderer.h>
#include <mote/render/procedural_sprite.h>
#include <mote/render/render_packet.h>

#include <glm/geometric.hpp>
#include <glm/gtc/quaternion.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec4.hpp>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
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

// The ground grid's arithmetic on one pixel (T = float) or four (T = F4), the same IEEE
// operations in the same order either way, so both give the same bits (F4: facing_kernel.h).
using I4 = std::int32_t __attribute__((vector_size(16)));

float laneAbs(float x) {
  return std::fabs(x);
}
F4 laneAbs(F4 x) {
  return std::bit_cast<F4>(std::bit_cast<I4>(x) & 0x7FFFFFFF);
}
float laneSqrt(float x) {
  return std::sqrt(x);
}
F4 laneSqrt(F4 x) {
#if defined(__SSE__)
  return __builtin_ia32_sqrtps(x);  // IEEE square root, as std::sqrt
#else
  for (int k = 0; k < 4; ++k)
    x[k] = std::sqrt(x[k]);
  return x;
#endif
}

// std::round (half away from zero) without the C library's call, exact for every float (checked
// against std::round for all 2^32): below 2^23 the truncation and x − trunc(x) are exact; from
// there on every float is an integer.
template <class T>
T roundHalfAway(T x) {
  if constexpr (std::is_same_v<T, float>) {
    if (!(std::fabs(x) < 8388608.0f)) return x;  // an integer, an infinity or NaN
    const float t = static_cast<float>(static_cast<std::int32_t>(x));
    const float r = std::fabs(x - t) >= 0.5f ? t + std::copysign(1.0f, x) : t;
    return std::copysign(r, x);
  } else {
    const I4 sign = std::bit_cast<I4>(x) & static_cast<std::int32_t>(0x80000000u);
    const F4 t = __builtin_convertvector(__builtin_convertvector(x, I4), F4);
    const F4 one = std::bit_cast<F4>(std::bit_cast<I4>(F4{} + 1.0f) | sign);
    const F4 r = laneAbs(x - t) >= 0.5f ? t + one : t;
    const F4 signedR = std::bit_cast<F4>((std::bit_cast<I4>(r) & 0x7FFFFFFF) | sign);
    return laneAbs(x) < 8388608.0f ? signedR : x;
  }
}

// What the ground grid needs of a frame: the camera's frame and the background.
struct GroundView {
  glm::vec3 position;
  glm::vec3 forward;
  glm::vec3 right;
  bool perspective = true;
  float halfWidth = 0.0f;  // the camera's half extents (tan of the half field of view, or ortho)
  std::array<float, 4> background{};
};

// The grid on y = 0 at pixels whose NDC x is `ndcX`, on a row whose up term (camera.up · ndcY ·
// halfHeight) is `upTerm`: the view ray through each pixel centre, lines every metre. Returns
// where the ray meets the ground in front of the eye; there `depth` is the ground point's view
// depth and `rgb` the colour.
template <class T>
auto groundLanes(const GroundView& g, glm::vec3 upTerm, T ndcX, T& depth, std::array<T, 3>& rgb) {
  const T s = ndcX * g.halfWidth;
  // glm: right · s + upTerm, componentwise.
  const T sx = g.right.x * s + upTerm.x;
  const T sy = g.right.y * s + upTerm.y;
  const T sz = g.right.z * s + upTerm.z;
  const T zero = T{} + 0.0f;
  const T ox = g.perspective ? zero + g.position.x : g.position.x + sx;
  const T oy = g.perspective ? zero + g.position.y : g.position.y + sy;
  const T oz = g.perspective ? zero + g.position.z : g.position.z + sz;
  const T dx = g.perspective ? g.forward.x + sx : zero + g.forward.x;
  const T dy = g.perspective ? g.forward.y + sy : zero + g.forward.y;
  const T dz = g.perspective ? g.forward.z + sz : zero + g.forward.z;
  const auto downward = dy < -1e-4f;
  const T t = -oy / dy;
  const auto hit = downward & (t > 0.0f);
  // dir is forward plus a sideways part (perspective) or forward (orthographic): t is the
  // ground point's view depth either way.
  depth = t;
  const T gx = ox + dx * t;
  const T gz = oz + dz * t;
  const T dist = t * laneSqrt(dx * dx + dy * dy + dz * dz);  // glm::length
  // Line width grows with distance (a pixel's footprint), fading out far away. std::max(a, b)
  // is a < b ? b : a; std::clamp(v, 0, 1) is v < 0 ? 0 : (1 < v ? 1 : v).
  const T scaled = dist * 0.004f;
  const T footprint = 0.02f < scaled ? scaled : zero + 0.02f;
  const auto unit = [&](T v) {
    const T low = v < 0.0f ? zero : v;
    return 1.0f < v ? zero + 1.0f : low;
  };
  const T cx = unit(1.0f - laneAbs(gx - roundHalfAway(gx)) / footprint);
  const T cz = unit(1.0f - laneAbs(gz - roundHalfAway(gz)) / footprint);
  const T line = cx < cz ? cz : cx;
  const T fade = unit(1.0f - dist / 40.0f);
  const T base = 0.02f * fade;
  const T ink = 0.035f * line * fade;
  rgb = {g.background[0] + base + ink, g.background[1] + base + ink,
         g.background[2] + base * 1.2f + ink};
  return hit;
}

enum class Blend : std::uint8_t { Over, Additive, Cutout };

// How a quad's pixels come out, besides its colour: one per packet (or sprite, or ribbon), or one
// per quad where a particle has its own flipbook frame or soft depth.
struct QuadStyle {
  float cutoff = 0.0f;
  // Soft particles: the fade against the scene depth, (sceneDepth − depth) · invSoft clamped to
  // [0, 1]; invSoft 0 draws hard.
  float depth = 0.0f;
  float invSoft = 0.0f;
  // Flipbook cells (texture UV origin) and the cell size; blend weight toward cell b.
  float ua = 0.0f, va = 0.0f, ub = 0.0f, vb = 0.0f, du = 1.0f, dv = 1.0f, frameBlend = 0.0f;
  std::uint32_t texture = 0;
  Blend blend = Blend::Over;
};

// The frame's quads (Quad: facing_quads.h) and each one's style (into Impl::styles), room for
// maxQuads allocated once at create: a vector that never grows, so that the facing fast path can
// write records in place past size() and then take the ones it keeps (commit).
class QuadList {
 public:
  void allocate(std::size_t capacity) {
    quads_ = std::make_unique<Quad[]>(capacity);
    styles_ = std::make_unique<std::uint32_t[]>(capacity);
    capacity_ = capacity;
    size_ = 0;
  }
  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return capacity_; }
  bool empty() const noexcept { return size_ == 0; }
  void clear() noexcept { size_ = 0; }
  // The caller checks the room (size() < capacity()).
  void push_back(const Quad& quad, std::uint32_t style) noexcept {
    MOTE_ASSERT(size_ < capacity_);
    styles_[size_] = style;
    quads_[size_++] = quad;
  }
  // Takes the records written in place up to `size` (at most capacity()), their styles set.
  void commit(std::size_t size) noexcept {
    MOTE_ASSERT(size <= capacity_);
    size_ = size;
  }
  Quad* data() noexcept { return quads_.get(); }
  std::uint32_t* styles() noexcept { return styles_.get(); }
  const Quad& operator[](std::size_t i) const noexcept { return quads_[i]; }
  std::uint32_t style(std::size_t i) const noexcept { return styles_[i]; }

 private:
  std::unique_ptr<Quad[]> quads_;
  std::unique_ptr<std::uint32_t[]> styles_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

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
  QuadList quads;
  // Quad styles: at most one per quad plus one per packet (reserved for maxQuads + kMaxPackets).
  static constexpr std::uint32_t kMaxPackets = 4096;
  static constexpr std::uint32_t kNoStyle = ~0u;
  std::vector<QuadStyle> styles;
  std::vector<DrawKey> keys;
  std::vector<DrawKey> scratch;
  // The split sort's counters (sortDrawKeys on jobs): kDrawKeyBuckets for each range of keys (one
  // per thread, at most kPrepRanges).
  static constexpr std::uint32_t kPrepRanges = 16;
  std::vector<std::uint32_t> sortCounts;
  // The fast path's ranges when one emitter's quads are made on several threads.
  std::array<FacingTally, kPrepRanges> rangeTallies{};
  void appendFacingInRanges(const FacingSetup& setup, const FacingAppend& append,
                            const FacingParticles& in, FacingTally& tally);
  std::vector<std::array<float, 4>> accum;  // premultiplied linear, viewport-sized
  // View depth of the opaque scene (the ground plane) at each pixel centre, +inf where the view
  // ray misses it; written by clearBand when the ground is drawn. Viewport-sized when ground is on.
  std::vector<float> sceneDepth;
  RenderPacketBuilder packets;
  std::array<std::uint8_t, 4096> srgbLut{};
  RenderStats stats;
  // Per-frame view.
  glm::mat4 viewProjection{1.0f};
  Camera camera;

  // Sprite atlases bound by setAtlas: atlasId → texture and flipbook grid.
  struct AtlasBinding {
    std::uint32_t atlasId = 0;
    std::uint32_t texture = 0;
    std::uint32_t columns = 1;
    std::uint32_t rows = 1;
  };
  std::vector<AtlasBinding> atlases;
  bool prepared = false;  // a draw list is ready for rasterize()
  // Per 16-row band, the draw positions (into keys) of the quads that touch it, in draw order:
  // band b's are bandQuads[bandStart[b], bandStart[b + 1]). `binned` false when the frame's
  // entries did not fit bandQuads: every band then scans every quad.
  static constexpr std::uint32_t kBand = 16;
  std::vector<std::uint32_t> bandStart;
  std::vector<std::uint32_t> bandCursor;
  std::vector<std::uint32_t> bandQuads;
  bool binned = false;
  void binQuads();
  bool drawGround = false;  // this frame: the 3D ground grid (render(), not renderSprites())

  Result<std::uint32_t> texture(const bytecode::CompiledMaterial* material);
  Result<std::uint32_t> textureNamed(std::string_view name);
  Status bindAtlas(std::uint32_t atlasId, std::uint32_t texture, std::uint32_t columns,
                   std::uint32_t rows);
  void emitSprites(const SpriteBatcher& batcher, const SpriteView& view);
  // Rasterizes the frame's quads in key order in parallel bands and resolves them into `out`.
  Status finish(Image& out);
  void emitQuads(const RenderPacket& p, const BillboardView& view, std::uint32_t texture);
  // A packet's style, shared by its quads unless each needs its own (a flipbook frame or a soft
  // depth per particle).
  struct PacketStyle {
    QuadStyle style;
    bool perQuad = false;
    std::uint32_t shared = 0;  // into styles, when not perQuad
  };
  PacketStyle beginPacket(const RenderPacket& p, Blend blend, std::uint32_t texture);
  // Appends particle i's quad (bounds set, room checked) with its style and draw key.
  void pushParticleQuad(const PacketStyle& ps, const RenderPacket& p, std::uint32_t i,
                        const ScreenQuad& screen, const std::array<float, 4>& color,
                        glm::vec3 centre, float centreW);
  bool emitFacingQuads(const RenderPacket& p, const BillboardView& view, BillboardMode mode,
                       const PacketStyle& style);
  KeyRange packetKeys;  // the range of the keys of the packet being emitted
  FacingBlock facing;   // the fast path's corners, one block at a time
  std::array<std::array<float, FacingBlock::kSize>, 3> worldCentres{};  // a block's local → world
  bool project(const std::array<glm::vec3, 4>& corners, ScreenQuad& quad);
  bool placeQuad(ScreenQuad& quad);
  void pushStrip(std::span<const glm::vec3> points, float halfWidth,
                 const std::array<float, 4>& color, Blend blend, std::uint32_t texture);
  void emitChain(const RenderPacket& p, Blend blend, std::uint32_t texture);
  void emitBeams(const RenderPacket& p, Blend blend, std::uint32_t texture);
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
  impl->quads.allocate(options.maxQuads);
  impl->keys.resize(options.maxQuads);
  impl->scratch.resize(options.maxQuads);
  impl->sortCounts.resize(std::size_t{std::min(impl->jobs->concurrency(), Impl::kPrepRanges)} *
                          kDrawKeyBuckets);
  impl->accum.resize(std::size_t{options.viewport.width} * options.viewport.height);
  if (options.ground)
    impl->sceneDepth.resize(std::size_t{options.viewport.width} * options.viewport.height);
  impl->styles.reserve(std::size_t{options.maxQuads} + Impl::kMaxPackets);
  impl->packets = RenderPacketBuilder::create(Impl::kMaxPackets).takeValue();
  const std::uint32_t bands = (options.viewport.height + Impl::kBand - 1) / Impl::kBand;
  impl->bandStart.resize(std::size_t{bands} + 1);
  impl->bandCursor.resize(bands);
  // Room for every quad to touch two bands on average; a frame that needs more scans all quads.
  impl->bandQuads.resize(std::size_t{options.maxQuads} * 2);
  impl->bolt.reserve((std::size_t{1} << 10) + 1);
  for (std::size_t i = 0; i < impl->srgbLut.size(); ++i) {
    const float s =
        linearToSrgb(static_cast<float>(i) / static_cast<float>(impl->srgbLut.size() - 1));
    impl->srgbLut[i] = static_cast<std::uint8_t>(std::lround(s * 255.0f));
  }
  return ParticleRenderer(std::move(impl));
}

Result<std::uint32_t> ParticleRenderer::Impl::texture(const bytecode::CompiledMaterial* material) {
  return textureNamed(material == nullptr || material->texture.empty()
                          ? std::string_view("builtin:soft_circle")
                          : std::string_view(material->texture));
}

Result<std::uint32_t> ParticleRenderer::Impl::textureNamed(std::string_view name) {
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
    image = std::move(loaded.value());
  }
  textures.push_back(textureFromImage(image));
  textureNames.emplace_back(name);
  return static_cast<std::uint32_t>(textures.size() - 1);
}

namespace {

// The premultiplied colour of a particle of straight-alpha `color` (alpha clamped to [0, 1]):
// rgb (negatives as 0) times alpha, and alpha — 0 for additive.
std::array<float, 4> premultiplied(const std::array<float, 4>& color, Blend blend) {
  const float alpha = std::clamp(color[3], 0.0f, 1.0f);
  return {std::max(color[0], 0.0f) * alpha, std::max(color[1], 0.0f) * alpha,
          std::max(color[2], 0.0f) * alpha, blend == Blend::Additive ? 0.0f : alpha};
}

// A particle of straight alpha `alpha` shows: it adds light (additive) or covers something.
bool shows(float alpha, Blend blend) {
  return std::clamp(alpha, 0.0f, 1.0f) > 0.0f || blend == Blend::Additive;
}

// Particle i's colour (linear RGBA, straight alpha).
std::array<float, 4> particleColor(const RenderPacket& p, std::uint32_t i) {
  return p.color.uniform ? p.color.value
                         : std::array<float, 4>{p.color.streams[0][i], p.color.streams[1][i],
                                                p.color.streams[2][i], p.color.streams[3][i]};
}

// The draw-order key of a particle at clip w `depth` with spawn-order id `id`: back to front
// puts larger depths first, oldest first smaller ids first.
std::uint32_t particleKey(bytecode::ParticleSort sort, float depth, std::uint32_t id) {
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

// The style every particle of the packet shares: blend, texture, cutoff, the flipbook cell size,
// the soft-particle scale (invSoft 0 when soft particles are off this frame).
QuadStyle packetStyle(const RenderPacket& p, Blend blend, std::uint32_t texture, bool soft) {
  const bytecode::CompiledMaterial* m = p.material;
  QuadStyle style;
  style.cutoff = m != nullptr ? m->alphaCutoff : 0.5f;
  if (soft && m != nullptr && m->softDistance > 0.0f) style.invSoft = 1.0f / m->softDistance;
  style.blend = blend;
  style.texture = texture;
  style.du = 1.0f / static_cast<float>(p.sheet.columns);
  style.dv = 1.0f / static_cast<float>(p.sheet.rows);
  return style;
}

// Particle i's flipbook cells: the whole frame's and the next one's (wrapping to frameBegin), and
// the blend weight between them. Quads of a one-cell sheet or without frames keep cell 0.
void setFrameCells(QuadStyle& quad, const RenderPacket& p, std::uint32_t i) {
  const std::uint32_t columns = p.sheet.columns;
  const std::uint32_t cells = columns * p.sheet.rows;
  if (cells <= 1 || !p.frame.present()) return;
  const float frame = p.frame.at(0, i);
  const float whole = std::floor(frame);
  const auto cellOf = [&](float f) {
    const auto k = static_cast<std::uint32_t>(std::clamp(f, 0.0f, static_cast<float>(cells - 1)));
    return std::array<float, 2>{static_cast<float>(k % columns) * quad.du,
                                static_cast<float>(k / columns) * quad.dv};
  };
  const auto a = cellOf(whole);
  const float next = whole + 1.0f < static_cast<float>(cells)
                         ? whole + 1.0f
                         : static_cast<float>(p.sheet.frameBegin);
  const auto nb = cellOf(next);
  quad.ua = a[0];
  quad.va = a[1];
  quad.ub = nb[0];
  quad.vb = nb[1];
  quad.frameBlend = p.sheet.frameBlend ? frame - whole : 0.0f;
}

}  // namespace

ParticleRenderer::Impl::PacketStyle ParticleRenderer::Impl::beginPacket(const RenderPacket& p,
                                                                        Blend blend,
                                                                        std::uint32_t texture) {
  PacketStyle ps;
  ps.style = packetStyle(p, blend, texture, drawGround);
  ps.perQuad =
      ps.style.invSoft != 0.0f || (p.sheet.columns * p.sheet.rows > 1 && p.frame.present());
  if (!ps.perQuad) {
    ps.shared = static_cast<std::uint32_t>(styles.size());
    styles.push_back(ps.style);
  }
  return ps;
}

void ParticleRenderer::Impl::pushParticleQuad(const PacketStyle& ps, const RenderPacket& p,
                                              std::uint32_t i, const ScreenQuad& screen,
                                              const std::array<float, 4>& color, glm::vec3 centre,
                                              float centreW) {
  std::uint32_t style = ps.shared;
  if (ps.perQuad) {
    style = static_cast<std::uint32_t>(styles.size());
    QuadStyle& own = styles.emplace_back(ps.style);
    if (own.invSoft != 0.0f) own.depth = glm::dot(centre - camera.position, camera.forward);
    setFrameCells(own, p, i);
  }
  const auto index = static_cast<std::uint32_t>(quads.size());
  quads.push_back(Quad{screen, color}, style);
  const std::uint32_t key = particleKey(p.sort, centreW, p.ids[i]);
  keys[index] = {key, index};
  packetKeys.add(key);
}

namespace {

// The fast path's form of particleKey.
FacingKey facingKey(bytecode::ParticleSort sort) {
  switch (sort) {
    case bytecode::ParticleSort::FrontToBack:
      return FacingKey::NearFirst;
    case bytecode::ParticleSort::OldestFirst:
      return FacingKey::Id;
    case bytecode::ParticleSort::NewestFirst:
      return FacingKey::IdReversed;
    default:
      return FacingKey::FarFirst;
  }
}

}  // namespace

// The modes whose frame is the same for every particle, with no per-particle turn (no orientation
// channel, one roll for all): one basis for the whole emitter, corners projected four particles at
// a time (facing_quads.h), bit-identical to the general path.
bool ParticleRenderer::Impl::emitFacingQuads(const RenderPacket& p, const BillboardView& view,
                                             BillboardMode mode, const PacketStyle& style) {
  if (!billboardFrameIsUniform(mode) || p.orientation.present() ||
      (p.rotation.present() && !p.rotation.uniform))
    return false;
  const Blend blend = style.style.blend;
  if (p.color.uniform && !shows(p.color.value[3], blend)) return true;  // nothing shows
  BillboardInput unit;
  unit.halfSize = glm::vec2(1.0f, 1.0f);
  if (p.rotation.present()) {
    unit.orientation =
        glm::quat(1.0f, 0.0f, 0.0f, 0.0f) * glm::angleAxis(p.rotation.value[0], glm::vec3(0, 0, 1));
  }
  unit.emitterRotation = glm::quat(p.transform.rotation[3], p.transform.rotation[0],
                                   p.transform.rotation[1], p.transform.rotation[2]);
  const glm::vec3 emitterPosition(p.transform.position[0], p.transform.position[1],
                                  p.transform.position[2]);
  const glm::mat3 basis = particleBasis(view, mode, unit);
  FacingSetup setup;
  setup.viewProjection = viewProjection;
  setup.width = static_cast<float>(options.viewport.width);
  setup.height = static_cast<float>(options.viewport.height);
  setup.minW = camera.nearZ * 0.5f;
  setup.right = basis[0];
  setup.up = basis[1];
  const std::array<float, 4> uniformColor = premultiplied(p.color.value, blend);
  // Quads of a shared style go straight from the kernel into quads and keys (appendFacingQuads);
  // a style per quad, or too little room left to write a whole block in place, takes the
  // per-particle loop below.
  FacingAppend append;
  append.color = uniformColor;
  append.additive = blend == Blend::Additive;
  append.key = facingKey(p.sort);
  FacingParticles whole;  // centres set per block
  whole.sizeX = p.size.streams[0];
  whole.sizeY = p.size.streams[1];
  if (!p.color.uniform) {
    for (std::size_t c = 0; c < 4; ++c)
      whole.color[c] = p.color.streams[c];
  }
  whole.ids = p.ids;
  whole.count = p.count;
  for (std::uint32_t begin = 0, n = 0; begin < p.count; begin += n) {
    n = std::min(p.count - begin, FacingBlock::kSize);
    const std::size_t room = quads.capacity() - quads.size();
    const bool direct = !style.perQuad && room > n;
    // Particles in world space need no block of world centres: the rest in one call.
    if (direct && !p.local && room > p.count - begin) n = p.count - begin;
    std::array<const float*, 3> centre{p.position.streams[0] + begin, p.position.streams[1] + begin,
                                       p.position.streams[2] + begin};
    if (p.local) {
      for (std::uint32_t k = 0; k < n; ++k) {
        const glm::vec3 w =
            emitterPosition +
            unit.emitterRotation * glm::vec3(centre[0][k], centre[1][k], centre[2][k]);
        for (std::size_t c = 0; c < 3; ++c)
          worldCentres[c][k] = w[static_cast<glm::length_t>(c)];
      }
      centre = {worldCentres[0].data(), worldCentres[1].data(), worldCentres[2].data()};
    }
    FacingParticles in = facingSlice(whole, begin, n);
    in.x = centre[0];  // the streams' own, or the block's world centres
    in.y = centre[1];
    in.z = centre[2];
    if (direct) {
      FacingTally tally;
      tally.next = static_cast<std::uint32_t>(quads.size());
      tally.keys = packetKeys;
      appendFacingInRanges(setup, append, in, tally);
      std::fill(quads.styles() + quads.size(), quads.styles() + tally.next, style.shared);
      quads.commit(tally.next);
      stats.culled += tally.culled;
      packetKeys = tally.keys;
      continue;
    }
    projectFacingBlock(setup, in.x, in.y, in.z, in.sizeX, in.sizeY, n, facing);
    // Locals, so the loop's stores cannot make the compiler reload them.
    auto next = static_cast<std::uint32_t>(quads.size());
    const auto capacity = static_cast<std::uint32_t>(quads.capacity());
    const bool colorUniform = p.color.uniform;
    for (std::uint32_t k = 0; k < n; ++k) {
      const std::uint32_t i = begin + k;
      std::array<float, 4> color = uniformColor;
      if (!colorUniform) {
        const std::array<float, 4> straight = particleColor(p, i);
        if (!shows(straight[3], blend)) continue;
        color = premultiplied(straight, blend);
      }
      if (facing.sized[k] == 0) continue;
      if (facing.visible[k] == 0) {
        ++stats.culled;
        continue;
      }
      if (next == capacity) {
        ++stats.dropped;
        continue;
      }
      pushParticleQuad(style, p, i, facing.quads[k], color,
                       glm::vec3(centre[0][k], centre[1][k], centre[2][k]), facing.centerW[k]);
      ++next;
    }
  }
  return true;
}

// appendFacingQuads on the jobs: ranges of whole blocks of particles (so that a range's writes past
// its last drawn record stay inside its own records), each writing from the record of its first
// particle; then the drawn records closed up in range order with their keys renumbered. The same
// records, keys and tally as one call on the whole, whatever the thread count.
void ParticleRenderer::Impl::appendFacingInRanges(const FacingSetup& setup,
                                                  const FacingAppend& append,
                                                  const FacingParticles& in, FacingTally& tally) {
  // Ranges of at least 16 blocks (1,024 particles, ~4 µs of work): a hand-off to a thread costs
  // a few microseconds.
  constexpr std::uint32_t kMinRange = 16 * FacingBlock::kSize;
  const std::uint32_t ranges = std::min({jobs->concurrency(), kPrepRanges, in.count / kMinRange});
  if (ranges < 2) {
    appendFacingQuads(setup, append, in, quads.data(), keys.data(), tally);
    return;
  }
  const std::uint32_t blocks = (in.count + FacingBlock::kSize - 1) / FacingBlock::kSize;
  const std::uint32_t step = (blocks + ranges - 1) / ranges * FacingBlock::kSize;
  const std::uint32_t base = tally.next;
  parallelFor(*jobs, in.count, step, [&](std::size_t begin, std::size_t end) {
    const auto first = static_cast<std::uint32_t>(begin);
    const FacingParticles part = facingSlice(in, first, static_cast<std::uint32_t>(end - begin));
    FacingTally& t = rangeTallies[begin / step];
    t = FacingTally{};
    t.next = base + first;
    appendFacingQuads(setup, append, part, quads.data(), keys.data(), t);
  });
  std::uint32_t next = base;
  for (std::uint32_t r = 0; r * step < in.count; ++r) {
    const FacingTally& t = rangeTallies[r];
    const std::uint32_t from = base + r * step;
    const std::uint32_t drawn = t.next - from;
    if (from != next) {
      std::memmove(quads.data() + next, quads.data() + from, std::size_t{drawn} * sizeof(Quad));
      for (std::uint32_t k = 0; k < drawn; ++k)
        keys[next + k] = {keys[from + k].key, next + k};
    }
    next += drawn;
    tally.culled += t.culled;
    if (drawn != 0) {
      tally.keys.add(t.keys.lo);
      tally.keys.add(t.keys.hi);
    }
  }
  tally.next = next;
}

void ParticleRenderer::Impl::emitQuads(const RenderPacket& p, const BillboardView& view,
                                       std::uint32_t textureIndex) {
  if (!p.position.present()) return;
  const Blend blend = p.blend == bytecode::BlendMode::Additive ? Blend::Additive
                      : p.blend == bytecode::BlendMode::Cutout ? Blend::Cutout
                                                               : Blend::Over;
  const bool local = p.local;
  const glm::quat emitterRotation(p.transform.rotation[3], p.transform.rotation[0],
                                  p.transform.rotation[1], p.transform.rotation[2]);
  const glm::vec3 emitterPosition(p.transform.position[0], p.transform.position[1],
                                  p.transform.position[2]);
  const bytecode::CompiledRender& rd = p.description->render;
  const auto mode =
      static_cast<BillboardMode>(std::min<int>(static_cast<int>(p.mode), kBillboardModeCount - 1));
  BillboardView bv = view;
  bv.stretchScaleSeconds = rd.stretchScale;
  if (p.mode == bytecode::RenderMode::LinkedChain) {
    emitChain(p, blend, textureIndex);
    return;
  }
  if (p.mode == bytecode::RenderMode::Beam) {
    emitBeams(p, blend, textureIndex);
    return;
  }
  const std::uint32_t first = static_cast<std::uint32_t>(quads.size());
  const PacketStyle style = beginPacket(p, blend, textureIndex);
  packetKeys = {};
  if (!emitFacingQuads(p, bv, mode, style)) {
    for (std::uint32_t i = 0; i < p.count; ++i) {
      const std::array<float, 4> color = particleColor(p, i);
      if (!shows(color[3], blend)) continue;
      BillboardInput in;
      in.position =
          glm::vec3(p.position.streams[0][i], p.position.streams[1][i], p.position.streams[2][i]);
      if (p.velocity.present()) {
        in.velocity =
            glm::vec3(p.velocity.streams[0][i], p.velocity.streams[1][i], p.velocity.streams[2][i]);
      }
      if (local) {
        in.position = emitterPosition + emitterRotation * in.position;
        in.velocity = emitterRotation * in.velocity;
      }
      if (p.size.present())
        in.halfSize = glm::vec2(p.size.streams[0][i], p.size.streams[1][i]) * 0.5f;
      if (!(in.halfSize.x > 0.0f) || !(in.halfSize.y > 0.0f)) continue;
      glm::quat q(1.0f, 0.0f, 0.0f, 0.0f);
      if (p.orientation.present()) {
        q = normalizedOrientation(
            glm::quat(p.orientation.streams[3][i], p.orientation.streams[0][i],
                      p.orientation.streams[1][i], p.orientation.streams[2][i]));
      }
      if (p.rotation.present()) q = q * glm::angleAxis(p.rotation.at(0, i), glm::vec3(0, 0, 1));
      in.orientation = q;
      in.emitterRotation = emitterRotation;
      if (mode == BillboardMode::Stretched) {
        // stretch_scale is seconds of motion added to the length (metres per m/s of on-screen
        // speed); billboard.h measures screen speed in viewport heights, so convert at this depth.
        const float depth = glm::dot(in.position - camera.position, camera.forward);
        const float metresPerHeight =
            2.0f * camera.halfHeightExtent() *
            (camera.projection == Projection::Perspective ? std::max(depth, camera.nearZ) : 1.0f);
        bv.stretchScaleSeconds = rd.stretchScale * metresPerHeight / (2.0f * in.halfSize.y);
      }
      const std::array<glm::vec3, 4> corners = billboardCorners(bv, mode, in);
      ScreenQuad quad;
      if (!project(corners, quad)) continue;
      const glm::vec4 center = viewProjection * glm::vec4(in.position, 1.0f);
      pushParticleQuad(style, p, i, quad, premultiplied(color, blend), in.position, center.w);
    }
  }
  // Order within the emitter (slot order needs no sort).
  const std::uint32_t count = static_cast<std::uint32_t>(quads.size()) - first;
  if (p.sort != bytecode::ParticleSort::None)
    sortDrawKeys(*jobs, keys.data() + first, scratch.data(), count, packetKeys, sortCounts);
}

// Projects a quad's world corners to the screen; false (counted) when it is behind the camera,
// off screen, or the quad budget is spent.
bool ParticleRenderer::Impl::project(const std::array<glm::vec3, 4>& corners, ScreenQuad& quad) {
  const float width = static_cast<float>(options.viewport.width);
  const float height = static_cast<float>(options.viewport.height);
  for (std::size_t c = 0; c < 4; ++c) {
    const ScreenPoint at =
        projectCorner(viewProjection, corners[c], width, height, camera.nearZ * 0.5f);
    if (!at.ok) {
      ++stats.culled;
      return false;
    }
    quad.x[c] = at.x;
    quad.y[c] = at.y;
  }
  return placeQuad(quad);
}

// Bounds a projected quad; false (counted) when it is off screen or the quad budget is spent.
bool ParticleRenderer::Impl::placeQuad(ScreenQuad& quad) {
  if (!boundOnScreen(quad, static_cast<float>(options.viewport.width),
                     static_cast<float>(options.viewport.height))) {
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
  glm::vec3 sideA = side(0);
  std::uint32_t style = kNoStyle;  // pushed with the first quad drawn
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    const glm::vec3 sideB = side(i + 1);
    ScreenQuad quad;
    if (project(
            {points[i] - sideA, points[i + 1] - sideB, points[i + 1] + sideB, points[i] + sideA},
            quad)) {
      if (style == kNoStyle) {
        style = static_cast<std::uint32_t>(styles.size());
        QuadStyle& st = styles.emplace_back();
        st.blend = blend;
        st.texture = texture;
        st.ua = 0.5f;  // the middle column, all along the segment
        st.du = 0.0f;
      }
      const auto index = static_cast<std::uint32_t>(quads.size());
      quads.push_back(Quad{quad, premultiplied(color, blend)}, style);
      keys[index] = {index, index};
    }
    sideA = sideB;
  }
}

// linked_chain: one ribbon through the emitter's particles in slot order (the world keeps chain
// emitters in age order), `chain_width` wide, each segment in its older particle's colour.
void ParticleRenderer::Impl::emitChain(const RenderPacket& p, Blend blend, std::uint32_t texture) {
  const glm::quat rotation(p.transform.rotation[3], p.transform.rotation[0],
                           p.transform.rotation[1], p.transform.rotation[2]);
  const glm::vec3 origin(p.transform.position[0], p.transform.position[1], p.transform.position[2]);
  const auto point = [&](std::uint32_t i) {
    const glm::vec3 q(p.position.streams[0][i], p.position.streams[1][i], p.position.streams[2][i]);
    return p.local ? origin + rotation * q : q;
  };
  const auto colorOf = [&](std::uint32_t i) {
    return std::array<float, 4>{p.color.at(0, i), p.color.at(1, i), p.color.at(2, i),
                                p.color.at(3, i)};
  };
  const float halfWidth = p.description->render.chainWidth * 0.5f;
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
  const glm::quat rotation(p.transform.rotation[3], p.transform.rotation[0],
                           p.transform.rotation[1], p.transform.rotation[2]);
  const glm::vec3 start(p.transform.position[0], p.transform.position[1], p.transform.position[2]);
  glm::vec3 target(rd.beamTarget[0], rd.beamTarget[1], rd.beamTarget[2]);
  if (rd.beamTargetField >= 0 &&
      static_cast<std::size_t>(rd.beamTargetField) + 3 <= p.emitterWords.size()) {
    const auto f = static_cast<std::size_t>(rd.beamTargetField);
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
      rd.beamUpdateInterval > 0.0f ? std::floor(std::max(p.time, 0.0f) / rd.beamUpdateInterval)
                                   : std::floor(std::max(p.time, 0.0f) * 60.0f));
  for (std::uint32_t i = 0; i < p.count; ++i) {
    bolt.assign(segments + 1, start);
    bolt[segments] = end;
    // Midpoint subdivision, level by level: spacing halves, displacement shrinks by roughness.
    float scale = rd.beamRadius;
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
    pushStrip(bolt, rd.beamWidth * 0.5f, color, blend, texture);
  }
}

void ParticleRenderer::Impl::clearBand(std::uint32_t y0, std::uint32_t y1) {
  const std::uint32_t w = options.viewport.width;
  const std::array<float, 4> bg{options.background[0], options.background[1], options.background[2],
                                1.0f};
  GroundView g;
  g.position = camera.position;
  g.forward = camera.forward;
  g.right = camera.right;
  g.perspective = camera.projection == Projection::Perspective;
  g.halfWidth = camera.halfWidthExtent();  // tan of the half field of view: once
  g.background = bg;
  const float halfHeight = camera.halfHeightExtent();
  const float width = static_cast<float>(w);
  for (std::uint32_t y = y0; y < y1; ++y) {
    std::array<float, 4>* row = accum.data() + std::size_t{y} * w;
    std::fill(row, row + w, bg);
    if (!drawGround) continue;
    float* depthRow = sceneDepth.data() + std::size_t{y} * w;
    std::fill(depthRow, depthRow + w, std::numeric_limits<float>::infinity());
    const float ndcY =
        1.0f - (static_cast<float>(y) + 0.5f) / static_cast<float>(options.viewport.height) * 2.0f;
    const glm::vec3 upTerm = camera.up * (ndcY * halfHeight);
    std::uint32_t x = 0;
    for (; x + 4 <= w; x += 4) {  // four pixels a step
      const F4 xs = F4{0.0f, 1.0f, 2.0f, 3.0f} + static_cast<float>(x);
      F4 depth;
      std::array<F4, 3> rgb;
      const I4 hit = groundLanes(g, upTerm, (xs + 0.5f) / width * 2.0f - 1.0f, depth, rgb);
      if ((hit[0] & hit[1] & hit[2] & hit[3]) != 0) {  // all four: the pixels by a transpose
        const F4 one = F4{} + 1.0f;
        const F4 rg01 = __builtin_shufflevector(rgb[0], rgb[1], 0, 4, 1, 5);
        const F4 rg23 = __builtin_shufflevector(rgb[0], rgb[1], 2, 6, 3, 7);
        const F4 b01 = __builtin_shufflevector(rgb[2], one, 0, 4, 1, 5);
        const F4 b23 = __builtin_shufflevector(rgb[2], one, 2, 6, 3, 7);
        const std::array<F4, 4> pixels{__builtin_shufflevector(rg01, b01, 0, 1, 4, 5),
                                       __builtin_shufflevector(rg01, b01, 2, 3, 6, 7),
                                       __builtin_shufflevector(rg23, b23, 0, 1, 4, 5),
                                       __builtin_shufflevector(rg23, b23, 2, 3, 6, 7)};
        std::memcpy(row + x, pixels.data(), sizeof pixels);
        std::memcpy(depthRow + x, &depth, sizeof depth);
        continue;
      }
      for (std::uint32_t k = 0; k < 4; ++k) {
        if (hit[k] == 0) continue;
        depthRow[x + k] = depth[k];
        row[x + k] = {rgb[0][k], rgb[1][k], rgb[2][k], 1.0f};
      }
    }
    for (; x < w; ++x) {
      float depth;
      std::array<float, 3> rgb;
      if (!groundLanes(g, upTerm, (static_cast<float>(x) + 0.5f) / width * 2.0f - 1.0f, depth, rgb))
        continue;
      depthRow[x] = depth;
      row[x] = {rgb[0], rgb[1], rgb[2], 1.0f};
    }
  }
}

void ParticleRenderer::Impl::rasterizeBand(std::uint32_t y0, std::uint32_t y1) {
  const std::uint32_t w = options.viewport.width;
  // finish() cuts bands at multiples of kBand, so [y0, y1) is one band.
  const std::uint32_t band = y0 / kBand;
  const std::uint32_t from = binned ? bandStart[band] : 0;
  const auto to = binned ? bandStart[band + 1] : static_cast<std::uint32_t>(quads.size());
  const RasterSpanFn kernel = rasterSpanKernel();
  for (std::uint32_t entry = from; entry < to; ++entry) {
    const std::uint32_t index = keys[binned ? bandQuads[entry] : entry].index;
    const Quad& q = quads[index];
    if (q.maxY < static_cast<float>(y0) || q.minY >= static_cast<float>(y1)) continue;
    const QuadStyle& st = styles[quads.style(index)];
    const Texture& tex = textures[st.texture];
    SpanQuad sq;
    sq.texels = tex.texels.data();
    sq.width = tex.width;
    sq.height = tex.height;
    sq.color = q.color;
    sq.cutout = st.blend == Blend::Cutout;
    sq.cutoff = st.cutoff;
    sq.depth = st.depth;
    sq.invSoft = st.invSoft;
    sq.ua = st.ua;
    sq.va = st.va;
    sq.ub = st.ub;
    sq.vb = st.vb;
    sq.du = st.du;
    sq.dv = st.dv;
    sq.frameBlend = st.frameBlend;
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
      const std::size_t at = std::size_t(cy) * w + std::size_t(cx);
      const float fade = st.invSoft == 0.0f
                             ? 1.0f
                             : std::clamp((sceneDepth[at] - st.depth) * st.invSoft, 0.0f, 1.0f);
      if (!(fade > 0.0f)) continue;
      blendCellCentre(sq, accum[at], std::min(area, 1.0f) * fade);
      continue;
    }
    if (!setupSpanQuad(q, sq)) continue;
    rasterizeQuad(sq, q, y0, y1, w, accum.data(), sq.invSoft == 0.0f ? nullptr : sceneDepth.data(),
                  kernel);
  }
}

Status ParticleRenderer::prepare(const ParticleWorld& world, const Camera& camera) {
  Impl& r = *impl_;
  r.prepared = false;
  if (Status s = camera.validate(); !s.ok()) return s;
  r.stats = {};
  r.drawGround = r.options.ground;
  r.camera = camera;
  r.viewProjection = camera.projectionMatrix() * camera.viewMatrix();
  const BillboardView view = BillboardView::fromCamera(camera);
  // Emitters by sort_order (stable: equal orders keep the effect's order).
  r.packets.build(world, r.jobs);
  r.quads.clear();
  r.styles.clear();
  for (const RenderPacket& packet : r.packets.packets()) {
    Result<std::uint32_t> texture = r.texture(packet.material);
    if (!texture.ok()) return texture.status();
    r.emitQuads(packet, view, texture.value());
  }
  r.stats.quads = static_cast<std::uint32_t>(r.quads.size());
  r.prepared = true;
  return {};
}

Status ParticleRenderer::rasterize(Image& out) {
  if (!impl_->prepared) {
    return invalidArgument("ParticleRenderer::rasterize: no frame prepared (call prepare() first)");
  }
  return impl_->finish(out);
}

Status ParticleRenderer::render(const ParticleWorld& world, const Camera& camera, Image& out) {
  if (Status s = prepare(world, camera); !s.ok()) return s;
  return impl_->finish(out);
}

// The quad's bands [first, last] (first > last: none), from its screen bounds.
static std::array<std::uint32_t, 2> bandRange(float minY, float maxY, std::uint32_t height,
                                              std::uint32_t band) {
  if (!(maxY >= 0.0f) || !(minY < static_cast<float>(height))) return {1, 0};
  const auto first = minY <= 0.0f ? 0u : static_cast<std::uint32_t>(minY) / band;
  const auto last =
      static_cast<std::uint32_t>(std::min(maxY, static_cast<float>(height - 1))) / band;
  return {first, last};
}

void ParticleRenderer::Impl::binQuads() {
  const std::uint32_t height = options.viewport.height;
  const std::size_t bands = bandCursor.size();
  std::fill(bandStart.begin(), bandStart.end(), 0u);
  std::size_t total = 0;
  for (std::size_t k = 0; k < quads.size(); ++k) {
    const Quad& q = quads[keys[k].index];
    const auto [first, last] = bandRange(q.minY, q.maxY, height, kBand);
    for (std::uint32_t b = first; b <= last; ++b)
      ++bandStart[b + 1];
    total += last >= first ? last - first + 1 : 0;
  }
  binned = total <= bandQuads.size();
  if (!binned) return;
  for (std::size_t b = 0; b < bands; ++b) {
    bandStart[b + 1] += bandStart[b];
    bandCursor[b] = bandStart[b];
  }
  for (std::size_t k = 0; k < quads.size(); ++k) {
    const Quad& q = quads[keys[k].index];
    const auto [first, last] = bandRange(q.minY, q.maxY, height, kBand);
    for (std::uint32_t b = first; b <= last; ++b)
      bandQuads[bandCursor[b]++] = static_cast<std::uint32_t>(k);
  }
}

Status ParticleRenderer::Impl::finish(Image& out) {
  // Bands of kBand rows, in parallel, each drawing only the quads binned to it.
  binQuads();
  const std::uint32_t height = options.viewport.height;
  parallelFor(*jobs, height, kBand, [&](std::size_t begin, std::size_t end) {
    clearBand(static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end));
    rasterizeBand(static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end));
  });
  if (out.width() != options.viewport.width || out.height() != height) {
    Result<Image> made = Image::create(options.viewport.width, height);
    if (!made.ok()) return made.status();
    out = std::move(made.value());
  }
  // Resolve: linear [0, 1] (a NaN from a bad particle colour counts as 0) → the sRGB table.
  const float lutScale = static_cast<float>(srgbLut.size() - 1);
  std::uint8_t* px = out.pixels().data();
  const F4 one{1.0f, 1.0f, 1.0f, 1.0f};
  for (const std::array<float, 4>& pixel : accum) {
    // Lane-wise: c > 0 ? (c < 1 ? c : 1) : 0, then the table index c · scale + 0.5, truncated.
    const F4 c = loadF4(pixel);
    const I4 positive = c > F4{};
    const I4 below = c < one;
    const I4 bits = ((std::bit_cast<I4>(c) & below) | (std::bit_cast<I4>(one) & ~below)) & positive;
    const I4 index = __builtin_convertvector(std::bit_cast<F4>(bits) * lutScale + 0.5f, I4);
    px[0] = srgbLut[static_cast<std::uint32_t>(index[0])];
    px[1] = srgbLut[static_cast<std::uint32_t>(index[1])];
    px[2] = srgbLut[static_cast<std::uint32_t>(index[2])];
    px[3] = 255;
    px += 4;
  }
  return {};
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

Status ParticleRenderer::Impl::bindAtlas(std::uint32_t atlasId, std::uint32_t textureIndex,
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

Status ParticleRenderer::setAtlas(std::uint32_t atlasId, const SpriteAtlas& atlas) {
  if (atlas.texture.empty())
    return invalidArgument("SpriteAtlas " + std::to_string(atlasId) + ": texture is empty");
  Result<std::uint32_t> texture = impl_->textureNamed(atlas.texture);
  if (!texture.ok()) return texture.status();
  return impl_->bindAtlas(atlasId, texture.value(), atlas.columns, atlas.rows);
}

Status ParticleRenderer::setAtlasImage(std::uint32_t atlasId, const Image& image,
                                       std::uint32_t columns, std::uint32_t rows) {
  if (image.width() == 0 || image.height() == 0)
    return invalidArgument("SpriteAtlas " + std::to_string(atlasId) + ": the image is empty");
  if (Status s = validateAtlasGrid(atlasId, columns, rows); !s.ok()) return s;
  Impl& r = *impl_;
  // Caller images are never shared by name: each gets a slot of its own. A slot no other atlas
  // uses (this id's previous image, or one orphaned by a rebinding) is reused, so rebinding an id
  // every frame does not grow the texture list.
  std::size_t slot = r.textures.size();
  for (std::size_t i = 0; i < r.textures.size() && slot == r.textures.size(); ++i) {
    if (!r.textureNames[i].empty()) continue;
    bool used = false;
    for (const Impl::AtlasBinding& a : r.atlases)
      used = used || (a.texture == i && a.atlasId != atlasId);
    if (!used) slot = i;
  }
  if (slot == r.textures.size()) {
    r.textures.push_back(textureFromImage(image));
    r.textureNames.emplace_back();
  } else {
    r.textures[slot] = textureFromImage(image);
  }
  return r.bindAtlas(atlasId, static_cast<std::uint32_t>(slot), columns, rows);
}

void ParticleRenderer::Impl::emitSprites(const SpriteBatcher& batcher, const SpriteView& view) {
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
    const std::uint32_t cells = atlas->columns * atlas->rows;
    for (const SpriteItem& s : sprites.subspan(batch.first, batch.count)) {
      const float alpha = std::clamp(s.tint.a, 0.0f, 1.0f);
      if (!(alpha > 0.0f) && blend != Blend::Additive) {
        ++stats.culled;
        continue;
      }
      const float cx = view.origin[0] + s.pos.x * view.axisX[0] + s.pos.y * view.axisY[0];
      const float cy = view.origin[1] + s.pos.x * view.axisX[1] + s.pos.y * view.axisY[1];
      const float hx = 0.5f * s.scale.x * view.pixelsPerUnit;
      const float hy = 0.5f * s.scale.y * view.pixelsPerUnit;
      if (!std::isfinite(cx) || !std::isfinite(cy) || !(hx > 0.0f) || !(hy > 0.0f) ||
          !std::isfinite(hx) || !std::isfinite(hy) || !std::isfinite(s.rotation)) {
        ++stats.culled;
        continue;
      }
      // Billboard corner order (-1,-1), (1,-1), (1,1), (-1,1) with +y up, rotated
      // counter-clockwise as seen on screen (screen y runs down).
      const float c = std::cos(s.rotation);
      const float sn = std::sin(s.rotation);
      ScreenQuad quad;
      static constexpr std::array<float, 4> kCx{-1.0f, 1.0f, 1.0f, -1.0f};
      static constexpr std::array<float, 4> kCy{-1.0f, -1.0f, 1.0f, 1.0f};
      for (std::size_t k = 0; k < 4; ++k) {
        const float ox = kCx[k] * hx;
        const float oy = kCy[k] * hy;
        quad.x[k] = cx + (ox * c - oy * sn);
        quad.y[k] = cy - (ox * sn + oy * c);
      }
      if (!boundOnScreen(quad, width, height)) {
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
      QuadStyle& st = styles.emplace_back();
      st.cutoff = 0.5f;
      st.blend = blend;
      st.texture = atlas->texture;
      const std::uint32_t cell = std::min(s.frameIndex, cells - 1);
      st.du = (s.uv.u1 - s.uv.u0) / static_cast<float>(atlas->columns);
      st.dv = (s.uv.v1 - s.uv.v0) / static_cast<float>(atlas->rows);
      st.ua = s.uv.u0 + static_cast<float>(cell % atlas->columns) * st.du;
      st.va = s.uv.v0 + static_cast<float>(cell / atlas->columns) * st.dv;
      const auto index = static_cast<std::uint32_t>(quads.size());
      quads.push_back(Quad{quad, {r * k, g * k, b * k, blend == Blend::Additive ? 0.0f : alpha}},
                      styleIndex);
      keys[index] = {index, index};
    }
  }
}

Status ParticleRenderer::renderSprites(const SpriteBatcher& batcher, const SpriteView& view,
                                       Image& out) {
  Impl& r = *impl_;
  r.prepared = false;
  if (Status s = view.validate(); !s.ok()) return s;
  if (batcher.valid() && batcher.frameOpen()) {
    return invalidArgument("renderSprites: the batcher's frame is still open (call build() first)");
  }
  // Every batch needs an atlas; atlas 0 defaults to the soft circle.
  for (const SpriteBatch& batch : batcher.batches()) {
    bool bound = false;
    for (const Impl::AtlasBinding& a : r.atlases)
      bound = bound || a.atlasId == batch.atlasId;
    if (bound) continue;
    if (batch.atlasId != 0) {
      return notFound("renderSprites: atlas " + std::to_string(batch.atlasId) +
                      " has no texture (bind it with ParticleRenderer::setAtlas)");
    }
    if (Status s = setAtlas(0, SpriteAtlas{}); !s.ok()) return s;
  }
  r.stats = {};
  r.quads.clear();
  r.styles.clear();
  r.emitSprites(batcher, view);
  r.stats.quads = static_cast<std::uint32_t>(r.quads.size());
  r.drawGround = false;
  r.prepared = true;
  return r.finish(out);
}

}  // namespace mote::render
