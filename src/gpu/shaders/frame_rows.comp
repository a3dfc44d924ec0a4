// SPDX-License-Identifier: MIT
// The frame's first pass (docs/gpu.md, "The frame"): one invocation per emitter row. A stepping row
// folds its last step's deaths into its totals, clamps each of this step's spawn calls to its free
// capacity in order — the CPU's budget clamp, call by call — and leaves the newborn count for the
// scan, each call's first newborn and the step's first id; every row's live count starts again (the
// simulate and emit passes count the survivors). Invocation 0 also prepares the simulate pass:
// the alive half it reads, its indirect arguments, and the other half emptied for this frame.
#version 460

#include "frame_layout.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Input { uint frameInput[]; };
layout(std430, binding = 1) buffer RowState { uint rowState[]; };
layout(std430, binding = 2) buffer Counters { uint counters[]; };
layout(std430, binding = 3) writeonly buffer Counts { uint counts[]; };
layout(std430, binding = 4) writeonly buffer CallStarts { uint callStarts[]; };
// The SPAWN requests the last frame left, sorted (requests.comp), and their newborns' starts.
layout(std430, binding = 5) readonly buffer Requests { uint requests[]; };
layout(std430, binding = 6) writeonly buffer RequestStarts { uint requestStarts[]; };

layout(push_constant) uniform Push {
  uint rowCount;  // 0 for the priming dispatch: nothing runs
  uint parity;    // the alive half the simulate pass reads
  uint callsAt;   // the calls' first word in the frame input
  uint maxGroups; // the most workgroups a pass dispatches (it strides past them)
  uint ticking;   // 1: a tick's step, whose counts go into the world's totals (not prewarm, seek)
  uint requestCapacity;  // records per half of the request buffer
} push;

uint step_(uint row, uint k) { return frameInput[row * kStepWords + k]; }

// A 64-bit total at `at` (low word first) plus `v`.
void add64(uint at, uint v) {
  uint carry;
  rowState[at] = uaddCarry(rowState[at], v, carry);
  rowState[at + 1u] += carry;
}

// The world's 64-bit total at `at` plus `v`, from any invocation: each add carries its own wrap.
void addTotal(uint at, uint v) {
  const uint old = atomicAdd(counters[at], v);
  if (old + v < old) atomicAdd(counters[at + 1u], 1u);
}

void main() {
  if (push.rowCount == 0u) return;
  const uint row = gl_GlobalInvocationID.x;
  if (row == 0u) {
    const uint n = counters[aliveCounter(push.parity)];
    counters[kCountSimulated] = n;
    counters[kCountSimulateArgs] = min((n + kFrameGroup - 1u) / kFrameGroup, push.maxGroups);
    counters[kCountSimulateArgs + 1u] = 1u;
    counters[kCountSimulateArgs + 2u] = 1u;
    counters[aliveCounter(push.parity ^ 1u)] = 0u;
    // This frame's requests go to the other half; the carry pass keeps there the requests of
    // sources that do not step now (requests.comp).
    const uint q = counters[requestCounter(push.parity)];
    counters[requestCounter(push.parity ^ 1u)] = 0u;
    counters[kCountCarryArgs] = min((q + kFrameGroup - 1u) / kFrameGroup, push.maxGroups);
    counters[kCountCarryArgs + 1u] = 1u;
    counters[kCountCarryArgs + 2u] = 1u;
  }
  if (row >= push.rowCount) return;
  const uint at = row * kRowWords;
  const uint flags = step_(row, kStepFlags);
  if ((flags & kRowReset) != 0u)
    for (uint k = 0u; k < kRowWords; ++k) rowState[at + k] = 0u;
  const uint live = rowState[at + kRowLive];
  rowState[at + kRowLive] = 0u;  // recounted by this frame's passes
  if ((flags & kRowAlive) == 0u || (flags & kRowStepping) == 0u) {
    counts[row] = 0u;
    return;
  }
  add64(at + kRowDied, rowState[at + kRowStepDied]);
  rowState[at + kRowStepDied] = 0u;
  const uint capacity = step_(row, kStepCapacity);
  const uint first = step_(row, kStepCallFirst);
  const uint calls = step_(row, kStepCallCount);
  uint born = 0u;
  uint dropped = 0u;  // a rate's excess past the capacity is the host's count
  // SPAWN requests first, as the CPU consumes them: the records with this row's effect key, in
  // (source emitter, source id, order) order; a removed or restarted source's are void.
  const uint key = step_(row, kStepEffectKey);
  const uint n = counters[requestCounter(push.parity)];
  const uint base = push.parity * push.requestCapacity;
  uint lo = 0u;
  for (uint span = n; span > 0u;) {  // the first record whose key is not below ours
    const uint half_ = span / 2u;
    if (requests[(base + lo + half_) * kRequestWords + kRequestKey] < key) {
      lo += half_ + 1u;
      span -= half_ + 1u;
    } else {
      span = half_;
    }
  }
  uint q = lo;
  for (; q < n && requests[(base + q) * kRequestWords + kRequestKey] == key; ++q) {
    const uint at_ = (base + q) * kRequestWords;
    const uint source = requests[at_ + kRequestRow];
    const bool valid = source < push.rowCount &&
                       (step_(source, kStepFlags) & kRowAlive) != 0u &&
                       step_(source, kStepGeneration) == requests[at_ + kRequestGeneration];
    const uint asked = valid ? requests[at_ + kRequestCount] : 0u;
    const uint room = capacity - min(capacity, live + born);
    const uint got = min(asked, room);
    requestStarts[q] = born;
    born += got;
    dropped += asked - got;
  }
  rowState[at + kRowRequestFirst] = lo;
  rowState[at + kRowRequestCount] = q - lo;
  rowState[at + kRowRequestBorn] = born;
  for (uint c = first; c < first + calls; ++c) {
    const uint asked = frameInput[push.callsAt + c * kCallWords + kCallCount];
    const uint room = capacity - min(capacity, live + born);
    const uint n = min(asked, room);
    callStarts[c] = born;
    born += n;
    dropped += asked - n;
  }
  counts[row] = born;
  const uint nextId = rowState[at + kRowNextId];
  rowState[at + kRowFirstId] = nextId;
  rowState[at + kRowNextId] = nextId + born;  // u32 ids wrap, as the CPU's do
  rowState[at + kRowStepSpawned] = born;
  rowState[at + kRowStepDropped] = dropped;
  add64(at + kRowSpawned, born);
  add64(at + kRowDropped, dropped);
  if (push.ticking != 0u) {
    addTotal(kCountSpawned, born);
    addTotal(kCountDropped, dropped);
  }
}
