// SPDX-License-Identifier: MIT
// The triangle layer (pip3d "The triangle layer"): a triangle's last stop before the rasterizer.
// Vertices come projected once, each with its camera depth d = dot(v − camPos, camFwd); a triangle
// wholly behind the near plane is discarded with three comparisons; one that crosses it is cut by
// Sutherland–Hodgman against that one plane into a fan of at most 4 vertices (clipTriNear), which
// reuses the projections it already has and projects only the vertices the cut creates
// (clipDrawNearFan, over any clipper vertex type with a lerpVert). The fill (rasterizeTriangle)
// tests pixel centres with Vulkan's top-left rule, interpolates perspective-correctly, z-tests
// against the scene depth and blends with the rasterizer's one equation. Private to the sprite
// layer and mote_render (which expands mesh particles into it).
#pragma once

#include "raster_span.h"  // SpanQuad (the texture and blend a fragment uses)

#include <mote/render/raster_triangle.h>  // TriangleVertex

#include <glm/geometric.hpp>
#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace mote::render {

/// A vertex on the screen: pixels (y down), 1 / clip w and the camera depth.
struct ProjectedVertex {
  float x = 0.0f;
  float y = 0.0f;
  float invW = 0.0f;
  float depth = 0.0f;
};

/// The camera as the triangle layer projects with it: clip = viewProjection · (p, 1), screen =
/// ((clip.x / w · 0.5 + 0.5) · width, (0.5 − clip.y / w · 0.5) · height); depth = dot(p − position,
/// forward). Triangles are cut at depth nearDepth (the camera's near plane).
struct TriangleProjector {
  glm::mat4 viewProjection{1.0f};
  glm::vec3 position{0.0f};
  glm::vec3 forward{0.0f, 0.0f, -1.0f};
  float width = 1.0f;
  float height = 1.0f;
  float nearDepth = 0.1f;

  float depthOf(glm::vec3 p) const noexcept { return glm::dot(p - position, forward); }
  /// Where p lands, for a point at or in front of the near plane. Pure; O(1).
  ProjectedVertex project(glm::vec3 p) const noexcept {
    const glm::vec4 clip = viewProjection * glm::vec4(p, 1.0f);
    const float invW = 1.0f / clip.w;
    return {(clip.x * invW * 0.5f + 0.5f) * width, (0.5f - clip.y * invW * 0.5f) * height, invW,
            depthOf(p)};
  }
};

/// The clipper vertex of the mesh path: the world position (to project what the cut creates),
/// the texture coordinate and the premultiplied colour.
struct MeshClipVertex {
  glm::vec3 world{0.0f};
  float u = 0.0f;
  float v = 0.0f;
  std::array<float, 4> color{};
};

/// a + t(b − a), component by component.
inline MeshClipVertex lerpVert(const MeshClipVertex& a, const MeshClipVertex& b, float t) noexcept {
  MeshClipVertex r;
  r.world = a.world + t * (b.world - a.world);
  r.u = a.u + t * (b.u - a.u);
  r.v = a.v + t * (b.v - a.v);
  for (std::size_t c = 0; c < 4; ++c)
    r.color[c] = a.color[c] + t * (b.color[c] - a.color[c]);
  return r;
}

/// Sutherland–Hodgman against the plane depth = nearDepth, keeping depth >= nearDepth (a vertex on
/// the plane is kept): writes the clipped polygon's vertices in order to out (at most 4) and, for
/// each, the input vertex it is (0–2) or −1 for one the cut created. An edge whose ends lie on
/// different sides gives t = (near − d_a) / (d_b − d_a) in [0, 1] by construction (the rounded
/// differences keep their order), so nothing is clamped. Returns the count (0 when all three are
/// behind). Pure; O(1).
template <class Vert>
std::uint32_t clipTriNear(const std::array<Vert, 3>& in, const std::array<float, 3>& depth,
                          float nearDepth, std::array<Vert, 4>& out,
                          std::array<std::int32_t, 4>& source) noexcept {
  std::uint32_t n = 0;
  for (std::uint32_t i = 0; i < 3; ++i) {
    const std::uint32_t j = i == 2 ? 0 : i + 1;
    const bool inI = depth[i] >= nearDepth;
    const bool inJ = depth[j] >= nearDepth;
    if (inI) {
      out[n] = in[i];
      source[n++] = static_cast<std::int32_t>(i);
    }
    if (inI != inJ) {
      const float t = (nearDepth - depth[i]) / (depth[j] - depth[i]);
      out[n] = lerpVert(in[i], in[j], t);
      source[n++] = -1;
    }
  }
  return n;
}

