// SPDX-License-Identifier: MIT
// Prefix scan, pass 2 of 3 (scan.glsl): one workgroup turns the block totals into exclusive block
// offsets, 256 at a time with a running carry (any number of blocks, no other workgroup involved),
// and writes the grand total and the dispatch that covers it: ceil(total / groupSize) workgroups of
// the pass the scan feeds (the emit pass, one invocation per newborn).
#version 460
#include "scan.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer Partials { uint partials[]; };
// [0] the total, [1..3] a VkDispatchIndirectCommand for it.
layout(std430, binding = 1) writeonly buffer Result { uint result[]; };

layout(push_constant) uniform Push {
  uint blocks;
  uint groupSize;    // invocations per workgroup of the pass the dispatch is for
  uint maxGroups;    // the device's maxComputeWorkGroupCount[0]
} push;

void main() {
  const uint i = gl_LocalInvocationID.x;
  uint carry = 0u;
  for (uint base = 0u; base < push.blocks; base += kScanBlock) {
    const uint at = base + i;
    const uint value = at < push.blocks ? partials[at] : 0u;
    const uint inclusive = workgroupInclusiveScan(value);
    if (at < push.blocks) partials[at] = carry + inclusive - value;  // exclusive
    carry += gScan[kScanBlock - 1u];
    barrier();  // gScan is rewritten by the next round
  }
  if (i == 0u) {
    result[0] = carry;
    const uint groupSize = max(push.groupSize, 1u);
    result[1] = min((carry + groupSize - 1u) / groupSize, push.maxGroups);
    result[2] = 1u;
    result[3] = 1u;
  }
}
