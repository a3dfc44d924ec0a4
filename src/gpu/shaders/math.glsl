// SPDX-License-Identifier: MIT
// The lane-mixing formulas of include/mote/bytecode/semantics.h and the reference executor
// (src/bytecode/reference.cpp) on exact.glsl's arithmetic: the same operations in the same order,
// so every result has the CPU's bits. Values are uint bit patterns throughout.
#ifndef MOTE_MATH_GLSL
#define MOTE_MATH_GLSL

#include "exact.glsl"

const uint kTwoPiF = 0x40c90fdbu;  // 2.0f * kPi, as the C++ folds it
const uint kTwoF = 0x40000000u;
const uint kHalfF = 0x3f000000u;

// unitFloatFromU32: (bits >> 8) · 2^-24, built in integers (exact, as on the CPU).
uint unitFloat(uint bits) {
  const uint m = bits >> 8;
  if (m == 0u) return 0u;
  const int msb = findMSB(m);  // 0..23
  return (uint(msb - 24 + 127) << 23) | ((m << uint(23 - msb)) & 0x7fffffu);
}

// std::fmax(0, x) where x is never -0 (1 − z², 1 − cos²): 0 for NaN and negative x.
uint xMax0(uint x) { return (xIsNaN(x) || xLt(x, kZero)) ? kZero : x; }

// ---- sin, cos, exp, log, pow, cbrt (semantics.h, semantics.cpp, semantics_math.cpp) -------------
#if MOTE_FP64
#include "semantics_constants.glsl"

double d64(uint64_t bits) { return uint64BitsToDouble(bits); }

// trig::fromQuadrant: sin and cos of q·π/2 + r, each rounded to float once.
uvec2 sinCosFromQuadrant(double r, uint q) {
  precise double r2 = r * r;
  precise double ps = d64(kSinBits[5]);
  for (int k = 4; k >= 0; --k) ps = d64(kSinBits[k]) + r2 * ps;
  precise double pc = d64(kCosBits[6]);
  for (int k = 5; k >= 0; --k) pc = d64(kCosBits[k]) + r2 * pc;
  precise double s = r * (1.0LF + r2 * ps);
  precise double c = 1.0LF + r2 * pc;
  const bool odd = (q & 1u) != 0u;
  uint sb = xToFloat(odd ? c : s);
  uint cb = xToFloat(odd ? s : c);
  if ((q & 2u) != 0u) sb ^= kSignBit;
  if (((q + 1u) & 2u) != 0u) cb ^= kSignBit;
  return uvec2(sb, cb);
}

// 2/π's bits, most significant first, after one byte of zeros (semantics.cpp kTwoOverPiBits).
const uint kTwoOverPiWords[12] = uint[12](0x00a2f983u, 0x6e4e4415u, 0x29fc2757u, 0xd1f534ddu,
                                          0xc0db6295u, 0x993c4390u, 0x41fe5163u, 0xabdebbc5u,
                                          0x61b7246eu, 0x3a424dd2u, 0u, 0u);
// The 32 bits of the table from bit `at` on.
uint twoOverPiBits32(uint at) {
  const uint word = at >> 5;
  const uint skip = at & 31u;
  const uint hi = kTwoOverPiWords[word];
  return skip == 0u ? hi : (hi << skip) | (kTwoOverPiWords[word + 1u] >> (32u - skip));
}

