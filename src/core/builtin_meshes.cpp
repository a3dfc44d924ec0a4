// SPDX-License-Identifier: MIT
// The built-in meshes' geometry (mote/core/builtin_meshes.h): tables for the cube, the quad and the
// shard; the icosphere subdivided once, on first use, by the same float operations every time.
#include <mote/core/builtin_meshes.h>

#include <cmath>
#include <cstddef>
#include <map>
#include <utility>
#include <vector>

namespace mote {
namespace {

// Cube: per face, four corners counter-clockwise seen from outside, from the texture's bottom left.
constexpr std::array<float, 24 * 3> kCubePositions = {
    // +X
    0.5f, -0.5f, 0.5f, 0.5f, -0.5f, -0.5f, 0.5f, 0.5f, -0.5f, 0.5f, 0.5f, 0.5f,
    // −X
    -0.5f, -0.5f, -0.5f, -0.5f, -0.5f, 0.5f, -0.5f, 0.5f, 0.5f, -0.5f, 0.5f, -0.5f,
    // +Y
    -0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, -0.5f, -0.5f, 0.5f, -0.5f,
    // −Y
    -0.5f, -0.5f, -0.5f, 0.5f, -0.5f, -0.5f, 0.5f, -0.5f, 0.5f, -0.5f, -0.5f, 0.5f,
    // +Z
    -0.5f, -0.5f, 0.5f, 0.5f, -0.5f, 0.5f, 0.5f, 0.5f, 0.5f, -0.5f, 0.5f, 0.5f,
    // −Z
    0.5f, -0.5f, -0.5f, -0.5f, -0.5f, -0.5f, -0.5f, 0.5f, -0.5f, 0.5f, 0.5f, -0.5f};
constexpr std::array<float, 24 * 2> kCubeUvs = {0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0,
                                                0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0,
                                                0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0};
constexpr std::array<std::uint32_t, 36> kCubeIndices = {
    0,  1,  2,  0,  2,  3,  4,  5,  6,  4,  6,  7,  8,  9,  10, 8,  10, 11,
    12, 13, 14, 12, 14, 15, 16, 17, 18, 16, 18, 19, 20, 21, 22, 20, 22, 23};

constexpr std::array<float, 12> kQuadPositions = {-0.5f, -0.5f, 0.0f, 0.5f,  -0.5f, 0.0f,
                                                  0.5f,  0.5f,  0.0f, -0.5f, 0.5f,  0.0f};
constexpr std::array<float, 12> kQuadNormals = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
constexpr std::array<float, 8> kQuadUvs = {0, 1, 1, 1, 1, 0, 0, 0};
constexpr std::array<std::uint32_t, 6> kQuadIndices = {0, 1, 2, 0, 2, 3};

// An irregular tetrahedron, about 0.1 m across, its faces counter-clockwise seen from outside.
constexpr std::array<float, 12> kShardPositions = {0.0f,   0.065f,  0.005f, -0.05f, -0.02f, 0.03f,
                                                   0.045f, -0.025f, 0.035f, 0.005f, -0.02f, -0.05f};
constexpr std::array<float, 8> kShardUvs = {0.0f, 1.0f, 0.0f, 0.0f, 1.0f, 0.0f, 1.0f, 1.0f};
constexpr std::array<std::uint32_t, 12> kShardIndices = {0, 1, 2, 0, 3, 1, 0, 2, 3, 1, 3, 2};

struct Icosphere {
  std::vector<float> positions, normals, uvs;
  std::vector<std::uint32_t> indices;
  BuiltinMeshGeometry geometry;
};

// An icosahedron (12 vertices on three golden rectangles) subdivided twice, each new vertex the
// normalised midpoint of its edge, scaled to radius 0.5.
Icosphere makeIcosphere() {
  const float t = (1.0f + std::sqrt(5.0f)) / 2.0f;
  std::vector<std::array<float, 3>> v = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                                         {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                                         {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  const auto unit = [](std::array<float, 3> p) {
    const float l = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    return std::array<float, 3>{p[0] / l, p[1] / l, p[2] / l};
  };
  for (auto& p : v)
    p = unit(p);
  std::vector<std::uint32_t> tris = {0, 11, 5, 0, 5,  1,  0,  1,  7,  0,  7, 10, 0, 10, 11,
                                     1, 5,  9, 5, 11, 4,  11, 10, 2,  10, 7, 6,  7, 1,  8,
                                     3, 9,  4, 3, 4,  2,  3,  2,  6,  3,  6, 8,  3, 8,  9,
                                     4, 9,  5, 2, 4,  11, 6,  2,  10, 8,  6, 7,  9, 8,  1};
  for (int level = 0; level < 2; ++level) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> middles;
    const auto middle = [&](std::uint32_t a, std::uint32_t b) {
      const auto key = a < b ? std::pair(a, b) : std::pair(b, a);
      if (const auto it = middles.find(key); it != middles.end()) return it->second;
      const auto& pa = v[a];
      const auto& pb = v[b];
      v.push_back(unit({(pa[0] + pb[0]) * 0.5f, (pa[1] + pb[1]) * 0.5f, (pa[2] + pb[2]) * 0.5f}));
      const auto index = static_cast<std::uint32_t>(v.size() - 1);
      middles.emplace(key, index);
      return index;
    };
    std::vector<std::uint32_t> next;
    for (std::size_t i = 0; i < tris.size(); i += 3) {
      const std::uint32_t a = tris[i], b = tris[i + 1], c = tris[i + 2];
      const std::uint32_t ab = middle(a, b), bc = middle(b, c), ca = middle(c, a);
      next.insert(next.end(), {a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca});
    }
    tris = std::move(next);
  }
  Icosphere s;
  constexpr float kPi = 3.14159265358979f;
  for (const auto& p : v) {
    s.positions.insert(s.positions.end(), {p[0] * 0.5f, p[1] * 0.5f, p[2] * 0.5f});
    s.normals.insert(s.normals.end(), {p[0], p[1], p[2]});
    s.uvs.insert(s.uvs.end(),
                 {0.5f + std::atan2(p[0], p[2]) / (2.0f * kPi), 0.5f - std::asin(p[1]) / kPi});
  }
  s.indices = std::move(tris);
  s.geometry = {s.positions, s.normals, s.uvs, s.indices};
  return s;
}

}  // namespace

const BuiltinMeshGeometry* builtinMeshGeometry(std::string_view name) noexcept {
  static const BuiltinMeshGeometry kCube{kCubePositions, {}, kCubeUvs, kCubeIndices};
  static const BuiltinMeshGeometry kQuad{kQuadPositions, kQuadNormals, kQuadUvs, kQuadIndices};
  static const BuiltinMeshGeometry kShard{kShardPositions, {}, kShardUvs, kShardIndices};
  if (name == "cube") return &kCube;
  if (name == "quad") return &kQuad;
  if (name == "shard") return &kShard;
  if (name == "icosphere") {
    static const Icosphere kSphere = makeIcosphere();
    return &kSphere.geometry;
  }
  return nullptr;
}

}  // namespace mote
