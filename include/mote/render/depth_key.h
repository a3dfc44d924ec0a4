// SPDX-License-Identifier: MIT
// Depth keys for the sprite batcher: laige's isometric 2.5D key (M2-ISO-01).
#pragma once

#include <mote/core/fixed.h>

#include <cstdint>
#include <type_traits>

namespace mote::render {

/// The largest |z| step height the iso key encodes.
inline constexpr std::int32_t kIsoDepthMaxStepHeight = 2047;
/// The key layer of ground-level content.
inline constexpr std::int32_t kIsoDepthGroundLayer = 0;
/// Layers the key encodes: [-512, 511] (10 bits above the 22-bit depth field).
inline constexpr std::int32_t kIsoDepthMinLayer = -512;
inline constexpr std::int32_t kIsoDepthMaxLayer = 511;

/// laige's isometric depth key, ascending = drawn first:
///   (layer + 512) << 22 | (round((x + y) · 16) − z · 16 + 2^21)
/// round is to nearest, ties to even. For Fpx16_16 the sum and scale are exact integer arithmetic
/// (no saturation at the Q16.16 range); for Fp32 they are the backend's own operations.
/// Out-of-domain inputs clamp instead of wrapping: layer to [-512, 511], z to
/// ±kIsoDepthMaxStepHeight, and the 22-bit depth field to [0, 2^22 − 1]. Pure; O(1). Allocates:
/// never.
template <SimScalar Backend>
constexpr std::uint32_t isoDepthKey(Vec2<Backend> pos, std::int32_t z,
                                    std::int32_t layer) noexcept {
  constexpr std::int64_t kFieldMax = (std::int64_t{1} << 22) - 1;
  std::int64_t xy16 = 0;
  if constexpr (std::is_same_v<Backend, Fpx16_16>) {
    // raw / 2^16 · 16 = raw / 2^12: exact in 64 bits.
    xy16 = detail::roundShiftTiesEven(std::int64_t{pos.x.raw()} + pos.y.raw(), 12);
  } else {
    // toInt32 of the sum: NaN → 0, and beyond ±2^23 the field below clamps to its ends anyway
    // (|z·16| + 2^21 < 2^23), so clamping first gives the same key without the saturation checks.
    const float sum = ((pos.x + pos.y) * Backend::fromInt(16)).toFloat();
    const float clamped = sum < -0x1p23f ? -0x1p23f : (sum > 0x1p23f ? 0x1p23f : sum);
    xy16 = sum == sum ? detail::roundSmallTiesEven(clamped) : 0;
  }
  const std::int64_t zc = z < -kIsoDepthMaxStepHeight  ? -kIsoDepthMaxStepHeight
                          : z > kIsoDepthMaxStepHeight ? kIsoDepthMaxStepHeight
                                                       : z;
  std::int64_t field = xy16 - zc * 16 + (std::int64_t{1} << 21);
  field = field < 0 ? 0 : (field > kFieldMax ? kFieldMax : field);
  const std::int32_t lc = layer < kIsoDepthMinLayer   ? kIsoDepthMinLayer
                          : layer > kIsoDepthMaxLayer ? kIsoDepthMaxLayer
                                                      : layer;
  return (static_cast<std::uint32_t>(lc + 512) << 22) | static_cast<std::uint32_t>(field);
}

}  // namespace mote::render
