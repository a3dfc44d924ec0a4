// SPDX-License-Identifier: MIT
// The GPU renderer's mesh triangles (src/gpu/renderer.cpp, subpass 0): each vertex as the software
// rasterizer has it on the screen (render::RasterTriangle: pixels, 1 / w, camera depth — near-
// clipped, culled and lit on the host by the software renderer's own triangle layer), put back into
// clip space with its w, so that Vulkan interpolates over 1 / w as the software fill does. z sits
// mid-range (nothing is clipped there); the fragment writes its own depth.
#version 460

layout(std430, binding = 0) readonly buffer FrameWords { uint frame[]; };
// Per triangle 33 words: three vertices of x, y, 1 / w, depth, u, v and the premultiplied colour
// (10 words each), then the texture, the flags (1 cutout; 8 additive and 16 accumulated, in an OIT
// frame) and the cutoff.
layout(std430, binding = 5) readonly buffer TriangleWords { uint triangles[]; };

layout(location = 0) out vec2 outUv;
layout(location = 1) out vec4 outColor;
layout(location = 2) out float outDepth;
layout(location = 3) flat out uvec3 outStyle;  // texture, flags, cutoff

float word(uint k) { return uintBitsToFloat(triangles[k]); }

void main() {
  const uint t = uint(gl_VertexIndex) / 3u;
  const uint at = t * 33u + (uint(gl_VertexIndex) % 3u) * 10u;
  const vec2 size = uintBitsToFloat(uvec2(frame[41], frame[42]));
  const float w = 1.0 / word(at + 2u);
  const vec2 ndc = vec2(word(at), word(at + 1u)) / size * 2.0 - 1.0;
  gl_Position = vec4(ndc * w, 0.5 * w, w);
  outDepth = word(at + 3u);
  outUv = vec2(word(at + 4u), word(at + 5u));
  outColor = vec4(word(at + 6u), word(at + 7u), word(at + 8u), word(at + 9u));
  outStyle = uvec3(triangles[t * 33u + 30u], triangles[t * 33u + 31u], triangles[t * 33u + 32u]);
}
