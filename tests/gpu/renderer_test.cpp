// SPDX-License-Identifier: MIT
// The GPU renderer's core (<mote/gpu/renderer.h>) on known answers: a quad's footprint where the
// camera projects it, its colour over the background by the premultiplied equation, additive
// particles adding, later instances over earlier ones, a texture's halves sampled where they lie,
// a flipbook's two frames mixed by the blend, cutout texels tested and drawn opaque, one-sided
// cards culled by their winding, lit corners mixed over the quad, ribbon segments drawn from their
// world corners, soft particles faded by their depth in front of the ground, mesh particles hiding
// what is behind them, quads behind the eye dropped, and every bad input refused with nothing
// drawn.
#include "context_impl.h"  // the context's shared renderer pipelines
#include "gpu_test.h"
#include "support/compile_effect.h"

#include <mote/gpu/renderer.h>
#include <mote/render/camera.h>
#include <mote/render/particle_renderer.h>
#include <mote/runtime/world.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace mote {
namespace {

using GpuRenderer = test::GpuTest;

constexpr std::uint32_t kW = 64;
constexpr std::uint32_t kH = 48;
constexpr std::array<float, 3> kBackground{0.1f, 0.2f, 0.3f};

// A camera at (0, 0, 5) looking down −Z with a 90° vertical field of view: a point at depth d and
// height y lands (y / d) · 24 pixels above the centre row.
render::Camera camera() {
  render::Camera c = render::Camera::perspective(1.5707964f, 64.0f / 48.0f, 0.1f, 100.0f).value();
  EXPECT_TRUE(c.lookAt({0.0f, 0.0f, 5.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  return c;
}

std::unique_ptr<gpu::Renderer> makeRenderer(gpu::Context& context, bool ground = false) {
  gpu::RendererDesc desc;
  desc.viewport = {kW, kH};
  desc.background = kBackground;
  desc.ground = ground;
  Result<std::unique_ptr<gpu::Renderer>> r = gpu::Renderer::create(context, desc);
  EXPECT_TRUE(r.ok()) << r.status().toString();
  return r.ok() ? std::move(r).takeValue() : nullptr;
}

gpu::SpriteInstance sprite(glm::vec3 at, float half, std::array<float, 4> color) {
  gpu::SpriteInstance s;
  s.particle.position = at;
  s.particle.halfSize = {half, half};
  s.color = color;
  return s;
}

void expectPixel(const std::vector<std::array<float, 4>>& image, std::uint32_t x, std::uint32_t y,
                 std::array<float, 3> want) {
  const std::array<float, 4>& p = image[std::size_t{y} * kW + x];
  for (std::size_t c = 0; c < 3; ++c)
    EXPECT_NEAR(p[c], want[c], 1e-3f) << "pixel " << x << ", " << y << " channel " << c;
}

// A quad of half size 0.5 at depth 5: 0.5 / 5 · 24 = 2.4 pixels each side of the centre
// (32, 24): columns 30 to 33 and rows 22 to 25 covered (their centres within 2.4), no others.
TEST_F(GpuRenderer, AQuadCoversWhereItProjectsInItsColourOverTheBackground) {
  auto renderer = makeRenderer(*context());
  ASSERT_NE(renderer, nullptr);
  const std::array<std::array<float, 4>, 1> white{{{1.0f, 1.0f, 1.0f, 1.0f}}};
  ASSERT_TRUE(renderer->addTexture(1, 1, white).ok());
  const std::array<gpu::SpriteInstance, 1> one{sprite({0, 0, 0}, 0.5f, {0.4f, 0.2f, 0.0f, 0.5f})};
  const std::array<gpu::SpriteDraw, 1> draws{
      gpu::SpriteDraw{render::BillboardMode::Billboard, one, {}}};
  std::vector<std::array<float, 4>> image;
  const Status s = renderer->draw(camera(), draws, image);
  ASSERT_TRUE(s.ok()) << s.toString();
  ASSERT_EQ(image.size(), std::size_t{kW} * kH);
  const std::array<float, 3> over{0.4f + 0.1f * 0.5f, 0.2f + 0.2f * 0.5f, 0.3f * 0.5f};
  for (std::uint32_t y = 0; y < kH; ++y) {
    for (std::uint32_t x = 0; x < kW; ++x) {
      const bool inside = x >= 30 && x <= 33 && y >= 22 && y <= 25;
      expectPixel(image, x, y, inside ? over : kBackground);
    }
  }
  EXPECT_EQ(image[0][3], 1.0f);
}

// A renderer of another size and mode reuses the context's pipelines (viewport and scissor are
// dynamic state) and draws at its own size: the quad of the test above, at 128x96, spans
// 64 ± 4.8 pixels (columns and rows 59 to 68, 43 to 52). OIT's planes have pipelines of their own,
// one set whatever the size.
TEST_F(GpuRenderer, RenderersOfOtherSizesShareTheContextsPipelines) {
  auto first = makeRenderer(*context());
  ASSERT_NE(first, nullptr);
  const std::size_t built = context()->impl().rendererPipelines.size();
  gpu::RendererDesc desc;
  desc.viewport = {2 * kW, 2 * kH};
  desc.background = kBackground;
  desc.transparency = render::Transparency::Sorted;
  Result<std::unique_ptr<gpu::Renderer>> large = gpu::Renderer::create(*context(), desc);
  ASSERT_TRUE(large.ok()) << large.status().toString();
  EXPECT_EQ(context()->impl().rendererPipelines.size(), built);
  first.reset();  // the pipelines outlive the renderer that built them
  const std::array<std::array<float, 4>, 1> white{{{1.0f, 1.0f, 1.0f, 1.0f}}};
  ASSERT_TRUE((*large)->addTexture(1, 1, white).ok());
  const std::array<gpu::SpriteInstance, 1> one{sprite({0, 0, 0}, 0.5f, {1.0f, 1.0f, 1.0f, 1.0f})};
  const std::array<gpu::SpriteDraw, 1> draws{
      gpu::SpriteDraw{render::BillboardMode::Billboard, one, {}}};
  std::vector<std::array<float, 4>> image;
  ASSERT_TRUE((*large)->draw(camera(), draws, image).ok());
  ASSERT_EQ(image.size(), std::size_t{4} * kW * kH);
  std::size_t covered = 0;
  for (std::uint32_t y = 0; y < 2 * kH; ++y)
    for (std::uint32_t x = 0; x < 2 * kW; ++x) {
      const bool inside = x >= 59 && x <= 68 && y >= 43 && y <= 52;
      const float red = image[std::size_t{y} * 2 * kW + x][0];
      EXPECT_NEAR(red, inside ? 1.0f : kBackground[0], 1e-3f) << x << ", " << y;
      covered += red > 0.5f ? 1 : 0;
    }
  EXPECT_EQ(covered, 100u);
  if (context()->device().independentBlend) {
    const auto& shared = context()->impl().rendererPipelines;
    desc.transparency = render::Transparency::Oit;
    ASSERT_TRUE(gpu::Renderer::create(*context(), desc).ok());
    const std::size_t withOit = shared.size();
    desc.viewport = {kW, kH};
    ASSERT_TRUE(gpu::Renderer::create(*context(), desc).ok());
    EXPECT_EQ(shared.size(), withOit);
    EXPECT_EQ(
        std::count_if(shared.begin(), shared.end(), [](const auto& r) { return r.planes > 1; }), 1);
    EXPECT_EQ(
        std::count_if(shared.begin(), shared.end(), [](const auto& r) { return r.planes == 1; }),
        1);
  }
}

// Additive (alpha 0) adds; a later instance is drawn over an earlier one; a texture's left half
// red and right half blue lands on the quad's left and right.
TEST_F(GpuRenderer, AdditiveAddsLaterInstancesCoverEarlierOnesAndTexturesLieWhereSampled) {
  auto renderer = makeRenderer(*context());
  ASSERT_NE(renderer, nullptr);
  const std::array<std::array<float, 4>, 1> white{{{1.0f, 1.0f, 1.0f, 1.0f}}};
  ASSERT_EQ(renderer->addTexture(1, 1, white).value(), 0u);
  const std::array<std::array<float, 4>, 2> halves{
      {{1.0f, 0.0f, 0.0f, 1.0f}, {0.0f, 0.0f, 1.0f, 1.0f}}};
  ASSERT_EQ(renderer->addTexture(2, 1, halves).value(), 1u);
  std::array<gpu::SpriteInstance, 3> sprites{
      sprite({-2.0f, 0.0f, 0.0f}, 0.5f, {0.5f, 0.5f, 0.5f, 0.0f}),   // additive, at x ≈ 22.4
      sprite({2.0f, 0.0f, 0.0f}, 0.5f, {1.0f, 0.0f, 0.0f, 1.0f}),    // opaque red, at x ≈ 41.6
      sprite({2.0f, 0.0f, 0.0f}, 0.25f, {0.0f, 1.0f, 0.0f, 1.0f})};  // opaque green over it
  std::array<gpu::SpriteInstance, 1> textured{sprite({0.0f, 2.0f, 0.0f}, 1.5f, {1, 1, 1, 1})};
  textured[0].texture = 1;
  const std::array<gpu::SpriteDraw, 2> draws{
      gpu::SpriteDraw{render::BillboardMode::Billboard, sprites, {}},
      gpu::SpriteDraw{render::BillboardMode::FacingWorld, textured, {}}};
  std::vector<std::array<float, 4>> image;
  ASSERT_TRUE(renderer->draw(camera(), draws, image).ok());
  expectPixel(image, 22, 24, {0.6f, 0.7f, 0.8f});  // background + 0.5
  expectPixel(image, 41, 24, {0.0f, 1.0f, 0.0f});  // green (±1.2 px) over red (±2.4 px)
  expectPixel(image, 39, 24, {1.0f, 0.0f, 0.0f});
  // The textured quad spans x = 32 ± 7.2 at row 24 − 9.6 = 14.4: its outer columns are the
  // texels' own colours (clamped at the edges), its middle their mix.
  expectPixel(image, 26, 14, {1.0f, 0.0f, 0.0f});
  expectPixel(image, 37, 14, {0.0f, 0.0f, 1.0f});
  const std::array<float, 4>& middle = image[std::size_t{14} * kW + 31];
  EXPECT_GT(middle[0], 0.3f);
  EXPECT_GT(middle[2], 0.3f);
}

// Pixel columns from camera(): a quad of half size 0.5 at depth 5 centred at world x spans
// 32 + 4.8·x ± 2.4 pixels (rows 24 − 4.8·y ± 2.4).
TEST_F(GpuRenderer, FlipbooksBlendCutoutsCutBacksAreCulledAndLitCornersMix) {
  auto renderer = makeRenderer(*context());
  ASSERT_NE(renderer, nullptr);
  const std::array<std::array<float, 4>, 1> white{{{1.0f, 1.0f, 1.0f, 1.0f}}};
  ASSERT_EQ(renderer->addTexture(1, 1, white).value(), 0u);
  // A flipbook of two frames, each two texels wide: red, then blue.
  const std::array<std::array<float, 4>, 4> frames{
      {{1, 0, 0, 1}, {1, 0, 0, 1}, {0, 0, 1, 1}, {0, 0, 1, 1}}};
  ASSERT_EQ(renderer->addTexture(4, 1, frames).value(), 1u);
  const std::array<std::array<float, 4>, 1> faint{{{0.4f, 0.4f, 0.4f, 0.4f}}};  // white, alpha 0.4
  ASSERT_EQ(renderer->addTexture(1, 1, faint).value(), 2u);

  std::array<gpu::SpriteInstance, 4> billboards{
      sprite({-3.0f, 0.0f, 0.0f}, 0.5f, {1, 1, 1, 1}),         // flipbook, columns 15..19
      sprite({-1.0f, 0.0f, 0.0f}, 0.5f, {0.5f, 0.25f, 0, 1}),  // cutout below its cutoff
      sprite({1.0f, 0.0f, 0.0f}, 0.5f, {0.5f, 0.25f, 0, 1}),   // cutout above it
      sprite({0.0f, 2.0f, 0.0f}, 0.5f, {1, 1, 1, 1})};         // lit, rows 12..16
  billboards[0].texture = 1;
  billboards[0].cell = {0.0f, 0.0f, 0.5f, 1.0f};
  billboards[0].nextCell = {0.5f, 0.0f};
  billboards[0].frameBlend = 0.25f;
  for (std::size_t i : {std::size_t{1}, std::size_t{2}}) {
    billboards[i].texture = 2;
    billboards[i].cutout = true;
    billboards[i].cutoff = i == 1 ? 0.5f : 0.3f;  // the texel's alpha · colour[3] is 0.4
  }
  billboards[3].corners = 0;
  const std::array<std::array<std::array<float, 4>, 4>, 1> litCorners{
      {{{{1, 0, 0, 1}, {1, 0, 0, 1}, {0, 0, 1, 1}, {0, 0, 1, 1}}}}};  // bottom red, top blue
  // One-sided cards facing +Z (toward the eye) and turned to face away.
  std::array<gpu::SpriteInstance, 2> cards{sprite({3.0f, 2.0f, 0.0f}, 0.5f, {0, 1, 0, 1}),
                                           sprite({3.0f, 0.0f, 0.0f}, 0.5f, {0, 1, 0, 1})};
  for (gpu::SpriteInstance& c : cards)
    c.cullBack = true;
  cards[1].particle.orientation = glm::quat(0.0f, 0.0f, 1.0f, 0.0f);  // half a turn about +Y
  const std::array<gpu::SpriteDraw, 2> draws{
      gpu::SpriteDraw{render::BillboardMode::Billboard, billboards, litCorners},
      gpu::SpriteDraw{render::BillboardMode::FacingWorld, cards, {}}};
  std::vector<std::array<float, 4>> image;
  const Status s = renderer->draw(camera(), draws, image);
  ASSERT_TRUE(s.ok()) << s.toString();

  // Column 17's centre is at s = (17.5 − 15.2) / 4.8 ≈ 0.48 of the cell: inside both frames'
  // texels, a quarter of the way to the blue frame.
  expectPixel(image, 17, 24, {0.75f, 0.0f, 0.25f});
  expectPixel(image, 27, 24, kBackground);          // 0.4 < 0.5: cut
  expectPixel(image, 36, 24, {0.5f, 0.25f, 0.0f});  // 0.4 ≥ 0.3: opaque, the texel's straight white
  expectPixel(image, 46, 14, {0.0f, 1.0f, 0.0f});  // facing the eye: drawn
  expectPixel(image, 46, 24, kBackground);         // its back to the eye: culled
  // Rows 12 and 16 (centres 12.5 and 16.5) lie at t = 0.896 and 0.0625 up the lit quad.
  expectPixel(image, 32, 12, {1.0f - 0.8958333f, 0.0f, 0.8958333f});
  expectPixel(image, 32, 16, {0.9375f, 0.0f, 0.0625f});
}

// A ribbon segment is drawn where its world corners lie — not where its particle is (here behind
// the eye, which would drop a billboard) — in the texture's middle column: a 2 × 1 texture red
// then blue reads as their half-and-half mix everywhere on it.
TEST_F(GpuRenderer, RibbonSegmentsDrawTheirCornersInTheTexturesMiddleColumn) {
  auto renderer = makeRenderer(*context());
  ASSERT_NE(renderer, nullptr);
  const std::array<std::array<float, 4>, 2> halves{{{1, 0, 0, 1}, {0, 0, 1, 1}}};
  ASSERT_EQ(renderer->addTexture(2, 1, halves).value(), 0u);
  std::array<gpu::SpriteInstance, 1> segment{sprite({0.0f, 0.0f, 9.0f}, 0.5f, {1, 1, 1, 1})};
  segment[0].ribbon = true;
  segment[0].cell = {0.5f, 0.0f, 0.0f, 1.0f};
  // From x = −2 to 1 at heights ±0.5: columns 22.4 to 36.8, rows 21.6 to 26.4.
  segment[0].quad = {glm::vec3(-2.0f, -0.5f, 0.0f), glm::vec3(1.0f, -0.5f, 0.0f),
                     glm::vec3(1.0f, 0.5f, 0.0f), glm::vec3(-2.0f, 0.5f, 0.0f)};
  const std::array<gpu::SpriteDraw, 1> draws{
      gpu::SpriteDraw{render::BillboardMode::Billboard, segment, {}}};
  std::vector<std::array<float, 4>> image;
  ASSERT_TRUE(renderer->draw(camera(), draws, image).ok());
  for (std::uint32_t y = 0; y < kH; ++y) {
    for (std::uint32_t x = 0; x < kW; ++x) {
      const bool inside = x >= 22 && x <= 36 && y >= 22 && y <= 25;
      expectPixel(image, x, y, inside ? std::array<float, 3>{0.5f, 0.0f, 0.5f} : kBackground);
    }
  }
}

// From (0, 2, 5) looking along −Z, the ground y = 0 under pixel row 36 (its centre 0.5208 of the
// half height below the centre) lies at view depth 2 / 0.5208 = 3.84. A soft particle of
// softInverse 1 at view depth 3 there is faded to 0.84; one at depth 4.5, behind the ground, is
// not drawn; drawn hard, it is.
TEST_F(GpuRenderer, SoftParticlesFadeByTheirDepthInFrontOfTheGround) {
  auto renderer = makeRenderer(*context(), /*ground=*/true);
  ASSERT_NE(renderer, nullptr);
  const std::array<std::array<float, 4>, 1> white{{{1.0f, 1.0f, 1.0f, 1.0f}}};
  ASSERT_TRUE(renderer->addTexture(1, 1, white).ok());
  render::Camera raised = camera();
  ASSERT_TRUE(raised.lookAt({0.0f, 2.0f, 5.0f}, {0.0f, 2.0f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  std::vector<std::array<float, 4>> ground;
  ASSERT_TRUE(renderer->draw(raised, {}, ground).ok());
  const std::array<float, 4> under = ground[std::size_t{36} * kW + 32];
  const std::array<float, 4> behindUnder = ground[std::size_t{36} * kW + 48];
  EXPECT_GT(under[0], kBackground[0]);  // the ground's grid is drawn there

  const float below = 36.5f / 24.0f - 1.0f;  // 0.5208
  std::array<gpu::SpriteInstance, 2> soft{
      sprite({0.0f, 2.0f - below * 3.0f, 2.0f}, 0.5f, {0.5f, 0.5f, 0.5f, 0.5f}),
      sprite({(48.5f / 32.0f - 1.0f) * (64.0f / 48.0f) * 4.5f, 2.0f - below * 4.5f, 0.5f}, 0.5f,
             {0.5f, 0.5f, 0.5f, 0.5f})};
  soft[0].viewDepth = 3.0f;
  soft[1].viewDepth = 4.5f;
  for (gpu::SpriteInstance& p : soft)
    p.softInverse = 1.0f;
  std::array<gpu::SpriteDraw, 1> draws{gpu::SpriteDraw{render::BillboardMode::Billboard, soft, {}}};
  std::vector<std::array<float, 4>> image;
  ASSERT_TRUE(renderer->draw(raised, draws, image).ok());
  const float fade = 2.0f / below - 3.0f;  // 0.84
  expectPixel(
      image, 32, 36,
      {under[0] * (1.0f - 0.5f * fade) + 0.5f * fade, under[1] * (1.0f - 0.5f * fade) + 0.5f * fade,
       under[2] * (1.0f - 0.5f * fade) + 0.5f * fade});
  expectPixel(image, 48, 36, {behindUnder[0], behindUnder[1], behindUnder[2]});
  soft[1].softInverse = 0.0f;  // hard: drawn over the ground
  ASSERT_TRUE(renderer->draw(raised, draws, image).ok());
  expectPixel(
      image, 48, 36,
      {behindUnder[0] * 0.5f + 0.5f, behindUnder[1] * 0.5f + 0.5f, behindUnder[2] * 0.5f + 0.5f});
}

TEST_F(GpuRenderer, QuadsBehindTheEyeAreDroppedAndBadInputIsRefused) {
  auto renderer = makeRenderer(*context());
  ASSERT_NE(renderer, nullptr);
  const std::array<std::array<float, 4>, 1> white{{{1.0f, 1.0f, 1.0f, 1.0f}}};
  ASSERT_TRUE(renderer->addTexture(1, 1, white).ok());
  // Behind the eye, and straddling the near limit: nothing drawn.
  const std::array<gpu::SpriteInstance, 2> behind{sprite({0, 0, 7}, 1.0f, {1, 1, 1, 1}),
                                                  sprite({0, 0, 4.96f}, 1.0f, {1, 1, 1, 1})};
  std::array<gpu::SpriteDraw, 1> draws{
      gpu::SpriteDraw{render::BillboardMode::FacingWorld, behind, {}}};
  std::vector<std::array<float, 4>> image;
  ASSERT_TRUE(renderer->draw(camera(), draws, image).ok());
  for (std::uint32_t y = 0; y < kH; y += 7)
    for (std::uint32_t x = 0; x < kW; x += 7)
      expectPixel(image, x, y, kBackground);
  // A texture never added, a mode outside the enum, a texture of the wrong size.
  std::array<gpu::SpriteInstance, 1> bad{sprite({0, 0, 0}, 1.0f, {1, 1, 1, 1})};
  bad[0].texture = 5;
  draws[0].instances = bad;
  Status s = renderer->draw(camera(), draws, image);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("texture 5"), std::string::npos) << s.message();
  bad[0].texture = 0;
  draws[0].mode = static_cast<render::BillboardMode>(12);
  s = renderer->draw(camera(), draws, image);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("mode 12"), std::string::npos) << s.message();
  bad[0].stretchScaleSeconds = -1.0f;
  draws[0].mode = render::BillboardMode::Stretched;
  s = renderer->draw(camera(), draws, image);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("stretchScaleSeconds -1"), std::string::npos) << s.message();
  bad[0].stretchScaleSeconds = 0.0f;
  bad[0].frameBlend = 1.5f;  // past the next frame
  s = renderer->draw(camera(), draws, image);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("frameBlend 1.5"), std::string::npos) << s.message();
  bad[0].frameBlend = 0.0f;
  bad[0].corners = 0;  // lit corners its draw does not hold
  s = renderer->draw(camera(), draws, image);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("corners 0 (0 corner colours"), std::string::npos) << s.message();
  bad[0].corners = gpu::SpriteInstance::kNoCorners;
  bad[0].softInverse = std::numeric_limits<float>::infinity();
  s = renderer->draw(camera(), draws, image);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("softInverse inf"), std::string::npos) << s.message();
  const std::array<std::array<float, 4>, 3> three{};
  EXPECT_EQ(renderer->addTexture(2, 2, three).status().code(), StatusCode::InvalidArgument);
  gpu::RendererDesc zero;
  zero.viewport = {0, 4};
  EXPECT_EQ(gpu::Renderer::create(*context(), zero).status().code(), StatusCode::InvalidArgument);
  gpu::RendererDesc huge;
  huge.viewport = {1u << 20, 4};  // past every device's framebuffer
  const Result<std::unique_ptr<gpu::Renderer>> tooWide = gpu::Renderer::create(*context(), huge);
  EXPECT_EQ(tooWide.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(tooWide.status().message().find("1048576 x 4"), std::string::npos)
      << tooWide.status().message();
  gpu::RendererDesc sideways;
  sideways.worldUp = {0.0f, 0.0f, 0.0f};
  EXPECT_EQ(gpu::Renderer::create(*context(), sideways).status().code(),
            StatusCode::InvalidArgument);
  gpu::RendererDesc tiny;
  tiny.builtinSpriteSize = 1;
  EXPECT_EQ(gpu::Renderer::create(*context(), tiny).status().code(), StatusCode::InvalidArgument);
  bad[0].softInverse = 0.0f;
  bad[0].oitWeight = 1.0f;  // an OIT weight outside an OIT renderer
  s = renderer->draw(camera(), draws, image);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("oitWeight 1"), std::string::npos) << s.message();
  gpu::RendererDesc unknown;
  unknown.transparency = static_cast<render::Transparency>(7);
  EXPECT_EQ(gpu::Renderer::create(*context(), unknown).status().code(),
            StatusCode::InvalidArgument);
  gpu::RendererDesc glaring;
  glaring.post.bloom = 100.0f;
  EXPECT_EQ(gpu::Renderer::create(*context(), glaring).status().code(),
            StatusCode::InvalidArgument);
}

// Mesh particles: an opaque cube hides the particle behind it and not the one in front, in its
// own colour — and the whole frame is the software renderer's. A mesh that cannot be loaded is an
// error naming its emitter; a material texture that cannot be found is the loader's error naming
// the path.
TEST_F(GpuRenderer, MeshParticlesHideWhatIsBehindThemAndLoadErrorsNameTheirEmitter) {
  // A cube 2 m across at the origin (its front face at depth 4: 6 pixels each side of the centre),
  // a red sprite 2 m behind it (depth 7, half size 3: 10.3 pixels) and a small green one 2.5 m in
  // front (depth 2.5, half size 0.2: 1.9 pixels).
  auto world = ParticleWorld::create({}).takeValue();
  ASSERT_TRUE(world
                  ->addEffect(test::compileJson(R"({"format": "mote.effect/1", "name": "x",
    "materials": [{"name": "s", "texture": "builtin:soft_circle"}, {"name": "m"}],
    "emitters": [
     {"name": "cube", "material": "m", "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 1}]},
      "init": {"lifetime": 10, "size": 2.0, "color": [1, 0.6, 0.3, 1]},
      "render": {"mode": "mesh", "mesh": "builtin:cube"}},
     {"name": "behind", "material": "s", "position": [0, 0, -2],
      "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 1}]},
      "init": {"lifetime": 10, "size": 6.0, "color": [1, 0, 0, 1]}},
     {"name": "front", "material": "s", "position": [0, 0, 2.5],
      "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 1}]},
      "init": {"lifetime": 10, "size": 0.4, "color": [0, 1, 0, 1]}}]})"))
                  .ok());
  world->tick(1.0f / 60.0f);
  for (const bool ground : {false, true}) {
    SCOPED_TRACE(ground ? "ground" : "no ground");
    gpu::RendererDesc desc;
    desc.viewport = {kW, kH};
    desc.background = kBackground;
    desc.ground = ground;
    desc.builtinSpriteSize = 32;
    desc.post.toneMap = render::ToneMap::None;
    auto renderer = gpu::Renderer::create(*context(), desc).takeValue();
    render::Image image;
    Status s = renderer->render(*world, camera(), image);
    ASSERT_TRUE(s.ok()) << s.toString();
    const auto at = [&](std::uint32_t x, std::uint32_t y) { return image.pixel(x, y); };

    // The cube's own colour beside the green sprite (none of the red one behind it mixed in);
    // green over the cube at the centre; just past the cube's edge the red sprite's rim over the
    // background (89, 124, 149).
    EXPECT_EQ(at(36, 24).r, 255);
    EXPECT_NEAR(at(36, 24).g, 203, 1);  // 0.6 in sRGB
    EXPECT_NEAR(at(36, 24).b, 149, 1);  // 0.3
    EXPECT_GT(at(32, 24).g, 230);
    EXPECT_LT(at(32, 24).r, 200);
    EXPECT_GT(at(38, 24).r, 150);
    EXPECT_LT(at(38, 24).g, 110);
    // The software renderer's frame, pixel for pixel within 2/255.
    render::RendererOptions options;
    options.viewport = desc.viewport;
    options.background = desc.background;
    options.ground = ground;
    options.builtinSpriteSize = 32;
    options.post = desc.post;
    auto software = render::ParticleRenderer::create(options).takeValue();
    render::Image cpu;
    ASSERT_TRUE(software.render(*world, camera(), cpu).ok());
    int worst = 0;
    for (std::uint32_t y = 0; y < kH; ++y)
      for (std::uint32_t x = 0; x < kW; ++x)
        worst = std::max({worst, std::abs(cpu.pixel(x, y).r - at(x, y).r),
                          std::abs(cpu.pixel(x, y).g - at(x, y).g),
                          std::abs(cpu.pixel(x, y).b - at(x, y).b)});
    EXPECT_LE(worst, 2);
  }

  auto renderer = makeRenderer(*context());
  ASSERT_NE(renderer, nullptr);
  render::Image out;
  auto missing = ParticleWorld::create({}).takeValue();
  ASSERT_TRUE(missing
                  ->addEffect(test::compileJson(R"({"format": "mote.effect/1", "name": "x",
    "emitters": [{"name": "shards", "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 4}]},
                  "init": {"lifetime": 5}, "render": {"mode": "mesh", "mesh": "no_such.obj"}}]})"))
                  .ok());
  missing->tick(0.1f);
  Status s = renderer->render(*missing, camera(), out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("emitter 'shards'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("no_such.obj"), std::string::npos) << s.message();
  auto other = ParticleWorld::create({}).takeValue();
  ASSERT_TRUE(other
                  ->addEffect(test::compileJson(R"({"format": "mote.effect/1", "name": "y",
    "materials": [{"name": "m", "texture": "no_such_texture.png"}],
    "emitters": [{"name": "e", "material": "m",
                  "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 4}]},
                  "init": {"lifetime": 5}}]})"))
                  .ok());
  other->tick(0.1f);
  s = renderer->render(*other, camera(), out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no_such_texture.png"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace mote
