// SPDX-License-Identifier: MIT
// The ground pass's vertex stage (src/gpu/renderer.cpp): one triangle over the whole viewport.
#version 460

void main() {
  const vec2 corner = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2));
  gl_Position = vec4(corner * 2.0 - 1.0, 0.5, 1.0);
}
