// SPDX-License-Identifier: MIT
// The GPU renderer's fragment stage with weighted blended OIT's two planes (sprite_fragment.glsl),
// for RendererDesc::transparency Oit.
#version 460
#define MOTE_OIT 1
#include "sprite_fragment.glsl"
