// SPDX-License-Identifier: MIT
// Built-in procedural sprites ("builtin:soft_circle", …): deterministic particle textures, so every
// example renders without assets.
#pragma once

#include <mote/core/builtin_sprites.h>
#include <mote/core/status.h>
#include <mote/render/image.h>

#include <cstdint>
#include <string_view>

namespace mote::render {

/// The built-in sprites. Values are stable (they may be stored); kBuiltinSpriteCount follows.
enum class BuiltinSprite : std::uint8_t { SoftCircle, Spark, Smoke, Ring, Star, Flare };

/// Number of BuiltinSprite values; `static_cast<BuiltinSprite>(i)` for i below it is valid.
inline constexpr std::uint32_t kBuiltinSpriteCount = 6;
static_assert(kBuiltinSpriteNames.size() == kBuiltinSpriteCount);
using mote::kBuiltinSpriteUriPrefix;
/// The side lengths makeBuiltinSprite accepts, in pixels.
inline constexpr std::uint32_t kMinBuiltinSpriteSizePixels = 4;
inline constexpr std::uint32_t kMaxBuiltinSpriteSizePixels = 4096;

/// The sprite's name without the prefix: "soft_circle", "spark", "smoke", "ring", "star",
/// "flare". The view points at static storage. An out-of-range value is a contract violation
/// (MOTE_ASSERT; "unknown" when asserts are off). O(1). Allocates: never. Thread safe.
std::string_view builtinSpriteName(BuiltinSprite sprite);

/// Parses a texture URI of the exact form "builtin:<name>" (case-sensitive, no whitespace).
///   - InvalidArgument when `uri` does not start with "builtin:" (it is then a file path, not a
///     built-in sprite).
///   - NotFound when the name is not one of the six; the message lists the valid URIs and, when a
///     name is within edit distance 3 (Levenshtein; the first in enum order on ties), suggests it:
///     `unknown built-in sprite "builtin:soft_circel" (did you mean builtin:soft_circle?); valid:
///     builtin:soft_circle, builtin:spark, builtin:smoke, builtin:ring, builtin:star,
///     builtin:flare`.
/// Complexity: O(|uri|) per candidate name. Allocates: only on failure (the message and the edit
/// distance rows). Thread safe.
Result<BuiltinSprite> parseBuiltinSprite(std::string_view uri);

/// Renders a sizePixels × sizePixels sprite. InvalidArgument when sizePixels is outside
/// [kMinBuiltinSpriteSizePixels, kMaxBuiltinSpriteSizePixels].
///
/// Every pixel's colour is white (255, 255, 255) and the shape lives in straight alpha, so a
/// particle's tint colours it and a white-hot core stays white-hot under additive blending (a
/// coloured core would fight the tint). The image is sampled at pixel centres on [-1, 1]²; every
/// shape is 0 at and beyond radius 1, so the corners are transparent. Shapes (+Y is up in the
/// sprite, row 0 at the top; the shapes are symmetric in Y so the row order does not matter):
///   - SoftCircle: smoothstep falloff from the centre (alpha 1) to radius 1 (alpha 0).
///   - Spark: a thin bright streak along Y (for stretched billboards) with a hot core and tapered
///     ends, plus a faint small round glow.
///   - Smoke: a soft puff: 4-octave value noise (integer hash, fixed seed) shaping a billowy
///     outline and density, inside a radial mask that is 0 from radius 0.94 outwards.
///   - Ring: an annulus at radius 0.62 with smooth inner and outer edges; 0 at the centre.
///   - Star: a 4-point twinkle: a bright core, thin sharp rays along X and Y and fainter, shorter
///     diagonal rays.
///   - Flare: a lens-flare glow: a bright core, a wide soft halo and faint thin cross rays.
/// SoftCircle and Ring are exactly symmetric under x and y mirroring and transposition.
///
/// Determinism: the bytes are the same on every compiler and platform. Only IEEE-754 binary32
/// operations that are correctly rounded are used (+, −, ×, ÷, sqrt, comparisons, exact int↔float
/// conversions; no libm transcendental), evaluated without contraction (-ffp-contract=off), and
/// alpha is quantised as floor(clamp(a, 0, 1) · 255 + 0.5).
/// Complexity: O(sizePixels²). Allocates: the image. Thread safe.
Result<Image> makeBuiltinSprite(BuiltinSprite sprite, std::uint32_t sizePixels);

}  // namespace mote::render
