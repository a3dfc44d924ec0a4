// SPDX-License-Identifier: MIT
// (Included by frame.comp and frame_wide.comp after their #version.)
// The frame's simulate and emit passes (docs/gpu.md, "The frame"): the interpreter (vm.glsl) over
// the pool, one invocation per particle, striding past the dispatched groups.
//
// Simulate (kFrameMode 0) visits the simulation order the bucketing passes built from the alive half
// the rows pass chose (frame_buckets.comp), dropping its padding first: a record whose generation is
// not its row's (the emitter was removed, or the newborn died at birth) frees its slot; a row that
// is not stepping (another effect's prewarm) keeps its particles as they are; otherwise UPDATE runs,
// and a KILL frees the slot and counts a death. Survivors are appended to the other half. Every
// workgroup runs one program (the order's buckets are padded to whole workgroups), so the section's
// parameters are read from the first active lane and are uniform across the wave: the driver may
// fetch the code through its scalar path and branch the opcode switch once for the wave.
//
// Emit (kFrameMode 1) runs one invocation per newborn of the scan: it finds its row by the inclusive
// sums and its spawn call by the calls' first newborns, pops a free slot, writes the header and
// zero words, computes the spawn lanes — index, fraction, emitter age, the rest of the step and
// the position along the emitter's path — in double, as the CPU does (runtime/spawn_times.h),
// runs INIT with them, then UPDATE over the rest of the step. A newborn killed in either keeps its
// slot until the next simulate pass (its generation cleared), so this pass only pops and the
// simulate pass only pushes: no pass both takes and returns slots. Its waves span emitters, so it
// decodes the section per lane (meep: "Emit keeps a per-lane decode").
//
// The mode is a specialisation constant: each pass is a pipeline of its own, compiled with only
// its path.
#extension GL_KHR_shader_subgroup_ballot : require

layout(local_size_x = 64) in;

#include "frame_layout.glsl"

layout(std430, binding = 0) readonly buffer Programs { uint programs[]; };
layout(std430, binding = 1) buffer Records { uint records[]; };
layout(std430, binding = 2) buffer Dead { uint dead[]; };
layout(std430, binding = 3) buffer Alive { uint alive[]; };
layout(std430, binding = 4) buffer Counters { uint counters[]; };
layout(std430, binding = 5) buffer RowState { uint rowState[]; };
layout(std430, binding = 6) readonly buffer Input { uint frameInput[]; };
layout(std430, binding = 7) readonly buffer CallStarts { uint callStarts[]; };
layout(std430, binding = 8) readonly buffer Sums { uint sums[]; };
// Emit: the spawn scan's result (word 0 the newborns); simulate: the order's (word 0 its length).
layout(std430, binding = 9) readonly buffer Total { uint total[]; };
// SPAWN requests: the half the rows pass consumed (read) and this frame's (appended), and the
// first newborn of each consumed record.
layout(std430, binding = 10) buffer Requests { uint requests[]; };
layout(std430, binding = 11) readonly buffer RequestStarts { uint requestStarts[]; };
// The simulation order (frame_buckets.comp): slots, kPadSlot where a bucket is padded.
layout(std430, binding = 12) readonly buffer Order { uint order[]; };
#ifdef MOTE_VM_WIDE
layout(std430, binding = 13) buffer Registers { uint wideRegisters[]; };
#endif

layout(constant_id = 1) const uint kFrameMode = 0u;  // 0 simulate, 1 emit

layout(push_constant) uniform Push {
  uint rowCount;  // 0 for the priming dispatch
  uint capacity;  // slots in the pool
  uint stride;    // words per record
  uint parity;    // the alive half simulate reads (emit and simulate append to the other)
  uint callsAt;   // the calls' first word in the frame input
  uint windAt;    // the wind block's
  uint threads;   // invocations dispatched at most (the wide register file's lanes)
  uint requestCapacity;  // records per half of the request buffer
} push;


// The particle being run.
uint gRow;
uint gRecord;   // its record's first word
uint gCodeAt;   // the section's first word in Programs
uint gConstantsAt;
uint gContextAt;
uint gEmitterWords;
uint gId;
// A newborn's lanes (docs/runtime.md, "Builtins"): INIT reads them all; its first UPDATE reads DT
// as the rest of the step.
uint gLanes;  // 0: none; 1: INIT's; 2: UPDATE's
uint gSpawnIndex;
uint gSpawnFraction;
uint gEmitterAge;
uvec3 gPosition;
uint gRest;
// What the request a newborn came from passes (SPAWNI; neutral for every other newborn).
uvec3 gSourceVelocity;
uint gSourceSize;
uvec4 gSourceColor;

