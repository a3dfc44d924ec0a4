// SPDX-License-Identifier: MIT
// Mesh particles through the triangle layer: goldens of built-in meshes, depth between meshes and
// quads (an opaque mesh hides the quads behind it and not those in front), near-plane cuts, back
// faces, OBJ files and the host's mesh loader, drawTriangle3D, thread independence, the allocation
// watch and the errors. Re-approve the goldens deliberately with scripts/approve-goldens.
#include "support/compile_effect.h"
#include "support/golden_image.h"

#include <mote/core/alloc_watch.h>
#include <mote/core/job_system.h>
#include <mote/render/particle_renderer.h>
#include <mote/render/render_packet.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace mote::render {
namespace {

using test::compileJson;
using test::expectGolden;

// `count` particles of `mesh` on a line along X, turned 30° about (1, 1, 0), `size` across.
std::string meshScene(const std::string& mesh, const std::string& material, int count = 4,
                      float size = 0.7f, const std::string& extraEmitters = "") {
  return R"({"format": "mote.effect/1", "name": "meshes", "materials": [)" + material +
         R"(], "emitters": [{"name": "m", "material": "m",
    "spawn": {"rate": 0, "bursts": [{"time": 0, "count": )" +
         std::to_string(count) + R"(}]},
    "shape": {"kind": "line", "end": [2.4, 0, 0]}, "position": [-1.2, 0.8, 0],
    "init": {"lifetime": 10, "size": )" +
         std::to_string(size) +
         R"(, "orientation_axis": [1, 1, 0], "orientation_angle": 30,
             "color": {"from": [1, 0.6, 0.3, 1], "to": [0.4, 0.7, 1, 1]}},
    "render": {"mode": "mesh", "mesh": ")" +
         mesh + R"("}})" + extraEmitters + "]}";
}

