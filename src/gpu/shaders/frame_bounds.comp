// SPDX-License-Identifier: MIT
// The emitters' boxes measured where the particles are (docs/gpu.md, "Bounds"; meep "Bounds"), in
// two passes at the end of the frame, after simulate and emit have both appended to the alive list:
//   mode 0  accumulate — one invocation per entry of that list: its particle's point dilated by
//           its quad's extent (the CPU's: runtime/bounds.h — ½√2 · max(|w|, |h|), plus
//           √3 · |stretch_scale| · max(|v|) for a quad stretched along its velocity), merged into
//           its row's edges with atomic min/max on order-preserving bits;
//   mode 1  publish — one invocation per row: the box, as ParticleWorld::Impl::measureBounds makes
//           it — the quick box (each axis skipping NaN), or where it is not finite the exact box
//           (skipping a particle with any non-finite coordinate or extent), unknown while empty,
//           an edge at 0 made +0, carried to world space for a row in its emitter's frame — then
//           the edges emptied for the next frame.
// Bit for bit the CPU world's box in exact mode, so culling decides the same on both.
#version 460

#include "frame_layout.glsl"
#include "math.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Input { uint frameInput[]; };
layout(std430, binding = 1) readonly buffer Records { uint records[]; };
layout(std430, binding = 2) readonly buffer Alive { uint alive[]; };
layout(std430, binding = 3) readonly buffer Counters { uint counters[]; };
layout(std430, binding = 4) buffer Edges { uint edges[]; };
layout(std430, binding = 5) writeonly buffer Published { uint published[]; };

layout(push_constant) uniform Push {
  uint mode;
  uint rowCount;      // 0 for the priming dispatch: nothing runs
  uint capacity;      // slots in the pool (an alive half's length)
  uint stride;        // words per record
  uint parity;        // the alive half the simulate pass read: the frame appended to the other
  uint rowsCapacity;  // rows the edges have room for
} push;

const uint kNone = 0xffffffffu;
const uint kHalfDiagonal = 0x3f3504f3u;  // 0.70710678f

uint stepWord(uint row, uint k) { return frameInput[row * kStepWords + k]; }
bool finiteBits(uint a) { return (a & 0x7f800000u) != 0x7f800000u; }
// x86's max as the CPU's vector loop uses it: b unless a > b (b when either is NaN).
uint vectorMax(uint a, uint b) { return xLt(b, a) ? a : b; }
uint lowAt(uint row, uint k) { return row * 6u + k; }
uint highAt(uint row, uint k) { return (push.rowsCapacity + row) * 6u + k; }

void accumulate(uint slot) {
  const uint at = slot * push.stride;
  const uint row = records[at];
  if (row >= push.rowCount) return;
  const uint flags = stepWord(row, kStepFlags);
  if ((flags & kRowAlive) == 0u || records[at + 1u] != stepWord(row, kStepGeneration)) return;
  const uint position = stepWord(row, kStepPositionWord);
  if (position == kNone) return;
  const uint words = at + kHeaderWords;
  const uvec3 p = uvec3(records[words + position], records[words + position + 1u],
                        records[words + position + 2u]);
  // The extent as the vector loop computes it (quick box) and as boundsExtent does (exact box):
  // they differ only in which operand a NaN leaves.
  uint quick = kZero;
  uint exact = kZero;
  const uint size = stepWord(row, kStepSizeWord);
  if (size != kNone) {
    const uint w = xAbs(records[words + size]);
    const uint h = xAbs(records[words + size + 1u]);
    quick = xMul(kHalfDiagonal, vectorMax(w, h));
    exact = xMul(kHalfDiagonal, xMax(w, h));
  }
  const uint velocity = stepWord(row, kStepVelocityWord);
  if (velocity != kNone) {
    const uint stretch = stepWord(row, kStepStretch);
    const uint vx = xAbs(records[words + velocity]);
    const uint vy = xAbs(records[words + velocity + 1u]);
    const uint vz = xAbs(records[words + velocity + 2u]);
    quick = xAdd(quick, xMul(vectorMax(vectorMax(vx, vy), vz), stretch));
    exact = xAdd(exact, xMul(xMax(xMax(vx, vy), vz), stretch));
  }
  const bool whole = finiteBits(p.x) && finiteBits(p.y) && finiteBits(p.z) && finiteBits(exact);
  for (uint c = 0u; c < 3u; ++c) {
    const uint lo = xSub(p[c], quick);
    const uint hi = xAdd(p[c], quick);
    if (!xIsNaN(lo)) atomicMin(edges[lowAt(row, c)], orderedBits(lo));
    if (!xIsNaN(hi)) atomicMax(edges[highAt(row, c)], orderedBits(hi));
    if (whole) {
      atomicMin(edges[lowAt(row, 3u + c)], orderedBits(xSub(p[c], exact)));
      atomicMax(edges[highAt(row, 3u + c)], orderedBits(xAdd(p[c], exact)));
    }
  }
}

