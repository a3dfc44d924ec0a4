// SPDX-License-Identifier: MIT
// Depth keys for the sprite batcher: laige's isometric 2.5D key (M2-ISO-01) and the view-depth
// keys of 3D sprites.
#pragma once

#include <mote/core/fixed.h>

#include <algorithm>
#include <bit>
#include <cmath>
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
    xy16 = ::mote::detail::roundShiftTiesEven(std::int64_t{pos.x.raw()} + pos.y.raw(), 12);
  } else {
    // toInt32 of the sum: NaN → 0, and beyond ±2^23 the field below clamps to its ends anyway
    // (|z·16| + 2^21 < 2^23), so clamping first gives the same key without the saturation checks.
    const float sum = ((pos.x + pos.y) * Backend::fromInt(16)).toFloat();
    const float clamped = sum < -0x1p23f ? -0x1p23f : (sum > 0x1p23f ? 0x1p23f : sum);
    xy16 = sum == sum ? ::mote::detail::roundSmallTiesEven(clamped) : 0;
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

/// A float's bits mapped to a u32 whose unsigned order is the float order (−inf < … < −0 < +0 < …
/// < +inf; NaNs beyond the infinities by sign). Pure; O(1).
constexpr std::uint32_t orderedFloatBits(float f) noexcept {
  const auto u = std::bit_cast<std::uint32_t>(f);
  return (u & 0x80000000u) != 0 ? ~u : u | 0x80000000u;
}

/// The batcher key of a 3D sprite at `viewDepth` (distance along the camera's forward axis) for
/// back-to-front drawing — what alpha blending needs: the farthest sprite has the smallest key.
/// (Additive sprites need no order: give them one constant key and the stable sort keeps their
/// declaration order.) Pure; O(1).
constexpr std::uint32_t viewDepthKey(float viewDepth) noexcept {
  return ~orderedFloatBits(viewDepth);
}

/// Front to back (nearest first): for opaque or cutout sprites drawn with a depth test.
constexpr std::uint32_t viewDepthKeyFrontToBack(float viewDepth) noexcept {
  return orderedFloatBits(viewDepth);
}

/// The float whose orderedFloatBits are `bits` (its inverse, NaN payloads included). Pure; O(1).
constexpr float floatOfOrderedBits(std::uint32_t bits) noexcept {
  return std::bit_cast<float>((bits & 0x80000000u) != 0 ? bits & 0x7FFFFFFFu : ~bits);
}

/// The view depth a viewDepthKey was made from, bit for bit. Pure; O(1).
constexpr float viewDepthOfKey(std::uint32_t key) noexcept {
  return floatOfOrderedBits(~key);
}

/// McGuire and Bavoil's depth weight (JCGT 2013, eq. 7) of a weighted blended OIT fragment at
/// view depth z, before its alpha: 10 / (1e-5 + (|z| / 5)^2 + (|z| / 200)^6), clamped to
/// [1e-2, 3e3]. A NaN depth stays NaN: the fragment draws nothing. Pure; O(1).
inline float oitDepthWeight(float z) noexcept {
  const float a = std::fabs(z) / 5.0f;
  const float b = std::fabs(z) / 200.0f;
  const float b3 = b * b * b;
  const float w = 10.0f / (1e-5f + a * a + b3 * b3);
  return std::clamp(w, 1e-2f, 3e3f);
}

}  // namespace mote::render
