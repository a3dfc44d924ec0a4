// SPDX-License-Identifier: MIT
// The VM over independent cases, with the register file in private memory (vm_ops.glsl).
#version 460

#include "vm_ops.glsl"
