// SPDX-License-Identifier: MIT
// The particle VM on the GPU: an interpreter of the verified 4×u32 bytecode (include/mote/bytecode/
// isa.h), one particle per invocation, every opcode bit for bit the reference executor's
// (src/bytecode/reference.cpp) in exact mode. Registers hold bit patterns.
//
// The including shader defines, before including this file:
//   uint  vmCodeWord(uint i)            word i of the section being run
//   uvec4 vmConstant(uint i)            constant-pool entry i
//   uint  vmLoadParticle(uint word)     / void vmStoreParticle(uint word, uint value)
//   uvec4 vmBuiltin(uint id)            LOAD_BUILTIN's value (lanes past its width unread)
//   uint  vmEmitterWord(uint word)      LOAD_EMITTER
//   uvec4 vmGlobal(uint import)         LOAD_GLOBAL
//   uvec3 vmWind(uvec3 position)        SAMPLE_WIND: the host's wind (still air: zero)
//   void  vmSpawn(uint target, uint count, uvec3 position)   SPAWN's request
//   void  vmSpawnInherit(uint target, uint count, uvec3 position, uvec4 velocitySize,
//                        uvec4 color)                         SPAWNI's request
//   void  vmSpawnTrail(uint target, uint count, uvec3 position, uvec4 fromSize,
//                      uvec4 color)                           TRAIL's request
//   void  vmReport(uint kind, uint tag, uvec3 position, uvec3 velocity)   REPORT's event
//   uint  vmReg(uint slot)              / void vmSetReg(uint slot, uint value): the register file
// and, with MOTE_VM_SECTION_SWITCH defined, uint vmSwitchAt() and void vmSwitchSection(): the
// instruction at which the stream passes from INIT to UPDATE, and what the includer does then.
// The program is verified on the CPU before it is uploaded: opcodes, widths, kinds, indices and
// data flow are the verifier's promise, and the register file masks slots to its size anyway.
#ifndef MOTE_VM_GLSL
#define MOTE_VM_GLSL

#include "math.glsl"

// The particle's random stream: the seed, its id and the tick (reference.h, randomStream).
struct VmRandom {
  uvec2 seed;
  uvec2 counter;
  uvec2 tick;
  uint update;  // 1 in UPDATE, 0 in INIT
};

// Opcode numbers (MOTE_ISA_OPCODES; tests/gpu/vm_ops_test.cpp checks this list against it).
const uint OP_NOP = 0u;
const uint OP_MOV = 1u;
const uint OP_LDC = 2u;
const uint OP_LDF = 3u;
const uint OP_STF = 4u;
const uint OP_LDB = 5u;
const uint OP_LDE = 6u;
const uint OP_LDG = 7u;
const uint OP_ADD = 8u;
const uint OP_SUB = 9u;
const uint OP_MUL = 10u;
const uint OP_DIV = 11u;
const uint OP_FMA = 12u;
const uint OP_MIN = 13u;
const uint OP_MAX = 14u;
const uint OP_ABS = 15u;
const uint OP_NEG = 16u;
const uint OP_FLOOR = 17u;
const uint OP_FRACT = 18u;
const uint OP_MOD = 19u;
const uint OP_SQRT = 20u;
const uint OP_RSQRT = 21u;
const uint OP_SIN = 22u;
const uint OP_COS = 23u;
const uint OP_EXP = 24u;
const uint OP_LOG = 25u;
const uint OP_POW = 26u;
const uint OP_DOT = 27u;
const uint OP_CROSS = 28u;
const uint OP_LEN = 29u;
const uint OP_NORM = 30u;
const uint OP_LERP = 31u;
const uint OP_SMOOTH = 32u;
const uint OP_CLAMP = 33u;
const uint OP_SAT = 34u;
const uint OP_LT = 35u;
const uint OP_LE = 36u;
const uint OP_EQ = 37u;
const uint OP_NE = 38u;
const uint OP_SEL = 39u;
const uint OP_RAND = 40u;
const uint OP_RANDR = 41u;
const uint OP_RANDDIR = 42u;
const uint OP_RANDBALL = 43u;
const uint OP_RANDDISK = 44u;
const uint OP_RANDCONE = 45u;
const uint OP_CURL = 46u;
const uint OP_QAXIS = 47u;
const uint OP_QMUL = 48u;
const uint OP_QROT = 49u;
const uint OP_QINT = 50u;
const uint OP_KILL = 51u;
const uint OP_WIND = 52u;
const uint OP_SPAWN = 53u;
const uint OP_CURVE = 54u;
const uint OP_COLLIDE = 55u;
const uint OP_SPAWNI = 56u;
const uint OP_REPORT = 57u;
const uint OP_TRAIL = 58u;

