// SPDX-License-Identifier: MIT
// The frame's indirect arguments from the alive list it leaves (docs/gpu.md, "The frame"): the
// bounds pass's dispatch, one invocation per entry, and the draw a renderer records over the pool
// (a quad's 6 vertices, one instance per live particle). One invocation, after the emit pass.
#version 460

#include "frame_layout.glsl"

layout(local_size_x = 1) in;

layout(std430, binding = 0) buffer Counters { uint counters[]; };

layout(push_constant) uniform Push {
  uint rowCount;   // 0 for the priming dispatch: nothing runs
  uint parity;     // the alive half the frame's simulate pass read (it appended to the other)
  uint maxGroups;  // the most workgroups a pass dispatches (it strides past them)
} push;

void main() {
  if (push.rowCount == 0u) return;
  const uint n = counters[aliveCounter(push.parity ^ 1u)];
  counters[kCountBoundsArgs] = min((n + kFrameGroup - 1u) / kFrameGroup, push.maxGroups);
  counters[kCountBoundsArgs + 1u] = 1u;
  counters[kCountBoundsArgs + 2u] = 1u;
  counters[kCountDrawArgs] = 6u;
  counters[kCountDrawArgs + 1u] = n;
  counters[kCountDrawArgs + 2u] = 0u;
  counters[kCountDrawArgs + 3u] = 0u;
}
