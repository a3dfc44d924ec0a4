// SPDX-License-Identifier: MIT
// (Included by vm_ops.comp and vm_ops_wide.comp after their #version.)
// The VM over independent cases, for the opcode parity tests and tools (src/gpu/vm_ops.cpp): case i
// runs one section of one program on its own particle record with its own context — builtins,
// random stream, emitter words and globals — and reports whether it was killed, what it asked
// to SPAWN (or SPAWNI) and what it REPORTed. The emit and simulate passes run the same interpreter (vm.glsl) over the pool.
layout(local_size_x = 64) in;

// Program: the section's code at [0, codeWords), then the constants (4 words each).
layout(std430, binding = 0) readonly buffer Program { uint program[]; };
layout(std430, binding = 1) buffer Particles { uint particles[]; };
// Context of case i at i * contextWords: 14 builtins × 4, seed (2), id (2), tick (2), section,
// unused, then the emitter words, then 4 words per global import.
layout(std430, binding = 2) readonly buffer Contexts { uint contexts[]; };
// Results of case i at i * kResultWords: killed, spawn count, kMaxSpawns × (target, count,
// position, velocity, size, colour), report count, kMaxSpawns × (kind, tag, position, velocity).
layout(std430, binding = 3) buffer Results { uint results[]; };
#ifdef MOTE_VM_WIDE
// The wide register file: slot-major, kWideSlots slots of `cases` lanes.
layout(std430, binding = 4) buffer Registers { uint wideRegisters[]; };
#endif

layout(push_constant) uniform Push {
  uint cases;
  uint instructions;
  uint constantsAt;   // word where the constants start
  uint particleWords;
  uint contextWords;
  uint emitterWords;  // how many follow the fixed context
  uint wideStride;    // lanes of the wide register file
} push;

const uint kBuiltinWords = 56u;
const uint kFixedContextWords = 64u;
const uint kMaxSpawns = 8u;
const uint kSpawnWords = 17u;  // target, count, position, velocity, size, colour, from, trail
const uint kReportWords = 8u;  // kind, tag, position, velocity
const uint kReportsAt = 2u + kSpawnWords * kMaxSpawns;
const uint kResultWords = kReportsAt + 1u + kReportWords * kMaxSpawns;

uint gCase;

uint vmCodeWord(uint i) { return program[i]; }
uvec4 vmConstant(uint i) {
  const uint at = push.constantsAt + 4u * i;
  return uvec4(program[at], program[at + 1u], program[at + 2u], program[at + 3u]);
}
uint vmLoadParticle(uint word) { return particles[gCase * push.particleWords + word]; }
void vmStoreParticle(uint word, uint value) { particles[gCase * push.particleWords + word] = value; }
uint contextWord(uint i) { return contexts[gCase * push.contextWords + i]; }
uvec4 vmBuiltin(uint id) {
  const uint at = 4u * id;
  return uvec4(contextWord(at), contextWord(at + 1u), contextWord(at + 2u), contextWord(at + 3u));
}
uint vmEmitterWord(uint word) { return contextWord(kFixedContextWords + word); }
uvec4 vmGlobal(uint import_) {
  const uint at = kFixedContextWords + push.emitterWords + 4u * import_;
  return uvec4(contextWord(at), contextWord(at + 1u), contextWord(at + 2u), contextWord(at + 3u));
}

#include "exact.glsl"

// The tests' wind: (x · 0.5, y − 1, 2) — a pure function both sides compute (vm_ops.h).
uvec3 vmWind(uvec3 p) { return uvec3(xMul(p.x, 0x3f000000u), xSub(p.y, kOne), 0x40000000u); }

// A request's record: what reference.h's Inheritance holds, TRAIL's path start and flag last.
void vmRecordSpawn(uint target, uint count, uvec3 position, uvec4 velocitySize, uvec4 color,
                   uvec3 from, uint trail) {
  const uint at = gCase * kResultWords;
  const uint n = results[at + 1u];
  results[at + 1u] = n + 1u;
  if (n >= kMaxSpawns) return;  // counted, not kept
  const uint r = at + 2u + kSpawnWords * n;
  results[r] = target;
  results[r + 1u] = count;
  for (uint k = 0u; k < 3u; ++k) results[r + 2u + k] = position[k];
  for (uint k = 0u; k < 4u; ++k) results[r + 5u + k] = velocitySize[k];
  for (uint k = 0u; k < 4u; ++k) results[r + 9u + k] = color[k];
  for (uint k = 0u; k < 3u; ++k) results[r + 13u + k] = from[k];
  results[r + 16u] = trail;
}
void vmSpawnInherit(uint target, uint count, uvec3 position, uvec4 velocitySize, uvec4 color) {
  vmRecordSpawn(target, count, position, velocitySize, color, uvec3(0u), 0u);
}
// TRAIL passes no velocity (the runtime makes it from the path), its size, colour and path start.
void vmSpawnTrail(uint target, uint count, uvec3 position, uvec4 fromSize, uvec4 color) {
  vmRecordSpawn(target, count, position, uvec4(0u, 0u, 0u, fromSize.w), color, fromSize.xyz, 1u);
}
void vmReport(uint kind, uint tag, uvec3 position, uvec3 velocity) {
  const uint at = gCase * kResultWords + kReportsAt;
  const uint n = results[at];
  results[at] = n + 1u;
  if (n >= kMaxSpawns) return;  // counted, not kept
  const uint r = at + 1u + kReportWords * n;
  results[r] = kind;
  results[r + 1u] = tag;
  for (uint k = 0u; k < 3u; ++k) results[r + 2u + k] = position[k];
  for (uint k = 0u; k < 3u; ++k) results[r + 5u + k] = velocity[k];
}
// SPAWN passes the neutral inheritance (reference.h Inheritance).
void vmSpawn(uint target, uint count, uvec3 position) {
  vmSpawnInherit(target, count, position, uvec4(0u, 0u, 0u, kOne), uvec4(kOne));
}

#ifdef MOTE_VM_WIDE
uint vmWideLane() { return gCase; }
uint vmWideStride() { return push.wideStride; }
#endif
#include "registers.glsl"

#include "vm.glsl"

void main() {
  gCase = gl_GlobalInvocationID.x;
  if (gCase >= push.cases) return;
  VmRandom rng;
  rng.seed = uvec2(contextWord(kBuiltinWords), contextWord(kBuiltinWords + 1u));
  rng.counter = uvec2(contextWord(kBuiltinWords + 2u), contextWord(kBuiltinWords + 3u));
  rng.tick = uvec2(contextWord(kBuiltinWords + 4u), contextWord(kBuiltinWords + 5u));
  rng.update = contextWord(kBuiltinWords + 6u);
  results[gCase * kResultWords + 1u] = 0u;
  results[gCase * kResultWords + kReportsAt] = 0u;
  const bool killed = vmRun(push.instructions, rng);
  results[gCase * kResultWords] = killed ? 1u : 0u;
}
