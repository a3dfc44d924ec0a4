// SPDX-License-Identifier: MIT
// The triangle layer (src/render/triangle_layer.h, pip3d "The triangle layer"): near-plane clipping
// with 0, 1, 2 and 3 vertices behind and on the plane, the kept vertices' projections reused bit
// for bit and only the cut's vertices projected, and the fill's top-left rule, depth test and
// perspective-correct interpolation.
#include "triangle_layer.h"

#include <glm/gtc/matrix_transform.hpp>
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

namespace mote::render {
namespace {

// A camera at the origin looking down −Z (depth = −z), 64 × 64 pixels, near plane at 1.
TriangleProjector projector() {
  TriangleProjector p;
  p.viewProjection = glm::perspective(1.2f, 1.0f, 1.0f, 100.0f);
  p.position = glm::vec3(0.0f);
  p.forward = glm::vec3(0.0f, 0.0f, -1.0f);
  p.width = 64.0f;
  p.height = 64.0f;
  p.nearDepth = 1.0f;
  return p;
}

MeshClipVertex at(float x, float y, float z, float u = 0.0f) {
  MeshClipVertex v;
  v.world = glm::vec3(x, y, z);
  v.u = u;
  v.color = {1.0f, 1.0f, 1.0f, 1.0f};
  return v;
}

struct Drawn {
  std::array<MeshClipVertex, 3> v;
  std::array<ProjectedVertex, 3> p;
};

// Runs clipDrawNearFan on a triangle, collecting what it draws.
NearClipCount clip(const std::array<MeshClipVertex, 3>& tri, std::vector<Drawn>& out) {
  const TriangleProjector pr = projector();
  const std::array<ProjectedVertex, 3> p{pr.project(tri[0].world), pr.project(tri[1].world),
                                         pr.project(tri[2].world)};
  return clipDrawNearFan(
      tri, p, pr.nearDepth, [&](const MeshClipVertex& m) { return pr.project(m.world); },
      [&](const MeshClipVertex& a, const MeshClipVertex& b, const MeshClipVertex& c,
          const ProjectedVertex& pa, const ProjectedVertex& pb, const ProjectedVertex& pc) {
        out.push_back({{a, b, c}, {pa, pb, pc}});
      });
}

bool sameBits(const ProjectedVertex& a, const ProjectedVertex& b) {
  return std::bit_cast<std::uint32_t>(a.x) == std::bit_cast<std::uint32_t>(b.x) &&
         std::bit_cast<std::uint32_t>(a.y) == std::bit_cast<std::uint32_t>(b.y) &&
         std::bit_cast<std::uint32_t>(a.invW) == std::bit_cast<std::uint32_t>(b.invW) &&
         std::bit_cast<std::uint32_t>(a.depth) == std::bit_cast<std::uint32_t>(b.depth);
}

TEST(TriangleLayer, AllInFrontIsDrawnAsIsWithNoProjection) {
  std::vector<Drawn> drawn;
  const NearClipCount n = clip({at(-1, -1, -3), at(1, -1, -3), at(0, 1, -4)}, drawn);
  EXPECT_EQ(n.drawn, 1u);
  EXPECT_EQ(n.projected, 0u);
  EXPECT_EQ(n.reused, 0u);
  ASSERT_EQ(drawn.size(), 1u);
  EXPECT_EQ(drawn[0].v[2].world.z, -4.0f);
}

TEST(TriangleLayer, AllBehindIsDiscarded) {
  std::vector<Drawn> drawn;
  // Behind the eye and between the eye and the near plane alike.
  EXPECT_EQ(clip({at(-1, -1, 2), at(1, -1, 3), at(0, 1, -0.5f)}, drawn).drawn, 0u);
  EXPECT_TRUE(drawn.empty());
}

TEST(TriangleLayer, OneBehindMakesAFanOfTwoReusingTwoProjections) {
  const std::array<MeshClipVertex, 3> tri{at(-1, -1, -3, 0.0f), at(1, -1, -3, 1.0f),
                                          at(0, 1, 1, 0.5f)};
  std::vector<Drawn> drawn;
  const NearClipCount n = clip(tri, drawn);
  EXPECT_EQ(n.drawn, 2u);
  EXPECT_EQ(n.projected, 2u);  // the two vertices the cut made
  EXPECT_EQ(n.reused, 2u);     // a naive clip-then-project would project these again
  ASSERT_EQ(drawn.size(), 2u);
  // The kept vertices carry their unclipped projections bit for bit.
  const TriangleProjector pr = projector();
  EXPECT_TRUE(sameBits(drawn[0].p[0], pr.project(tri[0].world)));
  EXPECT_TRUE(sameBits(drawn[0].p[1], pr.project(tri[1].world)));
  // The new ones lie on the near plane, their attributes a + t(b − a) along their edges.
  for (const Drawn& d : drawn) {
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_GE(d.p[k].depth, pr.nearDepth - 1e-6f);
      EXPECT_LE(d.v[k].world.z, -pr.nearDepth + 1e-6f);
    }
  }
  // Edge 1 → 2 is cut at t = (1 − 3) / (−1 − 3) = 0.5: u = 1 + 0.5 (0.5 − 1) = 0.75.
  EXPECT_FLOAT_EQ(drawn[0].v[2].u, 0.75f);
  EXPECT_FLOAT_EQ(drawn[0].v[2].world.z, -1.0f);
}

TEST(TriangleLayer, TwoBehindMakesOneTriangleReusingOneProjection) {
  const std::array<MeshClipVertex, 3> tri{at(0, 0, -5), at(1, -1, 0.5f), at(-1, -1, 0.5f)};
  std::vector<Drawn> drawn;
  const NearClipCount n = clip(tri, drawn);
  EXPECT_EQ(n.drawn, 1u);
  EXPECT_EQ(n.projected, 2u);
  EXPECT_EQ(n.reused, 1u);
  ASSERT_EQ(drawn.size(), 1u);
  EXPECT_TRUE(sameBits(drawn[0].p[0], projector().project(tri[0].world)));
}

TEST(TriangleLayer, AVertexOnTheNearPlaneIsKept) {
  // One vertex exactly on the plane, two in front: drawn whole, nothing projected anew.
  std::vector<Drawn> drawn;
  NearClipCount n = clip({at(-1, -1, -1), at(1, -1, -3), at(0, 1, -3)}, drawn);
  EXPECT_EQ(n.drawn, 1u);
  EXPECT_EQ(n.projected, 0u);
  // On the plane with the other two behind: a triangle of no area is still one triangle, but
  // one vertex on the plane and one behind cut at the plane vertex itself (t = 0 gives it back).
  drawn.clear();
  n = clip({at(0, 0, -1), at(1, -1, -3), at(-1, -1, 0.5f)}, drawn);
  EXPECT_EQ(n.drawn, 2u);
  EXPECT_EQ(n.reused, 2u);
  EXPECT_EQ(n.projected, 2u);
  // The cut on edge 2 → 0 lands on vertex 0 (t = 1): the same position.
  EXPECT_FLOAT_EQ(drawn[1].v[2].world.z, -1.0f);
}

TEST(TriangleLayer, ClipTriNearGivesTInsideTheEdgeWithoutClamping) {
  // d = [0.999999, 2, 1e30]: a vertex a hair behind; every produced vertex lies on its edge.
  const std::array<MeshClipVertex, 3> in{at(0, 0, 0), at(1, 0, 0), at(0, 1, 0)};
  std::array<MeshClipVertex, 4> out;
  std::array<std::int32_t, 4> source{};
  const std::uint32_t n = clipTriNear(in, {0.999999f, 2.0f, 1e30f}, 1.0f, out, source);
  ASSERT_EQ(n, 4u);
  for (std::uint32_t k = 0; k < n; ++k) {
    EXPECT_GE(out[k].world.x, 0.0f);
    EXPECT_GE(out[k].world.y, 0.0f);
    EXPECT_LE(out[k].world.x + out[k].world.y, 1.0f);
  }
  EXPECT_EQ(source[0], -1);  // 0 → 1 cut (vertex 0 is behind)
  EXPECT_EQ(source[1], 1);
  EXPECT_EQ(source[2], 2);
  EXPECT_EQ(source[3], -1);
}

// A 16 × 16 target, cleared.
struct Target {
  std::vector<std::array<float, 4>> frame = std::vector<std::array<float, 4>>(256);
  std::vector<float> scene = std::vector<float>(256, std::numeric_limits<float>::infinity());
  std::vector<float> mesh = std::vector<float>(256, std::numeric_limits<float>::infinity());
  TriangleTarget view() { return {16, frame.data(), scene.data(), mesh.data(), nullptr}; }
};

ScreenTriangle screenTriangle(std::array<std::array<float, 2>, 3> xy, float depth,
                              std::array<float, 4> color) {
  ScreenTriangle t;
  for (std::size_t k = 0; k < 3; ++k)
    t.v[k] = {xy[k][0], xy[k][1], 1.0f, depth, 0.0f, 0.0f, color};
  EXPECT_TRUE(boundTriangle(t, 16.0f, 16.0f));
  return t;
}

SpanQuad white() {
  static const std::array<float, 4> texel{1.0f, 1.0f, 1.0f, 1.0f};
  SpanQuad q;
  q.texels = &texel;
  q.width = 1;
  q.height = 1;
  return q;
}

TEST(TriangleLayer, TrianglesSharingAnEdgeCoverEachPixelOnce) {
  // A 12 × 12 square split on its diagonal, both halves additive: the top-left rule gives every
  // pixel centre to one triangle, so no pixel is counted twice and none is missed.
  Target target;
  const std::array<float, 4> one{1.0f, 0.0f, 0.0f, 0.0f};
  const ScreenTriangle a = screenTriangle({{{2, 2}, {14, 2}, {14, 14}}}, 5.0f, one);
  const ScreenTriangle b = screenTriangle({{{2, 2}, {14, 14}, {2, 14}}}, 5.0f, one);
  ScreenTriangle aw = a;
  ScreenTriangle bw = b;
  aw.depthWrite = bw.depthWrite = false;
  rasterizeTriangle(aw, white(), 0, 16, target.view());
  rasterizeTriangle(bw, white(), 0, 16, target.view());
  std::uint32_t covered = 0;
  for (std::uint32_t y = 0; y < 16; ++y) {
    for (std::uint32_t x = 0; x < 16; ++x) {
      const float r = target.frame[y * 16 + x][0];
      EXPECT_TRUE(r == 0.0f || r == 1.0f) << x << "," << y << ": " << r;
      covered += r == 1.0f ? 1u : 0u;
    }
  }
  EXPECT_EQ(covered, 144u);  // the 12 × 12 pixel centres inside
}

TEST(TriangleLayer, TheNearerFragmentWinsAndBandsSplitNothing) {
  Target whole;
  const ScreenTriangle far = screenTriangle({{{0, 0}, {16, 0}, {0, 16}}}, 8.0f, {0, 0, 1, 1});
  const ScreenTriangle near = screenTriangle({{{0, 0}, {16, 0}, {16, 16}}}, 4.0f, {1, 0, 0, 1});
  rasterizeTriangle(near, white(), 0, 16, whole.view());
  rasterizeTriangle(far, white(), 0, 16, whole.view());
  // Where both cover, the near one (drawn first) stays; the depth buffers hold its depth.
  EXPECT_EQ(whole.frame[1 * 16 + 8][0], 1.0f);
  EXPECT_EQ(whole.frame[1 * 16 + 8][2], 0.0f);
  EXPECT_EQ(whole.scene[1 * 16 + 8], 4.0f);
  EXPECT_EQ(whole.mesh[1 * 16 + 8], 4.0f);
  EXPECT_EQ(whole.frame[12 * 16 + 1][2], 1.0f);  // the far one alone
  // Drawn in two bands of rows, the same pixels.
  Target banded;
  for (const std::array<std::uint32_t, 2> band : {std::array<std::uint32_t, 2>{0, 7}, {7, 16}}) {
    rasterizeTriangle(near, white(), band[0], band[1], banded.view());
    rasterizeTriangle(far, white(), band[0], band[1], banded.view());
  }
  EXPECT_EQ(banded.frame, whole.frame);
  EXPECT_EQ(banded.scene, whole.scene);
}

TEST(TriangleLayer, AttributesArePerspectiveCorrect) {
  // A triangle whose far vertex has 1/w a quarter of the others': the interpolated depth at a
  // pixel is 1 / (the interpolated 1/w), not the affine mean of the depths.
  Target target;
  ScreenTriangle t;
  t.v[0] = {0.0f, 0.0f, 1.0f, 1.0f, 0, 0, {1, 1, 1, 1}};
  t.v[1] = {16.0f, 0.0f, 1.0f, 1.0f, 0, 0, {1, 1, 1, 1}};
  t.v[2] = {0.0f, 16.0f, 0.25f, 4.0f, 0, 0, {1, 1, 1, 1}};
  ASSERT_TRUE(boundTriangle(t, 16.0f, 16.0f));
  rasterizeTriangle(t, white(), 0, 16, target.view());
  // Pixel (0, 8): centre (0.5, 8.5), barycentric weight of vertex 2 = 8.5 / 16.
  const float b2 = 8.5f / 16.0f;
  const float b1 = 0.5f / 16.0f;
  const float invW = (1.0f - b1 - b2) * 1.0f + b1 * 1.0f + b2 * 0.25f;
  EXPECT_NEAR(target.scene[8 * 16 + 0], 1.0f / invW, 1e-5f);
  EXPECT_GT(1.0f / invW, 1.0f);
  EXPECT_LT(1.0f / invW, 1.0f + b2 * 3.0f);  // less than the affine mean
}

TEST(TriangleLayer, DegenerateAndNanTrianglesAreCulled) {
  ScreenTriangle flat;
  flat.v[0] = {1, 1, 1, 1, 0, 0, {}};
  flat.v[1] = {5, 5, 1, 1, 0, 0, {}};
  flat.v[2] = {9, 9, 1, 1, 0, 0, {}};
  EXPECT_FALSE(boundTriangle(flat, 16.0f, 16.0f));
  flat.v[2].x = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(boundTriangle(flat, 16.0f, 16.0f));
  ScreenTriangle off;
  off.v[0] = {20, 1, 1, 1, 0, 0, {}};
  off.v[1] = {30, 1, 1, 1, 0, 0, {}};
  off.v[2] = {25, 9, 1, 1, 0, 0, {}};
  EXPECT_FALSE(boundTriangle(off, 16.0f, 16.0f));
}

}  // namespace
}  // namespace mote::render
