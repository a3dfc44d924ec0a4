// SPDX-License-Identifier: MIT
// The mesh triangles' fragment stage into the frame alone (triangle_fragment.glsl).
#version 460
#define MOTE_OIT 0
#include "triangle_fragment.glsl"
