// SPDX-License-Identifier: MIT
// The mesh triangles' fragment stage with weighted blended OIT's planes (triangle_fragment.glsl).
#version 460
#define MOTE_OIT 1
#include "triangle_fragment.glsl"
