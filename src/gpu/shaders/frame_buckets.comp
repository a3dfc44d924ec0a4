// SPDX-License-Identifier: MIT
// The simulation order (docs/gpu.md, "Two orderings"; meep's coherence pass): the alive list the
// simulate pass reads, bucketed by program so that a wave runs one program. A counting sort with
// padding, over the alive half the rows pass chose:
//   mode 0  histogram — one invocation per entry: its bucket (its row's program's, or the last
//           bucket for a record the simulate pass frees or keeps without running) counted;
//   mode 1  pad — one per bucket: its count rounded up to whole workgroups (kFrameGroup);
//           then the prefix scan of the padded counts (the host records it between);
//   mode 2  scatter — one per entry: its slot at its bucket's start plus a cursor;
//   mode 3  tails — one workgroup per bucket: the padding after its entries set to kPadSlot,
//           which the simulate pass drops before any of its atomics.
// Every bucket then starts on a workgroup boundary and holds one program, so each of the simulate
// pass's workgroups — and each subgroup in it, whatever the device's width (8, 32 or 64) — runs
// one program. Within a bucket the order is the atomics' and changes nothing: every particle is
// independent, and what is ordered (the SPAWN requests, the read-back) is sorted by id.
#version 460

#include "frame_layout.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Input { uint frameInput[]; };
layout(std430, binding = 1) readonly buffer Records { uint records[]; };
layout(std430, binding = 2) readonly buffer Alive { uint alive[]; };
layout(std430, binding = 3) readonly buffer Counters { uint counters[]; };
layout(std430, binding = 4) buffer Counts { uint counts[]; };    // zeroed by the host's fill
layout(std430, binding = 5) buffer Padded { uint padded[]; };
layout(std430, binding = 6) readonly buffer Sums { uint sums[]; };  // padded counts, inclusive
layout(std430, binding = 7) buffer Cursor { uint cursor[]; };    // zeroed by the host's fill
layout(std430, binding = 8) writeonly buffer Order { uint order[]; };

layout(push_constant) uniform Push {
  uint mode;
  uint rowCount;  // 0 for the priming dispatch: nothing runs
  uint capacity;  // slots in the pool (an alive half's length)
  uint stride;    // words per record
  uint parity;    // the alive half the simulate pass reads
  uint buckets;   // programs' buckets + the last one, for records that do not run
} push;

uint bucketOf(uint slot) {
  const uint at = slot * push.stride;
  const uint row = records[at];
  const uint step = row * kStepWords;
  const uint fate = row < push.rowCount
                        ? recordFate(row, records[at + 1u], push.rowCount,
                                     frameInput[step + kStepFlags],
                                     frameInput[step + kStepGeneration])
                        : kRecordFree;
  return fate == kRecordRun ? frameInput[step + kStepBucket] : push.buckets - 1u;
}

void main() {
  if (push.rowCount == 0u) return;
  const uint id = gl_GlobalInvocationID.x;
  if (push.mode == 1u) {
    if (id < push.buckets)
      padded[id] = (counts[id] + kFrameGroup - 1u) / kFrameGroup * kFrameGroup;
    return;
  }
  if (push.mode == 3u) {
    const uint b = gl_WorkGroupID.x;
    if (b >= push.buckets) return;
    const uint start = sums[b] - padded[b];
    const uint at = start + counts[b] + gl_LocalInvocationID.x;
    if (at < sums[b]) order[at] = kPadSlot;
    return;
  }
  // Modes 0 and 2 stride over the alive half past the dispatched workgroups.
  const uint n = counters[kCountSimulated];
  const uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint t = id; t < n; t += step) {
    const uint slot = alive[push.parity * push.capacity + t];
    const uint b = bucketOf(slot);
    if (push.mode == 0u) {
      atomicAdd(counts[b], 1u);
    } else {
      order[sums[b] - padded[b] + atomicAdd(cursor[b], 1u)] = slot;
    }
  }
}
