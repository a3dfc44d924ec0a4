// SPDX-License-Identifier: MIT
// The GPU renderer's fragment stage (src/gpu/renderer.cpp; sprite.frag into the frame, and
// sprite_oit.frag with weighted blended OIT's two planes), as the software rasterizer's span loop
// shades a pixel (raster_kernel.h): the particle's texture cell sampled bilinearly, clamped to the
// edge texels, with its footprint (texel centres at (u·width − 0.5, v·height − 0.5), premultiplied
// linear texels; a ribbon segment's coordinates screen-linear, as there), mixed toward the
// flipbook's next cell by its weight, times the particle's premultiplied colour (a lit sprite's:
// its four corners' mixed bilinearly at (s, t)); cutout particles alpha-tested and drawn opaque;
// soft ones faded against the ground's depth. Blended by the pipeline as one premultiplied
// equation, dst = src + dst · (1 − src.a), which additive particles (alpha 0) share; under OIT,
// translucent fragments accumulate instead (blendOit's arithmetic).

layout(std430, binding = 0) readonly buffer FrameWords { uint frame[]; };
uint frameWord(uint k) { return frame[k]; }
#include "ground.glsl"

// Per texture: its first texel in `texels`, width, height, unused.
layout(std430, binding = 2) readonly buffer Textures { uvec4 textures[]; };
layout(std430, binding = 3) readonly buffer Texels { vec4 texels[]; };
// Lit sprites' corner colours, four a sprite (billboard corner order).
layout(std430, binding = 4) readonly buffer Corners { vec4 corners[]; };

layout(location = 0) in vec2 inQuad;
layout(location = 1) flat in vec4 inColor;
layout(location = 2) flat in vec4 inCell;
layout(location = 3) flat in uint inTexture;
layout(location = 4) flat in vec4 inNext;   // the next cell's origin, its weight, the cutoff
layout(location = 5) flat in uvec4 inStyle;  // flags, soft inverse, view depth, corners
// The coverage (1, or a sub-pixel quad's area) and the OIT depth weight (0: blended).
layout(location = 6) flat in vec2 inWeights;
layout(location = 7) noperspective in vec2 inAffine;  // (s, t) screen-linearly: ribbons'
layout(location = 0) out vec4 outColor;
#if MOTE_OIT
// Weighted blended OIT's planes: the accumulated (rgb·w, a·w), blended by adding, and (additive
// rgb, revealage), blended rgb by adding and alpha by dst · (1 − src.a) (renderer.cpp's blend).
layout(location = 1) out vec4 outSums;
layout(location = 2) out vec4 outSide;
#endif

vec4 texel(uvec4 t, int x, int y) {
  const int cx = clamp(x, 0, int(t.y) - 1);
  const int cy = clamp(y, 0, int(t.z) - 1);
  return texels[t.x + uint(cy) * t.y + uint(cx)];
}

vec4 bilinear(uvec4 t, float u, float v) {
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
  return mix(top, bottom, ay);
}

void main() {
  const float softInverse = uintBitsToFloat(inStyle.y);
  float fade = 1.0;
  if (softInverse != 0.0) {
    float ground;
    vec3 unused;
    if (frameWord(48u) != 0u && groundAt(groundView(), gl_FragCoord.xy, ground, unused))
      fade = clamp((ground - uintBitsToFloat(inStyle.z)) * softInverse, 0.0, 1.0);
    if (!(fade > 0.0)) discard;
  }
  const uvec4 t = textures[inTexture];
  const vec2 st = (inStyle.x & 4u) != 0u ? inAffine : inQuad;  // a ribbon segment: affinely
  const float s = clamp(st.x, 0.0, 1.0);
  const float q = clamp(st.y, 0.0, 1.0);
  // Image rows run top-down; the quad's t runs bottom-up.
  const float su = s * inCell.z;
  const float tv = (1.0 - q) * inCell.w;
  vec4 tex = bilinear(t, inCell.x + su, inCell.y + tv);
  if (inNext.z > 0.0) tex += (bilinear(t, inNext.x + su, inNext.y + tv) - tex) * inNext.z;
  vec4 color = inColor;
  if (inStyle.w != ~0u) {  // lit: the corners' colours at (s, t)
    const uint c = inStyle.w * 4u;
    const vec4 bottom = corners[c] + (corners[c + 1u] - corners[c]) * s;
    const vec4 top = corners[c + 3u] + (corners[c + 2u] - corners[c + 3u]) * s;
    color = bottom + (top - bottom) * q;
  }
  vec4 src = tex * color;
  if ((inStyle.x & 1u) != 0u) {  // cutout: the texel's straight colour times the particle's
    const float a = tex.a * color.a;
    if (a < inNext.w || tex.a <= 0.0) discard;
    const float alpha = max(color.a, 1e-6);
    src = vec4(tex.rgb / tex.a * color.rgb / alpha, 1.0);
  }
  src *= fade * inWeights.x;
#if MOTE_OIT
  // A translucent fragment of an OIT frame (its depth weight above 0) accumulates, as
  // raster_kernel.h's blendOit: additive ones into the side plane's rgb, others into the sums
  // (src · a · weight) and the revealage (times 1 − a); cutout ones blend into the frame.
  const float oitWeight = inWeights.y;
  outColor = vec4(0.0);
  outSums = vec4(0.0);
  outSide = vec4(0.0);
  if (!(oitWeight > 0.0)) {
    outColor = src;
  } else if ((inStyle.x & 8u) != 0u) {
    outSide = vec4(src.rgb, 0.0);
  } else {
    outSums = src * (src.a * oitWeight);
    outSide = vec4(0.0, 0.0, 0.0, src.a);
  }
#else
  outColor = src;
#endif
}
