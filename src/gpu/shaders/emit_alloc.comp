// SPDX-License-Identifier: MIT
// The emit pass's allocation (meep "Spawning is the GPU's decision", step 5): one invocation per
// newborn, dispatched indirectly from the spawn counts' scan (scan_partials.comp). Newborn t finds
// its emitter row by a branch-free lower bound over the inclusive sums and its place in the row's
// batch from the sum before; pops a slot from the dead list (a wrapped or empty count drops the
// spawn cleanly instead of handing out a garbage slot); writes the record's header — the emitter
// row, its generation, the particle's id — and appends the slot to the alive list.
#version 460

layout(local_size_x = 64) in;

// [0] live (alive-list length), [1] free (dead-list length), [2] dropped this frame.
layout(std430, binding = 0) buffer Counters { uint counters[]; };
layout(std430, binding = 1) buffer Dead { uint dead[]; };
layout(std430, binding = 2) writeonly buffer Alive { uint alive[]; };
layout(std430, binding = 3) writeonly buffer Pool { uint pool[]; };
// Per emitter row: the inclusive sums of this frame's counts.
layout(std430, binding = 4) readonly buffer Sums { uint sums[]; };
// Per emitter row: [generation, first id of this frame's batch].
layout(std430, binding = 5) readonly buffer Rows { uint rows[]; };
// [0] the newborns' total (scan_partials' result).
layout(std430, binding = 6) readonly buffer Total { uint total[]; };

layout(push_constant) uniform Push {
  uint rowCount;   // 0 for the priming dispatch: nothing runs
  uint capacity;   // slots in the pool
  uint stride;     // words per record: the header, then the particle's words
} push;

const uint kLive = 0u;
const uint kFree = 1u;
const uint kDropped = 2u;

// The first row whose inclusive sum exceeds t (rows before it hold t's predecessors).
uint rowOf(uint t) {
  uint lo = 0u;
  uint n = push.rowCount;
  while (n > 1u) {  // branch-free lower bound
    const uint half_ = n / 2u;
    lo = sums[lo + half_ - 1u] <= t ? lo + half_ : lo;
    n -= half_;
  }
  return lo;
}

void main() {
  if (push.rowCount == 0u) return;
  const uint newborns = total[0];
  const uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint t = gl_GlobalInvocationID.x; t < newborns; t += step) {  // past the group limit too
    const uint row = rowOf(t);
    const uint index = t - (row == 0u ? 0u : sums[row - 1u]);
    const uint old = atomicAdd(counters[kFree], 0xffffffffu);  // − 1
    if (old == 0u || old > push.capacity) {  // exhausted (the count wrapped): drop, restore
      atomicAdd(counters[kFree], 1u);
      atomicAdd(counters[kDropped], 1u);
      continue;
    }
    const uint slot = dead[old - 1u];
    const uint at = slot * push.stride;
    pool[at] = row;
    pool[at + 1u] = rows[2u * row];
    pool[at + 2u] = rows[2u * row + 1u] + index;
    alive[atomicAdd(counters[kLive], 1u)] = slot;
  }
}
