// SPDX-License-Identifier: MIT
// Prefix scan, pass 1 of 3 (scan.glsl): each workgroup's inclusive scan of its 256 counts, and the
// workgroup's total into `partials`.
#version 460
#include "scan.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Counts { uint counts[]; };
layout(std430, binding = 1) writeonly buffer Sums { uint sums[]; };
layout(std430, binding = 2) writeonly buffer Partials { uint partials[]; };

layout(push_constant) uniform Push { uint count; } push;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  const uint sum = workgroupInclusiveScan(i < push.count ? counts[i] : 0u);
  if (i < push.count) sums[i] = sum;
  if (gl_LocalInvocationID.x == kScanBlock - 1u) partials[gl_WorkGroupID.x] = sum;
}
