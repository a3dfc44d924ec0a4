// SPDX-License-Identifier: MIT
// The words billboard.glsl's users read a view and a particle from (billboard_cases.comp,
// sprite.vert): floats as their bit patterns, in the shaders' order. Private to mote_gpu.
#pragma once

#include <mote/render/billboard.h>

#include <bit>
#include <cstdint>
#include <vector>

namespace mote::gpu {

inline void putWord(std::vector<std::uint32_t>& out, float v) {
  out.push_back(std::bit_cast<std::uint32_t>(v));
}
inline void putWords(std::vector<std::uint32_t>& out, glm::vec3 v) {
  putWord(out, v.x);
  putWord(out, v.y);
  putWord(out, v.z);
}
/// A quaternion as (x, y, z, w).
inline void putWords(std::vector<std::uint32_t>& out, glm::quat q) {
  putWord(out, q.x);
  putWord(out, q.y);
  putWord(out, q.z);
  putWord(out, q.w);
}

/// 24 words: eye, forward, right, up, worldUp, groundRight, groundUp, then orthographic (0 or 1),
/// heightsPerUnit, stretchScaleSeconds.
inline void putView(std::vector<std::uint32_t>& out, const render::BillboardView& view) {
  for (const glm::vec3 v :
       {view.eye, view.forward, view.right, view.up, view.worldUp, view.groundRight, view.groundUp})
    putWords(out, v);
  out.push_back(view.orthographic ? 1u : 0u);
  putWord(out, view.heightsPerUnit);
  putWord(out, view.stretchScaleSeconds);
}

/// 16 words: position, velocity, halfSize, orientation, emitterRotation.
inline void putParticle(std::vector<std::uint32_t>& out, const render::BillboardInput& in) {
  putWords(out, in.position);
  putWords(out, in.velocity);
  putWord(out, in.halfSize.x);
  putWord(out, in.halfSize.y);
  putWords(out, in.orientation);
  putWords(out, in.emitterRotation);
}

}  // namespace mote::gpu
