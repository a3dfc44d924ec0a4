// SPDX-License-Identifier: MIT
// The particle renderer's transparency modes (Transparency: emitter, sorted, weighted blended OIT)
// and its post-process (tone mapping, bloom): golden images of two crossing alpha emitters in
// every mode and of an HDR core under each tone map and bloom, what each mode promises (sorted
// interleaves emitters; one emitter sorted is the emitter order; OIT does not care about emitter
// order; cutout under OIT is the emitter order), thread independence, the allocation watch, and
// the option errors. Re-approve the goldens deliberately with scripts/approve-goldens.
#include "support/compile_effect.h"
#include "support/golden_image.h"
#include "support/transparency_scene.h"

#include <mote/core/alloc_watch.h>
#include <mote/core/job_system.h>
#include <mote/render/particle_renderer.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace mote::render {
namespace {

using test::compileJson;
using test::crossing;
using test::expectGolden;

// An additive core far above white (6, 4.5, 3, as the explosion's flash) with a dim halo.
std::string hdrCore() {
  return R"({"format": "mote.effect/1", "name": "hdr", "materials": [{"name": "m", "texture": "builtin:soft_circle", "blend": "additive"}],
    "emitters": [{"name": "core", "material": "m", "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 1}]},
      "init": {"lifetime": 10, "size": 0.8, "color": [6, 4.5, 3, 1]}, "position": [0, 0.8, 0]},
     {"name": "halo", "material": "m", "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 1}]},
      "init": {"lifetime": 10, "size": 2.2, "color": [0.5, 0.3, 0.15, 1]}, "position": [0, 0.8, 0]}]})";
}

RendererOptions optionsFor(Transparency transparency, PostProcess post = {},
                           JobSystem* jobs = nullptr) {
  RendererOptions options;
  options.viewport = {120, 80};
  options.builtinSpriteSize = 32;
  options.transparency = transparency;
  options.post = post;
  options.jobs = jobs;
  return options;
}

