// SPDX-License-Identifier: MIT
// The GPU renderer's core (<mote/gpu/renderer.h>) on known answers: a quad's footprint where the
// camera projects it, its colour over the background by the premultiplied equation, additive
// particles adding, later instances over earlier ones, a texture's halves sampled where they lie,
// quads behind the eye dropped, and every bad input refused with nothing drawn.
#include "gpu_test.h"

#include <mote/gpu/renderer.h>
#include <mote/render/camera.h>

#include <array>
#include <cmath>
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

std::unique_ptr<gpu::Renderer> makeRenderer(gpu::Context& context) {
  gpu::RendererDesc desc;
  desc.viewport = {kW, kH};
  desc.background = kBackground;
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
      gpu::SpriteDraw{render::BillboardMode::Billboard, one}};
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
      gpu::SpriteDraw{render::BillboardMode::Billboard, sprites},
      gpu::SpriteDraw{render::BillboardMode::FacingWorld, textured}};
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

TEST_F(GpuRenderer, QuadsBehindTheEyeAreDroppedAndBadInputIsRefused) {
  auto renderer = makeRenderer(*context());
  ASSERT_NE(renderer, nullptr);
  const std::array<std::array<float, 4>, 1> white{{{1.0f, 1.0f, 1.0f, 1.0f}}};
  ASSERT_TRUE(renderer->addTexture(1, 1, white).ok());
  // Behind the eye, and straddling the near limit: nothing drawn.
  const std::array<gpu::SpriteInstance, 2> behind{sprite({0, 0, 7}, 1.0f, {1, 1, 1, 1}),
                                                  sprite({0, 0, 4.96f}, 1.0f, {1, 1, 1, 1})};
  std::array<gpu::SpriteDraw, 1> draws{gpu::SpriteDraw{render::BillboardMode::FacingWorld, behind}};
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
}

}  // namespace
}  // namespace mote
