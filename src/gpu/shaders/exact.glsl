// SPDX-License-Identifier: MIT
// Mote's float arithmetic on a GPU, bit for bit the CPU's (docs/gpu.md, "Exact mode").
//
// Values travel as uint bit patterns, so nothing the device does to a float in a register (flushing
// a denormal, quieting or dropping a NaN, losing the sign of a zero) can happen between operations.
// Every operation is a function of bits: comparisons, min/max, abs/neg and floor are integer code
// everywhere; add, sub and mul run natively (Vulkan rounds them correctly) except where an operand
// or the result is zero, subnormal, infinite or NaN — there the device may flush or guess, so with
// MOTE_GUARD set they are redone in fp64 from integer-decoded operands. fma, division and square
// root, which Vulkan does not promise to round correctly, are emulated in fp64 where the device
// self-test found them wrong (MOTE_EMULATE_FMA, _DIV, _SQRT). The flags are a specialisation
// constant chosen by the self-test (src/gpu/self_test.cpp); in fast mode (no fp64) they are 0 and
// this file compiles without fp64.
//
// Every float and double temporary is `precise` (SPIR-V NoContraction): no fusing, no reassociation.
#ifndef MOTE_EXACT_GLSL
#define MOTE_EXACT_GLSL

#ifndef MOTE_FP64
#define MOTE_FP64 0
#endif

#if MOTE_FP64
#extension GL_ARB_gpu_shader_int64 : require
#endif

layout(constant_id = 0) const uint kExactFlags = 0u;
const uint MOTE_GUARD = 1u;
const uint MOTE_EMULATE_FMA = 2u;
const uint MOTE_EMULATE_DIV = 4u;
const uint MOTE_EMULATE_SQRT = 8u;

const uint kSignBit = 0x80000000u;
const uint kExpMask = 0x7f800000u;
const uint kQuietNaN = 0x7fc00000u;
const uint kPosInf = 0x7f800000u;

bool xIsNaN(uint a) { return (a & 0x7fffffffu) > kPosInf; }
// Zero, subnormal, infinite or NaN: the values a device may not handle as IEEE says.
bool xIsSpecial(uint a) {
  const uint e = a & kExpMask;
  return e == 0u || e == kExpMask;
}

// ---- comparisons (IEEE: false with a NaN, +0 == -0) ---------------------------------------------
// The bits mapped to a signed integer of the same order (negative floats reversed; -0 below +0,
// which the callers treat as equal).
int xOrderKey(uint a) { return (a & kSignBit) != 0u ? -int(a & 0x7fffffffu) : int(a); }
bool xLt(uint a, uint b) {
  if (xIsNaN(a) || xIsNaN(b)) return false;
  if (((a | b) & 0x7fffffffu) == 0u) return false;  // ±0 < ±0
  return xOrderKey(a) < xOrderKey(b);
}
bool xEq(uint a, uint b) {
  if (xIsNaN(a) || xIsNaN(b)) return false;
  return a == b || ((a | b) & 0x7fffffffu) == 0u;
}
bool xLe(uint a, uint b) { return xLt(a, b) || xEq(a, b); }
bool xNonZero(uint a) { return (a & 0x7fffffffu) != 0u; }  // a != 0 (true for NaN)

uint xAbs(uint a) { return a & 0x7fffffffu; }
uint xNeg(uint a) { return a ^ kSignBit; }