// sinCos: (sin, cos) of x radians, bit for bit semantics::sinCos — including sinCosLarge's exact
// reduction for |x| > 2^20 (x · 2/π with 2/π's bits in integers, mod 2^128 in 32-bit limbs).
uvec2 xSinCos(uint x) {
  double r;
  uint q;
  if ((x & 0x7fffffffu) <= 0x49800000u) {  // |x| <= 2^20
    const double xd = xToDouble(x);
    precise double shifted = xd * d64(kTwoOverPiBits) + d64(kRoundShiftBits);
    precise double n = shifted - d64(kRoundShiftBits);
    precise double r0 = ((xd - n * d64(kHalfPiBits[0])) - n * d64(kHalfPiBits[1])) -
                        n * d64(kHalfPiBits[2]);
    r = r0;
    q = uint(doubleBitsToUint64(shifted));
  } else {
    const uint biased = (x >> 23) & 0xffu;
    if (biased == 0xffu) return uvec2(kQuietNaN, kQuietNaN);  // inf and NaN
    const uint m = (x & 0x7fffffu) | 0x800000u;
    const uint at = biased - 150u - 1u + 7u;
    uint p[4];
    uint carry = 0u;
    for (uint k = 0u; k < 4u; ++k) {  // limb k of m · W, W the 128 bits from `at`
      uint hi;
      uint lo;
      umulExtended(m, twoOverPiBits32(at + 32u * (3u - k)), hi, lo);
      uint c1;
      p[k] = uaddCarry(lo, carry, c1);
      carry = hi + c1;
    }
    q = p[3] >> 30;
    const uint f3 = (p[3] << 2) | (p[2] >> 30);
    const uint f2 = (p[2] << 2) | (p[1] >> 30);
    q += f3 >> 31;
    const int64_t high = int64_t((uint64_t(f3) << 32) | uint64_t(f2));
    precise double rl = double(high) * d64(kHalfPiTimes2ToMinus64Bits);
    r = rl;
    if ((x >> 31) != 0u) {
      q = 0u - q;
      r = -r;
    }
  }
  return sinCosFromQuadrant(r, q);
}

double twoTo(int k) { return uint64BitsToDouble(uint64_t(k + 1023) << 52); }

// math::expOf: e^y in double for y in [kExpUnderflow, kExpOverflow].
double expOf(double y) {
  precise double shifted = y * d64(kExpInverseStepBits) + d64(kRoundShiftBits);
  precise double n = shifted - d64(kRoundShiftBits);
  precise double r = (y - n * d64(kExpStepBits[0])) - n * d64(kExpStepBits[1]);
  const int64_t ni = int64_t(doubleBitsToUint64(shifted) - doubleBitsToUint64(d64(kRoundShiftBits)));
  precise double r2 = r * r;
  precise double p = d64(kExpPolyBits[4]);
  for (int c = 3; c >= 0; --c) p = d64(kExpPolyBits[c]) + r * p;
  const double t = d64(kExp2StepsBits[uint(ni & 63L)]);
  precise double v = t + t * (r + r2 * p);
  precise double out_ = v * twoTo(int(ni >> 6));
  return out_;
}

// math::logOf: ln x in double for x a positive finite float's value.
double logOf(double x) {
  const uint64_t u = doubleBitsToUint64(x);
  const uint64_t tmp = u - kLogOffset;
  const uint i = uint(tmp >> 45) & 127u;
  const double k = double(int64_t(tmp) >> 52);
  const double z = uint64BitsToDouble(u - (tmp & 0xFFF0000000000000UL));
  precise double r = z * d64(kLogInverseBits[i]) - 1.0LF;
  precise double r2 = r * r;
  precise double p = d64(kLogPolyBits[6]);
  for (int c = 5; c >= 0; --c) p = d64(kLogPolyBits[c]) + r * p;
  precise double hi = k * d64(kLn2Bits[0]) + d64(kLogOfCBits[i]);
  precise double out_ = hi + (r + (r2 * p + k * d64(kLn2Bits[1])));
  return out_;
}

// e^y rounded to float, y in double (exponential's and power's last step).
uint expToFloat(double y) {
  if (y > d64(kExpOverflowBits)) return kPosInf;
  if (y < d64(kExpUnderflowBits)) return kZero;
  return xToFloat(expOf(y));
}

