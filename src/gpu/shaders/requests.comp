// SPDX-License-Identifier: MIT
// The frame's SPAWN requests between two frames (docs/gpu.md, "The frame"): the carry pass keeps
// in this frame's half the requests of sources that did not step (another effect's prewarm), as
// the CPU keeps a source's requests until its next step; then the half is sorted by (target's
// effect key, source emitter, source id, the particle's own order) — a bitonic network whose
// compare-exchanges only ever put the smaller record first, so the records past the count act as
// +infinity without being written, run by one workgroup over the count the GPU wrote. The order of
// atomics that gathered the requests changes nothing.
#version 460

#include "frame_layout.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Input { uint frameInput[]; };
layout(std430, binding = 1) buffer Counters { uint counters[]; };
layout(std430, binding = 2) buffer Requests { uint requests[]; };

layout(push_constant) uniform Push {
  uint mode;       // 0 carry, 1 the sort (one workgroup); rowCount 0 primes
  uint rowCount;
  uint parity;     // the half the frame read (it writes the other)
  uint requestCapacity;
} push;

uint step_(uint row, uint k) { return frameInput[row * kStepWords + k]; }

// Record a's key is above record b's.
bool above(uint a, uint b) {
  for (uint w = 0u; w < 4u; ++w) {
    const uint x = requests[a * kRequestWords + w];
    const uint y = requests[b * kRequestWords + w];
    if (x != y) return x > y;
  }
  return false;
}

void main() {
  if (push.rowCount == 0u) return;
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const uint into = push.parity ^ 1u;
  if (push.mode == 0u) {
    const uint n = counters[requestCounter(push.parity)];
    for (uint t = gl_GlobalInvocationID.x; t < n; t += stride) {
      const uint from = (push.parity * push.requestCapacity + t) * kRequestWords;
      const uint source = requests[from + kRequestRow];
      if (source >= push.rowCount) continue;
      const uint flags = step_(source, kStepFlags);
      if ((flags & kRowAlive) == 0u || (flags & kRowStepping) != 0u ||
          step_(source, kStepGeneration) != requests[from + kRequestGeneration])
        continue;  // void, or replaced by what the source asks for this frame
      const uint q = atomicAdd(counters[requestCounter(into)], 1u);
      if (q >= push.requestCapacity) {
        atomicAdd(counters[kCountRequestOverflow], 1u);
        continue;
      }
      const uint to = (into * push.requestCapacity + q) * kRequestWords;
      for (uint w = 0u; w < kRequestWords; ++w) requests[to + w] = requests[from + w];
    }
    return;
  }
  // The sort: one workgroup runs the whole network, a barrier between passes (no workgroup waits
  // on another's progress, and one dispatch whatever the count).
  const uint n = min(counters[requestCounter(into)], push.requestCapacity);
  uint p = 1u;
  while (p < n) p <<= 1;
  const uint base = into * push.requestCapacity;
  for (uint k = 2u; k <= p; k <<= 1) {
    for (uint j = k / 2u; j >= 1u; j >>= 1) {
      for (uint t = gl_LocalInvocationID.x; t < p / 2u; t += gl_WorkGroupSize.x) {
        uint lo;
        uint hi;
        if (j == k / 2u) {  // the block's two halves against each other, mirrored
          const uint block = (t / j) * k;
          lo = block + t % j;
          hi = block + k - 1u - t % j;
        } else {
          lo = (t / j) * 2u * j + t % j;
          hi = lo + j;
        }
        if (hi >= n || !above(base + lo, base + hi)) continue;  // past the count: +infinity
        for (uint w = 0u; w < kRequestWords; ++w) {
          const uint x = requests[(base + lo) * kRequestWords + w];
          requests[(base + lo) * kRequestWords + w] = requests[(base + hi) * kRequestWords + w];
          requests[(base + hi) * kRequestWords + w] = x;
        }
      }
      memoryBarrierBuffer();
      barrier();
    }
  }
}