// floor: exact on every device (no float instruction at all).
uint xFloor(uint a) {
  const uint e = (a >> 23) & 0xffu;
  if (e == 0xffu) return xIsNaN(a) ? (a | 0x00400000u) : a;  // inf stays, NaN quiet
  if (e >= 150u) return a;                                   // |a| >= 2^23: an integer already
  const bool negative = (a & kSignBit) != 0u;
  if (e < 127u) {  // |a| < 1
    if ((a & 0x7fffffffu) == 0u) return a;  // ±0
    // -1 or +0. Not `negative ? 0xbf800000u : 0u`: Mesa 22.3's lavapipe compiles that select to
    // 0x80000000 for a positive subnormal (the self-test caught it).
    return (a >> 31) * 0xbf800000u;
  }
  const uint fractionBits = 150u - e;  // 1..23 bits below the binary point
  const uint mask = (1u << fractionBits) - 1u;
  if ((a & mask) == 0u) return a;
  uint t = a & ~mask;  // truncated toward zero
  if (negative) {      // one more in magnitude: add one unit of the kept bits (carries into e)
    t += 1u << fractionBits;
  }
  return t;
}

#if MOTE_FP64
// ---- fp64 helpers: exact decoding and one correct rounding, in integers -------------------------
double xToDouble(uint a) {
  const uint64_t sign = uint64_t(a & kSignBit) << 32;
  uint e = (a >> 23) & 0xffu;
  uint m = a & 0x7fffffu;
  if (e == 0xffu) {  // inf, NaN (the payload's top bits kept, so a NaN stays a NaN)
    return uint64BitsToDouble(sign | 0x7ff0000000000000UL | (uint64_t(m) << 29));
  }
  if (e == 0u) {
    if (m == 0u) return uint64BitsToDouble(sign);
    const int msb = findMSB(m);  // 0..22
    const uint shift = uint(23 - msb);
    m = (m << shift) & 0x7fffffu;
    const int exponent = -126 - int(shift);  // unbiased
    return uint64BitsToDouble(sign | (uint64_t(uint(exponent + 1023)) << 52) |
                              (uint64_t(m) << 29));
  }
  return uint64BitsToDouble(sign | (uint64_t(e - 127u + 1023u) << 52) | (uint64_t(m) << 29));
}

// d rounded to the nearest float, ties to even, subnormals and overflow included.
uint xToFloat(double d) {
  const uint64_t b = doubleBitsToUint64(d);
  const uint sign = uint(b >> 32) & kSignBit;
  const int e = int(uint(b >> 52) & 0x7ffu);
  const uint64_t m = b & 0x000fffffffffffffUL;
  if (e == 0x7ff) return m != 0UL ? (sign | kQuietNaN | uint(m >> 29)) : (sign | kPosInf);
  if (e == 0) return sign;  // a double subnormal is far below half the least float
  const int fe = e - 896;   // the float's biased exponent
  if (fe >= 255) return sign | kPosInf;
  const uint64_t sig = m | (1UL << 52);
  const int s = 29 + max(0, 1 - fe);  // bits dropped
  if (s >= 54) return sign;           // below half the least subnormal
  uint64_t q = sig >> uint(s);
  const uint64_t rem = sig & ((1UL << uint(s)) - 1UL);
  const uint64_t halfway = 1UL << uint(s - 1);
  if (rem > halfway || (rem == halfway && (q & 1UL) != 0UL)) q += 1UL;
  if (fe <= 0) return sign | uint(q);  // subnormal (q = 2^23: the least normal)
  const uint bits = (uint(fe) << 23) + uint(q - (1UL << 23));  // a carry bumps the exponent
  return sign | min(bits, kPosInf);
}

// The double arithmetic of the host's double formulas (the newborns' spawn times, frame.glsl):
// each one IEEE operation, never fused; the self-test checks them on known answers.
double dAdd(double a, double b) { precise double r = a + b; return r; }
double dSub(double a, double b) { precise double r = a - b; return r; }
double dMul(double a, double b) { precise double r = a * b; return r; }
double dDiv(double a, double b) { precise double r = a / b; return r; }
bool dLt(double a, double b) { return a < b; }
// std::clamp(v, lo, hi): v < lo ? lo : (hi < v ? hi : v).
double dClamp(double v, double lo, double hi) { return dLt(v, lo) ? lo : (dLt(hi, v) ? hi : v); }