Camera frontCamera(glm::vec3 eye = {0.3f, 1.4f, 3.2f}) {
  Camera camera = Camera::perspective(0.9f, 1.5f, 0.1f, 100.0f).value();
  EXPECT_TRUE(camera.lookAt(eye, {0.0f, 0.8f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  return camera;
}

RendererOptions smallOptions(JobSystem* jobs = nullptr) {
  RendererOptions options;
  options.viewport = {120, 80};
  options.builtinSpriteSize = 32;
  options.jobs = jobs;
  return options;
}

Image drawWorld(const bytecode::CompiledEffect& effect, const RendererOptions& options,
                const Camera& camera, RenderStats* stats = nullptr) {
  auto world = ParticleWorld::create({}).takeValue();
  EXPECT_TRUE(world->addEffect(effect).ok());
  world->tick(1.0f / 30.0f);
  auto renderer = ParticleRenderer::create(options).takeValue();
  Image image;
  const Status s = renderer.render(*world, camera, image);
  EXPECT_TRUE(s.ok()) << s.message();
  if (stats != nullptr) *stats = renderer.stats();
  return image;
}

constexpr const char* kStar = R"({"name": "m", "texture": "builtin:star"})";
constexpr const char* kPlain = R"({"name": "m"})";
constexpr const char* kLit = R"({"name": "m", "lit": true})";

TEST(MeshParticles, BuiltinMeshesMatchTheirGoldens) {
  for (const char* mesh : {"cube", "icosphere", "shard", "quad"}) {
    SCOPED_TRACE(mesh);
    RenderStats stats;
    // The shard is 0.1 m across: drawn at size 7 to be seen.
    const float size = std::string(mesh) == "shard" ? 7.0f : 0.7f;
    const Image image =
        drawWorld(compileJson(meshScene(std::string("builtin:") + mesh, kLit, 4, size)),
                  smallOptions(), frontCamera(), &stats);
    EXPECT_GT(stats.triangles, 0u);
    EXPECT_EQ(stats.quads, 0u);
    expectGolden(image, std::string("mesh_") + mesh);
  }
}

TEST(MeshParticles, AnOpaqueMeshHidesTheQuadsBehindItAndNotThoseInFront) {
  // One cube at (0, 0.8, 0), orange; a red sprite 1.2 m behind it and a small green one 1.2 m in
  // front, all on the camera's line of sight.
  const std::string json = R"({"format": "mote.effect/1", "name": "depth",
    "materials": [{"name": "s", "texture": "builtin:soft_circle"}, {"name": "m"}],
    "emitters": [
     {"name": "cube", "material": "m", "position": [0, 0.8, 0],
      "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 1}]},
      "init": {"lifetime": 10, "size": 1.0, "color": [1, 0.6, 0.3, 1]},
      "render": {"mode": "mesh", "mesh": "builtin:cube"}},
     {"name": "behind", "material": "s", "position": [0, 0.8, -1.2],
      "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 1}]},
      "init": {"lifetime": 10, "size": 2.4, "color": [1, 0, 0, 1]}},
     {"name": "front", "material": "s", "position": [0, 0.8, 1.2],
      "spawn": {"rate": 0, "bursts": [{"time": 0, "count": 1}]},
      "init": {"lifetime": 10, "size": 0.3, "color": [0, 1, 0, 1]}}]})";
  // The camera looks straight down the line: the cube's centre is the image's centre.
  Camera camera = Camera::perspective(0.9f, 1.5f, 0.1f, 100.0f).value();
  ASSERT_TRUE(camera.lookAt({0.0f, 0.8f, 4.0f}, {0.0f, 0.8f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok());
  RenderStats stats;
  const Image image = drawWorld(compileJson(json), smallOptions(), camera, &stats);
  EXPECT_EQ(stats.quads, 2u);
  // The centre: the green sprite over the cube. Beside the small green sprite but inside the
  // cube's outline: cube (its colour, not red). Beyond the cube, within the red sprite: red.
  const Rgba8 centre = image.pixel(60, 40);
  EXPECT_GT(centre.g, 200);
  EXPECT_LT(centre.r, 120);
  const Rgba8 cube = image.pixel(60 + 10, 40);
  EXPECT_GT(cube.r, 200);
  EXPECT_GT(cube.g, 100);  // the cube's orange-ish colour (1, 0.6, 0.3), not the red sprite
  const Rgba8 beyond = image.pixel(60 + 14, 40);
  EXPECT_GT(beyond.r, 60);
  EXPECT_LT(beyond.g, 40);
}

TEST(MeshParticles, MeshesCrossingTheNearPlaneAreCutNotLost) {
  // The eye inside a 3 m cube (double-sided, so its inside shows): every face crosses the near
  // plane or lies around the eye, and what is in front is still drawn.
  const std::string material = R"({"name": "m", "texture": "builtin:star", "double_sided": true})";
  RenderStats stats;
  const Image image = drawWorld(compileJson(meshScene("builtin:cube", material, 1, 3.0f)),
                                smallOptions(), frontCamera({-1.1f, 0.9f, 0.2f}), &stats);
  EXPECT_GT(stats.triangles, 4u);
  std::uint32_t lit = 0;
  for (std::uint32_t y = 0; y < image.height(); ++y)
    for (std::uint32_t x = 0; x < image.width(); ++x)
      lit += image.pixel(x, y).r > 60 ? 1u : 0u;
  EXPECT_GT(lit, 2000u);  // most of the frame is cube wall
}

TEST(MeshParticles, BackFacesAreCulledUnlessDoubleSided) {
  // A quad mesh seen from behind (turned 180° about Y).
  const auto scene = [](bool doubleSided) {
    std::string json = meshScene(
        "builtin:quad",
        std::string(R"({"name": "m", "double_sided": )") + (doubleSided ? "true" : "false") + "}",
        1);
    const std::string turn = R"("orientation_axis": [1, 1, 0], "orientation_angle": 30)";
    json.replace(json.find(turn), turn.size(),
                 R"("orientation_axis": [0, 1, 0], "orientation_angle": 180)");
    return compileJson(json);
  };
  RenderStats one;
  RenderStats two;
  drawWorld(scene(false), smallOptions(), frontCamera(), &one);
  drawWorld(scene(true), smallOptions(), frontCamera(), &two);
  EXPECT_EQ(one.triangles, 0u);
  EXPECT_EQ(two.triangles, 2u);
}

TEST(MeshParticles, ObjFilesAndTheHostLoaderAreRead) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "mote-mesh-test";
  std::filesystem::create_directories(dir);
  {
    std::ofstream obj(dir / "wedge.obj");
    obj << "v -0.5 0 0.5\nv 0.5 0 0.5\nv 0 0.8 0\nv 0 0 -0.5\nf 1 2 3\nf 2 4 3\nf 4 1 3\nf 1 4 2\n";
  }
  RendererOptions options = smallOptions();
  options.textureDirectory = dir.string();
  RenderStats stats;
  drawWorld(compileJson(meshScene("wedge.obj", kPlain, 3)), options, frontCamera(), &stats);
  EXPECT_GT(stats.triangles, 0u);
  // Another extension goes to the host's loader, with the path resolved against the directory.
  std::string asked;
  options.meshLoader = [&asked](const std::string& path) -> Result<Mesh> {
    asked = path;
    return builtinMesh("builtin:cube");
  };
  RenderStats loaded;
  drawWorld(compileJson(meshScene("rock.mdl", kPlain, 2)), options, frontCamera(), &loaded);
  EXPECT_EQ(asked, (dir / "rock.mdl").string());
  RenderStats cubes;
  drawWorld(compileJson(meshScene("builtin:cube", kPlain, 2)), smallOptions(), frontCamera(),
            &cubes);
  EXPECT_EQ(loaded.triangles, cubes.triangles);
  EXPECT_GT(cubes.triangles, 0u);
}

TEST(MeshParticles, MeshErrorsNameTheEmitterAndTheFile) {
  auto world = ParticleWorld::create({}).takeValue();
  ASSERT_TRUE(world->addEffect(compileJson(meshScene("rock.mdl", kPlain))).ok());
  world->tick(0.03f);
  auto renderer = ParticleRenderer::create(smallOptions()).takeValue();
  Image image;
  Status s = renderer.render(*world, frontCamera(), image);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("emitter 'm'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("rock.mdl"), std::string::npos) << s.message();
  auto missing = ParticleWorld::create({}).takeValue();
  ASSERT_TRUE(missing->addEffect(compileJson(meshScene("/nonexistent/no.obj", kPlain))).ok());
  missing->tick(0.03f);
  s = renderer.render(*missing, frontCamera(), image);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no.obj"), std::string::npos) << s.message();
}

TEST(MeshParticles, DrawTriangle3DAddsToThePreparedFrame) {
  auto world = ParticleWorld::create({}).takeValue();
  auto renderer = ParticleRenderer::create(smallOptions()).takeValue();
  EXPECT_FALSE(renderer.drawTriangle3D({0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 1}).ok());
  ASSERT_TRUE(renderer.prepare(*world, frontCamera()).ok());
  ASSERT_TRUE(
      renderer.drawTriangle3D({-1, 0.3f, 0}, {1, 0.3f, 0}, {0, 1.6f, 0}, {0.9f, 0.2f, 0.1f}).ok());
  // One behind the eye is cut away entirely (nothing drawn, no error).
  ASSERT_TRUE(renderer.drawTriangle3D({0, 0, 9}, {1, 0, 9}, {0, 1, 9}, {1, 1, 1}).ok());
  EXPECT_FALSE(
      renderer.drawTriangle3D({0, 0, 0}, {std::nanf(""), 0, 0}, {0, 1, 0}, {1, 1, 1}).ok());
  Image image;
  ASSERT_TRUE(renderer.rasterize(image).ok());
  EXPECT_EQ(renderer.stats().triangles, 1u);
  const Rgba8 inside = image.pixel(58, 45);
  EXPECT_GT(inside.r, 200);
  EXPECT_LT(inside.g, 140);
  expectGolden(image, "debug_triangle");
}

TEST(MeshParticles, FramesAreTheSameOnAnyThreadCountAndAllocateNothing) {
  auto pool = ThreadPool::create(3).takeValue();
  const auto effect = compileJson(meshScene("builtin:icosphere", kStar, 12, 0.4f));
  EXPECT_EQ(drawWorld(effect, smallOptions(pool.get()), frontCamera()),
            drawWorld(effect, smallOptions(), frontCamera()));
#if defined(MOTE_TEST_ALLOC_WATCH_LINKED)
  auto world = ParticleWorld::create({}).takeValue();
  ASSERT_TRUE(world->addEffect(effect).ok());
  world->tick(0.03f);
  auto renderer = ParticleRenderer::create(smallOptions()).takeValue();
  Image image;
  ASSERT_TRUE(renderer.render(*world, frontCamera(), image).ok());  // meshes, textures, buffers
  for (int i = 0; i < 3; ++i) {
    world->tick(0.03f);
    AllocationScope scope;
    ASSERT_TRUE(renderer.render(*world, frontCamera(), image).ok());
    EXPECT_EQ(scope.allocations(), 0u);
  }
#endif
}

// prepareTriangles() makes the triangles prepare() makes of the mesh particles — the same frame
// when rasterized — and triangles() hands them out: as many, on the screen, in the mesh's colour,
// with a texture that resolves; debug lines add to them; bad calls are refused.
TEST(MeshParticles, PreparedTrianglesAreTheTrianglesPrepareMakes) {
  const auto effect = compileJson(meshScene("builtin:cube", kPlain, 4, 0.7f));
  auto world = ParticleWorld::create({}).takeValue();
  ASSERT_TRUE(world->addEffect(effect).ok());
  world->tick(1.0f / 30.0f);
  auto renderer = ParticleRenderer::create(smallOptions()).takeValue();
  std::vector<RasterTriangle> triangles;
  EXPECT_EQ(renderer.triangles(triangles).code(), StatusCode::InvalidArgument);  // none prepared
  Image whole;
  ASSERT_TRUE(renderer.render(*world, frontCamera(), whole).ok());
  const std::uint32_t prepared = renderer.stats().triangles;
  EXPECT_GE(prepared, 4u * 4u);  // at least two faces of each cube seen, two triangles a face
  ASSERT_TRUE(renderer.triangles(triangles).ok());
  EXPECT_EQ(triangles.size(), prepared);

  auto packets = RenderPacketBuilder::create(16).takeValue();
  packets.build(*world);
  ASSERT_TRUE(renderer.prepareTriangles(packets.packets(), frontCamera()).ok());
  ASSERT_TRUE(renderer.triangles(triangles).ok());
  ASSERT_EQ(triangles.size(), prepared);
  for (const RasterTriangle& t : triangles) {
    EXPECT_TRUE(t.depthWrite);  // opaque
    EXPECT_EQ(t.blend, TriangleBlend::Over);
    for (const TriangleVertex& v : t.v) {
      EXPECT_GT(v.invW, 0.0f);
      EXPECT_GE(v.depth, 0.1f);  // at or past the near plane
      EXPECT_GT(v.color[3], 0.99f);
    }
    Result<const Texture*> texture = renderer.texture(t.texture);
    ASSERT_TRUE(texture.ok()) << texture.status().message();
    EXPECT_EQ(texture.value()->texels.size(),
              std::size_t{texture.value()->width} * texture.value()->height);
  }
  Image alone;
  ASSERT_TRUE(renderer.rasterize(alone).ok());
  EXPECT_EQ(alone, whole);  // the world has nothing but its meshes
  ASSERT_TRUE(renderer.drawLine3D({0, 0, 0}, {0, 1.5f, 0}, {1, 0, 1}).ok());
  ASSERT_TRUE(renderer.triangles(triangles).ok());
  ASSERT_EQ(triangles.size(), prepared + 2);
  EXPECT_FALSE(triangles.back().depthWrite);
  EXPECT_EQ(renderer.texture(1000).status().code(), StatusCode::InvalidArgument);
  Camera broken = frontCamera();
  broken.nearZ = -1.0f;
  EXPECT_FALSE(renderer.prepareTriangles(packets.packets(), broken).ok());
  EXPECT_EQ(renderer.triangles(triangles).code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(triangles.empty());
}

}  // namespace
}  // namespace mote::render
