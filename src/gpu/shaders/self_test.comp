// SPDX-License-Identifier: MIT
// The device self-test (src/gpu/self_test.cpp): every operation exact.glsl provides, on operand
// triples the host chose, through the same functions the interpreter calls. The host compares the
// bits with its own correctly rounded results.
#version 460
#include "exact.glsl"

layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Operands { uint operands[]; };  // a, b, c per case
layout(std430, binding = 1) writeonly buffer Results { uint results[]; };   // kOps per case

layout(push_constant) uniform Push { uint cases; } push;

const uint kOps = 12u;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= push.cases) return;
  const uint a = operands[3u * i];
  const uint b = operands[3u * i + 1u];
  const uint c = operands[3u * i + 2u];
  const uint at = kOps * i;
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
}
