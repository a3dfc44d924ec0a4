// SPDX-License-Identifier: MIT
// One step of a bitonic sort (Batcher 1968) of the pool drawing's sort entries (draw_layout.h:
// three key words compared in order, then the slot), ascending over a power-of-two length: for
// the step's block size k and distance j, each invocation compares entries i and i + j of one
// block and swaps them where they are out of the block's direction. The host records the
// log2(n)·(log2(n) + 1)/2 steps with a barrier between each; no workgroup waits on another (no
// forward progress is needed between workgroups, which lavapipe does not give). Equal keys never
// occur between entries that draw (ids are unique within an emitter), so the order is one order.
#version 460

#include "draw_layout_constants.glsl"  // src/gpu/draw_layout.h

layout(local_size_x = 64) in;

layout(std430, binding = 0) buffer Keys { uint keys[]; };

layout(push_constant) uniform Push {
  uint entries;  // the power-of-two length (0: priming)
  uint block;    // k
  uint distance; // j < k
  uint threads;  // invocations dispatched (each strides past them)
} push;

uvec4 entryAt(uint i) {
  const uint at = i * kSortWords;
  return uvec4(keys[at], keys[at + 1u], keys[at + 2u], keys[at + 3u]);
}
void store(uint i, uvec4 e) {
  const uint at = i * kSortWords;
  keys[at] = e.x;
  keys[at + 1u] = e.y;
  keys[at + 2u] = e.z;
  keys[at + 3u] = e.w;
}
bool less(uvec4 a, uvec4 b) {
  if (a.x != b.x) return a.x < b.x;
  if (a.y != b.y) return a.y < b.y;
  return a.z < b.z;
}

void main() {
  if (push.entries == 0u || push.distance == 0u) return;
  const uint j = push.distance;
  for (uint t = gl_GlobalInvocationID.x; t < push.entries / 2u; t += push.threads) {
    const uint i = (t / j) * 2u * j + (t % j);
    const uint l = i + j;
    const uvec4 a = entryAt(i);
    const uvec4 b = entryAt(l);
    const bool ascending = (i & push.block) == 0u;
    if (ascending ? less(b, a) : less(a, b)) {
      store(i, b);
      store(l, a);
    }
  }
}
