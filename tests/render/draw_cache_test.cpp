// SPDX-License-Identifier: MIT
// ParticleRenderer's draw cache (docs/rendering.md, "The draw cache"): a frame whose packets and
// camera are unchanged is taken again (stats.cached), a mesh packet whose state alone is unchanged
// projects the vertices it kept (stats.reprojected), and either way the image is the one a
// renderer without the cache draws, bit for bit — still, orbiting, running, with drawTriangle3D
// and sprite frames between, with no allocation once warm.
#include "support/compile_effect.h"

#include <mote/core/alloc_watch.h>
#include <mote/core/job_system.h>
#include <mote/render/particle_renderer.h>
#include <mote/render/sprite_batcher.h>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>

namespace mote::render {
namespace {

using test::compileJson;

// Four emitters: soft billboards, world-facing cards, smooth-lit icospheres (kept normals) and
// flat-lit cubes, all moving.
const bytecode::CompiledEffect& scene() {
  static const bytecode::CompiledEffect effect = compileJson(R"({"format": "mote.effect/1",
    "name": "cache", "materials": [{"name": "s", "texture": "builtin:soft_circle"},
      {"name": "lit", "lit": true}, {"name": "star", "texture": "builtin:star"}],
    "emitters": [
     {"name": "puffs", "material": "s", "position": [-1, 0.5, 0],
      "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 40}]},
      "shape": {"kind": "sphere", "radius": 0.8},
      "init": {"lifetime": 10, "velocity": {"kind": "sphere", "speed": 0.3}, "size": 0.4, "color": [1, 0.7, 0.4, 0.6]},
      "emitter_fields": [{"name": "goal", "type": "vec3", "value": [0, 0, 0]}]},
     {"name": "cards", "material": "star", "position": [1, 0.3, -0.5],
      "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 12}]},
      "shape": {"kind": "sphere", "radius": 0.5},
      "init": {"lifetime": 10, "velocity": {"kind": "sphere", "speed": 0.2}, "size": 0.5, "color": [0.5, 0.8, 1, 0.9]},
      "render": {"mode": "facing_world"}},
     {"name": "spheres", "material": "lit", "position": [0, 1, 0],
      "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 9}]},
      "shape": {"kind": "sphere", "radius": 0.7},
      "init": {"lifetime": 10, "velocity": {"kind": "sphere", "speed": 0.4}, "size": 0.35, "orientation_axis": [1, 1, 0],
               "orientation_angle": 30, "color": [0.9, 0.9, 0.8, 1]},
      "render": {"mode": "mesh", "mesh": "builtin:icosphere"}},
     {"name": "cubes", "material": "lit", "position": [0.5, 0.2, 0.6],
      "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 6}]},
      "shape": {"kind": "sphere", "radius": 0.4},
      "init": {"lifetime": 10, "velocity": {"kind": "sphere", "speed": 0.5}, "size": 0.3, "color": [1, 0.5, 0.3, 1]},
      "render": {"mode": "mesh", "mesh": "builtin:cube"}}]})");
  return effect;
}

constexpr std::uint32_t kEmitters = 4;
constexpr std::uint32_t kMeshEmitters = 2;

// The camera at `angle` radians round the scene.
Camera orbit(float angle) {
  Camera camera = Camera::perspective(0.9f, 1.5f, 0.1f, 100.0f).value();
  const glm::vec3 eye(3.4f * std::sin(angle), 1.6f, 3.4f * std::cos(angle));
  EXPECT_TRUE(camera.lookAt(eye, {0.0f, 0.7f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  return camera;
}

RendererOptions options(bool drawCache, JobSystem* jobs = nullptr) {
  RendererOptions o;
  o.viewport = {120, 80};
  o.builtinSpriteSize = 32;
  o.drawCache = drawCache;
  o.jobs = jobs;
  return o;
}

struct Pair {
  ParticleRenderer cached = ParticleRenderer::create(options(true)).takeValue();
  ParticleRenderer plain = ParticleRenderer::create(options(false)).takeValue();
  // Renders with both; expects the same image; the cached renderer's stats.
  RenderStats render(const ParticleWorld& world, const Camera& camera, Image* out = nullptr) {
    Image a;
    Image b;
    EXPECT_TRUE(cached.render(world, camera, a).ok());
    EXPECT_TRUE(plain.render(world, camera, b).ok());
    EXPECT_EQ(a, b);
    EXPECT_EQ(plain.stats().cached, 0u);
    EXPECT_EQ(plain.stats().reprojected, 0u);
    EXPECT_EQ(cached.stats().quads, plain.stats().quads);
    EXPECT_EQ(cached.stats().triangles, plain.stats().triangles);
    if (out != nullptr) *out = a;
    return cached.stats();
  }
};

std::unique_ptr<ParticleWorld> tickedWorld() {
  auto world = ParticleWorld::create({}).takeValue();
  EXPECT_TRUE(world->addEffect(scene()).ok());
  world->tick(0.1f);
  return world;
}

TEST(DrawCache, AStillFrameIsTakenAgainWithItsStats) {
  auto world = tickedWorld();
  Pair pair;
  Image first;
  const RenderStats drawn = pair.render(*world, orbit(0.3f), &first);
  EXPECT_EQ(drawn.cached, 0u);
  EXPECT_EQ(drawn.reprojected, 0u);
  EXPECT_GT(drawn.quads, 40u);
  EXPECT_GT(drawn.triangles, 100u);
  for (int i = 0; i < 2; ++i) {
    Image again;
    const RenderStats still = pair.render(*world, orbit(0.3f), &again);
    EXPECT_EQ(still.cached, kEmitters);
    EXPECT_EQ(still.reprojected, 0u);
    EXPECT_EQ(still.quads, drawn.quads);
    EXPECT_EQ(still.triangles, drawn.triangles);
    EXPECT_EQ(still.culled, drawn.culled);
    EXPECT_EQ(again, first);
  }
}

TEST(DrawCache, AnOrbitOverAPausedWorldReprojectsTheKeptMeshVertices) {
  auto world = tickedWorld();
  Pair pair;
  pair.render(*world, orbit(0.0f));
  for (int i = 1; i < 6; ++i) {
    if (i == 3) {  // still for a frame between: taken again, nothing reprojected
      const RenderStats still = pair.render(*world, orbit(0.35f * 2.0f));
      EXPECT_EQ(still.cached, kEmitters);
      EXPECT_EQ(still.reprojected, 0u);
    }
    const RenderStats moved = pair.render(*world, orbit(0.35f * static_cast<float>(i)));
    EXPECT_EQ(moved.cached, 0u);
    EXPECT_EQ(moved.reprojected, kMeshEmitters);
  }
}

TEST(DrawCache, ARunningWorldIsDrawnAfresh) {
  auto world = tickedWorld();
  Pair pair;
  for (int i = 0; i < 5; ++i) {
    const RenderStats running = pair.render(*world, orbit(0.3f));
    EXPECT_EQ(running.cached, 0u);
    EXPECT_EQ(running.reprojected, 0u);
    world->tick(0.05f);
  }
}

TEST(DrawCache, ChangingOneEmitterKeepsTheOthersMeshVertices) {
  auto world = ParticleWorld::create({}).takeValue();
  const EffectHandle effect = world->addEffect(scene()).value();
  world->tick(0.1f);
  Pair pair;
  pair.render(*world, orbit(0.3f));
  // A write to the puffs' emitter field is a new state of that emitter alone.
  const std::array<float, 3> goal{1.0f, 0.0f, 0.0f};
  ASSERT_TRUE(world->setEmitterField(world->emitter(effect, 0), "goal", goal).ok());
  const RenderStats changed = pair.render(*world, orbit(0.3f));
  EXPECT_EQ(changed.cached, 0u);
  EXPECT_EQ(changed.reprojected, kMeshEmitters);
}

TEST(DrawCache, DebugTrianglesAndSpriteFramesDoNotStayInTheCachedFrame) {
  auto world = tickedWorld();
  Pair pair;
  Image clean;
  const RenderStats drawn = pair.render(*world, orbit(0.3f), &clean);
  // drawTriangle3D after a cached prepare adds to that frame only.
  ASSERT_TRUE(pair.cached.prepare(*world, orbit(0.3f)).ok());
  EXPECT_EQ(pair.cached.stats().cached, kEmitters);
  ASSERT_TRUE(pair.cached.drawTriangle3D({-1, 0, 0}, {1, 0, 0}, {0, 1.5f, 0}, {1, 1, 1}).ok());
  EXPECT_EQ(pair.cached.stats().triangles, drawn.triangles + 1);
  Image debug;
  ASSERT_TRUE(pair.cached.rasterize(debug).ok());
  EXPECT_NE(debug, clean);
  Image again;
  EXPECT_EQ(pair.render(*world, orbit(0.3f), &again).cached, kEmitters);
  EXPECT_EQ(again, clean);
  // A sprite frame between takes the lists: the next prepare draws afresh.
  SpriteBatcher batcher = SpriteBatcher::create({}).takeValue();
  SpriteItem item;
  item.scale = {2.0f, 2.0f};
  ASSERT_TRUE(batcher.add(item).ok());
  ASSERT_TRUE(batcher.build().ok());
  Image sprites;
  ASSERT_TRUE(
      pair.cached.renderSprites(batcher, SpriteView::orthographic({120, 80}, {0, 0}, 4.0f), sprites)
          .ok());
  const RenderStats after = pair.render(*world, orbit(0.3f), &again);
  EXPECT_EQ(after.cached, 0u);
  EXPECT_EQ(after.reprojected, kMeshEmitters);
  EXPECT_EQ(again, clean);
}

TEST(DrawCache, FramesAreTheSameOnAnyThreadCount) {
  auto pool = ThreadPool::create(3).takeValue();
  auto world = tickedWorld();
  ParticleRenderer threaded = ParticleRenderer::create(options(true, pool.get())).takeValue();
  ParticleRenderer single = ParticleRenderer::create(options(false)).takeValue();
  for (int i = 0; i < 3; ++i) {
    Image a;
    Image b;
    ASSERT_TRUE(threaded.render(*world, orbit(0.2f * static_cast<float>(i / 2)), a).ok());
    ASSERT_TRUE(single.render(*world, orbit(0.2f * static_cast<float>(i / 2)), b).ok());
    EXPECT_EQ(a, b);
  }
}

TEST(DrawCache, WarmFramesAllocateNothing) {
#if defined(MOTE_TEST_ALLOC_WATCH_LINKED)
  auto world = tickedWorld();
  ParticleRenderer renderer = ParticleRenderer::create(options(true)).takeValue();
  Image image;
  ASSERT_TRUE(renderer.render(*world, orbit(0.0f), image).ok());  // meshes, textures, stores
  for (int i = 1; i < 7; ++i) {
    if (i == 4) world->tick(0.05f);  // still, orbiting, running
    AllocationScope scope;
    ASSERT_TRUE(
        renderer.render(*world, orbit(i < 3 ? 0.0f : 0.2f * static_cast<float>(i)), image).ok());
    EXPECT_EQ(scope.allocations(), 0u) << "frame " << i;
  }
#else
  GTEST_SKIP() << "the allocation watch is not linked in sanitizer builds";
#endif
}

}  // namespace
}  // namespace mote::render
