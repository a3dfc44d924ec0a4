// SPDX-License-Identifier: MIT
// The ground pass's fragment stage (src/gpu/renderer.cpp, subpass 0): the grid (ground.glsl) where
// the view ray meets the ground, and its view depth into the scene depth (the plane soft particles
// fade against) and the depth buffer mesh triangles test against (depth.glsl's encoding);
// elsewhere the cleared background and depths (+inf) stay.
#version 460

layout(std430, binding = 0) readonly buffer FrameWords { uint frame[]; };
uint frameWord(uint k) { return frame[k]; }
#include "depth.glsl"
#include "ground.glsl"

layout(location = 0) out vec4 outSceneDepth;
layout(location = 2) out vec4 outColor;

void main() {
  float depth;
  vec3 rgb;
  if (!groundAt(groundView(), gl_FragCoord.xy, depth, rgb)) discard;
  outSceneDepth = vec4(depth);
  gl_FragDepth = encodedDepth(depth);
  outColor = vec4(rgb, 1.0);
}
