// SPDX-License-Identifier: MIT
// The software particle renderer: golden images for every billboard mode, every blend mode and a
// blended flipbook (compared exactly: the rasterizer is deterministic IEEE float code), plus thread
// independence and the error paths. Re-approve deliberately with scripts/approve-goldens (it runs
// this test with MOTE_APPROVE_GOLDENS=1, which rewrites tests/golden/render/*.png).
#include "support/compile_effect.h"
#include "support/golden_image.h"

#include <mote/authoring/effect_json.h>
#include <mote/compiler/compiler.h>
#include <mote/core/alloc_watch.h>
#include <mote/core/file.h>
#include <mote/core/job_system.h>
#include <mote/core/prng.h>
#include <mote/render/particle_instance.h>
#include <mote/render/particle_renderer.h>
#include <mote/render/world_culling.h>

#include <glm/mat4x4.hpp>
#include <glm/vec2.hpp>
#include <glm/vec4.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace mote::render {
namespace {

using test::compileJson;
using test::expectGolden;

// Five particles on a line, moving along +X and up, rolled, sized 0.6 × 0.9.
std::string scene(const std::string& material, const std::string& mode,
                  const std::string& extraInit = "") {
  return R"({"format": "mote.effect/1", "name": "golden", "materials": [)" + material +
         R"(], "emitters": [{"name": "e", "material": "m",
    "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 5}]},
    "shape": {"kind": "line", "end": [2, 0, 0]},
    "init": {"lifetime": 10, "velocity": {"kind": "direction", "direction": [1, 0.6, 0], "speed": 3},
             "size": 0.6, "size_y": 0.9, "separate_size_y": true, "rotation": [0, 30],
             "color": {"from": [1, 0.5, 0.2, 0.8], "to": [0.2, 0.6, 1, 0.6]})" +
         extraInit + R"(},
    "position": [-1, 0.5, 0],
    "render": {"mode": ")" +
         mode + R"(", "stretch_scale": 0.3}}]})";
}

Image renderScene(const bytecode::CompiledEffect& effect, JobSystem* jobs = nullptr,
                  std::uint32_t expectedQuads = 5) {
  WorldDesc desc;
  auto world = ParticleWorld::create(desc).takeValue();
  EXPECT_TRUE(world->addEffect(effect).ok());
  world->tick(1.0f / 30.0f);
  RendererOptions options;
  options.viewport = {96, 64};
  options.jobs = jobs;
  options.builtinSpriteSize = 32;
  auto renderer = ParticleRenderer::create(options).takeValue();
  Camera camera = Camera::perspective(0.9f, 1.5f, 0.1f, 100.0f).value();
  EXPECT_TRUE(camera.lookAt({0.3f, 1.3f, 2.8f}, {0.1f, 0.7f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  Image image;
  const Status s = renderer.render(*world, camera, image);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(renderer.stats().quads, expectedQuads);
  return image;
}

constexpr const char* kSoft = R"({"name": "m", "texture": "builtin:soft_circle"})";

TEST(ParticleRenderer, BillboardModesMatchTheirGoldens) {
  for (const char* mode :
       {"billboard", "stretched", "vertical", "horizontal", "facing_world", "billboard_local_z",
        "billboard_world_z", "aligned_world_z", "velocity_aligned"}) {
    SCOPED_TRACE(mode);
    expectGolden(
        renderScene(compileJson(scene(R"({"name": "m", "texture": "builtin:star"})", mode))),
        std::string("mode_") + mode);
  }
}

// Five still particles in `space` of a turned emitter, with a flipbook; `init` adds to their
// initial values.
std::string stillScene(const std::string& mode, const std::string& init, const std::string& space) {
  return R"({"format": "mote.effect/1", "name": "still", "materials": [{"name": "m", "texture": "builtin:star", "sheet": {"columns": 2, "rows": 2, "fps": 7, "frame_blend": true}}],
    "emitters": [{"name": "e", "material": "m", "space": ")" +
         space + R"(", "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 5}]},
    "shape": {"kind": "line", "end": [2, 0, 0]},
    "init": {"lifetime": 10, "size": 0.6, "size_y": 0.9, "separate_size_y": true)" +
         init + R"(}, "position": [-1, 0.5, 0], "rotation": [20, 35, 0], "render": {"mode": ")" +
         mode + R"("}}]})";
}