Image draw(const bytecode::CompiledEffect& effect, const RendererOptions& options,
           std::uint32_t expectedQuads) {
  auto world = ParticleWorld::create({}).takeValue();
  EXPECT_TRUE(world->addEffect(effect).ok());
  world->tick(1.0f / 30.0f);
  auto renderer = ParticleRenderer::create(options).takeValue();
  Camera camera = Camera::perspective(0.9f, 1.5f, 0.1f, 100.0f).value();
  EXPECT_TRUE(camera.lookAt({0.0f, 1.5f, 4.6f}, {0.0f, 0.8f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  Image image;
  const Status s = renderer.render(*world, camera, image);
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(renderer.stats().quads, expectedQuads);
  return image;
}

// The largest per-channel difference between two images of one size, and how many pixels differ.
struct Difference {
  int largest = 0;
  std::uint32_t pixels = 0;
};
Difference difference(const Image& a, const Image& b) {
  Difference d;
  for (std::uint32_t y = 0; y < a.height(); ++y) {
    for (std::uint32_t x = 0; x < a.width(); ++x) {
      const Rgba8 p = a.pixel(x, y);
      const Rgba8 q = b.pixel(x, y);
      const int largest = std::max({std::abs(p.r - q.r), std::abs(p.g - q.g), std::abs(p.b - q.b)});
      d.largest = std::max(d.largest, largest);
      d.pixels += largest > 0 ? 1u : 0u;
    }
  }
  return d;
}

TEST(Transparency, EveryModeMatchesItsGolden) {
  const auto effect = compileJson(crossing());
  expectGolden(draw(effect, optionsFor(Transparency::Emitter), 16), "transparency_emitter");
  expectGolden(draw(effect, optionsFor(Transparency::Sorted), 16), "transparency_sorted");
  expectGolden(draw(effect, optionsFor(Transparency::Oit), 16), "transparency_oit");
}

TEST(Transparency, SortedInterleavesTheEmittersAndEmitterOrderDoesNot) {
  const auto effect = compileJson(crossing());
  const Image byEmitter = draw(effect, optionsFor(Transparency::Emitter), 16);
  const Image sorted = draw(effect, optionsFor(Transparency::Sorted), 16);
  // Blue is drawn over red everywhere in emitter order; sorted, red is in front on the right
  // (its front end, x > 0), so red shows more there.
  std::int64_t redByEmitter = 0;
  std::int64_t redSorted = 0;
  for (std::uint32_t y = 0; y < byEmitter.height(); ++y) {
    for (std::uint32_t x = 60; x < byEmitter.width(); ++x) {
      redByEmitter += byEmitter.pixel(x, y).r - byEmitter.pixel(x, y).b;
      redSorted += sorted.pixel(x, y).r - sorted.pixel(x, y).b;
    }
  }
  EXPECT_GT(redSorted, redByEmitter + 2000);
  // Swapping sort_order changes the emitter-order frame, not the sorted one's interleaving
  // (equal depths do not occur here, so sort_order breaks no ties).
  const auto swapped = compileJson(crossing("alpha", 1, 0));
  EXPECT_GT(difference(draw(swapped, optionsFor(Transparency::Emitter), 16), byEmitter).pixels,
            200u);
  EXPECT_EQ(draw(swapped, optionsFor(Transparency::Sorted), 16), sorted);
}

TEST(Transparency, OneEmitterSortedIsItsEmitterOrder) {
  // A single back-to-front emitter: sorting every quad by depth is what the emitter does.
  const std::string one =
      R"({"format": "mote.effect/1", "name": "one", "materials": [{"name": "m", "texture": "builtin:smoke"}],
    "emitters": [{"name": "e", "material": "m", "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 9}]},
      "shape": {"kind": "line", "end": [2, 0.3, -2]}, "position": [-1, 0.6, 1],
      "init": {"lifetime": 10, "size": 0.8, "color": [0.9, 0.6, 0.3, 0.7]}}]})";
  const auto effect = compileJson(one);
  EXPECT_EQ(draw(effect, optionsFor(Transparency::Sorted), 9),
            draw(effect, optionsFor(Transparency::Emitter), 9));
}

TEST(Transparency, OitDoesNotDependOnTheEmittersOrder) {
  // The accumulation is a sum: another order changes at most the last bit of a float, which the
  // 8-bit resolve shows as 1 at most.
  const Image a = draw(compileJson(crossing()), optionsFor(Transparency::Oit), 16);
  const Image b = draw(compileJson(crossing("alpha", 1, 0)), optionsFor(Transparency::Oit), 16);
  EXPECT_LE(difference(a, b).largest, 1);
  // Additive emitters go through the same pass: a sum, whatever the mode.
  const auto additive = compileJson(crossing("additive"));
  EXPECT_LE(difference(draw(additive, optionsFor(Transparency::Oit), 16),
                       draw(additive, optionsFor(Transparency::Emitter), 16))
                .largest,
            1);
}

TEST(Transparency, OitDrawsCutoutQuadsOpaqueInEmitterOrder) {
  const auto effect = compileJson(crossing("cutout"));
  EXPECT_EQ(draw(effect, optionsFor(Transparency::Oit), 16),
            draw(effect, optionsFor(Transparency::Emitter), 16));
}

TEST(Transparency, EveryModeIsTheSameOnAnyThreadCount) {
  auto pool = ThreadPool::create(3).takeValue();
  const auto effect = compileJson(crossing());
  PostProcess post;
  post.toneMap = ToneMap::Aces;
  post.bloom = 0.8f;
  post.bloomThreshold = 0.3f;
  for (Transparency t : {Transparency::Emitter, Transparency::Sorted, Transparency::Oit}) {
    SCOPED_TRACE(static_cast<int>(t));
    EXPECT_EQ(draw(effect, optionsFor(t, post, pool.get()), 16),
              draw(effect, optionsFor(t, post), 16));
  }
}

TEST(PostProcess, ToneMapsHaveTheirFormulasAndInverses) {
  EXPECT_EQ(toneMapped(ToneMap::None, 0.25f), 0.25f);
  EXPECT_EQ(toneMapped(ToneMap::None, -1.0f), 0.0f);
  EXPECT_EQ(toneMapped(ToneMap::Aces, std::nanf("")), 0.0f);
  // Narkowicz: 1 → 2.54 / 3.16; 0 → 0; far above white → 2.51 / 2.43 (clamped to 1 at resolve).
  EXPECT_NEAR(toneMapped(ToneMap::Aces, 1.0f), 2.54 / 3.16, 1e-6);
  EXPECT_EQ(toneMapped(ToneMap::Aces, 0.0f), 0.0f);
  EXPECT_NEAR(toneMapped(ToneMap::Aces, 1e6f), 2.51 / 2.43, 1e-4);
  // Extended Reinhard, white at 4: 4 → 1, 1 → 17/32.
  EXPECT_NEAR(toneMapped(ToneMap::Reinhard, 4.0f), 1.0, 1e-6);
  EXPECT_NEAR(toneMapped(ToneMap::Reinhard, 1.0f), 17.0 / 32.0, 1e-6);
  for (ToneMap t : {ToneMap::None, ToneMap::Reinhard, ToneMap::Aces}) {
    for (float display : {0.0f, 0.003f, 0.05f, 0.4f, 0.9f, 0.999f}) {
      const float linear = inverseToneMapped(t, display);
      EXPECT_NEAR(toneMapped(t, linear), display, 2e-6) << static_cast<int>(t) << " " << display;
    }
  }
}

TEST(PostProcess, AnHdrCoreGlowsUnderAToneMapAndClipsWithout) {
  const auto effect = compileJson(hdrCore());
  const Image none = draw(effect, optionsFor(Transparency::Emitter), 2);
  PostProcess aces;
  aces.toneMap = ToneMap::Aces;
  const Image mapped = draw(effect, optionsFor(Transparency::Emitter, aces), 2);
  PostProcess bloom = aces;
  bloom.bloom = 1.0f;
  const Image bloomed = draw(effect, optionsFor(Transparency::Emitter, bloom), 2);
  PostProcess reinhard;
  reinhard.toneMap = ToneMap::Reinhard;
  expectGolden(none, "tonemap_none");
  expectGolden(mapped, "tonemap_aces");
  expectGolden(draw(effect, optionsFor(Transparency::Emitter, reinhard), 2), "tonemap_reinhard");
  expectGolden(bloomed, "bloom_aces");
  // The core's centre (60, 40 of 120 × 80): without a tone map every channel clips to 255, so the
  // flash's colour is lost; ACES keeps red > green > blue.
  const Rgba8 clipped = none.pixel(60, 40);
  EXPECT_EQ(clipped.r, 255);
  EXPECT_EQ(clipped.g, 255);
  EXPECT_EQ(clipped.b, 255);
  const Rgba8 glow = mapped.pixel(60, 40);
  EXPECT_GT(glow.r, glow.g);
  EXPECT_GT(glow.g, glow.b);
  // Bloom adds light around the core and only there: the frame's corners stay as they were.
  std::int64_t mappedSum = 0;
  std::int64_t bloomedSum = 0;
  for (std::uint32_t x = 20; x < 100; ++x) {
    mappedSum += mapped.pixel(x, 40).r;
    bloomedSum += bloomed.pixel(x, 40).r;
  }
  EXPECT_GT(bloomedSum, mappedSum + 100);
  EXPECT_EQ(bloomed.pixel(0, 0), mapped.pixel(0, 0));
  EXPECT_EQ(bloomed.pixel(119, 79), mapped.pixel(119, 79));
}

TEST(PostProcess, BloomWithNothingAboveTheThresholdChangesNothing) {
  // The crossing smoke is below 1 everywhere: its bright part is zero, so is its bloom.
  const auto effect = compileJson(crossing());
  PostProcess bloom;
  bloom.bloom = 4.0f;
  EXPECT_EQ(draw(effect, optionsFor(Transparency::Emitter, bloom), 16),
            draw(effect, optionsFor(Transparency::Emitter), 16));
}

TEST(PostProcess, FramesWithOitAndBloomAllocateNothing) {
#if !defined(MOTE_TEST_ALLOC_WATCH_LINKED)
  GTEST_SKIP() << "the allocation watch is not linked in sanitizer builds";
#else
  auto world = ParticleWorld::create({}).takeValue();
  ASSERT_TRUE(world->addEffect(compileJson(crossing())).ok());
  world->tick(0.03f);
  PostProcess post;
  post.toneMap = ToneMap::Aces;
  post.bloom = 1.0f;
  for (Transparency t : {Transparency::Sorted, Transparency::Oit}) {
    auto renderer = ParticleRenderer::create(optionsFor(t, post)).takeValue();
    Camera camera = Camera::perspective(0.9f, 1.5f, 0.1f, 100.0f).value();
    ASSERT_TRUE(camera.lookAt({0.0f, 1.5f, 4.6f}, {0.0f, 0.8f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
    Image image;
    ASSERT_TRUE(renderer.render(*world, camera, image).ok());  // loads textures, sizes the image
    for (int i = 0; i < 3; ++i) {
      world->tick(0.03f);
      AllocationScope scope;
      ASSERT_TRUE(renderer.render(*world, camera, image).ok());
      EXPECT_EQ(scope.allocations(), 0u);
    }
  }
#endif
}

TEST(PostProcess, BadOptionsAreRefusedByName) {
  RendererOptions options = optionsFor(Transparency::Emitter);
  options.post.bloom = std::nanf("");
  Result<ParticleRenderer> r = ParticleRenderer::create(options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("post.bloom"), std::string::npos) << r.status().message();
  options.post.bloom = 17.0f;
  EXPECT_FALSE(ParticleRenderer::create(options).ok());
  options.post.bloom = 1.0f;
  options.post.bloomThreshold = -1.0f;
  EXPECT_FALSE(ParticleRenderer::create(options).ok());
  options.post = {};
  options.post.toneMap = static_cast<ToneMap>(7);
  EXPECT_FALSE(ParticleRenderer::create(options).ok());
  options.post = {};
  options.transparency = static_cast<Transparency>(9);
  r = ParticleRenderer::create(options);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("transparency"), std::string::npos);
  SpriteRendererOptions sprites;
  sprites.post.bloom = -0.5f;
  EXPECT_FALSE(SpriteRenderer::create(sprites).ok());
}

}  // namespace
}  // namespace mote::render
