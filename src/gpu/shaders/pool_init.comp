// SPDX-License-Identifier: MIT
// The pool's free list filled by a dispatch (meep: not a host upload): dead[i] = i for every slot,
// and the counters — live 0, free `capacity`, dropped 0.
#version 460

layout(local_size_x = 256) in;

layout(std430, binding = 0) writeonly buffer Counters { uint counters[]; };
layout(std430, binding = 1) writeonly buffer Dead { uint dead[]; };

layout(push_constant) uniform Push { uint capacity; } push;

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i < push.capacity) dead[i] = i;
  if (i == 0u && push.capacity > 0u) {
    counters[0] = 0u;
    counters[1] = push.capacity;
    counters[2] = 0u;
  }
}