uint step_(uint k) { return frameInput[gRow * kStepWords + k]; }

// A context block's builtin `id`, lanes 0..3.
uvec4 contextBuiltin(uint contextAt, uint id) {
  const uint at = contextAt + 4u * id;
  return uvec4(frameInput[at], frameInput[at + 1u], frameInput[at + 2u], frameInput[at + 3u]);
}

// The stream the interpreter runs: INIT's words (a newborn's), then UPDATE's from gSwitchWord on.
uint gInitAt;
uint gSwitchWord;
uint vmCodeWord(uint i) {
  return i < gSwitchWord ? programs[gInitAt + i] : programs[gCodeAt + (i - gSwitchWord)];
}
uint vmSwitchAt() { return gSwitchWord / 4u; }

#define MOTE_VM_SECTION_SWITCH 1
uvec4 vmConstant(uint i) {
  const uint at = gConstantsAt + 4u * i;
  return uvec4(programs[at], programs[at + 1u], programs[at + 2u], programs[at + 3u]);
}
uint vmLoadParticle(uint word) { return records[gRecord + kHeaderWords + word]; }
void vmStoreParticle(uint word, uint value) { records[gRecord + kHeaderWords + word] = value; }
uint contextWord(uint i) { return frameInput[gContextAt + i]; }
uvec4 vmBuiltin(uint id) {
  if (id == kBuiltinParticleId) return uvec4(floatBitsToUint(float(gId)), 0u, 0u, 0u);
  if (gLanes == 1u) {
    if (id == kBuiltinSpawnIndex) return uvec4(gSpawnIndex, 0u, 0u, 0u);
    if (id == kBuiltinSpawnFraction) return uvec4(gSpawnFraction, 0u, 0u, 0u);
    if (id == kBuiltinEmitterAge) return uvec4(gEmitterAge, 0u, 0u, 0u);
    if (id == kBuiltinEmitterPosition) return uvec4(gPosition, 0u);
    if (id == kBuiltinSourceVelocity) return uvec4(gSourceVelocity, 0u);
    if (id == kBuiltinSourceSize) return uvec4(gSourceSize, 0u, 0u, 0u);
    if (id == kBuiltinSourceColor) return gSourceColor;
  } else if (gLanes == 2u && id == kBuiltinDt) {
    return uvec4(gRest, 0u, 0u, 0u);
  }
  const uint at = 4u * id;
  return uvec4(contextWord(at), contextWord(at + 1u), contextWord(at + 2u), contextWord(at + 3u));
}
uint vmEmitterWord(uint word) { return contextWord(kBuiltinWords + word); }
uvec4 vmGlobal(uint import_) {
  const uint at = kBuiltinWords + gEmitterWords + 4u * import_;
  return uvec4(contextWord(at), contextWord(at + 1u), contextWord(at + 2u), contextWord(at + 3u));
}

#include "exact.glsl"

// A SPAWN request's point in a local-space target's frame, added after INIT to the position it
// made (runtime: addLocalOffsets).
bool gLocalSet;
uvec3 gLocalOffset;
void vmSwitchSection() {
  if (gLanes == 1u && gLocalSet) {
    const uint word = step_(kStepPositionWord);
    if (word != 0xffffffffu && step_(kStepSpace) != 0u)
      for (uint k = 0u; k < 3u; ++k) {
        const uint at = gRecord + kHeaderWords + word + k;
        records[at] = xAdd(records[at], gLocalOffset[k]);
      }
  }
  gLanes = gLanes == 0u ? 0u : 2u;
}

