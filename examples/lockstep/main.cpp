// SPDX-License-Identifier: MIT
// A small isometric 2.5D scene on Mote's lockstep particle system: a campfire with smoke, four
// torches, and a well that throws sparks every 1.5 s, over a tiled courtyard. The simulation is
// Q16.16 fixed point (bit-identical on every machine and compiler); every frame declares the
// particles into one SpriteBatcher frame (laige's frame protocol) and the software rasterizer —
// or, with --gpu, the GPU renderer (one instanced draw call a batch) — draws the last one to a
// PNG. Prints the replay's state hash as `STATE_HASH=0x…`.
//
//   lockstep_example [-o courtyard.png] [--ticks N] [--seed S] [--size WxH] [--gpu]
#include <mote/core/fnv1a.h>
#include <mote/lockstep/particle_render.h>
#include <mote/render/sprite_renderer.h>
#if MOTE_HAVE_GPU
#include <mote/gpu/context.h>
#include <mote/gpu/renderer.h>
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>

namespace {

using mote::Fpx16_16;
using mote::Status;
using mote::lockstep::ParticleEmitterDef;
using mote::lockstep::ParticleEmitterId;
using mote::lockstep::ParticleSystem;
namespace render = mote::render;

using Scalar = Fpx16_16;
using System = ParticleSystem<Scalar>;
using Def = ParticleEmitterDef<Scalar>;

constexpr std::int32_t kGrid = 8;           // 8 × 8 tiles
constexpr std::uint32_t kSparkPeriod = 45;  // ticks between well bursts (30 ticks per second)
constexpr std::uint32_t kGroundAtlas = 10;

Scalar fx(float v) {
  return Scalar::fromFloat(v);
}

// "Up" on the iso screen is world (-1, -1) (x + y shrinks): rising particles move that way.
Def flame(float x, float y, float scale, std::uint32_t rate) {
  Def d;
  d.origin = {fx(x), fx(y)};
  d.depth = Scalar::fromInt(1);
  d.velMin = {fx(-0.045f * scale), fx(-0.045f * scale)};
  d.velMax = {fx(-0.012f * scale), fx(-0.012f * scale)};
  d.lifeMin = 14;
  d.lifeMax = 30;
  d.sizeMin = fx(0.18f * scale);
  d.sizeMax = fx(0.42f * scale);
  d.tint = {255, 140, 40, 230};
  d.fadeTicks = 12;
  d.continuousRate = rate;
  return d;
}

Def smoke(float x, float y) {
  Def d;
  d.origin = {fx(x), fx(y)};
  d.depth = Scalar::fromInt(2);
  d.velMin = {fx(-0.035f), fx(-0.030f)};
  d.velMax = {fx(-0.008f), fx(-0.020f)};
  d.lifeMin = 50;
  d.lifeMax = 90;
  d.sizeMin = fx(0.35f);
  d.sizeMax = fx(0.8f);
  d.tint = {70, 66, 62, 150};
  d.fadeTicks = 40;
  d.continuousRate = 1;
  return d;
}

Def sparks(float x, float y) {
  Def d;
  d.origin = {fx(x), fx(y)};
  d.depth = Scalar::fromInt(1);
  d.velMin = {fx(-0.09f), fx(-0.09f)};
  d.velMax = {fx(0.05f), fx(0.05f)};
  d.lifeMin = 20;
  d.lifeMax = 45;
  d.sizeMin = fx(0.12f);
  d.sizeMax = fx(0.3f);
  d.tint = {120, 200, 255, 255};
  d.fadeTicks = 18;
  d.continuousRate = 0;  // bursts only
  return d;
}

// A 2:1 diamond tile with a lighter rim, straight alpha outside the diamond 0.
render::Image tileImage() {
  constexpr std::uint32_t kW = 64;
  constexpr std::uint32_t kH = 32;
  render::Image image = render::Image::create(kW, kH).takeValue();
  for (std::uint32_t y = 0; y < kH; ++y) {
    for (std::uint32_t x = 0; x < kW; ++x) {
      // Diamond distance: |dx| / (w/2) + |dy| / (h/2) <= 1 inside.
      const float dx = std::abs((static_cast<float>(x) + 0.5f) / (kW * 0.5f) - 1.0f);
      const float dy = std::abs((static_cast<float>(y) + 0.5f) / (kH * 0.5f) - 1.0f);
      const float d = dx + dy;
      if (d > 1.0f) continue;
      const bool rim = d > 0.9f;
      const std::uint8_t v = rim ? 255 : 200;
      image.setPixel(x, y, {v, v, v, 255});
    }
  }
  return image;
}

struct Options {
  std::string out = "courtyard.png";
  std::uint32_t ticks = 240;
  std::uint64_t seed = 2026;
  render::Viewport viewport{640, 400};
  bool gpu = false;  // draw with the GPU renderer
};

bool parseUnsigned(std::string_view text, std::uint64_t max, std::uint64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  std::uint64_t v = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (v > (max - digit) / 10) return false;
    v = v * 10 + digit;
  }
  out = v;
  return true;
}