const uint KIND_IMM = 2u;
// CurveTableInterp (MOTE_CURVE_INTERP_LIST).
const uint CURVE_LINEAR = 0u;
const uint CURVE_STEP = 1u;
const uint CURVE_SMOOTH = 2u;
const uint BUILTIN_DT = 0u;

// Source `word` of kind `kind`, `lanes` lanes (an immediate fills every lane).
uvec4 vmRead(uint kind, uint word, uint lanes) {
  if (kind == KIND_IMM) return uvec4(word);
  const uint base = word & 0xffu;
  uvec4 v = uvec4(0u);
  for (uint lane = 0u; lane < lanes; ++lane) v[lane] = vmReg(base + ((word >> (8u + 2u * lane)) & 3u));
  return v;
}

void vmWrite(uint dst, uvec4 v, uint lanes) {
  for (uint lane = 0u; lane < lanes; ++lane) vmSetReg(dst + lane, v[lane]);
}

// The four words of draw `index`: counterRandom4(seed, index | section << 16 | tick << 17, id).
uvec4 vmDraw(VmRandom rng, uint index) {
  const uint streamLo = index | (rng.update << 16) | (rng.tick.x << 17);
  const uint streamHi = (rng.tick.x >> 15) | (rng.tick.y << 17);
  return philox(uvec4(rng.counter.x, rng.counter.y, streamLo, streamHi), rng.seed);
}

// One lane of an elementwise opcode.
uint vmLane(uint op, uint a, uint b, uint c) {
  switch (op) {
    case OP_MOV: return a;
    case OP_ADD: return xAdd(a, b);
    case OP_SUB: return xSub(a, b);
    case OP_MUL: return xMul(a, b);
    case OP_DIV: return xDiv(a, b);
    case OP_FMA: return xFma(a, b, c);
    case OP_MIN: return xMin(a, b);
    case OP_MAX: return xMax(a, b);
    case OP_ABS: return xAbs(a);
    case OP_NEG: return xNeg(a);
    case OP_FLOOR: return xFloor(a);
    case OP_FRACT: return xSub(a, xFloor(a));
    case OP_MOD: return xSub(a, xMul(b, xFloor(xDiv(a, b))));
    case OP_SQRT: return xSqrt(a);
    case OP_RSQRT: return xDiv(kOne, xSqrt(a));
    case OP_EXP:
    case OP_LOG:
    case OP_POW: return xExpLogPow(op - OP_EXP, a, b);
    case OP_LERP: return xAdd(a, xMul(xSub(b, a), c));
    case OP_SMOOTH: {
      uint t = xDiv(xSub(c, a), xSub(b, a));
      t = xLt(t, kZero) ? kZero : (xLt(kOne, t) ? kOne : t);
      return xMul(xMul(t, t), xSub(0x40400000u, xMul(kTwoF, t)));
    }
    case OP_CLAMP: {
      const uint m = xLt(a, b) ? b : a;
      return xLt(c, m) ? c : m;
    }
    case OP_SAT: {
      const uint m = xLt(a, kZero) ? kZero : a;
      return xLt(kOne, m) ? kOne : m;
    }
    case OP_LT: return xBool(xLt(a, b));
    case OP_LE: return xBool(xLe(a, b));
    case OP_EQ: return xBool(xEq(a, b));
    case OP_NE: return xBool(!xEq(a, b));
    case OP_SEL: return xNonZero(a) ? b : c;
    default: return 0u;
  }
}

