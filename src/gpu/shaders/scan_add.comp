// SPDX-License-Identifier: MIT
// Prefix scan, pass 3 of 3 (scan.glsl): each block's exclusive offset added to its inclusive sums.
#version 460

layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer Sums { uint sums[]; };
layout(std430, binding = 1) readonly buffer Partials { uint partials[]; };

layout(push_constant) uniform Push { uint count; } push;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < push.count && gl_WorkGroupID.x > 0u) sums[i] += partials[gl_WorkGroupID.x];
}
