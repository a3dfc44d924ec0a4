// SPDX-License-Identifier: MIT
// The debug overlay and drawLine3D: a golden of an emitter's axes, bounds, velocity rays and
// three colliders; the line's width and facing; the errors. Re-approve the golden deliberately with
// scripts/approve-goldens.
#include "support/compile_effect.h"
#include "support/golden_image.h"

#include <mote/render/debug_overlay.h>
#include <mote/render/particle_renderer.h>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>

namespace mote::render {
namespace {

using test::compileJson;
using test::expectGolden;

Camera camera() {
  Camera c = Camera::perspective(0.9f, 1.5f, 0.1f, 100.0f).value();
  EXPECT_TRUE(c.lookAt({2.2f, 2.0f, 4.4f}, {0.0f, 0.8f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  return c;
}

RendererOptions options() {
  RendererOptions o;
  o.viewport = {240, 160};
  o.builtinSpriteSize = 32;
  return o;
}

TEST(DebugOverlay, DrawsAxesBoundsRaysAndCollidersOverTheParticles) {
  const auto effect = compileJson(R"({"format": "mote.effect/1", "name": "overlay",
    "materials": [{"name": "s", "texture": "builtin:soft_circle", "blend": "additive"}],
    "emitters": [{"name": "jet", "material": "s", "position": [0, 0.3, 0],
      "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 24}]},
      "shape": {"kind": "sphere", "radius": 0.3},
      "init": {"lifetime": 10, "size": 0.15, "color": [1, 0.6, 0.2, 1],
               "velocity": {"kind": "cone", "spread": 30, "speed": 2}}}]})");
  auto world = ParticleWorld::create({}).takeValue();
  ASSERT_TRUE(world->addEffect(effect).ok());
  world->tick(0.2f);
  auto renderer = ParticleRenderer::create(options()).takeValue();
  auto packets = RenderPacketBuilder::create(16).takeValue();
  packets.build(*world);
  ASSERT_EQ(packets.packets().size(), 1u);
  ASSERT_TRUE(renderer.prepare(*world, camera()).ok());
  const std::uint32_t before = renderer.stats().triangles;
  DebugCollider ground;  // the default plane: the ground through the origin
  DebugCollider ball;
  ball.kind = DebugCollider::Kind::Sphere;
  ball.position = {-1.2f, 0.6f, 0.0f};
  ball.radius = 0.4f;
  DebugCollider box;
  box.kind = DebugCollider::Kind::Box;
  box.position = {1.2f, 0.4f, -0.3f};
  box.size = {0.6f, 0.8f, 0.5f};
  const std::array<DebugCollider, 3> colliders{ground, ball, box};
  DebugOverlayOptions overlay;
  overlay.colliders = colliders;
  ASSERT_TRUE(drawDebugOverlay(renderer, *world, packets.packets(), overlay).ok());
  // Two triangles a line: 3 axes, 12 bounds edges, 24 rays, a plane's 10 grid lines and normal,
  // a sphere's 3 × 32 segments and a box's 12 edges — less those cut away behind the eye (none
  // here) or wholly off screen.
  const std::uint32_t lines = 3 + 12 + 24 + 11 + 96 + 12;
  EXPECT_LE(renderer.stats().triangles - before, 2 * lines);
  EXPECT_GE(renderer.stats().triangles - before, 2 * lines - 8);  // some grid lines leave the view
  Image image;
  ASSERT_TRUE(renderer.rasterize(image).ok());
  expectGolden(image, "debug_overlay");
}

TEST(DebugOverlay, ALineIsItsWidthOnScreenAndNothingEndOn) {
  auto world = ParticleWorld::create({}).takeValue();
  RendererOptions o = options();
  o.ground = false;
  auto renderer = ParticleRenderer::create(o).takeValue();
  Camera c = Camera::orthographic(2.0f, 1.5f, 0.1f, 100.0f).value();
  ASSERT_TRUE(c.lookAt({0.0f, 0.0f, 5.0f}, {0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  ASSERT_TRUE(renderer.prepare(*world, c).ok());
  // A horizontal line through the centre, 4 pixels wide: rows 78..81 of 160 lit, not 76 or 83.
  ASSERT_TRUE(renderer.drawLine3D({-1.0f, 0.0f, 0.0f}, {1.0f, 0.0f, 0.0f}, {1, 1, 1}, 4.0f).ok());
  // Seen end on: nothing.
  ASSERT_TRUE(renderer.drawLine3D({0.5f, 0.5f, -1.0f}, {0.5f, 0.5f, 1.0f}, {1, 0, 0}).ok());
  EXPECT_EQ(renderer.stats().triangles, 2u);
  Image image;
  ASSERT_TRUE(renderer.rasterize(image).ok());
  for (std::uint32_t y : {78u, 79u, 80u, 81u})
    EXPECT_GT(image.pixel(120, y).r, 200) << y;
  EXPECT_LT(image.pixel(120, 76).r, 40);
  EXPECT_LT(image.pixel(120, 83).r, 40);
  EXPECT_LT(image.pixel(30, 80).r, 40);  // x = −1.5 m: past the line's end
}

TEST(DebugOverlay, BadCallsAreNamedErrors) {
  auto world = ParticleWorld::create({}).takeValue();
  auto renderer = ParticleRenderer::create(options()).takeValue();
  EXPECT_EQ(renderer.drawLine3D({0, 0, 0}, {1, 0, 0}, {1, 1, 1}).code(),
            StatusCode::InvalidArgument);  // before prepare()
  ASSERT_TRUE(renderer.prepare(*world, camera()).ok());
  EXPECT_FALSE(renderer.drawLine3D({0, 0, 0}, {1, 0, 0}, {1, 1, 1}, 0.0f).ok());
  EXPECT_FALSE(renderer.drawLine3D({0, 0, 0}, {1, 0, 0}, {1, 1, 1}, 17.0f).ok());
  EXPECT_FALSE(renderer.drawLine3D({0, 0, 0}, {1, std::nanf(""), 0}, {1, 1, 1}).ok());
  EXPECT_FALSE(renderer.drawLine3D({0, 0, 0}, {1, 0, 0}, {1, INFINITY, 1}).ok());
  DebugOverlayOptions bad;
  bad.raySeconds = -1.0f;
  EXPECT_EQ(drawDebugOverlay(renderer, *world, {}, bad).code(), StatusCode::InvalidArgument);
  DebugCollider flat;
  flat.normal = {0.0f, 0.0f, 0.0f};
  DebugOverlayOptions noNormal;
  noNormal.colliders = {&flat, 1};
  const Status s = drawDebugOverlay(renderer, *world, {}, noNormal);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("collider 0"), std::string::npos) << s.message();
  EXPECT_EQ(renderer.stats().triangles, 0u);
}

}  // namespace
}  // namespace mote::render