// exp, log and pow (semantics::exponential, logarithm, power) in one function, so the double
// kernels are compiled once: op 0 exp(a), 1 log(a), 2 pow(a, b).
uint xExpLogPow(uint op, uint a, uint b) {
  const bool nanA = xIsNaN(a);
  if (op == 0u) {
    if (nanA) return kQuietNaN;
    return expToFloat(xToDouble(a));
  }
  if (op == 1u) {
    if (nanA) return kQuietNaN;
    if (xLt(a, kZero)) return kQuietNaN;
    if ((a & 0x7fffffffu) == 0u) return kSignBit | kPosInf;
    if (a == kPosInf) return a;
    return xToFloat(logOf(xToDouble(a)));
  }
  if ((b & 0x7fffffffu) == 0u || a == kOne) return kOne;
  if (nanA || xIsNaN(b)) return kQuietNaN;
  const uint absA = a & 0x7fffffffu;
  const uint ub = b & 0x7fffffffu;
  const bool bNegative = (b & kSignBit) != 0u;
  if (ub == kPosInf) {
    if (absA == kOne) return kOne;
    return (xLt(absA, kOne) == bNegative) ? kPosInf : kZero;
  }
  const uint biased = ub >> 23;
  const uint mantissa = (ub & 0x7fffffu) | 0x800000u;
  const bool integer =
      biased >= 150u || (biased >= 127u && (mantissa & ((1u << (150u - biased)) - 1u)) == 0u);
  const bool odd = integer && biased <= 150u && ((mantissa >> (150u - biased)) & 1u) != 0u;
  const uint sign = ((a & kSignBit) != 0u && odd) ? kSignBit : 0u;
  if (absA == 0u) return sign | (bNegative ? kPosInf : kZero);
  if (absA == kPosInf) return sign | (bNegative ? kZero : kPosInf);
  if ((a & kSignBit) != 0u && !integer) return kQuietNaN;
  precise double y = xToDouble(b) * logOf(xToDouble(absA));
  return sign | expToFloat(y);
}

// semantics::cubeRoot.
uint xCbrt(uint x) {
  if ((x & 0x7fffffffu) == 0u || (x & kExpMask) == kExpMask) return xAdd(x, x);  // ±0, ±inf, NaN
  const uint64_t u = doubleBitsToUint64(xToDouble(x & 0x7fffffffu));
  const int biased = int(uint(u >> 52)) - 1023 + 150;  // 1..277
  const int q = biased / 3 - 50;
  const int s = biased % 3;
  const uint i = uint(u >> 45) & 127u;
  const double m = uint64BitsToDouble((u & 0x000FFFFFFFFFFFFFUL) | 0x3FF0000000000000UL);
  precise double r = m * d64(kCbrtInverseBits[i]) - 1.0LF;
  precise double p = d64(kCbrtPolyBits[5]);
  for (int c = 4; c >= 0; --c) p = d64(kCbrtPolyBits[c]) + r * p;
  const double t = d64(kCbrtScaleBits[uint(128 * s) + i]);
  precise double v = (t + t * (r * p)) * twoTo(q);
  const uint f = xToFloat(v);
  return (x & kSignBit) != 0u ? f ^ kSignBit : f;
}
#else
// Fast mode: the device's own functions (no hash is promised there).
uvec2 xSinCos(uint x) {
  const float v = uintBitsToFloat(x);
  return uvec2(floatBitsToUint(sin(v)), floatBitsToUint(cos(v)));
}
uint xExpLogPow(uint op, uint a, uint b) {
  const float x = uintBitsToFloat(a);
  if (op == 0u) return floatBitsToUint(exp(x));
  if (op == 1u) return floatBitsToUint(log(x));
  return floatBitsToUint(pow(x, uintBitsToFloat(b)));
}
uint xCbrt(uint x) {
  const float v = uintBitsToFloat(x);
  return floatBitsToUint(sign(v) * pow(abs(v), 1.0 / 3.0));
}
#endif

// ---- quaternions and random shapes (semantics.h) ------------------------------------------------
// The interpreter computes every sine and cosine an instruction needs at one place (vm.glsl) and
// hands them in, so the shaders hold one copy of sinCos: nothing below calls it.
uvec4 quatMul(uvec4 a, uvec4 b) {
  return uvec4(
      xSub(xAdd(xAdd(xMul(a.w, b.x), xMul(a.x, b.w)), xMul(a.y, b.z)), xMul(a.z, b.y)),
      xAdd(xAdd(xSub(xMul(a.w, b.y), xMul(a.x, b.z)), xMul(a.y, b.w)), xMul(a.z, b.x)),
      xAdd(xSub(xAdd(xMul(a.w, b.z), xMul(a.x, b.y)), xMul(a.y, b.x)), xMul(a.z, b.w)),
      xSub(xSub(xSub(xMul(a.w, b.w), xMul(a.x, b.x)), xMul(a.y, b.y)), xMul(a.z, b.z)));
}

// (x² + y²) + z², as semantics.h sums a 3-vector's squares.
uint sumOfSquares3(uvec3 v) { return xAdd(xAdd(xMul(v.x, v.x), xMul(v.y, v.y)), xMul(v.z, v.z)); }

