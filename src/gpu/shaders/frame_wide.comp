// SPDX-License-Identifier: MIT
// The frame's simulate and emit passes with the register file in a storage buffer, for programs
// with more registers than the private file holds (meep "Two interpreters"; frame.glsl).
#version 460

#define MOTE_VM_WIDE 1
#include "frame.glsl"
