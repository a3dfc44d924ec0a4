// SPDX-License-Identifier: MIT
// The box of a run of particles, each dilated by its extent: the kernel behind
// ParticleWorld's per-tick bounds (docs/runtime.md, "One tick", step 6), one pass over the streams
// in SIMD vectors (Highway, the best target for the CPU picked at run time).
#pragma once

#include <array>
#include <cstdint>

namespace mote::runtime_detail {

/// The streams of `count` particles. `size` and `velocity` may be null (no extent from them).
struct BoundsInput {
  std::array<const float*, 3> position{};
  std::array<const float*, 2> size{};
  std::array<const float*, 3> velocity{};
  float stretchFactor = 0.0f;  ///< √3 · |stretch_scale|: the velocity's part of the extent
  /// Optional, one byte a particle: a particle whose byte is not 0 adds nothing (a killed
  /// particle, before compaction moves it out).
  const std::uint8_t* skip = nullptr;
  std::uint32_t count = 0;
};

/// A particle's extent: ½√2 · max(|w|, |h|), plus max(|vx|, |vy|, |vz|) · stretchFactor with
/// velocity streams (the same float operations in the kernel's lanes).
float boundsExtent(const BoundsInput& in, std::uint32_t i) noexcept;

/// lo = min of p − extent, hi = max of p + extent over the particles not skipped, per axis,
/// skipping NaN values (a particle whose p ± extent is NaN adds nothing on that axis; on a SIMD
/// target whose min/max propagate NaN the axis comes out NaN instead); ±inf when none. Which zero
/// an edge of 0 has is unspecified (the caller canonicalises). O(count), no allocation, reentrant.
void boundsOf(const BoundsInput& in, std::array<float, 3>& lo, std::array<float, 3>& hi) noexcept;

}  // namespace mote::runtime_detail
