// SPDX-License-Identifier: MIT
// The GPU renderer's fragment stage (src/gpu/renderer.cpp; sprite.frag into the frame, and
// sprite_oit.frag with weighted blended OIT's two planes), as the software rasterizer's span loop
// shades a pixel (raster_kernel.h): the particle's texture cell sampled bilinearly
// (fragment_common.glsl; a ribbon segment's coordinates screen-linear, as there), mixed toward the
// flipbook's next cell by its weight, times the particle's premultiplied colour (a lit sprite's:
// its four corners' mixed bilinearly at (s, t)); cutout particles alpha-tested and drawn opaque;
// soft ones faded against the scene's depth, the others hidden behind mesh triangles. Blended by
// the pipeline as one premultiplied equation, dst = src + dst · (1 − src.a), which additive
// particles (alpha 0) share; under OIT, translucent fragments accumulate instead.

#include "fragment_common.glsl"

// The scene's depth under the pixel (the ground's and the depth-writing mesh triangles', +inf
// where neither is) and the mesh triangles' alone, which subpass 0 wrote (renderer.cpp).
layout(input_attachment_index = 0, set = 0, binding = 6) uniform subpassInput sceneDepth;
layout(input_attachment_index = 1, set = 0, binding = 7) uniform subpassInput meshDepth;

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
layout(location = 8) flat in vec4 inLit[4];  // a sprite lit in the vertex stage (flag 32)
layout(location = 0) out vec4 outColor;
#if MOTE_OIT
// Weighted blended OIT's planes: the accumulated (rgb·w, a·w), blended by adding, and (additive
// rgb, revealage), blended rgb by adding and alpha by dst · (1 − src.a) (renderer.cpp's blend).
layout(location = 1) out vec4 outSums;
layout(location = 2) out vec4 outSide;
#endif

void main() {
  // Soft particles fade against the scene's depth; in a frame with mesh triangles every other
  // particle is hidden behind them (flag 16), as the software rasterizer's step at their depth.
  const float softInverse = uintBitsToFloat(inStyle.y);
  const float viewDepth = uintBitsToFloat(inStyle.z);
  float fade = 1.0;
  if (softInverse != 0.0) {
    fade = clamp((subpassLoad(sceneDepth).r - viewDepth) * softInverse, 0.0, 1.0);
    if (!(fade > 0.0)) discard;
  } else if ((inStyle.x & 16u) != 0u) {
    fade = clamp((subpassLoad(meshDepth).r - viewDepth) * 1e30, 0.0, 1.0);
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
  if ((inStyle.x & 32u) != 0u) {  // lit in the vertex stage: its corners' colours at (s, t)
    const vec4 bottom = inLit[0] + (inLit[1] - inLit[0]) * s;
    const vec4 top = inLit[3] + (inLit[2] - inLit[3]) * s;
    color = bottom + (top - bottom) * q;
  } else if (inStyle.w != ~0u) {  // lit: the corners' colours at (s, t)
    const uint c = inStyle.w * 4u;
    const vec4 bottom = corners[c] + (corners[c + 1u] - corners[c]) * s;
    const vec4 top = corners[c + 3u] + (corners[c + 2u] - corners[c + 3u]) * s;
    color = bottom + (top - bottom) * q;
  }
  vec4 src = tex * color;
  if ((inStyle.x & 1u) != 0u) {  // cutout
    if (cutAway(tex, color, inNext.w)) discard;
    src = cutoutColor(tex, color);
  }
  src *= fade * inWeights.x;
#if MOTE_OIT
  // A translucent fragment of an OIT frame (its depth weight above 0) accumulates; cutout ones
  // blend into the frame.
  writeOit(src, inWeights.y, (inStyle.x & 8u) != 0u, outColor, outSums, outSide);
#else
  outColor = src;
#endif
}