bool parseArgs(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--gpu") {
#if MOTE_HAVE_GPU
      o.gpu = true;
      continue;
#else
      std::fprintf(stderr,
                   "lockstep_example: --gpu is lockstep_example_gpu's (this build draws "
                   "with the software sprite renderer)\n");
      return false;
#endif
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "lockstep_example: %s needs a value (or is unknown)\n", argv[i]);
      return false;
    }
    const std::string_view value = argv[++i];
    std::uint64_t n = 0;
    if (arg == "-o") {
      o.out = value;
    } else if (arg == "--ticks" && parseUnsigned(value, 1'000'000, n) && n >= 1) {
      o.ticks = static_cast<std::uint32_t>(n);
    } else if (arg == "--seed" && parseUnsigned(value, UINT64_MAX, n)) {
      o.seed = n;
    } else if (arg == "--size") {
      const std::size_t x = value.find('x');
      std::uint64_t w = 0;
      std::uint64_t h = 0;
      if (x == std::string_view::npos || !parseUnsigned(value.substr(0, x), 8192, w) ||
          !parseUnsigned(value.substr(x + 1), 8192, h) || w == 0 || h == 0) {
        std::fprintf(stderr, "lockstep_example: --size wants WxH in [1, 8192] (got '%.*s')\n",
                     static_cast<int>(value.size()), value.data());
        return false;
      }
      o.viewport = {static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(h)};
    } else {
      std::fprintf(stderr, "lockstep_example: bad argument '%.*s %.*s'\n",
                   static_cast<int>(arg.size()), arg.data(), static_cast<int>(value.size()),
                   value.data());
      return false;
    }
  }
  return true;
}

bool check(const Status& s, const char* what);

// The scene's atlases, on either renderer (the software sprite renderer or the GPU one).
template <class Renderer>
bool bindAtlases(Renderer& renderer) {
  return check(renderer.setAtlas(1, {"builtin:soft_circle", 1, 1}), "atlas") &&
         check(renderer.setAtlas(2, {"builtin:smoke", 1, 1}), "atlas") &&
         check(renderer.setAtlas(3, {"builtin:star", 1, 1}), "atlas") &&
         check(renderer.setAtlasImage(kGroundAtlas, tileImage()), "atlas");
}

bool check(const Status& s, const char* what) {
  if (s.ok()) return true;
  std::fprintf(stderr, "lockstep_example: %s: %s\n", what, std::string(s.message()).c_str());
  return false;
}

