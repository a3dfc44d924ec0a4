// SPDX-License-Identifier: MIT
// The device self-test (src/gpu/self_test.cpp): every operation exact.glsl provides, on operand
// triples the host chose, through the same functions the interpreter calls, and the double
// operations of the newborns' spawn times on doubles made of the same words. The host compares the
// bits with its own correctly rounded results.
#version 460
#include "exact.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Operands { uint operands[]; };  // a, b, c per case
layout(std430, binding = 1) writeonly buffer Results { uint results[]; };   // kOps per case

layout(push_constant) uniform Push { uint cases; } push;

const uint kWords = 22u;  // 12 float results, 4 double ones (2 words each), dlt and d2f

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= push.cases) return;
  const uint a = operands[3u * i];
  const uint b = operands[3u * i + 1u];
  const uint c = operands[3u * i + 2u];
  const uint at = kWords * i;
  results[at + 0u] = xAdd(a, b);
  results[at + 1u] = xSub(a, b);
  results[at + 2u] = xMul(a, b);
  results[at + 3u] = xDiv(a, b);
  results[at + 4u] = xFma(a, b, c);
  results[at + 5u] = xSqrt(a);
  results[at + 6u] = xFloor(a);
  results[at + 7u] = xMin(a, b);
  results[at + 8u] = xMax(a, b);
  results[at + 9u] = xBool(xLt(a, b));
  results[at + 10u] = xBool(xLe(a, b));
  results[at + 11u] = xBool(xEq(a, b));
#if MOTE_FP64
  const double da = packDouble2x32(uvec2(b, a));  // high word a
  const double db = packDouble2x32(uvec2(c, b));
  const uvec2 sum = unpackDouble2x32(dAdd(da, db));
  const uvec2 difference = unpackDouble2x32(dSub(da, db));
  const uvec2 product = unpackDouble2x32(dMul(da, db));
  const uvec2 quotient = unpackDouble2x32(dDiv(da, db));
  results[at + 12u] = sum.x;
  results[at + 13u] = sum.y;
  results[at + 14u] = difference.x;
  results[at + 15u] = difference.y;
  results[at + 16u] = product.x;
  results[at + 17u] = product.y;
  results[at + 18u] = quotient.x;
  results[at + 19u] = quotient.y;
  results[at + 20u] = dLt(da, db) ? 1u : 0u;
  results[at + 21u] = xToFloat(da);
#else
  for (uint k = 12u; k < kWords; ++k) results[at + k] = 0u;
#endif
}