// SAMPLE_WIND: the host's uniform wind plus each force-event burst's push (emitter_frame.h,
// ForceBursts::add, operation for operation).
uvec3 vmWind(uvec3 p) {
  uvec3 out_ = uvec3(frameInput[push.windAt], frameInput[push.windAt + 1u],
                     frameInput[push.windAt + 2u]);
  const uint bursts = frameInput[push.windAt + kWindBursts];
  for (uint b = 0u; b < bursts; ++b) {
    const uint at = push.windAt + kWindHeaderWords + b * kBurstWords;
    const uint dx = xSub(p.x, frameInput[at]);
    const uint dy = xSub(p.y, frameInput[at + 1u]);
    const uint dz = xSub(p.z, frameInput[at + 2u]);
    const uint radius = frameInput[at + 3u];
    const uint distance = xSqrt(xAdd(xAdd(xMul(dx, dx), xMul(dy, dy)), xMul(dz, dz)));
    if (!xLt(distance, radius)) continue;
    const uint push_ = xMul(frameInput[at + 4u], xSub(kOne, xDiv(distance, radius)));
    if (xLt(0x358637bdu, distance)) {  // 1e-6f
      out_.x = xAdd(out_.x, xMul(xDiv(dx, distance), push_));
      out_.y = xAdd(out_.y, xMul(xDiv(dy, distance), push_));
      out_.z = xAdd(out_.z, xMul(xDiv(dz, distance), push_));
    } else {
      out_.y = xAdd(out_.y, push_);
    }
  }
  return out_;
}

// SPAWN and SPAWNI: a request into this frame's half, keyed for the sort (requests.comp);
// gSpawnSeq is the particle's own order of its requests, INIT's then UPDATE's.
uint gSpawnSeq;
void vmSpawnInherit(uint target, uint count, uvec3 position, uvec4 velocitySize, uvec4 color) {
  const uint into = push.parity ^ 1u;
  const uint q = atomicAdd(counters[requestCounter(into)], 1u);
  const uint seq = gSpawnSeq++;
  if (q >= push.requestCapacity) {  // never: the buffer holds every emitter's capacity × SPAWNs
    atomicAdd(counters[kCountRequestOverflow], 1u);
    return;
  }
  const uint at = (into * push.requestCapacity + q) * kRequestWords;
  const uint key = step_(kStepEffectKey);
  requests[at + kRequestKey] = (key & 0xffff0000u) | target;
  requests[at + kRequestSource] = key & 0xffffu;
  requests[at + kRequestId] = gId;
  requests[at + kRequestSeq] = seq;
  requests[at + kRequestCount] = count;
  requests[at + kRequestRow] = gRow;
  requests[at + kRequestGeneration] = step_(kStepGeneration);
  for (uint k = 0u; k < 3u; ++k) {
    requests[at + kRequestPosition + k] = position[k];
    requests[at + kRequestVelocity + k] = velocitySize[k];
  }
  requests[at + kRequestSize] = velocitySize.w;
  for (uint k = 0u; k < 4u; ++k) requests[at + kRequestColor + k] = color[k];
}
// SPAWN passes the neutral inheritance (bytecode/reference.h Inheritance).
void vmSpawn(uint target, uint count, uvec3 position) {
  vmSpawnInherit(target, count, position, uvec4(0u, 0u, 0u, kOne), uvec4(kOne));
}

// REPORT and TRAIL: the GPU world refuses programs with them (the host's event buffer and the
// trails' source ids are the CPU runtime's); this keeps the interpreter total.
void vmReport(uint kind, uint tag, uvec3 position, uvec3 velocity) {}
void vmSpawnTrail(uint target, uint count, uvec3 position, uvec4 fromSize, uvec4 color) {}

#ifdef MOTE_VM_WIDE
uint vmWideLane() { return gl_GlobalInvocationID.x; }
uint vmWideStride() { return push.threads; }
#endif
#include "registers.glsl"

#include "vm.glsl"

void freeSlot(uint slot) { dead[atomicAdd(counters[kCountFree], 1u)] = slot; }
void keep(uint slot) {
  alive[(push.parity ^ 1u) * push.capacity + atomicAdd(counters[aliveCounter(push.parity ^ 1u)], 1u)] =
      slot;
}

