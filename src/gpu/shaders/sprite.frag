// SPDX-License-Identifier: MIT
// The GPU renderer's fragment stage into the frame alone (sprite_fragment.glsl).
#version 460
#define MOTE_OIT 0
#include "sprite_fragment.glsl"
