// SPDX-License-Identifier: MIT
// The facing-quad kernels on 8 lanes, compiled with -mavx2 (src/render/CMakeLists.txt); called only
// where facingAvx2Available(). Same IEEE operations per lane as the 4-lane build (no FMA: -mavx2
// does not enable it, and contraction is off), so the same bits.
#include "facing_kernel.h"

namespace mote::render {

void projectFacingBlock8(const FacingSetup& setup, const float* px, const float* py,
                         const float* pz, const float* sizeX, const float* sizeY, std::uint32_t n,
                         FacingBlock& out) noexcept {
  projectFacingLanes<F8>(setup, px, py, pz, sizeX, sizeY, n, out);
}

void appendFacingQuads8(const FacingSetup& setup, const FacingAppend& append,
                        const FacingParticles& in, Quad* quads, DrawKey* keys,
                        FacingTally& tally) noexcept {
  appendFacingLanes<F8>(setup, append, in, quads, keys, tally);
}

}  // namespace mote::render
