// SPDX-License-Identifier: MIT
// The GPU world's frame data (src/gpu/world_frame.h is the host's copy of these numbers; a test
// checks they agree): the per-row step block the host uploads each step, the GPU's own per-row
// state, the counters, and the spawn calls.
#ifndef MOTE_FRAME_LAYOUT_GLSL
#define MOTE_FRAME_LAYOUT_GLSL

// Counters (binding Counters; pool_init.comp zeroes them and sets the free count).
const uint kCountAlive0 = 0u;       // the alive halves' lengths
const uint kCountFree = 1u;         // dead-list length
const uint kCountAlive1 = 2u;
const uint kCountPoolDropped = 3u;  // newborns that found no free slot (never, within capacity)
const uint kCountSimulateArgs = 4u; // VkDispatchIndirectCommand of the simulate pass (3 words)
const uint kCountSimulated = 7u;    // how many the simulate pass visits (the alive half's length)
const uint kCountSpawned = 8u;      // 2 words each: the world's totals since it was made
const uint kCountDropped = 10u;
const uint kCountRequests0 = 12u;   // SPAWN requests in each half of the request buffer
const uint kCountRequests1 = 13u;
const uint kCountRequestOverflow = 14u;  // requests past the buffer (never: it is sized for all)
const uint kCountCarryArgs = 15u;   // VkDispatchIndirectCommand of the carry pass (3 words)
const uint kCountBoundsArgs = 18u;  // VkDispatchIndirectCommand of the bounds pass (3 words)
// VkDrawIndirectCommand over the alive list the frame leaves (4 words): 6 vertices (a quad), the
// alive count as instances, 0, 0 — what a renderer drawing the pool reads.
const uint kCountDrawArgs = 21u;
const uint kCounterWords = 25u;
uint requestCounter(uint half_) { return half_ == 0u ? kCountRequests0 : kCountRequests1; }
uint aliveCounter(uint half_) { return half_ == 0u ? kCountAlive0 : kCountAlive1; }

// A row's step block (host-written each step), kStepWords words at row * kStepWords.
const uint kStepFlags = 0u;
const uint kStepGeneration = 1u;
const uint kStepCapacity = 2u;
const uint kStepCallFirst = 3u;
const uint kStepCallCount = 4u;
const uint kStepInitAt = 5u;        // the INIT section's first word in Programs
const uint kStepInitCount = 6u;     // its instructions
const uint kStepUpdateAt = 7u;
const uint kStepUpdateCount = 8u;
const uint kStepConstantsAt = 9u;   // the constant pool's first word in Programs
const uint kStepContextAt = 10u;    // the row's context block in the frame input
const uint kStepEmitterWords = 11u;
const uint kStepWords_ = 12u;       // particle words
const uint kStepSpace = 13u;       // 1: positions in the emitter's frame (local, emitter_attached)
const uint kStepTick = 14u;         // 2 words: the random stream's tick
const uint kStepSeed = 16u;         // 2 words
const uint kStepWindowStart = 18u;  // doubles, 2 words each: the spawn window
const uint kStepSpan = 20u;
const uint kStepT0 = 22u;
const uint kStepDt = 24u;
const uint kStepStop = 26u;
const uint kStepStart = 28u;        // 3 doubles: the emitter's position at the step's start
const uint kStepPath = 34u;         // 3 doubles: its motion over the step
const uint kStepEffectKey = 40u;    // effect slot << 16 | the emitter's index in the effect
const uint kStepPositionWord = 41u; // the position channel's first word (0xffffffff: none)
const uint kStepBucket = 42u;       // the simulation order's bucket: the row's program's
const uint kStepSizeWord = 43u;     // the size channel's first word (0xffffffff: none)
// The velocity channel's first word when the render mode stretches the quad along it
// (0xffffffff: none), and √3 · |stretch_scale| as float bits (runtime: boundsInput).
const uint kStepVelocityWord = 44u;
const uint kStepStretch = 45u;
const uint kStepLoop = 46u;         // a double: the emitter age wraps at it (0: never)
const uint kStepWords = 48u;

// Step flags.
const uint kRowAlive = 1u;
const uint kRowStepping = 2u;
const uint kRowReset = 4u;     // a new tenant or a restart: the GPU's row state starts again
const uint kRowWindowIsStep = 8u;
const uint kRowSpans = 16u;    // span > 0
const uint kRowMoves = 32u;    // dt > 0

