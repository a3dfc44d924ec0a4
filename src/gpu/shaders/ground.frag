// SPDX-License-Identifier: MIT
// The ground pass's fragment stage (src/gpu/renderer.cpp): the grid (ground.glsl) where the view
// ray meets the ground; elsewhere the cleared background stays.
#version 460

layout(std430, binding = 0) readonly buffer FrameWords { uint frame[]; };
uint frameWord(uint k) { return frame[k]; }
#include "ground.glsl"

layout(location = 0) out vec4 outColor;

void main() {
  float depth;
  vec3 rgb;
  if (!groundAt(groundView(), gl_FragCoord.xy, depth, rgb)) discard;
  outColor = vec4(rgb, 1.0);
}
