// SPDX-License-Identifier: MIT
// SpriteRenderer: SpriteBatcher frames through the sprite layer's software rasterizer. Hand-made
// solid textures make the expected pixels computable by hand (a covered pixel is exactly the
// tint, resolved through the sRGB table); one golden pins a mixed scene.
#include "support/golden_image.h"

#include <mote/core/alloc_watch.h>
#include <mote/core/job_system.h>
#include <mote/render/procedural_sprite.h>
#include <mote/render/sprite_renderer.h>

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <string>

namespace mote::render {
namespace {

using test::expectGolden;

// An opaque image of one colour; or, with `split`, red on the left half and green on the right.
Image solid(std::uint32_t width, std::uint32_t height, bool split = false) {
  Image image = Image::create(width, height).takeValue();
  for (std::uint32_t y = 0; y < height; ++y) {
    for (std::uint32_t x = 0; x < width; ++x) {
      const bool right = x >= width / 2;
      image.setPixel(x, y,
                     !split  ? Rgba8{255, 255, 255, 255}
                     : right ? Rgba8{0, 255, 0, 255}
                             : Rgba8{255, 0, 0, 255});
    }
  }
  return image;
}

SpriteRenderer blackRenderer(Viewport viewport, JobSystem* jobs = nullptr) {
  SpriteRendererOptions options;
  options.viewport = viewport;
  options.background = {0.0f, 0.0f, 0.0f};
  options.builtinSpriteSize = 32;
  options.jobs = jobs;
  return SpriteRenderer::create(options).takeValue();
}

SpriteItem sprite(float x, float y, float size, SpriteColor tint, BlendMode blend,
                  std::uint32_t atlas = 1) {
  SpriteItem item;
  item.pos = {x, y};
  item.scale = {size, size};
  item.tint = tint;
  item.blend = blend;
  item.atlasId = atlas;
  return item;
}

SpriteBatcher built(std::initializer_list<SpriteItem> items) {
  SpriteBatcher batcher = SpriteBatcher::create({}).takeValue();
  for (const SpriteItem& item : items)
    EXPECT_TRUE(batcher.add(item).ok());
  EXPECT_TRUE(batcher.build().ok());
  return batcher;
}

// Linear → 8-bit sRGB, by hand: 1.0 → 255, 0.5 → 0.7354 → 188, 0.25 → 0.5371 → 137.
constexpr std::uint8_t kSrgbHalf = 188;
constexpr std::uint8_t kSrgbQuarter = 137;

TEST(SpriteRenderer, AnAdditiveSquareCoversExactlyItsPixelsWithItsTint) {
  SpriteRenderer renderer = blackRenderer({64, 64});
  ASSERT_TRUE(renderer.setAtlasImage(1, solid(4, 4)).ok());
  // 16 px per unit, a 2-unit sprite at the centre: pixels [16, 48) on both axes.
  const SpriteView view = SpriteView::orthographic({64, 64}, {0.0f, 0.0f}, 16.0f);
  const SpriteBatcher batcher =
      built({sprite(0.0f, 0.0f, 2.0f, {0.5f, 0.25f, 1.0f, 1.0f}, BlendMode::Additive)});
  Image image;
  ASSERT_TRUE(renderer.renderSprites(batcher, view, image).ok());
  ASSERT_EQ(image.width(), 64u);
  EXPECT_EQ(renderer.stats().quads, 1u);
  const Rgba8 inside{kSrgbHalf, kSrgbQuarter, 255, 255};
  const Rgba8 black{0, 0, 0, 255};
  for (std::uint32_t k : {16u, 17u, 31u, 32u, 47u}) {
    EXPECT_EQ(image.pixel(k, 32), inside) << "x " << k;
    EXPECT_EQ(image.pixel(32, k), inside) << "y " << k;
  }
  for (std::uint32_t k : {0u, 15u, 48u, 63u}) {
    EXPECT_EQ(image.pixel(k, 32), black) << "x " << k;
    EXPECT_EQ(image.pixel(32, k), black) << "y " << k;
  }
}

TEST(SpriteRenderer, TheIsometricViewPlacesWorldAxesOnTheTileDiamond) {
  const Viewport viewport{200, 100};
  const SpriteView view = SpriteView::isometric(viewport, {0.0f, 0.0f}, 64.0f);
  EXPECT_EQ(view.origin, (std::array<float, 2>{100.0f, 50.0f}));
  EXPECT_EQ(view.axisX, (std::array<float, 2>{32.0f, 16.0f}));
  EXPECT_EQ(view.axisY, (std::array<float, 2>{-32.0f, 16.0f}));
  EXPECT_EQ(view.pixelsPerUnit, 32.0f);
  // Re-centred on (1, 1): world (1, 1) lands at the viewport's centre.
  const SpriteView moved = SpriteView::isometric(viewport, {1.0f, 1.0f}, 64.0f);
  EXPECT_EQ(moved.origin, (std::array<float, 2>{100.0f, 18.0f}));

  SpriteRenderer renderer = blackRenderer(viewport);
  ASSERT_TRUE(renderer.setAtlasImage(1, solid(4, 4)).ok());
  // World (1, 0) is at screen (132, 66); an 0.25-unit sprite covers [128, 136) × [62, 70).
  const SpriteBatcher batcher =
      built({sprite(1.0f, 0.0f, 0.25f, {1.0f, 1.0f, 1.0f, 1.0f}, BlendMode::Alpha)});
  Image image;
  ASSERT_TRUE(renderer.renderSprites(batcher, view, image).ok());
  const Rgba8 white{255, 255, 255, 255};
  const Rgba8 black{0, 0, 0, 255};
  EXPECT_EQ(image.pixel(128, 62), white);
  EXPECT_EQ(image.pixel(135, 69), white);
  EXPECT_EQ(image.pixel(127, 66), black);
  EXPECT_EQ(image.pixel(136, 66), black);
  EXPECT_EQ(image.pixel(132, 61), black);
  EXPECT_EQ(image.pixel(132, 70), black);
}

TEST(SpriteRenderer, BlendModesFollowThePremultipliedEquation) {
  const SpriteView view = SpriteView::orthographic({16, 16}, {0.0f, 0.0f}, 4.0f);
  const auto render = [&](const SpriteItem& item) {
    SpriteRenderer renderer = blackRenderer({16, 16});
    EXPECT_TRUE(renderer.setAtlasImage(1, solid(2, 2)).ok());
    Image image;
    EXPECT_TRUE(renderer.renderSprites(built({item}), view, image).ok());
    return image.pixel(8, 8);
  };
  // Alpha: red at 0.5 over black → 0.5 linear red.
  EXPECT_EQ(render(sprite(0, 0, 2, {1.0f, 0.0f, 0.0f, 0.5f}, BlendMode::Alpha)),
            (Rgba8{kSrgbHalf, 0, 0, 255}));
  // Premultiplied: the colour is taken as is (0.5 already includes alpha 0.5).
  EXPECT_EQ(render(sprite(0, 0, 2, {0.5f, 0.0f, 0.0f, 0.5f}, BlendMode::Premultiplied)),
            (Rgba8{kSrgbHalf, 0, 0, 255}));
  // Cutout: alpha below 0.5 is not drawn; above is drawn opaque, at full colour.
  EXPECT_EQ(render(sprite(0, 0, 2, {0.0f, 1.0f, 0.0f, 0.4f}, BlendMode::Cutout)),
            (Rgba8{0, 0, 0, 255}));
  EXPECT_EQ(render(sprite(0, 0, 2, {0.0f, 1.0f, 0.0f, 0.6f}, BlendMode::Cutout)),
            (Rgba8{0, 255, 0, 255}));
  // Additive with alpha 0.5: half the colour, added.
  EXPECT_EQ(render(sprite(0, 0, 2, {0.0f, 0.0f, 1.0f, 0.5f}, BlendMode::Additive)),
            (Rgba8{0, 0, kSrgbHalf, 255}));
}

TEST(SpriteRenderer, DepthKeysOrderTheDrawNotDeclarationOrder) {
  SpriteRenderer renderer = blackRenderer({16, 16});
  ASSERT_TRUE(renderer.setAtlasImage(1, solid(2, 2)).ok());
  const SpriteView view = SpriteView::orthographic({16, 16}, {0.0f, 0.0f}, 4.0f);
  SpriteItem front = sprite(0, 0, 2, {0.0f, 1.0f, 0.0f, 1.0f}, BlendMode::Alpha);
  front.depthKey = 200;
  SpriteItem back = sprite(0, 0, 2, {1.0f, 0.0f, 0.0f, 1.0f}, BlendMode::Alpha);
  back.depthKey = 100;
  Image image;
  ASSERT_TRUE(renderer.renderSprites(built({front, back}), view, image).ok());
  EXPECT_EQ(image.pixel(8, 8), (Rgba8{0, 255, 0, 255}));  // the larger key is drawn last
}

TEST(SpriteRenderer, RotationTurnsARectangleAndFrameIndexPicksTheCell) {
  SpriteRenderer renderer = blackRenderer({32, 32});
  ASSERT_TRUE(renderer.setAtlasImage(1, solid(64, 4, /*split=*/true), 2, 1).ok());
  const SpriteView view = SpriteView::orthographic({32, 32}, {0.0f, 0.0f}, 4.0f);
  // 4 × 1 units (16 × 4 px), turned a quarter: 4 px wide, 16 px tall.
  SpriteItem item = sprite(0, 0, 1, {1.0f, 1.0f, 1.0f, 1.0f}, BlendMode::Alpha);
  item.scale = {4.0f, 1.0f};
  item.rotation = std::numbers::pi_v<float> / 2.0f;
  item.frameIndex = 1;  // the right (green) cell
  Image image;
  ASSERT_TRUE(renderer.renderSprites(built({item}), view, image).ok());
  const Rgba8 green{0, 255, 0, 255};
  const Rgba8 black{0, 0, 0, 255};
  EXPECT_EQ(image.pixel(16, 9), green);
  EXPECT_EQ(image.pixel(16, 22), green);
  EXPECT_EQ(image.pixel(16, 7), black);
  EXPECT_EQ(image.pixel(11, 16), black);
  EXPECT_EQ(image.pixel(20, 16), black);
  // A frame past the grid clamps to the last cell.
  item.frameIndex = 7;
  ASSERT_TRUE(renderer.renderSprites(built({item}), view, image).ok());
  EXPECT_EQ(image.pixel(16, 16), green);
  item.frameIndex = 0;
  ASSERT_TRUE(renderer.renderSprites(built({item}), view, image).ok());
  EXPECT_EQ(image.pixel(16, 16), (Rgba8{255, 0, 0, 255}));
}

SpriteBatcher mixedScene() {
  SpriteBatcher batcher = SpriteBatcher::create({}).takeValue();
  for (int i = 0; i < 24; ++i) {
    const float t = static_cast<float>(i) / 24.0f;
    const float angle = t * 2.0f * std::numbers::pi_v<float>;
    SpriteItem item = sprite(std::cos(angle) * 1.6f, std::sin(angle) * 1.1f, 0.4f + 0.5f * t,
                             {1.0f, 0.4f + 0.6f * t, 0.2f, 0.9f},
                             i % 3 == 0 ? BlendMode::Alpha : BlendMode::Additive,
                             static_cast<std::uint32_t>(i % 3));
    item.rotation = angle;
    item.depthKey = static_cast<std::uint32_t>(i * 37 % 24);
    EXPECT_TRUE(batcher.add(item).ok());
  }
  EXPECT_TRUE(batcher.build().ok());
  return batcher;
}

Image renderMixed(JobSystem* jobs) {
  const Viewport viewport{96, 64};
  SpriteRenderer renderer = blackRenderer(viewport, jobs);
  EXPECT_TRUE(renderer.setAtlas(1, {"builtin:star", 1, 1}).ok());
  EXPECT_TRUE(renderer.setAtlas(2, {"builtin:spark", 1, 1}).ok());
  Image image;
  const Status s =
      renderer.renderSprites(mixedScene(), SpriteView::isometric(viewport, {0, 0}, 32), image);
  EXPECT_TRUE(s.ok()) << s.message();
  return image;
}

TEST(SpriteRenderer, AMixedSceneMatchesItsGoldenOnAnyThreadCount) {
  const Image one = renderMixed(nullptr);
  expectGolden(one, "sprites_mixed");
  auto pool = ThreadPool::create(3).takeValue();
  EXPECT_EQ(renderMixed(pool.get()), one);
}

TEST(SpriteRenderer, DrawingAFrameAllocatesNothingOnceAtlasesAreBound) {
#if !defined(MOTE_TEST_ALLOC_WATCH_LINKED)
  GTEST_SKIP() << "the allocation watch is not linked in sanitizer builds";
#else
  const Viewport viewport{96, 64};
  SpriteRenderer renderer = blackRenderer(viewport);
  ASSERT_TRUE(renderer.setAtlas(1, {"builtin:star", 1, 1}).ok());
  ASSERT_TRUE(renderer.setAtlas(2, {"builtin:spark", 1, 1}).ok());
  const SpriteBatcher batcher = mixedScene();
  const SpriteView view = SpriteView::isometric(viewport, {0, 0}, 32);
  Image image;
  ASSERT_TRUE(renderer.renderSprites(batcher, view, image).ok());  // binds atlas 0, sizes image
  for (int i = 0; i < 5; ++i) {
    AllocationScope scope;
    ASSERT_TRUE(renderer.renderSprites(batcher, view, image).ok());
    EXPECT_EQ(scope.allocations(), 0u);
  }
#endif
}

TEST(SpriteRenderer, ABandListTooSmallForTheFrameFallsBackToTheSameImage) {
  // One sprite over the whole 64-row view touches 4 bands; a renderer with maxSprites 1 keeps band
  // lists for 2 entries, so it draws every band from the full quad list instead.
  const SpriteView view = SpriteView::orthographic({32, 64}, {0.0f, 0.0f}, 4.0f);
  SpriteItem item = sprite(0, 0, 20, {0.8f, 0.4f, 0.2f, 0.7f}, BlendMode::Alpha, 0);
  item.rotation = 0.3f;
  const auto draw = [&](std::uint32_t maxSprites) {
    SpriteRendererOptions options;
    options.viewport = {32, 64};
    options.maxSprites = maxSprites;
    options.builtinSpriteSize = 32;
    SpriteRenderer renderer = SpriteRenderer::create(options).takeValue();
    Image image;
    EXPECT_TRUE(renderer.renderSprites(built({item}), view, image).ok());
    EXPECT_EQ(renderer.stats().quads, 1u);
    return image;
  };
  EXPECT_EQ(draw(1), draw(64));
}

// An opaque image of one colour.
Image filled(Rgba8 color) {
  Image image = Image::create(2, 2).takeValue();
  image.fill(color);
  return image;
}

TEST(SpriteRenderer, RebindingAtlasImagesKeepsEveryOtherAtlasIntact) {
  SpriteRenderer renderer = blackRenderer({16, 16});
  const SpriteView view = SpriteView::orthographic({16, 16}, {0.0f, 0.0f}, 4.0f);
  const auto centre = [&](std::uint32_t atlas) {
    Image image;
    EXPECT_TRUE(renderer
                    .renderSprites(built({sprite(0, 0, 2, {1, 1, 1, 1}, BlendMode::Alpha, atlas)}),
                                   view, image)
                    .ok());
    return image.pixel(8, 8);
  };
  const Rgba8 red{255, 0, 0, 255};
  const Rgba8 green{0, 255, 0, 255};
  const Rgba8 blue{0, 0, 255, 255};
  ASSERT_TRUE(renderer.setAtlasImage(1, filled(red)).ok());
  ASSERT_TRUE(renderer.setAtlasImage(2, filled(green)).ok());
  EXPECT_EQ(centre(1), red);
  EXPECT_EQ(centre(2), green);
  // Rebinding 1 (its slot is reused) leaves 2 alone.
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(renderer.setAtlasImage(1, filled(i % 2 == 0 ? blue : red)).ok());
  EXPECT_EQ(centre(1), blue);
  EXPECT_EQ(centre(2), green);
  // 1 moves to a named texture; its old image slot may serve atlas 3, and 2 is still green.
  ASSERT_TRUE(renderer.setAtlas(1, {"builtin:star", 1, 1}).ok());
  ASSERT_TRUE(renderer.setAtlasImage(3, filled(blue)).ok());
  EXPECT_EQ(centre(3), blue);
  EXPECT_EQ(centre(2), green);
  // A bad grid is refused before anything changes.
  EXPECT_EQ(renderer.setAtlasImage(2, filled(red), 0, 1).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(centre(2), green);
}

TEST(SpriteRenderer, ANaNTintChannelResolvesToBlackNotOutOfTheTable) {
  // Additive keeps a NaN red channel (max(NaN, 0) is NaN) all the way to the accumulator; the
  // resolve reads it as 0, and the other channels are unaffected.
  SpriteRenderer renderer = blackRenderer({16, 16});
  ASSERT_TRUE(renderer.setAtlasImage(1, solid(2, 2)).ok());
  const SpriteView view = SpriteView::orthographic({16, 16}, {0.0f, 0.0f}, 4.0f);
  Image image;
  ASSERT_TRUE(
      renderer
          .renderSprites(
              built({sprite(0, 0, 2, {std::numeric_limits<float>::quiet_NaN(), 0.5f, 0.0f, 1.0f},
                            BlendMode::Additive)}),
              view, image)
          .ok());
  EXPECT_EQ(image.pixel(8, 8), (Rgba8{0, kSrgbHalf, 0, 255}));
}

// loadTexture: a built-in made at the size asked, premultiplied as textureFromImage makes it; a
// PNG file read relative to the directory (or by its absolute path); missing files and unknown
// built-ins named in the error.
TEST(SpriteRenderer, LoadTextureReadsBuiltinsAndFilesAsTheRasterizerSamplesThem) {
  const Texture star = loadTexture("builtin:star", "", 16).value();
  EXPECT_EQ(star.width, 16u);
  EXPECT_EQ(star.height, 16u);
  const Texture same = textureFromImage(makeBuiltinSprite(BuiltinSprite::Star, 16).value());
  EXPECT_EQ(star.texels, same.texels);
  Image two = Image::create(2, 1).value();
  two.setPixel(0, 0, Rgba8{255, 255, 255, 255});
  two.setPixel(1, 0, Rgba8{255, 0, 0, 51});
  const std::string dir = ::testing::TempDir();
  ASSERT_TRUE(writePng(two, dir + "/mote-two.png").ok());
  const Texture relative = loadTexture("mote-two.png", dir, 16).value();
  ASSERT_EQ(relative.texels.size(), 2u);
  EXPECT_EQ(relative.texels[0], (std::array<float, 4>{1.0f, 1.0f, 1.0f, 1.0f}));
  EXPECT_FLOAT_EQ(relative.texels[1][0], 0.2f);  // red 1 · alpha 0.2
  EXPECT_EQ(relative.texels[1][1], 0.0f);
  EXPECT_EQ(loadTexture(dir + "/mote-two.png", "elsewhere", 16).value().texels, relative.texels);
  const Result<Texture> missing = loadTexture("no-such.png", dir, 16);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no-such.png"), std::string::npos);
  EXPECT_FALSE(loadTexture("builtin:nope", "", 16).ok());
  EXPECT_FALSE(loadTexture("", "", 16).ok());
}

TEST(SpriteRenderer, BadOptionsAreRefusedNamingTheField) {
  SpriteRendererOptions bad;
  bad.maxSprites = 0;
  const Result<SpriteRenderer> none = SpriteRenderer::create(bad);
  EXPECT_EQ(none.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(none.status().message().find("maxSprites"), std::string::npos)
      << none.status().message();
  bad = {};
  bad.maxSprites = (1u << 24) + 1;
  EXPECT_EQ(SpriteRenderer::create(bad).status().code(), StatusCode::InvalidArgument);
  bad = {};
  bad.viewport = {0, 10};
  EXPECT_FALSE(SpriteRenderer::create(bad).ok());
  bad = {};
  bad.builtinSpriteSize = 0;
  EXPECT_EQ(SpriteRenderer::create(bad).status().code(), StatusCode::InvalidArgument);
  // A good renderer has drawn nothing yet.
  const SpriteRenderer renderer = blackRenderer({16, 16});
  EXPECT_EQ(renderer.stats().quads, 0u);
  EXPECT_EQ(renderer.stats().culled, 0u);
  EXPECT_EQ(renderer.stats().dropped, 0u);
}

TEST(SpriteRenderer, MisuseIsANamedError) {
  SpriteRenderer renderer = blackRenderer({16, 16});
  const SpriteView view = SpriteView::orthographic({16, 16}, {0.0f, 0.0f}, 4.0f);
  Image image;
  // A frame still open.
  SpriteBatcher open = SpriteBatcher::create({}).takeValue();
  ASSERT_TRUE(open.add(sprite(0, 0, 1, {}, BlendMode::Alpha, 0)).ok());
  Status s = renderer.renderSprites(open, view, image);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("build()"), std::string::npos) << s.message();
  // An atlas never bound (atlas 0 defaults to the soft circle).
  s = renderer.renderSprites(built({sprite(0, 0, 1, {}, BlendMode::Alpha, 5)}), view, image);
  EXPECT_EQ(s.code(), StatusCode::NotFound);
  EXPECT_NE(s.message().find("atlas 5"), std::string::npos) << s.message();
  EXPECT_TRUE(
      renderer.renderSprites(built({sprite(0, 0, 1, {}, BlendMode::Alpha, 0)}), view, image).ok());
  EXPECT_GT(image.pixel(8, 8).r, 0);
  // Bad views and atlases.
  SpriteView bad = view;
  bad.pixelsPerUnit = 0.0f;
  EXPECT_EQ(renderer.renderSprites(built({}), bad, image).code(), StatusCode::InvalidArgument);
  bad = view;
  bad.axisY = bad.axisX;
  EXPECT_EQ(renderer.renderSprites(built({}), bad, image).code(), StatusCode::InvalidArgument);
  bad = view;
  bad.origin[0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(renderer.renderSprites(built({}), bad, image).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(renderer.setAtlas(1, {"builtin:star", 0, 1}).code(), StatusCode::InvalidArgument);
  EXPECT_EQ(renderer.setAtlas(1, {"builtin:nope", 1, 1}).code(), StatusCode::NotFound);
  s = renderer.setAtlas(1, {"/nonexistent/atlas.png", 1, 1});
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("atlas.png"), std::string::npos) << s.message();
  // A stopped batcher draws nothing.
  EXPECT_TRUE(renderer.renderSprites(SpriteBatcher{}, view, image).ok());
  EXPECT_EQ(image.pixel(8, 8), (Rgba8{0, 0, 0, 255}));
  // Sprites with a non-finite position or an empty size are skipped, not drawn.
  SpriteItem nan = sprite(std::numeric_limits<float>::quiet_NaN(), 0, 1, {}, BlendMode::Alpha, 0);
  SpriteItem empty = sprite(0, 0, 0, {}, BlendMode::Alpha, 0);
  EXPECT_TRUE(renderer.renderSprites(built({nan, empty}), view, image).ok());
  EXPECT_EQ(renderer.stats().quads, 0u);
  EXPECT_EQ(renderer.stats().culled, 2u);
}

}  // namespace
}  // namespace mote::render