// Billboard emitters take the renderer's fast path (one basis for all particles); stretched ones
// the general path, and at rest a stretched quad is exactly the billboard one (billboard.h's
// fallback). Both must draw the same pixels.
TEST(ParticleRenderer, TheFacingFastPathDrawsWhatTheGeneralPathDraws) {
  for (const char* init :
       {"", R"(, "rotation": 20, "color": [1, 0.5, 0.2, 0.8])",
        R"(, "color": {"from": [1, 0.5, 0.2, 0.8], "to": [0.2, 0.6, 1, 0.6]})"}) {
    for (const char* space : {"world", "local"}) {
      SCOPED_TRACE(std::string(init) + " " + space);
      const Image fast = renderScene(compileJson(stillScene("billboard", init, space)));
      const Image general = renderScene(compileJson(stillScene("stretched", init, space)));
      EXPECT_EQ(fast, general);
    }
  }
}

TEST(ParticleRenderer, ChainsAndBeamsMatchTheirGoldens) {
  // A ribbon through the five particles: four segments.
  expectGolden(renderScene(compileJson(scene(kSoft, "linked_chain")), nullptr, 4),
               "mode_linked_chain");
  // Five bolts of 2^4 segments from the emitter to its default target, 1 m up.
  expectGolden(renderScene(compileJson(scene(kSoft, "beam")), nullptr, 5 * 16), "mode_beam");
}

TEST(ParticleRenderer, ATrailDrawsOneRibbonPerSourceParticle) {
  // Two comets (along +X, a random height apart) trailing two points a tick: after five ticks of
  // 1/64 s each
  // has 8 points (births in ticks 2..5), 7 segments each; one ribbon through all 16 would have 15.
  const bytecode::CompiledEffect effect = compileJson(
      R"({"format": "mote.effect/1", "name": "comets", "materials": [{"name": "m"}],
          "emitters": [{"name": "comets", "material": "m", "position": [-0.5, 0.5, 0],
            "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 2}]},
            "shape": {"kind": "line", "end": [0, 0.6, 0]},
            "init": {"lifetime": 10, "velocity": {"kind": "direction", "direction": [1, 0, 0],
                                                  "speed": 8}}},
           {"name": "tails", "material": "m", "init": {"lifetime": 10},
            "spawn": {"source": "comets", "metric": "per_distance", "rate": 16},
            "render": {"mode": "linked_chain", "chain_width": 0.05}}]})");
  auto world = ParticleWorld::create({}).takeValue();
  const EffectHandle h = world->addEffect(effect).value();
  for (int t = 0; t < 5; ++t)
    world->tick(1.0f / 64.0f);
  const EmitterView tails = world->view(world->emitter(h, 1)).value();
  ASSERT_EQ(tails.live, 16u);
  ASSERT_NE(tails.sources, nullptr);
  RendererOptions options;
  options.viewport = {96, 64};
  auto renderer = ParticleRenderer::create(options).takeValue();
  Camera camera = Camera::perspective(0.9f, 1.5f, 0.1f, 100.0f).value();
  ASSERT_TRUE(camera.lookAt({0.3f, 1.3f, 2.8f}, {0.1f, 0.7f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  Image image;
  ASSERT_TRUE(renderer.render(*world, camera, image).ok());
  EXPECT_EQ(renderer.stats().quads, 2u + 2u * 7u);  // the comets' billboards and their ribbons
}

TEST(ParticleRenderer, BlendModesMatchTheirGoldens) {
  for (const char* blend : {"alpha", "additive", "premultiplied", "cutout"}) {
    SCOPED_TRACE(blend);
    const std::string material =
        std::string(R"({"name": "m", "texture": "builtin:smoke", "blend": ")") + blend + "\"}";
    expectGolden(renderScene(compileJson(scene(material, "billboard"))),
                 std::string("blend_") + blend);
  }
}

// A 2 × 2 sheet of 32-pixel cells, each a disc of its own colour and radius (sRGB, straight
// alpha), written to the temp directory; returns its path.
std::string writeTestSheet() {
  Image sheet = Image::create(64, 64).takeValue();
  const std::array<Rgba8, 4> colors{Rgba8{255, 80, 40, 255}, Rgba8{60, 220, 90, 255},
                                    Rgba8{70, 110, 255, 255}, Rgba8{250, 230, 80, 255}};
  for (std::uint32_t y = 0; y < 64; ++y) {
    for (std::uint32_t x = 0; x < 64; ++x) {
      const std::uint32_t cell = (y / 32) * 2 + x / 32;
      const float dx = static_cast<float>(x % 32) + 0.5f - 16.0f;
      const float dy = static_cast<float>(y % 32) + 0.5f - 16.0f;
      const float radius = 6.0f + 3.0f * static_cast<float>(cell);
      Rgba8 c = colors[cell];
      c.a = std::sqrt(dx * dx + dy * dy) < radius ? 255 : 0;
      sheet.setPixel(x, y, c);
    }
  }
  const std::string path =
      (std::filesystem::temp_directory_path() / "mote-test-sheet.png").string();
  EXPECT_TRUE(writePng(sheet, path).ok());
  return path;
}

TEST(ParticleRenderer, BlendedFlipbookMatchesItsGolden) {
  const std::string material =
      R"({"name": "m", "texture": ")" + writeTestSheet() +
      R"(", "sheet": {"columns": 2, "rows": 2, "fps": 7, "frame_blend": true, "random_start": true}})";
  expectGolden(renderScene(compileJson(scene(material, "billboard"))), "flipbook_blend");
}