// Runs the particle's sections — INIT then UPDATE for a newborn (`newborn`), UPDATE otherwise — as
// one stream through the interpreter's one call site (drivers inline it); true when killed.
bool runParticle(bool newborn) {
  gInitAt = step_(kStepInitAt);
  gCodeAt = step_(kStepUpdateAt);
  const uint initCount = newborn ? step_(kStepInitCount) : 0u;
  uint count = initCount + step_(kStepUpdateCount);
  if (!newborn) {  // the wave's one program (frame_buckets.comp): its first lane's section
    gCodeAt = subgroupBroadcastFirst(gCodeAt);
    gConstantsAt = subgroupBroadcastFirst(gConstantsAt);
    count = subgroupBroadcastFirst(count);
  }
  gSwitchWord = 4u * initCount;
  gLanes = newborn ? 1u : 0u;
  VmRandom rng;
  rng.seed = uvec2(step_(kStepSeed), step_(kStepSeed + 1u));
  rng.counter = uvec2(gId, 0u);
  rng.tick = uvec2(step_(kStepTick), step_(kStepTick + 1u));
  rng.update = 0u;
  gSpawnSeq = 0u;
  const bool killed = vmRun(count, rng);
  if (gLanes == 1u) vmSwitchSection();  // an empty UPDATE: INIT's end was never reached
  return killed;
}

void enterRow(uint row) {
  gRow = row;
  gConstantsAt = step_(kStepConstantsAt);
  gContextAt = step_(kStepContextAt);
  gEmitterWords = step_(kStepEmitterWords);
}

// Simulate: the particle in `slot`, or false when it needs no run (its slot freed or kept here).
bool enterSimulated(uint slot) {
  const uint at = slot * push.stride;
  const uint row = records[at];
  const uint fate = row < push.rowCount
                        ? recordFate(row, records[at + 1u], push.rowCount,
                                     frameInput[row * kStepWords + kStepFlags],
                                     frameInput[row * kStepWords + kStepGeneration])
                        : kRecordFree;
  if (fate == kRecordFree) {
    freeSlot(slot);  // removed, or died at birth
    return false;
  }
  if (fate == kRecordKeep) {
    keep(slot);
    atomicAdd(rowState[row * kRowWords + kRowLive], 1u);
    return false;
  }
  enterRow(row);
  gRecord = at;
  gId = records[at + 2u];
  return true;
}

// The first row whose inclusive sum exceeds t.
uint rowOf(uint t) {
  uint lo = 0u;
  uint n = push.rowCount;
  while (n > 1u) {
    const uint half_ = n / 2u;
    lo = sums[lo + half_ - 1u] <= t ? lo + half_ : lo;
    n -= half_;
  }
  return lo;
}

// The last of the row's calls whose first newborn is at or before `index` (a call that birthed
// none shares its start with the next, so the last one is the call that holds `index`).
uint callOf(uint index) {
  uint lo = step_(kStepCallFirst);
  uint n = step_(kStepCallCount);
  while (n > 1u) {
    const uint half_ = n / 2u;
    lo = callStarts[lo + half_] <= index ? lo + half_ : lo;
    n -= half_;
  }
  return lo;
}

#if !MOTE_FP64
// Fast mode has no doubles: a double's words read as the float it truncates to (subnormals 0).
float inputFloat(uint at) {
  const uint lo = frameInput[at];
  const uint hi = frameInput[at + 1u];
  const uint sign = hi & 0x80000000u;
  const int e = int((hi >> 20) & 0x7ffu);
  if (e == 0x7ff) return uintBitsToFloat(sign | 0x7f800000u | ((hi & 0xfffffu) != 0u || lo != 0u ? 0x400000u : 0u));
  const int fe = e - 896;
  if (fe <= 0) return uintBitsToFloat(sign);
  if (fe >= 255) return uintBitsToFloat(sign | 0x7f800000u);
  return uintBitsToFloat(sign | (uint(fe) << 23) | ((hi & 0xfffffu) << 3) | (lo >> 29));
}
float stepFloat(uint k) { return inputFloat(gRow * kStepWords + k); }
#endif

#if MOTE_FP64
double inputDouble(uint at) { return packDouble2x32(uvec2(frameInput[at], frameInput[at + 1u])); }
double stepDouble(uint k) { return inputDouble(gRow * kStepWords + k); }
#endif