// The elementwise opcodes vmLane computes (sin and cos are elementwise too, but take the trig
// stage of vmRun).
bool vmIsElementwise(uint op) {
  return op == OP_MOV || (op >= OP_ADD && op <= OP_RSQRT) || (op >= OP_EXP && op <= OP_POW) ||
         (op >= OP_LERP && op <= OP_SEL);
}

// The register lanes an instruction of `op` at width `w` reads from each source.
uint vmOperandLanes(uint op, uint w) {
  if (op == OP_NOP || (op >= OP_LDC && op <= OP_LDG && op != OP_STF)) return 0u;
  if (vmIsElementwise(op) || op == OP_SIN || op == OP_COS || op == OP_STF || op == OP_DOT ||
      op == OP_LEN || op == OP_NORM || op == OP_RAND || op == OP_RANDR || op == OP_KILL)
    return w;
  return 4u;
}

// SPAWN's and SPAWNI's count operand as whole particles (semantics.h spawnCount): floor(x) capped
// at 2^20, 0 for x < 1 and NaN.
uint vmSpawnCount(uint x) {
  const uint count = xFloor(x);
  if (!xLe(kOne, count)) return 0u;    // NaN and below 1: nothing
  const uint kMaxCount = 0x49800000u;  // 2^20: one emitter's capacity at most
  const uint capped = xLt(count, kMaxCount) ? count : kMaxCount;
  // An integer-valued float in [1, 2^20] to its integer.
  const uint e = (capped >> 23) & 0xffu;
  return ((capped & 0x7fffffu) | 0x800000u) >> (150u - e);
}

// REPORT's tag operand (semantics.h reportTag): floor(x) clamped to [0, 2^24], 0 for NaN.
uint vmReportTag(uint x) {
  const uint tag = xFloor(x);
  if (!xLe(kZero, tag)) return 0u;   // NaN and negative
  const uint kMaxTag = 0x4b800000u;      // 2^24 (+inf too)
  if (!xLt(tag, kMaxTag)) return 16777216u;
  const uint e = (tag >> 23) & 0xffu;  // 127..150: a whole float in [1, 2^24)
  if (e < 127u) return 0u;              // ±0
  return ((tag & 0x7fffffu) | 0x800000u) >> (150u - e);
}

// CURVE (isa.h "Curves", semantics.h CurveTable): `first` the table's first constant.
uint curveItem(uint first, uint width, uint run, uint j, uint lane) {
  const uint at = first + run;
  return width == 1u ? vmConstant(at + (j >> 2))[j & 3u] : vmConstant(at + j)[lane];
}
uint curveTime(uint first, uint j) { return vmConstant(first + (j >> 2))[j & 3u]; }
uint curveRun(uint items, uint width) { return width == 1u ? (items + 3u) / 4u : items; }

uint curveSegmentParameter(uint first, uint interp, uint j, uint t) {
  const uint a = curveTime(first, j);
  const uint b = curveTime(first, j + 1u);
  if (interp == CURVE_STEP || !xLt(a, b)) return xBool(xLe(b, t));  // or a zero-length segment
  if (interp == CURVE_SMOOTH) {
    uint u = xDiv(xSub(t, a), xSub(b, a));
    u = xLt(u, kZero) ? kZero : (xLt(kOne, u) ? kOne : u);
    return xMul(xMul(u, u), xSub(0x40400000u, xMul(kTwoF, u)));
  }
  const uint u = xMul(xSub(t, a), xDiv(kOne, xSub(b, a)));
  const uint m = xLt(u, kZero) ? kZero : u;
  return xLt(kOne, m) ? kOne : m;
}

