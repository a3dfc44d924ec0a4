// SPDX-License-Identifier: MIT
// Lit particles: the irradiance of directional and point lights, lit sprites (a bent normal, so a
// sprite shades like a puff, and back-face transmission in proportion to 1 − alpha), ambient tint,
// deadspace, one-sided cards, and the lighting errors. Goldens: lit_sprites, unlit_sprites.
#include "support/compile_effect.h"
#include "support/golden_image.h"

#include <mote/render/lighting.h>
#include <mote/render/particle_renderer.h>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

namespace mote::render {
namespace {

using test::compileJson;
using test::expectGolden;

TEST(Lighting, DirectionalAndPointLightsGiveTheirIrradiance) {
  Lighting l;
  l.ambient = {0.1f, 0.2f, 0.3f};
  l.lights = {Light{Light::Kind::Directional, {0.0f, 2.0f, 0.0f}, {1.0f, 0.5f, 0.25f}, 1.0f}};
  const glm::vec3 up(0.0f, 1.0f, 0.0f);
  glm::vec3 e = irradiance(l, glm::vec3(0.0f), up);  // facing the light: ambient + colour
  EXPECT_FLOAT_EQ(e.x, 1.1f);
  EXPECT_FLOAT_EQ(e.y, 0.7f);
  EXPECT_FLOAT_EQ(e.z, 0.55f);
  e = irradiance(l, glm::vec3(0.0f), glm::normalize(glm::vec3(1.0f, 1.0f, 0.0f)));  // at 45°
  EXPECT_NEAR(e.x, 0.1f + std::sqrt(0.5f), 1e-6f);
  e = irradiance(l, glm::vec3(0.0f), -up);  // facing away: ambient only, all of it transmitted
  EXPECT_FLOAT_EQ(e.x, 0.1f);
  EXPECT_FLOAT_EQ(transmitted(l, glm::vec3(0.0f), -up).x, 1.0f);
  EXPECT_FLOAT_EQ(transmitted(l, glm::vec3(0.0f), up).x, 0.0f);
  // A point light of radius 4 at (0, 2, 0): at distance 2 the falloff is (1 − (2/4)²)² = 0.5625;
  // at the radius and beyond, nothing.
  l.ambient = {0.0f, 0.0f, 0.0f};
  l.lights = {Light{Light::Kind::Point, {0.0f, 2.0f, 0.0f}, {1.0f, 1.0f, 1.0f}, 4.0f}};
  EXPECT_FLOAT_EQ(irradiance(l, glm::vec3(0.0f), up).x, 0.5625f);
  EXPECT_FLOAT_EQ(irradiance(l, glm::vec3(0.0f, -2.0f, 0.0f), up).x, 0.0f);
}

TEST(Lighting, BadLightsAreRefusedByName) {
  Lighting l;
  EXPECT_TRUE(l.validate("x").ok());
  l.lights.push_back(Light{Light::Kind::Directional, {0.0f, 0.0f, 0.0f}, {1, 1, 1}, 1.0f});
  EXPECT_NE(l.validate("scene").message().find("scene: light 2: the direction is zero"),
            std::string::npos)
      << l.validate("scene").message();
  l = {};
  l.lights[0].color[1] = -1.0f;
  EXPECT_FALSE(l.validate("x").ok());
  l = {};
  l.lights[0] = Light{Light::Kind::Point, {0, 0, 0}, {1, 1, 1}, 0.0f};
  EXPECT_FALSE(l.validate("x").ok());
  l = {};
  l.ambient[0] = std::nanf("");
  EXPECT_FALSE(l.validate("x").ok());
  l = {};
  l.lights.resize(kMaxLights + 1);
  EXPECT_FALSE(l.validate("x").ok());
  RendererOptions options;
  options.lighting.lights[0].vector = {0.0f, std::nanf(""), 0.0f};
  EXPECT_FALSE(ParticleRenderer::create(options).ok());
}

// One still soft puff, 1.6 m, in front of the camera; `material` extra keys.
std::string puff(const std::string& material, float alpha = 0.8f,
                 const std::string& mode = "billboard", const std::string& init = "") {
  return R"({"format": "mote.effect/1", "name": "puff", "materials": [{"name": "m", "texture": "builtin:soft_circle")" +
         material + R"(}], "emitters": [{"name": "e", "material": "m", "position": [0, 0.8, 0],
      "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 1}]},
      "init": {"lifetime": 10, "size": 1.6, "color": [0.8, 0.8, 0.8, )" +
         std::to_string(alpha) + "]" + init + R"(}, "render": {"mode": ")" + mode + R"("}}]})";
}

Image drawPuff(const std::string& json, const Lighting& lighting = {},
               glm::vec3 eye = {0.0f, 0.8f, 3.0f}) {
  auto world = ParticleWorld::create({}).takeValue();
  EXPECT_TRUE(world->addEffect(compileJson(json)).ok());
  world->tick(1.0f / 30.0f);
  RendererOptions options;
  options.viewport = {96, 64};
  options.builtinSpriteSize = 32;
  options.lighting = lighting;
  auto renderer = ParticleRenderer::create(options).takeValue();
  Camera camera = Camera::perspective(0.9f, 1.5f, 0.1f, 100.0f).value();
  EXPECT_TRUE(camera.lookAt(eye, {0.0f, 0.8f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  Image image;
  const Status s = renderer.render(*world, camera, image);
  EXPECT_TRUE(s.ok()) << s.message();
  return image;
}

int luma(const Image& image, std::uint32_t x, std::uint32_t y) {
  const Rgba8 p = image.pixel(x, y);
  return p.r + p.g + p.b;
}

TEST(Lighting, ALitSpriteShadesLikeAPuffAndMatchesItsGolden) {
  const Image lit = drawPuff(puff(R"(, "lit": true)"));
  const Image unlit = drawPuff(puff(""));
  expectGolden(lit, "lit_sprites");
  expectGolden(unlit, "unlit_sprites");
  EXPECT_NE(lit, unlit);
  // The default key light is above, left and in front: the puff's upper left is brighter than its
  // lower right (the unlit one is symmetric there).
  EXPECT_GT(luma(lit, 40, 26), luma(lit, 55, 37) + 20);
  EXPECT_LE(std::abs(luma(unlit, 40, 26) - luma(unlit, 55, 37)), 12);
}

TEST(Lighting, BackLightPassesThroughInProportionToOneMinusAlpha) {
  // Only a light behind the puff, no ambient: a thin puff glows with it, an opaque one is dark.
  Lighting behind;
  behind.ambient = {0.0f, 0.0f, 0.0f};
  behind.lights = {Light{Light::Kind::Directional, {0.0f, 0.0f, -1.0f}, {2.0f, 2.0f, 2.0f}, 1.0f}};
  const Image thin = drawPuff(puff(R"(, "lit": true)", 0.3f), behind);
  const Image dense = drawPuff(puff(R"(, "lit": true)", 1.0f), behind);
  EXPECT_GT(luma(thin, 48, 32), luma(dense, 48, 32) + 15);
}

TEST(Lighting, AmbientTintMultipliesByTheAmbientColour) {
  Lighting dim;
  dim.ambient = {0.2f, 0.4f, 1.0f};
  const Image tinted = drawPuff(puff(R"(, "ambient_tint": true)", 1.0f), dim);
  const Image plain = drawPuff(puff("", 1.0f), dim);
  const Rgba8 t = tinted.pixel(48, 32);
  const Rgba8 p = plain.pixel(48, 32);
  EXPECT_LT(t.r, p.r - 40);  // red kept at a fifth
  EXPECT_LT(t.r, t.b);       // blue kept whole
  EXPECT_EQ(t.b, p.b);
}

TEST(Lighting, DeadspaceHidesVelocityAlignedParticlesMovingAlongTheViewAxis) {
  // Moving straight at the camera.
  const std::string toward =
      R"(, "velocity": {"kind": "direction", "direction": [0, 0, 1], "speed": 0.01})";
  std::string hidden = puff("", 1.0f, "velocity_aligned", toward);
  hidden.replace(hidden.find(R"("mode": "velocity_aligned")"), 26,
                 R"("mode": "velocity_aligned", "deadspace": 10)");
  const Image shown = drawPuff(puff("", 1.0f, "velocity_aligned", toward));
  const Image gone = drawPuff(hidden);
  const Image empty = drawPuff(puff("", 0.0f));
  EXPECT_NE(shown, empty);
  EXPECT_EQ(gone, empty);
}

TEST(Lighting, OneSidedCardsAreCulledFromBehind) {
  // A horizontal card seen from below: gone unless double-sided; from above it shows either way.
  const glm::vec3 below(0.0f, -1.5f, 2.0f);
  const Image empty = drawPuff(puff("", 0.0f), {}, below);
  EXPECT_EQ(drawPuff(puff("", 1.0f, "horizontal"), {}, below), empty);
  EXPECT_NE(drawPuff(puff(R"(, "double_sided": true)", 1.0f, "horizontal"), {}, below), empty);
  const glm::vec3 above(0.0f, 3.0f, 2.0f);
  EXPECT_NE(drawPuff(puff("", 1.0f, "horizontal"), {}, above), drawPuff(puff("", 0.0f), {}, above));
}

}  // namespace
}  // namespace mote::render