// A built-in sprite is one picture: on a sheet material every cell is the whole sprite (the
// stand-in the NWN importer draws for a missing sheet texture), so the sheet changes nothing.
TEST(ParticleRenderer, ABuiltinSpriteOnASheetFillsEveryCell) {
  const std::string sheet =
      R"({"name": "m", "texture": "builtin:flare", "sheet": {"columns": 4, "rows": 4, "fps": 7, "frame_blend": true, "random_start": true}})";
  const std::string whole = R"({"name": "m", "texture": "builtin:flare"})";
  EXPECT_EQ(renderScene(compileJson(scene(sheet, "billboard"))),
            renderScene(compileJson(scene(whole, "billboard"))));
}

// Five still particles on the ground line, half below it, seen from above the ground plane.
Image renderOnGround(float softDistance) {
  const std::string json =
      R"({"format": "mote.effect/1", "name": "soft", "materials": [{"name": "m", "texture": "builtin:soft_circle", "blend": "additive", "soft_distance": )" +
      std::to_string(softDistance) + R"(}], "emitters": [{"name": "e", "material": "m",
    "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 5}]},
    "shape": {"kind": "line", "end": [2, 0, 0]},
    "init": {"lifetime": 10, "size": 0.9, "color": [1, 0.5, 0.2, 1]},
    "position": [-1, 0.1, 0]}]})";
  auto world = ParticleWorld::create({}).takeValue();
  EXPECT_TRUE(world->addEffect(compileJson(json)).ok());
  world->tick(1.0f / 30.0f);
  RendererOptions options;
  options.viewport = {96, 64};
  options.builtinSpriteSize = 32;
  options.ground = true;
  auto renderer = ParticleRenderer::create(options).takeValue();
  Camera camera = Camera::perspective(0.9f, 1.5f, 0.1f, 100.0f).value();
  EXPECT_TRUE(camera.lookAt({0.0f, 1.2f, 3.0f}, {0.0f, 0.1f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  Image image;
  const Status s = renderer.render(*world, camera, image);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(renderer.stats().quads, 5u);
  return image;
}

TEST(ParticleRenderer, SoftParticlesFadeIntoTheGroundAndMatchTheirGolden) {
  const Image soft = renderOnGround(0.3f);
  const Image hard = renderOnGround(0.0f);
  expectGolden(soft, "soft_fade");
  // Additive over the ground: the fade only ever removes light, and it removes it where the
  // quads meet or pass below the ground.
  std::uint32_t dimmer = 0;
  for (std::uint32_t y = 0; y < soft.height(); ++y) {
    for (std::uint32_t x = 0; x < soft.width(); ++x) {
      const Rgba8 s = soft.pixel(x, y);
      const Rgba8 h = hard.pixel(x, y);
      ASSERT_LE(s.r, h.r);
      ASSERT_LE(s.g, h.g);
      ASSERT_LE(s.b, h.b);
      dimmer += s.r < h.r ? 1u : 0u;
    }
  }
  EXPECT_GT(dimmer, 200u);
}

TEST(ParticleRenderer, PrepareThenRasterizeIsRenderAndOutlivesTheWorldsChanges) {
  auto world = ParticleWorld::create({}).takeValue();
  ASSERT_TRUE(world->addEffect(compileJson(scene(kSoft, "billboard"))).ok());
  world->tick(1.0f / 30.0f);
  RendererOptions options;
  options.viewport = {96, 64};
  options.builtinSpriteSize = 32;
  auto renderer = ParticleRenderer::create(options).takeValue();
  Image image;
  EXPECT_EQ(renderer.rasterize(image).code(), StatusCode::InvalidArgument);  // nothing prepared
  Camera camera = Camera::perspective(0.9f, 1.5f, 0.1f, 100.0f).value();
  ASSERT_TRUE(camera.lookAt({0.3f, 1.3f, 2.8f}, {0.1f, 0.7f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  Image rendered;
  ASSERT_TRUE(renderer.render(*world, camera, rendered).ok());
  ASSERT_TRUE(renderer.prepare(*world, camera).ok());
  EXPECT_EQ(renderer.stats().quads, 5u);
  world->tick(0.5f);  // the prepared list no longer reads the world
  ASSERT_TRUE(renderer.rasterize(image).ok());
  EXPECT_EQ(image, rendered);
  ASSERT_TRUE(renderer.rasterize(image).ok());  // again: the same list
  EXPECT_EQ(image, rendered);
  // A failed prepare leaves nothing to rasterize.
  Camera bad = camera;
  bad.nearZ = -1.0f;
  EXPECT_FALSE(renderer.prepare(*world, bad).ok());
  EXPECT_EQ(renderer.rasterize(image).code(), StatusCode::InvalidArgument);
}

TEST(ParticleRenderer, OutputIsTheSameOnAnyThreadCount) {
  const auto effect = compileJson(scene(kSoft, "stretched"));
  const Image one = renderScene(effect);
  auto pool = ThreadPool::create(3).takeValue();
  EXPECT_EQ(renderScene(effect, pool.get()), one);
}

// Thousands of particles around the eye, many behind it or off screen: one emitter's quads are
// made in ranges on the threads, and the culled ones are closed up between the ranges. Every
// thread count gives the same image and counts, for depth and id keys, with colour streams and
// without.
TEST(ParticleRenderer, ManyParticlesCulledAcrossThreadRangesDrawTheSame) {
  for (const char* init :
       {R"("size": 0.04, "color": [1, 0.6, 0.3, 0.5])",
        R"("size": 0.04, "color": {"from": [1, 0.2, 0.1, 0], "to": [0.2, 0.6, 1, 1]})"}) {
    for (const char* sort : {"auto", "oldest_first"}) {
      const auto effect =
          compileJson(std::string(R"({"format": "mote.effect/1", "materials": [{"name": "m",
          "texture": "builtin:soft_circle"}], "emitters": [{"name": "e", "material": "m",
          "max_particles": 9000, "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 9000}]},
          "shape": {"kind": "sphere", "radius": 3}, "init": {"lifetime": 10, )") +
                      init + R"(}, "render": {"sort": ")" + sort + R"("}}]})");
      auto world = ParticleWorld::create({}).takeValue();
      ASSERT_TRUE(world->addEffect(effect).ok());
      world->tick(1.0f / 30.0f);
      // Around the eye most are culled; from 6 m away a few at the edges, so that every range
      // moves a little and overwrites where the next one's records were.
      for (const float distance : {1.0f, 6.0f}) {
        Camera camera = Camera::perspective(0.9f, 1.5f, 0.1f, 100.0f).value();
        ASSERT_TRUE(
            camera.lookAt({0.5f, 0.2f, distance}, {0.0f, 0.0f, distance - 2.0f}, {0.0f, 1.0f, 0.0f})
                .ok());
        auto two = ThreadPool::create(2).takeValue();
        auto three = ThreadPool::create(3).takeValue();
        std::vector<Image> images;
        std::vector<RenderStats> stats;
        for (JobSystem* jobs :
             {static_cast<JobSystem*>(nullptr), static_cast<JobSystem*>(two.get()),
              static_cast<JobSystem*>(three.get())}) {
          RendererOptions options;
          options.viewport = {120, 80};
          options.jobs = jobs;
          options.builtinSpriteSize = 32;
          auto renderer = ParticleRenderer::create(options).takeValue();
          Image image;
          ASSERT_TRUE(renderer.render(*world, camera, image).ok());
          images.push_back(std::move(image));
          stats.push_back(renderer.stats());
        }
        EXPECT_GT(stats[0].quads, 1500u) << init << sort;
        EXPECT_GT(stats[0].culled, distance < 2.0f ? 5000u : 0u) << init << sort;
        for (std::size_t k = 1; k < images.size(); ++k) {
          EXPECT_EQ(images[k], images[0]) << init << sort << " jobs " << k;
          EXPECT_EQ(stats[k].quads, stats[0].quads);
          EXPECT_EQ(stats[k].culled, stats[0].culled);
        }
      }
    }
  }
}

TEST(ParticleRenderer, RenderingAFrameAllocatesNothingOnceTexturesAreLoaded) {
#if !defined(MOTE_TEST_ALLOC_WATCH_LINKED)
  GTEST_SKIP() << "the allocation watch is not linked in sanitizer builds";
#else
  auto world = ParticleWorld::create({}).takeValue();
  ASSERT_TRUE(world->addEffect(compileJson(scene(kSoft, "billboard"))).ok());
  world->tick(0.03f);
  RendererOptions options;
  options.viewport = {64, 48};
  auto renderer = ParticleRenderer::create(options).takeValue();
  Camera camera = Camera::perspective(0.9f, 64.0f / 48.0f, 0.1f, 100.0f).value();
  ASSERT_TRUE(camera.lookAt({0.0f, 1.0f, 5.0f}, {0.0f, 0.5f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  Image image;
  ASSERT_TRUE(renderer.render(*world, camera, image).ok());  // loads the texture, sizes the image
  for (int i = 0; i < 10; ++i) {
    world->tick(0.03f);
    AllocationScope scope;
    ASSERT_TRUE(renderer.render(*world, camera, image).ok());
    EXPECT_EQ(scope.allocations(), 0u);
  }
#endif
}

TEST(ParticleRenderer, ParticlesBehindTheCameraAreCulledAndBadOptionsRefused) {
  auto world = ParticleWorld::create({}).takeValue();
  ASSERT_TRUE(world->addEffect(compileJson(scene(kSoft, "billboard"))).ok());
  world->tick(0.03f);
  auto renderer = ParticleRenderer::create({}).takeValue();
  Camera camera = Camera::perspective(0.9f, 16.0f / 9.0f, 0.1f, 100.0f).value();
  ASSERT_TRUE(camera.lookAt({0.0f, 1.0f, 5.0f}, {0.0f, 1.0f, 10.0f}, {0.0f, 1.0f, 0.0f}).ok());
  Image image;
  ASSERT_TRUE(renderer.render(*world, camera, image).ok());
  EXPECT_EQ(renderer.stats().quads, 0u);
  EXPECT_EQ(renderer.stats().culled, 5u);
  RendererOptions bad;
  bad.maxQuads = 0;
  EXPECT_EQ(ParticleRenderer::create(bad).status().code(), StatusCode::InvalidArgument);
  bad = {};
  bad.viewport = {0, 10};
  EXPECT_FALSE(ParticleRenderer::create(bad).ok());
}

// ParticleRenderer's sprite calls forward to the sprite layer's rasterizer: a frame draws the same
// image through either, and a rasterize() after renderSprites() draws that frame again.
TEST(ParticleRenderer, SpriteFramesAreTheSpriteLayersOnTheSameTextures) {
  const Viewport viewport{48, 32};
  RendererOptions options;
  options.viewport = viewport;
  options.builtinSpriteSize = 32;
  ParticleRenderer particles = ParticleRenderer::create(options).takeValue();
  SpriteRendererOptions spriteOptions;
  spriteOptions.viewport = viewport;
  spriteOptions.builtinSpriteSize = 32;
  SpriteRenderer sprites = SpriteRenderer::create(spriteOptions).takeValue();
  Image tile = Image::create(2, 2).takeValue();
  tile.fill({40, 200, 90, 255});
  ASSERT_TRUE(particles.setAtlas(1, {"builtin:star", 1, 1}).ok());
  ASSERT_TRUE(sprites.setAtlas(1, {"builtin:star", 1, 1}).ok());
  ASSERT_TRUE(particles.setAtlasImage(2, tile).ok());
  ASSERT_TRUE(sprites.setAtlasImage(2, tile).ok());
  SpriteBatcher batcher = SpriteBatcher::create({}).takeValue();
  for (std::uint32_t i = 0; i < 6; ++i) {
    SpriteItem item;
    item.pos = {static_cast<float>(i) - 2.5f, 0.3f * static_cast<float>(i % 3)};
    item.scale = {1.5f, 1.0f + 0.25f * static_cast<float>(i)};
    item.rotation = 0.4f * static_cast<float>(i);
    item.tint = {1.0f, 0.8f, 0.5f, 0.75f};
    item.blend = i % 2 == 0 ? BlendMode::Additive : BlendMode::Alpha;
    item.atlasId = i % 3;
    item.depthKey = (i * 7) % 5;
    ASSERT_TRUE(batcher.add(item).ok());
  }
  ASSERT_TRUE(batcher.build().ok());
  const SpriteView view = SpriteView::orthographic(viewport, {0.0f, 0.0f}, 6.0f);
  Image forwarded;
  Image direct;
  ASSERT_TRUE(particles.renderSprites(batcher, view, forwarded).ok());
  ASSERT_TRUE(sprites.renderSprites(batcher, view, direct).ok());
  EXPECT_EQ(forwarded, direct);
  EXPECT_EQ(particles.stats().quads, sprites.stats().quads);
  EXPECT_GT(particles.stats().quads, 0u);
  Image again;
  ASSERT_TRUE(particles.rasterize(again).ok());
  EXPECT_EQ(again, direct);
}

TEST(ParticleRenderer, AMissingTextureFileIsANamedError) {
  auto world = ParticleWorld::create({}).takeValue();
  ASSERT_TRUE(
      world
          ->addEffect(compileJson(scene(R"({"name": "m", "texture": "no/such.png"})", "billboard")))
          .ok());
  world->tick(0.03f);
  auto renderer = ParticleRenderer::create({}).takeValue();
  Camera camera = Camera::perspective(0.9f, 16.0f / 9.0f, 0.1f, 100.0f).value();
  ASSERT_TRUE(camera.lookAt({0.0f, 1.0f, 5.0f}, {0.0f, 0.5f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  Image image;
  const Status s = renderer.render(*world, camera, image);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no/such.png"), std::string::npos) << s.message();
}

// A large horizontal card (3 m, lying back from 1.5 m to 4.5 m from the eye) whose texture is red
// on its left half and blue on its right: on every row the colours meet where the card's middle
// line (world x = 0) projects, to within half a pixel. Textured affinely, the two triangles bend
// that line at the diagonal by many pixels.
TEST(ParticleRenderer, ALargeCardIsTexturedPerspectiveCorrectly) {
  Image halves = Image::create(64, 8).takeValue();
  for (std::uint32_t y = 0; y < 8; ++y) {
    for (std::uint32_t x = 0; x < 64; ++x)
      halves.setPixel(x, y, x < 32 ? Rgba8{255, 0, 0, 255} : Rgba8{0, 0, 255, 255});
  }
  const std::string path =
      (std::filesystem::temp_directory_path() / "mote-test-halves.png").string();
  ASSERT_TRUE(writePng(halves, path).ok());
  const std::string effect =
      R"({"format": "mote.effect/1", "name": "card", "materials": [{"name": "m", "texture": ")" +
      path + R"("}], "emitters": [{"name": "e", "material": "m",
    "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 1}]},
    "init": {"lifetime": 10, "size": 3, "color": [1, 1, 1, 1]},
    "position": [0, 0.3, 0], "render": {"mode": "horizontal"}}]})";
  auto world = ParticleWorld::create({}).takeValue();
  ASSERT_TRUE(world->addEffect(compileJson(effect)).ok());
  world->tick(1.0f / 30.0f);
  RendererOptions options;
  options.viewport = {240, 180};
  auto renderer = ParticleRenderer::create(options).takeValue();
  Camera camera = Camera::perspective(1.2f, 240.0f / 180.0f, 0.1f, 100.0f).value();
  ASSERT_TRUE(camera.lookAt({0.4f, 2.0f, 2.6f}, {0.0f, 0.0f, -0.4f}, {0.0f, 1.0f, 0.0f}).ok());
  Image image;
  ASSERT_TRUE(renderer.render(*world, camera, image).ok());
  // The middle line's ends on screen (pixels, y down).
  const glm::mat4 viewProjection = camera.projectionMatrix() * camera.viewMatrix();
  const auto onScreen = [&](glm::vec3 p) {
    const glm::vec4 c = viewProjection * glm::vec4(p, 1.0f);
    return glm::vec2((c.x / c.w * 0.5f + 0.5f) * 240.0f, (0.5f - c.y / c.w * 0.5f) * 180.0f);
  };
  const glm::vec2 nearEnd = onScreen({0.0f, 0.3f, 1.5f});
  const glm::vec2 farEnd = onScreen({0.0f, 0.3f, -1.5f});
  std::uint32_t rows = 0;
  for (std::uint32_t y = 0; y < image.height(); ++y) {
    const float py = static_cast<float>(y) + 0.5f;
    if (py < farEnd.y + 2.0f || py > nearEnd.y - 2.0f) continue;  // clear of the card's ends
    // Where red gives way to blue along the row: red − blue crosses zero between two pixels.
    for (std::uint32_t x = 0; x + 1 < image.width(); ++x) {
      const Rgba8 a = image.pixel(x, y);
      const Rgba8 b = image.pixel(x + 1, y);
      const float fa = static_cast<float>(a.r) - static_cast<float>(a.b);
      const float fb = static_cast<float>(b.r) - static_cast<float>(b.b);
      if (!(fa > 0.0f && fb <= 0.0f) || a.r < 100) continue;
      const float crossing = static_cast<float>(x) + 0.5f + fa / (fa - fb);
      const float expected =
          nearEnd.x + (farEnd.x - nearEnd.x) * (py - nearEnd.y) / (farEnd.y - nearEnd.y);
      EXPECT_NEAR(crossing, expected, 0.5f) << "row " << y;
      ++rows;
      break;
    }
  }
  EXPECT_GT(rows, 60u);  // the card covers that many rows
}

// <mote/render/particle_instance.h> on hand-computed values: draw keys order as their sort says,
// and the stretch is stretch_scale over the particle's height in viewport heights at its depth.
TEST(ParticleInstance, DrawKeysAndStretchAreWhatTheSoftwareRendererUses) {
  using bytecode::ParticleSort;
  EXPECT_LT(particleDrawKey(ParticleSort::BackToFront, 5.0f, 0),
            particleDrawKey(ParticleSort::BackToFront, 2.0f, 0));  // the farther first
  EXPECT_GT(particleDrawKey(ParticleSort::FrontToBack, 5.0f, 0),
            particleDrawKey(ParticleSort::FrontToBack, 2.0f, 0));
  EXPECT_LT(particleDrawKey(ParticleSort::OldestFirst, 9.0f, 3),
            particleDrawKey(ParticleSort::OldestFirst, 1.0f, 4));
  EXPECT_GT(particleDrawKey(ParticleSort::NewestFirst, 9.0f, 3),
            particleDrawKey(ParticleSort::NewestFirst, 1.0f, 4));
  // 90° vertical field of view: a viewport height is 2 · 4 m at depth 4; a particle 1 m tall
  // with stretch_scale 0.1 gets 0.1 · 8 / 1 seconds.
  Camera perspective = Camera::perspective(1.5707964f, 1.0f, 0.1f, 100.0f).value();
  ASSERT_TRUE(perspective.lookAt({0, 0, 4}, {0, 0, 0}, {0, 1, 0}).ok());
  BillboardInput particle;
  particle.halfSize = {0.25f, 0.5f};
  EXPECT_NEAR(particleStretchSeconds(perspective, 0.1f, particle), 0.8f, 1e-6f);
  const Camera ortho = Camera::orthographic(3.0f, 1.0f, -10.0f, 10.0f).value();
  EXPECT_NEAR(particleStretchSeconds(ortho, 0.1f, particle), 0.6f, 1e-6f);  // 6 m at any depth
}

TEST(ParticleInstance, ALinkedChainIsOnePerSourceParticleInSlotOrder) {
  RenderPacket p;
  p.count = 6;
  std::array<std::uint64_t, 6> keys{};
  linkedChainOrder(p, keys);  // no sources: one chain, slot order
  EXPECT_EQ(keys, (std::array<std::uint64_t, 6>{0, 1, 2, 3, 4, 5}));
  const std::array<std::uint32_t, 6> sources{7, 3, 7, 3, 9, 3};
  p.sources = sources.data();
  linkedChainOrder(p, keys);
  const auto key = [](std::uint64_t chain, std::uint64_t slot) { return chain << 32 | slot; };
  EXPECT_EQ(keys, (std::array<std::uint64_t, 6>{key(3, 1), key(3, 3), key(3, 5), key(7, 0),
                                                key(7, 2), key(9, 4)}));
}

TEST(CullViewVisibility, EmittersOutOfViewAreCulledAndInViewAreNot) {
  auto world = ParticleWorld::create({}).takeValue();
  const EffectHandle h = world->addEffect(compileJson(scene(kSoft, "billboard"))).value();
  const EmitterHandle e = world->emitter(h, 0);
  world->tick(0.03f);  // the particles exist: the bounds are known
  const Viewport viewport{64, 48};
  Camera camera = Camera::perspective(0.9f, 64.0f / 48.0f, 0.1f, 100.0f).value();
  CullView view;
  const CullViewVisibility visibility(view);
  ASSERT_TRUE(camera.lookAt({0.0f, 1.0f, 5.0f}, {0.0f, 1.0f, 10.0f}, {0.0f, 1.0f, 0.0f}).ok());
  view.build(camera, viewport);
  world->tick(0.03f, &visibility);
  EXPECT_TRUE(world->emitterStats(e).value().culled);
  ASSERT_TRUE(camera.lookAt({0.0f, 1.0f, 5.0f}, {0.0f, 0.5f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  view.build(camera, viewport);
  world->tick(0.03f, &visibility);
  EXPECT_FALSE(world->emitterStats(e).value().culled);
  Bounds bad;
  bad.known = true;
  bad.max[0] = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(visibility.visible(bad));
}

}  // namespace
}  // namespace mote::render
