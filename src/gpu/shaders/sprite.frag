// SPDX-License-Identifier: MIT
// The GPU renderer's fragment stage (src/gpu/renderer.cpp): the particle's texture cell sampled
// bilinearly, clamped to the edge texels, with the software rasterizer's footprint (raster_kernel.h:
// texel centres at (u·width − 0.5, v·height − 0.5), premultiplied linear texels), times the
// particle's premultiplied colour. Blended by the pipeline as one premultiplied equation:
// dst = src + dst · (1 − src.a), which additive particles (alpha 0) share.
#version 460

// Per texture: its first texel in `texels`, width, height, unused.
layout(std430, binding = 2) readonly buffer Textures { uvec4 textures[]; };
layout(std430, binding = 3) readonly buffer Texels { vec4 texels[]; };

layout(location = 0) in vec2 inQuad;
layout(location = 1) flat in vec4 inColor;
layout(location = 2) flat in vec4 inCell;
layout(location = 3) flat in uint inTexture;
layout(location = 0) out vec4 outColor;

vec4 texel(uvec4 t, int x, int y) {
  const int cx = clamp(x, 0, int(t.y) - 1);
  const int cy = clamp(y, 0, int(t.z) - 1);
  return texels[t.x + uint(cy) * t.y + uint(cx)];
}

void main() {
  const uvec4 t = textures[inTexture];
  const float s = clamp(inQuad.x, 0.0, 1.0);
  const float q = clamp(inQuad.y, 0.0, 1.0);
  // Image rows run top-down; the quad's t runs bottom-up.
  const float u = inCell.x + s * inCell.z;
  const float v = inCell.y + (1.0 - q) * inCell.w;
  const float x = clamp(u * float(t.y) - 0.5, -1.0, float(t.y));
  const float y = clamp(v * float(t.z) - 0.5, -1.0, float(t.z));
  const float fx = floor(x);
  const float fy = floor(y);
  const int ix = int(fx);
  const int iy = int(fy);
  const float ax = x - fx;
  const float ay = y - fy;
  const vec4 top = mix(texel(t, ix, iy), texel(t, ix + 1, iy), ax);
  const vec4 bottom = mix(texel(t, ix, iy + 1), texel(t, ix + 1, iy + 1), ax);
  outColor = mix(top, bottom, ay) * inColor;
}
