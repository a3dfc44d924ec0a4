// SPDX-License-Identifier: MIT
// The GPU renderer's mesh triangles' fragment stage (triangle.frag into the frame, triangle_oit.frag
// with weighted blended OIT's planes), as the software triangle layer fills a pixel
// (triangle_layer.cpp): the depth tested by the pipeline (LESS against depth.glsl's encoding of the
// ground's and the depth-writing triangles' depth so far), the texture sampled bilinearly at the
// interpolated coordinate, times the interpolated premultiplied colour; cutout fragments
// alpha-tested (a cut one writes nothing) and opaque. Depth-writing pipelines write the depth
// buffer, the scene depth and the mesh depth the quads of subpass 1 read; an OIT frame's
// translucent triangles accumulate, weighted by the fragment's depth, and write none.

#include "depth.glsl"
#include "fragment_common.glsl"

layout(location = 0) in vec2 inUv;
layout(location = 1) in vec4 inColor;
layout(location = 2) in float inDepth;
layout(location = 3) flat in uvec3 inStyle;  // texture, flags, cutoff

layout(location = 0) out vec4 outSceneDepth;
layout(location = 1) out vec4 outMeshDepth;
layout(location = 2) out vec4 outColor;
#if MOTE_OIT
layout(location = 3) out vec4 outSums;
layout(location = 4) out vec4 outSide;
#endif

// render::oitDepthWeight (depth_key.h): McGuire and Bavoil's weight of a view depth.
float oitDepthWeight(float z) {
  const float a = abs(z) / 5.0;
  const float b = abs(z) / 200.0;
  const float b3 = b * b * b;
  return clamp(10.0 / (1e-5 + a * a + b3 * b3), 1e-2, 3e3);
}

void main() {
  const float depth = inDepth;
  gl_FragDepth = encodedDepth(depth);
  const vec4 tex = bilinear(textures[inStyle.x], inUv.x, inUv.y);
  const vec4 color = inColor;
  vec4 src = tex * color;
  if ((inStyle.y & 1u) != 0u) {
    if (cutAway(tex, color, uintBitsToFloat(inStyle.z))) discard;
    src = cutoutColor(tex, color);
  }
  outSceneDepth = vec4(depth);
  outMeshDepth = vec4(depth);
#if MOTE_OIT
  const float weight = (inStyle.y & 16u) != 0u ? oitDepthWeight(depth) : 0.0;
  writeOit(src, weight, (inStyle.y & 8u) != 0u, outColor, outSums, outSide);
#else
  outColor = src;
#endif
}
