// SPDX-License-Identifier: MIT
// Meshes (mote/render/mesh.h): the built-in meshes' geometry (closed, outward-facing, the sizes the
// docs give), the OBJ reader's forms (v/vt/vn corners, negative indices, fans, flipped v, computed
// normals) and its errors with their lines, and validation.
#include <mote/core/builtin_meshes.h>
#include <mote/render/mesh.h>

#include <glm/geometric.hpp>
#include <glm/vec3.hpp>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace mote::render {
namespace {

glm::vec3 vertex(const Mesh& m, std::uint32_t i) {
  return {m.positions[i * 3], m.positions[i * 3 + 1], m.positions[i * 3 + 2]};
}

// The signed volume of a closed mesh (divergence theorem): positive when its faces wind
// counter-clockwise seen from outside.
float signedVolume(const Mesh& m) {
  float volume = 0.0f;
  for (std::size_t t = 0; t < m.triangleCount(); ++t) {
    const glm::vec3 a = vertex(m, m.indices[t * 3]);
    const glm::vec3 b = vertex(m, m.indices[t * 3 + 1]);
    const glm::vec3 c = vertex(m, m.indices[t * 3 + 2]);
    volume += glm::dot(a, glm::cross(b, c)) / 6.0f;
  }
  return volume;
}

TEST(Mesh, BuiltinMeshesAreValidAndFaceOutward) {
  for (const std::string_view name : kBuiltinMeshNames) {
    SCOPED_TRACE(std::string(name));
    Result<Mesh> m = builtinMesh("builtin:" + std::string(name));
    ASSERT_TRUE(m.ok()) << m.status().message();
    EXPECT_TRUE(m->validate(name).ok());
  }
  // A unit cube: volume 1; the icosphere of radius 0.5 a little under 4/3 π 0.125.
  EXPECT_NEAR(signedVolume(builtinMesh("builtin:cube").value()), 1.0f, 1e-5f);
  const Mesh sphere = builtinMesh("builtin:icosphere").value();
  EXPECT_EQ(sphere.vertexCount(), 162u);
  EXPECT_EQ(sphere.triangleCount(), 320u);
  EXPECT_GT(signedVolume(sphere), 0.5f);
  EXPECT_LT(signedVolume(sphere), 4.0f / 3.0f * 3.14159265f * 0.125f);
  EXPECT_GT(signedVolume(builtinMesh("builtin:shard").value()), 0.0f);
  EXPECT_TRUE(builtinMesh("builtin:cube")->normals.empty());  // flat
  EXPECT_EQ(builtinMesh("builtin:quad")->triangleCount(), 2u);
  Result<Mesh> unknown = builtinMesh("builtin:cubee");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("builtin:cube"), std::string::npos);
  EXPECT_FALSE(builtinMesh("cube.obj").ok());
}

TEST(Mesh, ObjCornersInEveryFormBecomeVertices) {
  const Mesh m = parseObj(R"(# a square, one quad face, then a triangle reusing corners
o square
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
vt 0 0
vt 1 0
vt 1 1
vn 0 0 1
s off
f 1/1/1 2/2/1 3/3/1 4//1
f -4/1/1 -2/3/1 -1//1
)",
                          "square.obj")
                     .value();
  // Corners: 1/1/1, 2/2/1, 3/3/1, 4//1 (the triangle reuses 1/1/1, 3/3/1 and 4//1).
  EXPECT_EQ(m.vertexCount(), 4u);
  EXPECT_EQ(m.triangleCount(), 3u);  // the quad's fan of two, then one
  EXPECT_EQ(m.indices, (std::vector<std::uint32_t>{0, 1, 2, 0, 2, 3, 0, 2, 3}));
  // OBJ's v runs up the image: flipped. The corner without vt reads 0 0.
  EXPECT_EQ(m.uvs, (std::vector<float>{0, 1, 1, 1, 1, 0, 0, 0}));
  ASSERT_EQ(m.normals.size(), 12u);
  EXPECT_EQ(m.normals[2], 1.0f);
}

TEST(Mesh, ObjWithoutNormalsIsFlatAndMissingOnesAreComputed) {
  EXPECT_TRUE(parseObj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", "t.obj")->normals.empty());
  // Two corners with a normal, one without: that one gets its faces' normal, +Z here.
  const Mesh m = parseObj("v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 2\nf 1//1 2//1 3\n", "t.obj").value();
  ASSERT_EQ(m.normals.size(), 9u);
  EXPECT_EQ(m.normals[2], 1.0f);  // normalised from (0 0 2)
  EXPECT_NEAR(m.normals[8], 1.0f, 1e-6f);
}

TEST(Mesh, ObjErrorsNameTheFileAndLine) {
  const auto error = [](const std::string& text) {
    Result<Mesh> m = parseObj(text, "bad.obj");
    EXPECT_FALSE(m.ok()) << text;
    return m.ok() ? std::string() : m.status().message();
  };
  EXPECT_NE(error("v 0 0 0\nv 1 x 0\n").find("bad.obj:2: 'x' is not a finite number"),
            std::string::npos);
  EXPECT_NE(error("v 0 0 nan\n").find("not a finite number"), std::string::npos);
  EXPECT_NE(error("v 0 0\n").find("needs 3"), std::string::npos);
  EXPECT_NE(error("v 0 0 0\nv 1 0 0\nf 1 2\n").find("bad.obj:3: a face needs at least 3"),
            std::string::npos);
  EXPECT_NE(error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n").find("refers past"), std::string::npos);
  EXPECT_NE(error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n").find("refers past"), std::string::npos);
  EXPECT_NE(error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/9 2 3\n").find("refers past"), std::string::npos);
  EXPECT_NE(error("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1/1/1 2 3\n").find("too many parts"),
            std::string::npos);
  EXPECT_NE(error("v 0 0 0\nf /1 2 3\n").find("no position index"), std::string::npos);
  EXPECT_NE(error("# nothing\nv 0 0 0\n").find("no face"), std::string::npos);
  EXPECT_NE(error("").find("no face"), std::string::npos);
  // A degenerate-free but huge face list stays bounded by the limits, checked as it grows.
  EXPECT_NE(error("v 0 0 0 1 2\n").find("too many numbers"), std::string::npos);
}

TEST(Mesh, ValidateRefusesBrokenMeshesByName) {
  Mesh m = builtinMesh("builtin:quad").value();
  m.indices[0] = 99;
  EXPECT_NE(m.validate("q").message().find("q: index 99"), std::string::npos);
  m = builtinMesh("builtin:quad").value();
  m.uvs.pop_back();
  EXPECT_FALSE(m.validate("q").ok());
  m = builtinMesh("builtin:quad").value();
  m.positions[0] = std::nanf("");
  EXPECT_FALSE(m.validate("q").ok());
  EXPECT_FALSE(Mesh{}.validate("empty").ok());
  EXPECT_FALSE(loadObj("/nonexistent/dir/x.obj").ok());
}

}  // namespace
}  // namespace mote::render