// The courtyard floor: one sprite per tile on the layer below the particles, checkered.
void declareGround(render::SpriteBatcher& batcher) {
  for (std::int32_t y = 0; y < kGrid; ++y) {
    for (std::int32_t x = 0; x < kGrid; ++x) {
      (void)batcher.addInPlace([&](render::SpriteItem& item) {
        item = render::SpriteItem{};
        const mote::Vec2<Scalar> centre{fx(static_cast<float>(x) + 0.5f),
                                        fx(static_cast<float>(y) + 0.5f)};
        item.pos = {centre.x.toFloat(), centre.y.toFloat()};
        item.depthKey = render::isoDepthKey(centre, 0, -1);
        item.scale = {2.0f, 1.0f};  // a tile is 2 units wide on screen and 1 tall (2:1)
        const float shade = (x + y) % 2 == 0 ? 0.05f : 0.038f;
        item.tint = {shade, shade * 0.95f, shade * 0.85f, 1.0f};
        item.atlasId = kGroundAtlas;
        item.blend = render::BlendMode::Alpha;
      });
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parseArgs(argc, argv, o)) return 1;

  // One system per render group: flames (additive), smoke (alpha), sparks (additive stars).
  auto makeSystem = [&](std::uint64_t salt) {
    return System::create({.maxParticles = 4096, .maxEmitters = 8, .seed = o.seed ^ salt});
  };
  auto fireResult = makeSystem(0x1);
  auto smokeResult = makeSystem(0x2);
  auto sparkResult = makeSystem(0x3);
  if (!check(fireResult.status(), "create") || !check(smokeResult.status(), "create") ||
      !check(sparkResult.status(), "create"))
    return 1;
  System fire = std::move(fireResult).takeValue();
  System smokeSystem = std::move(smokeResult).takeValue();
  System sparkSystem = std::move(sparkResult).takeValue();

  const float campX = 3.5f;
  const float campY = 4.5f;
  bool ok = fire.addEmitter(flame(campX, campY, 1.6f, 4)).ok();
  ok = ok && smokeSystem.addEmitter(smoke(campX - 0.3f, campY - 0.3f)).ok();
  for (const auto& [tx, ty] : std::array<std::pair<float, float>, 4>{
           {{0.5f, 0.5f}, {7.5f, 0.5f}, {0.5f, 7.5f}, {7.5f, 7.5f}}}) {
    ok = ok && fire.addEmitter(flame(tx, ty, 0.6f, 1)).ok();
  }
  const auto well = sparkSystem.addEmitter(sparks(6.0f, 2.0f));
  if (!ok || !well.ok()) {
    std::fprintf(stderr, "lockstep_example: an emitter definition was refused\n");
    return 1;
  }

  auto batcherResult = render::SpriteBatcher::create({.maxSprites = 16384});
  if (!check(batcherResult.status(), "batcher")) return 1;
  render::SpriteBatcher batcher = std::move(batcherResult).takeValue();

  render::SpriteRendererOptions rendererOptions;
  rendererOptions.viewport = o.viewport;
  rendererOptions.background = {0.004f, 0.004f, 0.008f};
  auto rendererResult = render::SpriteRenderer::create(rendererOptions);
  if (!check(rendererResult.status(), "renderer")) return 1;
  render::SpriteRenderer renderer = std::move(rendererResult).takeValue();
  if (!bindAtlases(renderer)) return 1;

  // The fixed-step loop: sim phase (bursts, update), then the read-only render phase.
  for (std::uint32_t tick = 0; tick < o.ticks; ++tick) {
    if (tick % kSparkPeriod == 0 && !check(sparkSystem.burst(well.value(), 60), "burst")) return 1;
    fire.update();
    smokeSystem.update();
    sparkSystem.update();

    batcher.beginFrame();
    declareGround(batcher);
    if (!check(declareParticles(batcher, smokeSystem,
                                {.atlasId = 2, .blend = render::BlendMode::Alpha, .layer = 0}),
               "declare") ||
        !check(declareParticles(batcher, fire, {.atlasId = 1}), "declare") ||
        !check(declareParticles(batcher, sparkSystem, {.atlasId = 3}), "declare") ||
        !check(batcher.build(), "build"))
      return 1;
  }

  render::Image image;
  const render::SpriteView view = render::SpriteView::isometric(
      o.viewport, {kGrid * 0.5f, kGrid * 0.5f - 1.0f},
      std::min(static_cast<float>(o.viewport.width) / (kGrid + 1.0f),
               2.0f * static_cast<float>(o.viewport.height) / (kGrid + 3.0f)));
#if MOTE_HAVE_GPU
  if (o.gpu) {  // the same frame, drawn by the GPU renderer with the same atlases
    auto context = mote::gpu::Context::create();
    if (!check(context.status(), "gpu")) return 1;
    mote::gpu::RendererDesc desc;
    desc.viewport = rendererOptions.viewport;
    desc.background = rendererOptions.background;
    auto drawer = mote::gpu::Renderer::create(**context, desc);
    if (!check(drawer.status(), "gpu renderer") || !bindAtlases(**drawer) ||
        !check((*drawer)->renderSprites(batcher, view, image), "render"))
      return 1;
  }
#endif
  if ((!o.gpu && !check(renderer.renderSprites(batcher, view, image), "render")) ||
      !check(render::writePng(image, o.out), "write"))
    return 1;

  // The replay's identity: the three systems' state hashes, FNV-1a folded in a fixed order.
  mote::Fnv1a64 fold;
  for (const System* s : {&fire, &smokeSystem, &sparkSystem})
    fold.updateU64(s->stateHash());
  const std::uint64_t hash = fold.value();
  std::printf("ticks %u: %u flame, %u smoke, %u spark particles; %u sprites in %zu batches -> %s\n",
              o.ticks, fire.liveCount(), smokeSystem.liveCount(), sparkSystem.liveCount(),
              batcher.size(), batcher.batches().size(), o.out.c_str());
  std::printf("STATE_HASH=0x%016llx\n", static_cast<unsigned long long>(hash));
  return 0;
}
