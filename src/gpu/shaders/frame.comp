// SPDX-License-Identifier: MIT
// The frame's simulate and emit passes with the register file in private memory (frame.glsl).
#version 460

#include "frame.glsl"
