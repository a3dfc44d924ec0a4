// SPDX-License-Identifier: MIT
// The VM over independent cases, with the wide register file in a storage buffer (vm_ops.glsl).
#version 460
#define MOTE_VM_WIDE 1

#include "vm_ops.glsl"