// quatRotate (semantics.h): v turned by q normalised; v itself for a zero q.
uvec3 quatRotateOf(uvec4 q, uvec3 v) {
  const uint n = xSqrt(xAdd(sumOfSquares3(q.xyz), xMul(q.w, q.w)));
  if (xEq(n, kZero)) return v;
  const uvec4 u = uvec4(xDiv(q.x, n), xDiv(q.y, n), xDiv(q.z, n), xDiv(q.w, n));
  const uvec4 conj = uvec4(xNeg(u.x), xNeg(u.y), xNeg(u.z), u.w);
  return quatMul(quatMul(u, uvec4(v, kZero)), conj).xyz;
}

// quatAxisAngle given half = sinCos(angle · 0.5): identity for a zero axis.
uvec4 quatAxisAngleOf(uvec3 axis, uvec2 half_) {
  const uint len = xSqrt(sumOfSquares3(axis));
  if (xEq(len, kZero)) return uvec4(kZero, kZero, kZero, kOne);
  const uint s = xDiv(half_.x, len);
  return uvec4(xMul(axis.x, s), xMul(axis.y, s), xMul(axis.z, s), half_.y);
}

// unitVector, ballPoint (with its radius r = cbrt(u2); 1 for the unit vector, which skips the
// product) and diskPoint, given turn = sinCos(2π · u1).
uvec3 spherePoint(uvec4 bits, uvec2 turn, bool ball) {
  const uint z = xSub(kOne, xMul(kTwoF, unitFloat(bits.x)));
  const uint rho = xSqrt(xMax0(xSub(kOne, xMul(z, z))));
  if (!ball) return uvec3(xMul(rho, turn.y), xMul(rho, turn.x), z);
  const uint r = xCbrt(unitFloat(bits.z));
  return uvec3(xMul(xMul(r, rho), turn.y), xMul(xMul(r, rho), turn.x), xMul(r, z));
}
uvec3 diskPoint(uvec4 bits, uvec2 turn) {
  const uint r = xSqrt(unitFloat(bits.x));
  return uvec3(xMul(r, turn.y), kZero, xMul(r, turn.x));
}
// coneDirection given cosMax = cos(halfAngle) and turn = sinCos(2π · u1).
uvec3 coneDirection(uvec4 bits, uint cosMax, uvec2 turn) {
  const uint cosT = xSub(kOne, xMul(xSub(kOne, cosMax), unitFloat(bits.x)));
  const uint sinT = xSqrt(xMax0(xSub(kOne, xMul(cosT, cosT))));
  return uvec3(xMul(sinT, turn.y), cosT, xMul(sinT, turn.x));
}
// 2π · u1: the turn of every random shape.
uint shapeTurn(uvec4 bits) { return xMul(kTwoPiF, unitFloat(bits.y)); }

// ---- gradient noise and its curl (reference.cpp) -------------------------------------------------
// Written as loops over the lattice corners and the twelve samples so each formula is compiled
// once (a driver inlines every call).
uint noiseHash(int x, int y, int z) {
  uint h = uint(x) * 0x8DA6B343u ^ uint(y) * 0xD8163841u ^ uint(z) * 0xCB1AB31Fu;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}

// The lattice cell of a whole float (semantics::noiseCell): f within ±2^30, else its bits below
// 2^30 with f's sign.
int noiseCell(uint f) {
  const uint e = (f >> 23) & 0xffu;
  const bool negative = (f & kSignBit) != 0u;
  if (e < 127u) return 0;  // ±0 (a floor is never strictly between -1 and 1 otherwise)
  const uint m = (f & 0x7fffffu) | 0x800000u;
  uint magnitude;
  if (e < 150u) {
    magnitude = m >> (150u - e);
  } else {
    const uint shift = e - 150u;
    magnitude = shift >= 30u ? 0u : ((m << shift) & 0x3fffffffu);
  }
  return negative ? -int(magnitude) : int(magnitude);
}

