// SPDX-License-Identifier: MIT
// billboard.glsl's corners for independent cases (src/gpu/billboard_cases.cpp): one view, one mode,
// one particle a thread, its four corners written out for the host to compare with
// render::billboardCorners.
#version 460
#include "billboard.glsl"

layout(local_size_x = 64) in;

// The view: eye, forward, right, up, worldUp, groundRight, groundUp (3 words each), then
// orthographic (0 or 1), heightsPerUnit, stretchScaleSeconds.
layout(std430, binding = 0) readonly buffer View { uint view[]; };
// Per case 16 words: position, velocity, halfSize, orientation (x, y, z, w), emitterRotation.
layout(std430, binding = 1) readonly buffer Inputs { uint inputs[]; };
// Per case 12 words: the four corners.
layout(std430, binding = 2) writeonly buffer Corners { uint corners[]; };

layout(push_constant) uniform Push { uint cases; uint mode; } push;

uvec3 viewVec(uint k) { return uvec3(view[3u * k], view[3u * k + 1u], view[3u * k + 2u]); }

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= push.cases) return;
  BillboardView v;
  v.eye = viewVec(0u);
  v.forward = viewVec(1u);
  v.right = viewVec(2u);
  v.up = viewVec(3u);
  v.worldUp = viewVec(4u);
  v.groundRight = viewVec(5u);
  v.groundUp = viewVec(6u);
  v.orthographic = view[21] != 0u;
  v.heightsPerUnit = view[22];
  v.stretchScaleSeconds = view[23];
  const uint at = 16u * i;
  BillboardInput p;
  p.position = uvec3(inputs[at], inputs[at + 1u], inputs[at + 2u]);
  p.velocity = uvec3(inputs[at + 3u], inputs[at + 4u], inputs[at + 5u]);
  p.halfSize = uvec2(inputs[at + 6u], inputs[at + 7u]);
  p.orientation = uvec4(inputs[at + 8u], inputs[at + 9u], inputs[at + 10u], inputs[at + 11u]);
  p.emitterRotation = uvec4(inputs[at + 12u], inputs[at + 13u], inputs[at + 14u], inputs[at + 15u]);
  const Mat3 basis = particleBasis(v, push.mode, p);
  for (uint c = 0u; c < 4u; ++c) {
    const uvec3 corner = billboardCorner(basis, p.position, c);
    corners[12u * i + 3u * c] = corner.x;
    corners[12u * i + 3u * c + 1u] = corner.y;
    corners[12u * i + 3u * c + 2u] = corner.z;
  }
}