// The GPU's row state (binding RowState), kRowWords words at row * kRowWords.
const uint kRowLive = 0u;
const uint kRowNextId = 1u;
const uint kRowFirstId = 2u;   // this step's first newborn id
const uint kRowStepSpawned = 3u;
const uint kRowStepDropped = 4u;
const uint kRowStepDied = 5u;
const uint kRowSpawned = 6u;   // 2 words each: totals since the row was placed or restarted
const uint kRowDropped = 8u;
const uint kRowDied = 10u;     // without the last step's (kRowStepDied)
const uint kRowRequestFirst = 12u;  // this step's SPAWN requests for the row: the first record,
const uint kRowRequestCount = 13u;  // how many records,
const uint kRowRequestBorn = 14u;   // and the newborns they gave (before the host's calls')
const uint kRowWords = 16u;

// A spawn call (host-written), kCallWords words: count, flags (1: constant birth time), then the
// birth times' doubles from, scale, before, amount.
const uint kCallCount = 0u;
const uint kCallFlags = 1u;
const uint kCallFrom = 2u;
const uint kCallScale = 4u;
const uint kCallBefore = 6u;
const uint kCallAmount = 8u;
const uint kCallWords = 10u;

// A SPAWN request (kRequestWords words; the sort key first): the target's effect key, the source
// emitter's index, the asking particle's id and its own order, then the count, the source row and
// its generation, the position SPAWN gave, and what its newborns inherit (SPAWNI's velocity, size
// and colour; SPAWN's the neutral (0, 0, 0), 1, (1, 1, 1, 1)).
const uint kRequestKey = 0u;
const uint kRequestSource = 1u;
const uint kRequestId = 2u;
const uint kRequestSeq = 3u;
const uint kRequestCount = 4u;
const uint kRequestRow = 5u;
const uint kRequestGeneration = 6u;
const uint kRequestPosition = 7u;
const uint kRequestVelocity = 10u;
const uint kRequestSize = 13u;
const uint kRequestColor = 14u;
const uint kRequestWords = 18u;

// The wind block: the host's uniform wind (3 words), the burst count, then kBurstWords per burst:
// centre (3), radius, strength.
const uint kWindBursts = 3u;
const uint kWindHeaderWords = 4u;
const uint kBurstWords = 5u;

// A context block: kBuiltinWords of builtins, then the emitter words, then 4 words per global.
const uint kBuiltinWords = 56u;
const uint kBuiltinDt = 0u;  // builtin ids (bytecode/isa.h)
const uint kBuiltinEmitterAge = 2u;
const uint kBuiltinEmitterPosition = 3u;
const uint kBuiltinEmitterRotation = 6u;
const uint kBuiltinSpawnIndex = 8u;
const uint kBuiltinSpawnFraction = 9u;
const uint kBuiltinParticleId = 10u;
const uint kBuiltinSourceVelocity = 11u;
const uint kBuiltinSourceSize = 12u;
const uint kBuiltinSourceColor = 13u;

const uint kHeaderWords = 3u;  // a record's row, generation, id
const uint kFrameGroup = 64u;

// What the simulate pass does with a record of the alive list, from its header and its row's step
// block: free it (its emitter was removed or restarted, or it died at birth), keep it as it is (its
// row does not step: another effect's prewarm), or run UPDATE over it.
const uint kRecordFree = 0u;
const uint kRecordKeep = 1u;
const uint kRecordRun = 2u;
uint recordFate(uint row, uint generation, uint rowCount, uint stepFlags, uint stepGeneration) {
  if (row >= rowCount || generation != stepGeneration || (stepFlags & kRowAlive) == 0u)
    return kRecordFree;
  return (stepFlags & kRowStepping) == 0u ? kRecordKeep : kRecordRun;
}

// The simulation order (frame_buckets.comp): an entry that pads a bucket to whole workgroups.
const uint kPadSlot = 0xffffffffu;

// The bounds accumulators (frame_bounds.comp), per row: 6 lower edges (the quick box's x, y, z,
// then the exact box's) at row · 6, and 6 upper edges at (rowsCapacity + row) · 6, as orderedBits.
// A published box (kBoxWords per row): lo x, y, z, hi x, y, z, known (1) or not (0).
const uint kBoxWords = 8u;
// Floats as uints whose unsigned order is the floats' (−0 below +0; NaN is never stored).
uint orderedBits(uint f) { return (f & 0x80000000u) != 0u ? ~f : f | 0x80000000u; }
uint fromOrderedBits(uint u) { return (u & 0x80000000u) != 0u ? u & 0x7fffffffu : ~u; }
const uint kEmptyLow = 0xff800000u;   // orderedBits(+inf)
const uint kEmptyHigh = 0x007fffffu;  // orderedBits(−inf)

#endif  // MOTE_FRAME_LAYOUT_GLSL