uint noise3(uvec3 p) {
  uvec3 d;
  uvec3 fade;
  ivec3 cell;
  for (uint axis = 0u; axis < 3u; ++axis) {
    const uint f = xFloor(p[axis]);
    cell[axis] = noiseCell(f);
    d[axis] = xSub(p[axis], f);
    const uint t = d[axis];  // t * t * t * (t * (t * 6 - 15) + 10)
    const uint inner = xAdd(xMul(t, xSub(xMul(t, 0x40c00000u), 0x41700000u)), 0x41200000u);
    fade[axis] = xMul(xMul(xMul(t, t), t), inner);
  }
  // The eight corners' gradient dots, corner bit 0 = x + 1, bit 1 = y + 1, bit 2 = z + 1. Each of
  // Perlin's twelve gradients is ±u ± v over two of the offset's axes.
  uint g[8];
  for (uint corner = 0u; corner < 8u; ++corner) {
    const uvec3 o = uvec3(corner & 1u, (corner >> 1) & 1u, (corner >> 2) & 1u);
    uvec3 off;
    for (uint axis = 0u; axis < 3u; ++axis) off[axis] = o[axis] != 0u ? xSub(d[axis], kOne) : d[axis];
    const uint h = noiseHash(cell.x + int(o.x), cell.y + int(o.y), cell.z + int(o.z)) % 12u;
    const uint u = h < 8u ? off.x : off.y;
    const uint v = h < 4u ? off.y : off.z;
    const uint su = (h & 1u) != 0u ? kSignBit : 0u;
    const uint sv = (h & 2u) != 0u ? kSignBit : 0u;
    g[corner] = xAdd(u ^ su, v ^ sv);
  }
  // Lerps along x (four), then y (two), then z: the order reference.cpp nests them in.
  uint values[7];
  for (uint k = 0u; k < 7u; ++k) {
    uint a;
    uint b;
    uint t;
    if (k < 4u) {
      a = g[2u * k];
      b = g[2u * k + 1u];
      t = fade.x;
    } else if (k < 6u) {
      a = values[2u * (k - 4u)];
      b = values[2u * (k - 4u) + 1u];
      t = fade.y;
    } else {
      a = values[4];
      b = values[5];
      t = fade.z;
    }
    values[k] = xAdd(a, xMul(xSub(b, a), t));
  }
  return values[6];
}

uvec3 curlNoise(uvec3 p) {
  if ((p.x & kExpMask) == kExpMask || (p.y & kExpMask) == kExpMask || (p.z & kExpMask) == kExpMask)
    return uvec3(kQuietNaN);  // no lattice cell for a non-finite point
  // ψ's components at p ± h along each axis: sample 2·(3·component + axis) + (0 for +, 1 for −).
  uint samples[18];
  for (uint k = 0u; k < 18u; ++k) {
    const uint component = k / 6u;
    const uint axis = (k / 2u) % 3u;
    uvec3 q;
    for (uint c = 0u; c < 3u; ++c) {
      const uint e = c == axis ? 0x3c000000u : kZero;  // h = 1/128 on the axis, 0 elsewhere
      q[c] = (k & 1u) == 0u ? xAdd(p[c], e) : xSub(p[c], e);
    }
    if (component == 1u) q.x = xAdd(q.x, 0x41fb3333u);  // + 31.4f
    if (component == 2u) q.y = xAdd(q.y, 0x41d8cccdu);  // + 27.1f
    samples[k] = noise3(q);
  }
  // ∂ψ_c/∂axis = (ψ(p + h) − ψ(p − h)) · 64; curl = (∂ψ2/∂y − ∂ψ1/∂z, ∂ψ0/∂z − ∂ψ2/∂x,
  // ∂ψ1/∂x − ∂ψ0/∂y).
  uint derivative[9];
  for (uint k = 0u; k < 9u; ++k) derivative[k] = xMul(xSub(samples[2u * k], samples[2u * k + 1u]), 0x42800000u);
  return uvec3(xSub(derivative[7], derivative[5]), xSub(derivative[2], derivative[6]),
               xSub(derivative[3], derivative[1]));
}

// ---- Philox4x32-10 (core/counter_rng.h) ----------------------------------------------------------
uvec4 philox(uvec4 counter, uvec2 key) {
  for (int round = 0; round < 10; ++round) {
    if (round > 0) key += uvec2(0x9E3779B9u, 0xBB67AE85u);
    uint hi0;
    uint lo0;
    uint hi1;
    uint lo1;
    umulExtended(0xD2511F53u, counter.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, counter.z, hi1, lo1);
    counter = uvec4(hi1 ^ counter.y ^ key.x, lo1, hi0 ^ counter.w ^ key.y, lo0);
  }
  return counter;
}

#endif  // MOTE_MATH_GLSL