/// What clipDrawNearFan did to one triangle.
struct NearClipCount {
  std::uint32_t drawn = 0;      ///< triangles handed to `draw` (0, 1 or 2)
  std::uint32_t projected = 0;  ///< vertices projected anew (those the cut created)
  std::uint32_t reused = 0;  ///< projections taken from the input (a naive clip re-projects them)
};

/// The near-plane path of one triangle, vertices `v` already projected as `p` (p[k].depth their
/// camera depths): all in front → draw(v0, v1, v2, p0, p1, p2) as is; all behind → nothing (three
/// comparisons); else clipTriNear, the kept vertices' projections reused bit for bit, the new ones
/// projected with `project(vertex)`, and the polygon drawn as a fan (0, 1, 2), (0, 2, 3). O(1).
template <class Vert, class Project, class Draw>
NearClipCount clipDrawNearFan(const std::array<Vert, 3>& v, const std::array<ProjectedVertex, 3>& p,
                              float nearDepth, Project&& project, Draw&& draw) {
  NearClipCount count;
  const std::array<float, 3> depth{p[0].depth, p[1].depth, p[2].depth};
  const bool in0 = depth[0] >= nearDepth;
  const bool in1 = depth[1] >= nearDepth;
  const bool in2 = depth[2] >= nearDepth;
  if (in0 && in1 && in2) {
    draw(v[0], v[1], v[2], p[0], p[1], p[2]);
    count.drawn = 1;
    return count;
  }
  if (!in0 && !in1 && !in2) return count;
  std::array<Vert, 4> out;
  std::array<std::int32_t, 4> source{};
  const std::uint32_t n = clipTriNear(v, depth, nearDepth, out, source);
  std::array<ProjectedVertex, 4> q;
  for (std::uint32_t k = 0; k < n; ++k) {
    if (source[k] >= 0) {
      q[k] = p[static_cast<std::size_t>(source[k])];
      ++count.reused;
    } else {
      q[k] = project(out[k]);
      ++count.projected;
    }
  }
  for (std::uint32_t k = 1; k + 1 < n; ++k) {
    draw(out[0], out[k], out[k + 1], q[0], q[k], q[k + 1]);
    ++count.drawn;
  }
  return count;
}

/// A screen coordinate on Vulkan's sub-pixel grid, as a GPU rasterizer snaps its vertices (8
/// bits: 1/256 pixel, the subPixelPrecisionBits of lavapipe and the GPUs Mote is measured on), so
/// that a GPU given the same triangles (RasterTriangle) covers the same pixels: an edge through a
/// pixel centre is decided by the top-left rule on both. Past 2^15 pixels the float is coarser
/// than the grid already and is kept. Pure; O(1).
inline float snapToSubpixel(float v) noexcept {
  return std::fabs(v) < 32768.0f ? std::nearbyint(v * 256.0f) / 256.0f : v;
}

/// A triangle on the screen: its vertices, bounds, style (into the rasterizer's quad styles) and
/// whether it writes the depth buffers.
struct ScreenTriangle {
  std::array<TriangleVertex, 3> v{};
  float minX = 0.0f, maxX = 0.0f, minY = 0.0f, maxY = 0.0f;
  std::uint32_t style = 0;
  bool depthWrite = true;
};

/// Sets the triangle's bounds from its vertices; false when it has no area on a width × height
/// screen (off screen, degenerate or NaN) — the fill's bounding-box cull. Pure; O(1).
bool boundTriangle(ScreenTriangle& t, float width, float height) noexcept;

/// Where a fill writes: the frame (width pixels a row), the depth the triangle tests against and
/// writes (sceneDepth: the ground and the depth-writing triangles so far; +inf where empty), the
/// depth of the depth-writing triangles alone (meshDepth, which hard quads test), and the OIT
/// planes (where the caller set q.oitPlane: translucent fragments of an OIT frame accumulate
/// there, weighted by their own depth, and write no depth).
struct TriangleTarget {
  std::uint32_t width = 0;
  std::array<float, 4>* frame = nullptr;
  float* sceneDepth = nullptr;
  float* meshDepth = nullptr;
  std::array<float, 4>* oit = nullptr;
};

/// Fills `t`'s pixels in rows [y0, y1): a pixel centre is inside when every edge function is > 0,
/// or 0 on a top or left edge (Vulkan's rule, so triangles sharing an edge cover each pixel once);
/// texture coordinate, colour and depth are interpolated perspective-correctly (over 1/w); a
/// fragment at or behind the scene depth is dropped; `q` gives the texture, blend and cutoff
/// (q.color is set per fragment). Writes depth where t.depthWrite (a cutout fragment below the
/// cutoff writes nothing). Complexity: O(pixels of the bounds in the rows). Allocates: never.
void rasterizeTriangle(const ScreenTriangle& t, SpanQuad q, std::uint32_t y0, std::uint32_t y1,
                       const TriangleTarget& target) noexcept;

}  // namespace mote::render
