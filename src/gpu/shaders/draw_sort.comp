// SPDX-License-Identifier: MIT
// A bitonic sort (Batcher 1968) of the pool drawing's sort entries (draw_layout.h: three key
// words compared in order, then the slot), ascending over a power-of-two length n, in passes the
// host records with a barrier between each:
//   local   each workgroup sorts tiles of min(n, 512) entries in shared memory: every block size k
//           from 2 to the tile (block 0), or, for a block size k past the tile, the steps of
//           distance 256 down to 1 that merge it (block k);
//   global  one compare-exchange step of block size k and distance j >= the tile over all n.
// For n = 2^20 that is 78 passes where a step a pass would be 210. No workgroup waits on another
// (lavapipe gives no forward progress between workgroups). Equal keys never occur between entries
// that draw (ids are unique within an emitter), so the order is one order.
#version 460

#include "draw_layout_constants.glsl"  // src/gpu/draw_layout.h

layout(local_size_x = 256) in;

layout(std430, binding = 0) buffer Keys { uint keys[]; };

layout(push_constant) uniform Push {
  uint entries;   // n, a power of two (0: priming)
  uint block;     // k (local: 0 sorts each tile whole)
  uint distance;  // j (global steps)
  uint threads;   // invocations dispatched (each strides past them)
  uint local_;    // 1: a local pass
} push;

const uint kTile = 512u;
shared uvec4 tile[kTile];

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
// Entries i < l = i + j of one block of size k, in the block's direction (ascending where the
// global index has bit k clear).
void compareExchange(inout uvec4 a, inout uvec4 b, uint globalI, uint k) {
  const bool ascending = (globalI & k) == 0u;
  if (ascending ? less(b, a) : less(a, b)) {
    const uvec4 t = a;
    a = b;
    b = t;
  }
}

void localPass() {
  const uint size = min(push.entries, kTile);
  const uint firstK = push.block == 0u ? 2u : push.block;
  const uint lastK = push.block == 0u ? size : push.block;
  const uint t = gl_LocalInvocationID.x;
  for (uint base = gl_WorkGroupID.x * size; base < push.entries; base += gl_NumWorkGroups.x * size) {
    for (uint e = t; e < size; e += gl_WorkGroupSize.x)
      tile[e] = entryAt(base + e);
    barrier();
    for (uint k = firstK; k <= lastK; k <<= 1u) {
      for (uint j = min(k, size) >> 1u; j > 0u; j >>= 1u) {
        if (t < size / 2u) {
          const uint i = (t / j) * 2u * j + (t % j);
          uvec4 a = tile[i];
          uvec4 b = tile[i + j];
          compareExchange(a, b, base + i, k);
          tile[i] = a;
          tile[i + j] = b;
        }
        barrier();
      }
    }
    for (uint e = t; e < size; e += gl_WorkGroupSize.x)
      store(base + e, tile[e]);
    barrier();
  }
}

void globalStep() {
  const uint j = push.distance;
  for (uint t = gl_GlobalInvocationID.x; t < push.entries / 2u; t += push.threads) {
    const uint i = (t / j) * 2u * j + (t % j);
    uvec4 a = entryAt(i);
    uvec4 b = entryAt(i + j);
    const uvec4 a0 = a;
    compareExchange(a, b, i, push.block);
    if (a != a0) {
      store(i, a);
      store(i + j, b);
    }
  }
}

void main() {
  if (push.entries == 0u) return;
  if (push.local_ != 0u) {
    localPass();
  } else if (push.distance != 0u) {
    globalStep();
  }
}
