// SPDX-License-Identifier: MIT
// The facing-quad fast path (facing_quads.h): the reference projection and the kernel
// on 4 lanes, or on 8 (facing_quads_avx2.cpp) where the CPU has AVX2.
#include "facing_quads.h"

#include "facing_kernel.h"

#include <mote/core/cpu_features.h>

#include <glm/vec4.hpp>

#include <algorithm>
#include <cmath>

namespace mote::render {

ScreenPoint projectCorner(const glm::mat4& viewProjection, glm::vec3 p, float width, float height,
                          float minW) noexcept {
  const glm::vec4 clip = viewProjection * glm::vec4(p, 1.0f);
  ScreenPoint s;
  s.w = clip.w;
  s.ok = clip.w > minW && std::isfinite(clip.x) && std::isfinite(clip.y);
  s.x = (clip.x / clip.w * 0.5f + 0.5f) * width;
  s.y = (0.5f - clip.y / clip.w * 0.5f) * height;
  return s;
}

void projectFacingBlock4(const FacingSetup& setup, const float* px, const float* py,
                         const float* pz, const float* sizeX, const float* sizeY, std::uint32_t n,
                         FacingBlock& out) noexcept {
  projectFacingLanes<F4>(setup, px, py, pz, sizeX, sizeY, n, out);
}

void appendFacingQuads4(const FacingSetup& setup, const FacingAppend& append,
                        const FacingParticles& in, Quad* quads, DrawKey* keys,
                        FacingTally& tally) noexcept {
  appendFacingLanes<F4>(setup, append, in, quads, keys, tally);
}

#if !MOTE_FACING_AVX2
// No 8-lane build here: the 4-lane kernels stand in (facingAvx2Available() is false).
void projectFacingBlock8(const FacingSetup& setup, const float* px, const float* py,
                         const float* pz, const float* sizeX, const float* sizeY, std::uint32_t n,
                         FacingBlock& out) noexcept {
  projectFacingBlock4(setup, px, py, pz, sizeX, sizeY, n, out);
}

void appendFacingQuads8(const FacingSetup& setup, const FacingAppend& append,
                        const FacingParticles& in, Quad* quads, DrawKey* keys,
                        FacingTally& tally) noexcept {
  appendFacingQuads4(setup, append, in, quads, keys, tally);
}
#endif

bool facingAvx2Available() noexcept {
#if MOTE_FACING_AVX2
  return cpuFeatures().avx2;
#else
  return false;
#endif
}

void projectFacingBlock(const FacingSetup& setup, const float* px, const float* py, const float* pz,
                        const float* sizeX, const float* sizeY, std::uint32_t n,
                        FacingBlock& out) noexcept {
#if MOTE_FACING_AVX2
  if (facingAvx2Available()) {
    projectFacingBlock8(setup, px, py, pz, sizeX, sizeY, n, out);
    return;
  }
#endif
  projectFacingBlock4(setup, px, py, pz, sizeX, sizeY, n, out);
}

void appendFacingQuads(const FacingSetup& setup, const FacingAppend& append,
                       const FacingParticles& in, Quad* quads, DrawKey* keys,
                       FacingTally& tally) noexcept {
#if MOTE_FACING_AVX2
  if (facingAvx2Available()) {
    appendFacingQuads8(setup, append, in, quads, keys, tally);
    return;
  }
#endif
  appendFacingQuads4(setup, append, in, quads, keys, tally);
}

}  // namespace mote::render