// The spawn lanes of newborn k of `call` (runtime/spawn_times.h, writeSpawnTimes); a SPAWN
// request's newborn (call kRequestCall) is born at the window's start, at a position of its own.
const uint kRequestCall = 0xffffffffu;
void spawnLanes(uint call, uint k) {
  const uint flags = step_(kStepFlags);
  const bool request = call == kRequestCall;
  const uint c = request ? 0u : push.callsAt + call * kCallWords;
#if MOTE_FP64
  const double windowStart = stepDouble(kStepWindowStart);
  const double stop = stepDouble(kStepStop);
  double birth = request ? windowStart : inputDouble(c + kCallFrom);
  if (!request && (frameInput[c + kCallFlags] & 1u) == 0u) {
    const double along = dDiv(dSub(dAdd(double(k), 1.0LF), inputDouble(c + kCallBefore)),
                              inputDouble(c + kCallAmount));
    birth = dAdd(birth, dMul(inputDouble(c + kCallScale), along));
  }
  birth = dClamp(birth, windowStart, stop);
  const double along =
      (flags & kRowSpans) != 0u ? dDiv(dSub(birth, windowStart), stepDouble(kStepSpan)) : 1.0LF;
  gSpawnFraction = xToFloat(along);
  gEmitterAge = xToFloat(dCycle(birth, stepDouble(kStepLoop)));
  gRest = xToFloat(dSub(stop, birth));
  if (request) return;
  double f = 1.0LF;
  if ((flags & kRowMoves) != 0u) {
    f = (flags & kRowWindowIsStep) != 0u
            ? along
            : dDiv(dSub(birth, stepDouble(kStepT0)), stepDouble(kStepDt));
    f = dClamp(f, 0.0LF, 1.0LF);
  }
  for (uint i = 0u; i < 3u; ++i)
    gPosition[i] = xToFloat(dAdd(stepDouble(kStepStart + 2u * i),
                                 dMul(stepDouble(kStepPath + 2u * i), f)));
#else
  // Fast mode: the same formulas in float (no hash is promised).
  const float windowStart = stepFloat(kStepWindowStart);
  const float stop = stepFloat(kStepStop);
  float birth = request ? windowStart : inputFloat(c + kCallFrom);
  if (!request && (frameInput[c + kCallFlags] & 1u) == 0u)
    birth += inputFloat(c + kCallScale) *
             ((float(k) + 1.0 - inputFloat(c + kCallBefore)) / inputFloat(c + kCallAmount));
  birth = clamp(birth, windowStart, stop);
  const float along =
      (flags & kRowSpans) != 0u ? (birth - windowStart) / stepFloat(kStepSpan) : 1.0;
  gSpawnFraction = floatBitsToUint(along);
  const float loop = stepFloat(kStepLoop);
  gEmitterAge = floatBitsToUint(loop > 0.0 ? max(birth - loop * floor(birth / loop), 0.0) : birth);
  gRest = floatBitsToUint(stop - birth);
  if (request) return;
  float f = 1.0;
  if ((flags & kRowMoves) != 0u) {
    f = (flags & kRowWindowIsStep) != 0u ? along
                                         : (birth - stepFloat(kStepT0)) / stepFloat(kStepDt);
    f = clamp(f, 0.0, 1.0);
  }
  for (uint i = 0u; i < 3u; ++i)
    gPosition[i] = floatBitsToUint(stepFloat(kStepStart + 2u * i) +
                                   stepFloat(kStepPath + 2u * i) * f);
#endif
}