uvec4 vmCurve(uint first, uint keysWord, uint width, uint t) {
  const uint keys = keysWord & 0xffffu;
  const uint interp = keysWord >> 16;
  const uint values = curveRun(keys, 1u);
  const uint deltas = values + curveRun(keys, width);
  uvec4 out_ = uvec4(0u);
  if (keys == 1u) {
    for (uint lane = 0u; lane < width; ++lane) out_[lane] = curveItem(first, width, values, 0u, lane);
    return out_;
  }
  if (xIsNaN(t)) t = curveTime(first, 0u);
  uint j = 0u;
  for (uint n = keys - 1u; n > 1u;) {
    const uint half_ = n / 2u;
    j = xLe(curveTime(first, j + half_), t) ? j + half_ : j;
    n -= half_;
  }
  uint start = j;
  if (interp == CURVE_LINEAR) {  // the unsaturated segments before j are summed in too
    for (uint i = j; i > 0u; --i) {
      if (xLt(curveSegmentParameter(first, interp, i - 1u, t), kOne)) {
        start = i - 1u;
      } else if (!xEq(curveTime(first, i), curveTime(first, j))) {
        break;
      }
    }
  }
  const uint s = curveSegmentParameter(first, interp, j, t);
  for (uint lane = 0u; lane < width; ++lane) {
    uint acc = curveItem(first, width, values, start, lane);
    for (uint i = start; i < j; ++i)
      acc = xFma(curveItem(first, width, deltas, i, lane),
                 curveSegmentParameter(first, interp, i, t), acc);
    out_[lane] = xFma(curveItem(first, width, deltas, j, lane), s, acc);
  }
  return out_;
}