// emission::cycleTime: t − loop · ⌊t / loop⌋, 0 where that is negative; t when loop ≤ 0 (floor is
// exact: no rounding to differ in).
double dCycle(double t, double loop) {
  if (!dLt(0.0LF, loop)) return t;
  const double c = dSub(t, dMul(loop, floor(dDiv(t, loop))));
  return dLt(c, 0.0LF) ? 0.0LF : c;
}

bool xDoubleSpecial(double d) { return (doubleBitsToUint64(d) & 0x7ff0000000000000UL) == 0x7ff0000000000000UL; }

// a + b rounded to odd: the round-to-nearest sum, moved to its odd neighbour when inexact (TwoSum
// gives the error exactly). Rounding that to float is the correctly rounded float sum.
double xAddOdd(double a, double b) {
  precise double s = a + b;
  if (xDoubleSpecial(s)) return s;
  precise double bb = s - a;
  precise double ab = s - bb;
  precise double ea = a - ab;
  precise double eb = b - bb;
  precise double err = ea + eb;
  uint64_t bits = doubleBitsToUint64(s);
  if (err != 0.0 && (bits & 1UL) == 0UL) {
    const bool away = (err > 0.0) == (s > 0.0);  // the exact sum is larger in magnitude
    bits = away ? bits + 1UL : bits - 1UL;
  }
  return uint64BitsToDouble(bits);
}

uint xAddEmulated(uint a, uint b) { return xToFloat(xAddOdd(xToDouble(a), xToDouble(b))); }
uint xMulEmulated(uint a, uint b) {
  precise double p = xToDouble(a) * xToDouble(b);  // exact: 48 significant bits, no underflow
  return xToFloat(p);
}
uint xFmaEmulated(uint a, uint b, uint c) {
  precise double p = xToDouble(a) * xToDouble(b);
  return xToFloat(xAddOdd(p, xToDouble(c)));
}

// The value of float magnitude bits m, with +inf standing for 2^128 (the rounding threshold above
// the largest float is the midpoint of it and 2^128).
double xMagnitude(uint m) {
  return m == kPosInf ? uint64BitsToDouble(0x47f0000000000000UL) : xToDouble(m);
}

// Corrects a candidate quotient magnitude q (at most one ulp off) of A / B, both magnitudes, finite
// and non-zero: compares A with the midpoints around q times B, which fp64 computes exactly.
uint xDivCorrect(uint q, double A, double B) {
  for (int step = 0; step < 2; ++step) {
    if (q < kPosInf) {
      precise double hiMid = (xMagnitude(q) + xMagnitude(q + 1u)) * 0.5;
      precise double r = A - hiMid * B;
      if (r > 0.0 || (r == 0.0 && (q & 1u) != 0u)) {
        q += 1u;
        continue;
      }
    }
    if (q > 0u) {
      precise double loMid = (xMagnitude(q - 1u) + xMagnitude(q)) * 0.5;
      precise double r = A - loMid * B;
      if (r < 0.0 || (r == 0.0 && (q & 1u) != 0u)) {
        q -= 1u;
        continue;
      }
    }
    break;
  }
  return q;
}

uint xDivEmulated(uint a, uint b) {
  const uint sign = (a ^ b) & kSignBit;
  const uint A = a & 0x7fffffffu;
  const uint B = b & 0x7fffffffu;
  if (xIsNaN(a) || xIsNaN(b)) return kQuietNaN;
  if ((A == kPosInf && B == kPosInf) || (A == 0u && B == 0u)) return kQuietNaN;
  if (A == kPosInf || B == 0u) return sign | kPosInf;
  if (A == 0u || B == kPosInf) return sign;
  const double da = xToDouble(A);
  const double db = xToDouble(B);
  precise double approx = da / db;
  return sign | xDivCorrect(xToFloat(approx), da, db);
}