uvec4 contextBuiltin(uint row, uint id) {
  const uint at = stepWord(row, kStepContextAt) + 4u * id;
  return uvec4(frameInput[at], frameInput[at + 1u], frameInput[at + 2u], frameInput[at + 3u]);
}

void publish(uint row) {
  uvec3 lo = uvec3(kPosInf);
  uvec3 hi = uvec3(kPosInf ^ kSignBit);
  bool known = false;
  const uint flags = stepWord(row, kStepFlags);
  if ((flags & kRowAlive) != 0u && stepWord(row, kStepPositionWord) != kNone) {
    bool finite = true;
    for (uint c = 0u; c < 3u; ++c) {
      lo[c] = fromOrderedBits(edges[lowAt(row, c)]);
      hi[c] = fromOrderedBits(edges[highAt(row, c)]);
      finite = finite && finiteBits(lo[c]) && finiteBits(hi[c]);
    }
    if (!finite)
      for (uint c = 0u; c < 3u; ++c) {
        lo[c] = fromOrderedBits(edges[lowAt(row, 3u + c)]);
        hi[c] = fromOrderedBits(edges[highAt(row, 3u + c)]);
      }
    known = xLe(lo.x, hi.x);  // no finite particle: unknown
    if (known) {
      for (uint c = 0u; c < 3u; ++c) {  // an edge at 0 is +0, whichever particle gave it
        lo[c] = xAdd(lo[c], kZero);
        hi[c] = xAdd(hi[c], kZero);
      }
      if (stepWord(row, kStepSpace) != 0u) {  // the box around the local box's eight corners
        const uvec4 turn = contextBuiltin(row, kBuiltinEmitterRotation);
        const uvec3 origin = contextBuiltin(row, kBuiltinEmitterPosition).xyz;
        uvec3 wlo = uvec3(kPosInf);
        uvec3 whi = uvec3(kPosInf ^ kSignBit);
        for (uint corner = 0u; corner < 8u; ++corner) {
          const uvec3 local = uvec3((corner & 1u) != 0u ? hi.x : lo.x,
                                    (corner & 2u) != 0u ? hi.y : lo.y,
                                    (corner & 4u) != 0u ? hi.z : lo.z);
          const uvec3 turned = quatRotateOf(turn, local);
          for (uint c = 0u; c < 3u; ++c) {
            wlo[c] = xMin(wlo[c], xAdd(origin[c], turned[c]));
            whi[c] = xMax(whi[c], xAdd(origin[c], turned[c]));
          }
        }
        lo = wlo;
        hi = whi;
      }
    }
  }
  const uint at = row * kBoxWords;
  for (uint c = 0u; c < 3u; ++c) {
    published[at + c] = known ? lo[c] : 0u;
    published[at + 3u + c] = known ? hi[c] : 0u;
  }
  published[at + 6u] = known ? 1u : 0u;
  published[at + 7u] = 0u;
  for (uint k = 0u; k < 6u; ++k) {  // empty for the next frame, whoever holds the row then
    edges[lowAt(row, k)] = kEmptyLow;
    edges[highAt(row, k)] = kEmptyHigh;
  }
}

void main() {
  if (push.rowCount == 0u) return;
  if (push.mode == 1u) {
    if (gl_GlobalInvocationID.x < push.rowCount) publish(gl_GlobalInvocationID.x);
    return;
  }
  const uint half_ = push.parity ^ 1u;
  const uint n = counters[aliveCounter(half_)];
  const uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint t = gl_GlobalInvocationID.x; t < n; t += step) accumulate(alive[half_ * push.capacity + t]);
}