// Runs `instructions` instructions of the section; true when a KILL fired.
//
// Every instruction goes through the same stages, so the shader holds one copy of each costly
// formula however many opcodes use it (drivers inline every call): read the operands; the trig
// stage (every sine and cosine the instruction needs, at one place); the quaternion products (one
// place, run up to twice in a row for qrot); then the opcode's own result.
bool vmRun(uint instructions, VmRandom rng) {
  bool killed = false;
  for (uint at = 0u; at < instructions; ++at) {
#ifdef MOTE_VM_SECTION_SWITCH
    // The includer runs INIT and UPDATE as one stream (one copy of the interpreter): UPDATE's
    // draws and builtins from its first instruction on.
    if (at == vmSwitchAt()) {
      rng.update = 1u;
      vmSwitchSection();
    }
#endif
    const uint w0 = vmCodeWord(4u * at);
    const uint s0 = vmCodeWord(4u * at + 1u);
    const uint s1 = vmCodeWord(4u * at + 2u);
    const uint s2 = vmCodeWord(4u * at + 3u);
    const uint op = w0 & 0xffu;
    const uint w = ((w0 >> 8) & 3u) + 1u;
    const uint k0 = (w0 >> 16) & 3u;
    const uint k1 = (w0 >> 18) & 3u;
    const uint k2 = (w0 >> 20) & 3u;
    const uint dst = w0 >> 24;
    // Operands of kind Reg or Imm, as many lanes as the opcode reads: the instruction's width
    // for the lane-wise ones, none for the loads (their sources are indices), four for the rest.
    const uint lanes = vmOperandLanes(op, w);
    const uvec4 a = vmRead(k0, s0, lanes);
    const uvec4 b = vmRead(k1, s1, lanes);
    const uvec4 c = vmRead(k2, s2, lanes);
    if (vmIsElementwise(op)) {
      uvec4 r = uvec4(0u);
      for (uint lane = 0u; lane < w; ++lane) r[lane] = vmLane(op, a[lane], b[lane], c[lane]);
      vmWrite(dst, r, w);
      continue;
    }
    const bool shape = op >= OP_RANDDIR && op <= OP_RANDCONE;
    const uvec4 bits = (op == OP_RAND || op == OP_RANDR || shape) ? vmDraw(rng, s0) : uvec4(0u);

    // The trig stage: the angles, then their sines and cosines.
    uvec4 angles = uvec4(0u);
    uint turns = 0u;
    if (op == OP_SIN || op == OP_COS) {
      angles = a;
      turns = w;
    } else if (shape) {
      angles.x = shapeTurn(bits);
      angles.y = b.x;  // randcone's half-angle
      turns = op == OP_RANDCONE ? 2u : 1u;
    } else if (op == OP_QAXIS) {
      angles.x = xMul(b.x, kHalfF);
      turns = 1u;
    } else if (op == OP_QINT) {
      angles.x = xMul(xMul(xSqrt(sumOfSquares3(b.xyz)), vmBuiltin(BUILTIN_DT).x), kHalfF);
      turns = 1u;
    }
    uvec2 sc[4];
    for (uint k = 0u; k < turns; ++k) sc[k] = xSinCos(angles[k]);

    // The quaternion stage: qmul a ⊗ b; qint qaxis(b, |b| · DT) ⊗ a; qrot (q ⊗ v) ⊗ q* with q
    // normalised first.
    uvec4 quat = uvec4(0u);
    if (op == OP_QMUL || op == OP_QINT || op == OP_QROT) {
      uvec4 x = a;
      uvec4 y = b;
      uint products = 1u;
      bool identity = false;
      if (op == OP_QINT) {
        x = quatAxisAngleOf(b.xyz, sc[0]);
        y = a;
      } else if (op == OP_QROT) {
        const uint n = xSqrt(xAdd(sumOfSquares3(a.xyz), xMul(a.w, a.w)));
        identity = xEq(n, kZero);
        x = uvec4(xDiv(a.x, n), xDiv(a.y, n), xDiv(a.z, n), xDiv(a.w, n));
        y = uvec4(b.xyz, kZero);
        products = 2u;
      }
      const uvec4 conj = uvec4(xNeg(x.x), xNeg(x.y), xNeg(x.z), x.w);
      for (uint k = 0u; k < products; ++k) {
        quat = quatMul(k == 0u ? x : quat, k == 0u ? y : conj);
      }
      if (identity) quat = uvec4(b.xyz, kZero);  // a zero quaternion leaves v unchanged
    }

    switch (op) {
      case OP_NOP:
        break;
      case OP_SIN:
      case OP_COS: {
        uvec4 r = uvec4(0u);
        for (uint lane = 0u; lane < w; ++lane) r[lane] = op == OP_SIN ? sc[lane].x : sc[lane].y;
        vmWrite(dst, r, w);
        break;
      }
      case OP_LDC:
        vmWrite(dst, vmConstant(s0), w);
        break;
      case OP_LDF:
      case OP_LDE: {  // w words from the particle's record or the emitter's block
        uvec4 v = uvec4(0u);
        for (uint i = 0u; i < w; ++i)
          v[i] = op == OP_LDF ? vmLoadParticle(s0 + i) : vmEmitterWord(s0 + i);
        vmWrite(dst, v, w);
        break;
      }
      case OP_STF:
        for (uint i = 0u; i < w; ++i) vmStoreParticle(s0 + i, b[i]);
        break;
      case OP_LDB:
        vmWrite(dst, vmBuiltin(s0), w);
        break;
      case OP_LDG:
        vmWrite(dst, vmGlobal(s0), w);
        break;
      case OP_DOT:
      case OP_LEN:
      case OP_NORM: {
        const uvec4 y = op == OP_DOT ? b : a;
        uint sum = xMul(a.x, y.x);
        for (uint i = 1u; i < w; ++i) sum = xAdd(sum, xMul(a[i], y[i]));
        if (op == OP_DOT) {
          vmWrite(dst, uvec4(sum, 0u, 0u, 0u), 1u);
          break;
        }
        const uint len = xSqrt(sum);
        if (op == OP_LEN) {
          vmWrite(dst, uvec4(len, 0u, 0u, 0u), 1u);
          break;
        }
        uvec4 r = uvec4(0u);
        for (uint i = 0u; i < w; ++i) r[i] = xLt(kZero, len) ? xDiv(a[i], len) : kZero;
        vmWrite(dst, r, w);
        break;
      }
      case OP_CROSS: {
        uvec4 r = uvec4(0u);
        for (uint i = 0u; i < 3u; ++i) {
          const uint j = (i + 1u) % 3u;
          const uint k = (i + 2u) % 3u;
          r[i] = xSub(xMul(a[j], b[k]), xMul(a[k], b[j]));
        }
        vmWrite(dst, r, 3u);
        break;
      }
      case OP_RAND:
      case OP_RANDR: {
        uvec4 r = uvec4(0u);
        for (uint i = 0u; i < w; ++i) {
          const uint u = unitFloat(bits[i]);
          r[i] = op == OP_RAND ? u : xAdd(b[i], xMul(xSub(c[i], b[i]), u));
        }
        vmWrite(dst, r, w);
        break;
      }
      case OP_RANDDIR:
      case OP_RANDBALL:
        vmWrite(dst, uvec4(spherePoint(bits, sc[0], op == OP_RANDBALL), 0u), 3u);
        break;
      case OP_RANDDISK:
        vmWrite(dst, uvec4(diskPoint(bits, sc[0]), 0u), 3u);
        break;
      case OP_RANDCONE:
        vmWrite(dst, uvec4(coneDirection(bits, sc[1].y, sc[0]), 0u), 3u);
        break;
      case OP_CURL: {
        const uint f = b.x;
        vmWrite(dst, uvec4(curlNoise(uvec3(xMul(a.x, f), xMul(a.y, f), xMul(a.z, f))), 0u), 3u);
        break;
      }
      case OP_QAXIS:
        vmWrite(dst, quatAxisAngleOf(a.xyz, sc[0]), 4u);
        break;
      case OP_QMUL:
      case OP_QINT:
        vmWrite(dst, quat, 4u);
        break;
      case OP_QROT:
        vmWrite(dst, uvec4(quat.xyz, 0u), 3u);
        break;
      case OP_KILL:
        if (xNonZero(a.x)) killed = true;
        break;
      case OP_WIND:
        vmWrite(dst, uvec4(vmWind(a.xyz), 0u), 3u);
        break;
      case OP_SPAWN: {
        const uint n = vmSpawnCount(b.x);
        if (n != 0u) vmSpawn(s0, n, c.xyz);
        break;
      }
      case OP_SPAWNI: {
        const uint n = vmSpawnCount(a.w);
        if (n != 0u) vmSpawnInherit(dst, n, a.xyz, b, c);
        break;
      }
      case OP_TRAIL: {
        const uint n = vmSpawnCount(a.w);
        if (n != 0u) vmSpawnTrail(dst, n, a.xyz, b, c);
        break;
      }
      case OP_REPORT:
        if (xLe(kOne, a.w)) vmReport(dst, vmReportTag(b.w), a.xyz, b.xyz);  // NaN, below 1: no
        break;
      case OP_CURVE:
        vmWrite(dst, vmCurve(s0, s2, w, b.x), w);
        break;
      case OP_COLLIDE:
        // No host world on the GPU: nothing is hit (the GPU world refuses effects that collide
        // with the host's world; this keeps the interpreter total). Lane by lane: lavapipe wrote
        // -0 into lane 2 of vmWrite(dst, uvec4(0u, 0u, 0u, 0xbf800000u), 4u).
        vmSetReg(dst, kZero);
        vmSetReg(dst + 1u, kZero);
        vmSetReg(dst + 2u, kZero);
        vmSetReg(dst + 3u, xNeg(kOne));
        break;
      default:
        break;  // every opcode is handled above (GpuVmSource.KnowsEveryOpcodeByItsNumber)
    }
  }
  return killed;
}

#endif  // MOTE_VM_GLSL