uint xSqrtEmulated(uint a) {
  if (xIsNaN(a)) return kQuietNaN;
  if ((a & 0x7fffffffu) == 0u) return a;  // ±0
  if ((a & kSignBit) != 0u) return kQuietNaN;
  if (a == kPosInf) return a;
  const double da = xToDouble(a);
  uint q = xToFloat(sqrt(da));
  for (int step = 0; step < 2; ++step) {  // no ties: a midpoint squared has too many bits
    precise double hiMid = (xMagnitude(q) + xMagnitude(q + 1u)) * 0.5;
    precise double hi2 = hiMid * hiMid;
    if (hi2 < da) {
      q += 1u;
      continue;
    }
    precise double loMid = (xMagnitude(q - 1u) + xMagnitude(q)) * 0.5;
    precise double lo2 = loMid * loMid;
    if (lo2 > da) {
      q -= 1u;
      continue;
    }
    break;
  }
  return q;
}
#endif  // MOTE_FP64

// ---- the arithmetic the interpreter uses -------------------------------------------------------
uint xAdd(uint a, uint b) {
  precise float r = uintBitsToFloat(a) + uintBitsToFloat(b);
  const uint bits = floatBitsToUint(r);
#if MOTE_FP64
  if ((kExactFlags & MOTE_GUARD) != 0u && (xIsSpecial(a) || xIsSpecial(b) || xIsSpecial(bits)))
    return xAddEmulated(a, b);
#endif
  return bits;
}
uint xSub(uint a, uint b) { return xAdd(a, b ^ kSignBit); }
uint xMul(uint a, uint b) {
  precise float r = uintBitsToFloat(a) * uintBitsToFloat(b);
  const uint bits = floatBitsToUint(r);
#if MOTE_FP64
  if ((kExactFlags & MOTE_GUARD) != 0u && (xIsSpecial(a) || xIsSpecial(b) || xIsSpecial(bits)))
    return xMulEmulated(a, b);
#endif
  return bits;
}
uint xFma(uint a, uint b, uint c) {
#if MOTE_FP64
  if ((kExactFlags & MOTE_EMULATE_FMA) != 0u) return xFmaEmulated(a, b, c);
#endif
  precise float r = fma(uintBitsToFloat(a), uintBitsToFloat(b), uintBitsToFloat(c));
  const uint bits = floatBitsToUint(r);
#if MOTE_FP64
  if ((kExactFlags & MOTE_GUARD) != 0u &&
      (xIsSpecial(a) || xIsSpecial(b) || xIsSpecial(c) || xIsSpecial(bits)))
    return xFmaEmulated(a, b, c);
#endif
  return bits;
}
uint xDiv(uint a, uint b) {
#if MOTE_FP64
  if ((kExactFlags & MOTE_EMULATE_DIV) != 0u) return xDivEmulated(a, b);
#endif
  precise float r = uintBitsToFloat(a) / uintBitsToFloat(b);
  const uint bits = floatBitsToUint(r);
#if MOTE_FP64
  if ((kExactFlags & MOTE_GUARD) != 0u && (xIsSpecial(a) || xIsSpecial(b) || xIsSpecial(bits)))
    return xDivEmulated(a, b);
#endif
  return bits;
}
uint xSqrt(uint a) {
#if MOTE_FP64
  if ((kExactFlags & MOTE_EMULATE_SQRT) != 0u) return xSqrtEmulated(a);
#endif
  precise float r = sqrt(uintBitsToFloat(a));
  const uint bits = floatBitsToUint(r);
#if MOTE_FP64
  if ((kExactFlags & MOTE_GUARD) != 0u && (xIsSpecial(a) || xIsSpecial(bits)))
    return xSqrtEmulated(a);
#endif
  return bits;
}

// min(a, b) = b < a ? b : a and max(a, b) = a < b ? b : a, as the ISA defines them.
uint xMin(uint a, uint b) { return xLt(b, a) ? b : a; }
uint xMax(uint a, uint b) { return xLt(a, b) ? b : a; }

const uint kOne = 0x3f800000u;
const uint kZero = 0u;
uint xBool(bool v) { return v ? kOne : kZero; }

#endif  // MOTE_EXACT_GLSL