// A newborn of one of the row's SPAWN requests (runtime: consumeRequests): the source particle's
// point in world space, and for a target in its emitter's frame that point in that frame.
void enterRequest(uint row, uint index) {
  const uint first = rowState[row * kRowWords + kRowRequestFirst];
  uint lo = first;
  uint n = rowState[row * kRowWords + kRowRequestCount];
  while (n > 1u) {  // the last record whose first newborn is at or before `index`
    const uint half_ = n / 2u;
    lo = requestStarts[lo + half_] <= index ? lo + half_ : lo;
    n -= half_;
  }
  spawnLanes(kRequestCall, 0u);
  const uint at = (push.parity * push.requestCapacity + lo) * kRequestWords;
  uvec3 p = uvec3(requests[at + kRequestPosition], requests[at + kRequestPosition + 1u],
                  requests[at + kRequestPosition + 2u]);
  gSourceVelocity = uvec3(requests[at + kRequestVelocity], requests[at + kRequestVelocity + 1u],
                          requests[at + kRequestVelocity + 2u]);
  const uint source = requests[at + kRequestRow];
  if (frameInput[source * kStepWords + kStepSpace] != 0u) {
    const uint context = frameInput[source * kStepWords + kStepContextAt];
    const uvec4 turn = contextBuiltin(context, kBuiltinEmitterRotation);
    const uvec3 turned = quatRotateOf(turn, p);
    const uvec3 origin = contextBuiltin(context, kBuiltinEmitterPosition).xyz;
    p = uvec3(xAdd(origin.x, turned.x), xAdd(origin.y, turned.y), xAdd(origin.z, turned.z));
    gSourceVelocity = quatRotateOf(turn, gSourceVelocity);
  }
  gPosition = p;
  gSourceSize = requests[at + kRequestSize];
  gSourceColor = uvec4(requests[at + kRequestColor], requests[at + kRequestColor + 1u],
                       requests[at + kRequestColor + 2u], requests[at + kRequestColor + 3u]);
  if (step_(kStepSpace) != 0u) {
    const uvec4 turn = contextBuiltin(gContextAt, kBuiltinEmitterRotation);
    const uvec3 origin = contextBuiltin(gContextAt, kBuiltinEmitterPosition).xyz;
    const uvec4 inverse = uvec4(xNeg(turn.x), xNeg(turn.y), xNeg(turn.z), turn.w);
    gLocalOffset =
        quatRotateOf(inverse, uvec3(xSub(p.x, origin.x), xSub(p.y, origin.y), xSub(p.z, origin.z)));
    gLocalSet = true;
    gSourceVelocity = quatRotateOf(inverse, gSourceVelocity);
  }
}

// Emit: newborn t of the scan in a fresh slot with its header, zero words and spawn lanes; false
// when no slot is free (never within the capacities; counted).
bool enterNewborn(uint t, out uint slot) {
  const uint row = rowOf(t);
  const uint index = t - (row == 0u ? 0u : sums[row - 1u]);
  const uint old = atomicAdd(counters[kCountFree], 0xffffffffu);  // − 1
  if (old == 0u || old > push.capacity) {  // exhausted (the count wrapped): drop, restore
    atomicAdd(counters[kCountFree], 1u);
    atomicAdd(counters[kCountPoolDropped], 1u);
    return false;
  }
  slot = dead[old - 1u];
  enterRow(row);
  gRecord = slot * push.stride;
  gId = rowState[row * kRowWords + kRowFirstId] + index;
  records[gRecord] = row;
  records[gRecord + 1u] = step_(kStepGeneration);
  records[gRecord + 2u] = gId;
  const uint words = step_(kStepWords_);
  for (uint w = 0u; w < words; ++w) records[gRecord + kHeaderWords + w] = 0u;
  gLocalSet = false;
  gSourceVelocity = uvec3(0u);
  gSourceSize = kOne;
  gSourceColor = uvec4(kOne);
  if (index < rowState[row * kRowWords + kRowRequestBorn]) {
    enterRequest(row, index);
  } else {
    const uint call = callOf(index);
    spawnLanes(call, index - callStarts[call]);
  }
  gSpawnIndex = floatBitsToUint(float(index));
  return true;
}

void main() {
  if (push.rowCount == 0u || gl_GlobalInvocationID.x >= push.threads) return;
  const uint stride = min(gl_NumWorkGroups.x * gl_WorkGroupSize.x, push.threads);
  const bool emit = kFrameMode == 1u;
  const uint n = total[0];
  for (uint t = gl_GlobalInvocationID.x; t < n; t += stride) {
    uint slot = 0u;
    if (emit) {
      if (!enterNewborn(t, slot)) continue;
    } else {
      slot = order[t];
      if (slot == kPadSlot || !enterSimulated(slot)) continue;  // padding: before any atomic
    }
    // A newborn runs INIT with its lanes, then UPDATE over the rest of the step; a live particle,
    // UPDATE.
    const bool killed = runParticle(emit);
    if (!killed) {
      keep(slot);
      atomicAdd(rowState[gRow * kRowWords + kRowLive], 1u);
      continue;
    }
    atomicAdd(rowState[gRow * kRowWords + kRowStepDied], 1u);
    if (emit) {  // the slot is freed by the next simulate pass: this one only pops
      records[gRecord + 1u] = 0u;  // no row's generation
      keep(slot);
    } else {
      freeSlot(slot);
    }
  }
}
