// SPDX-License-Identifier: MIT
// Triangles as the software rasterizer fills them (the triangle layer, docs/rendering.md "Mesh
// particles"): on the screen already — near-clipped, back faces culled, lit — each vertex with
// its 1 / w for perspective-correct interpolation and its camera depth for the z-test.
// ParticleRenderer::prepareTriangles() and triangles() hand a frame's mesh particles out in this
// form, so that another rasterizer (the GPU renderer, <mote/gpu/renderer.h>) fills exactly the
// triangles the software one fills. Plain data: no ownership, no allocation, thread-safe to read.
#pragma once

#include <array>
#include <cstdint>

namespace mote::render {

/// A triangle's vertex as a fill reads it.
struct TriangleVertex {
  float x = 0.0f, y = 0.0f;      ///< pixels, y down, from the viewport's top-left corner
  float invW = 0.0f;             ///< 1 / clip w
  float depth = 0.0f;            ///< camera depth, dot(p − eye, forward)
  float u = 0.0f, v = 0.0f;      ///< texture coordinate (v down: image rows top-down)
  std::array<float, 4> color{};  ///< premultiplied linear (alpha 0 for additive)
};

/// How a triangle's fragments blend (the software rasterizer's one premultiplied equation).
enum class TriangleBlend : std::uint8_t { Over, Additive, Cutout };

/// A triangle of a frame, in draw order. A fill tests pixel centres with Vulkan's top-left rule,
/// interpolates texture coordinate, colour and depth over 1 / w, drops a fragment at or behind
/// the depth written so far (the ground's, then the depth-writing triangles'), samples `texture`
/// bilinearly (clamped to the edge texels), and blends premultiplied — alpha, additive (alpha 0)
/// or cutout (texel alpha · colour alpha below `cutoff` is cut; else the texel's straight colour
/// times the vertex colour's, opaque). Under weighted blended OIT a translucent (not cutout)
/// triangle accumulates into the OIT planes, weighted by its fragment's depth
/// (render::oitDepthWeight), and writes no depth.
struct RasterTriangle {
  std::array<TriangleVertex, 3> v{};
  std::uint32_t texture = 0;  ///< ParticleRenderer::texture(index)
  TriangleBlend blend = TriangleBlend::Over;
  float cutoff = 0.5f;
  bool depthWrite = true;  ///< its fragments write the depth later ones (and hard quads) test
};

}  // namespace mote::render
