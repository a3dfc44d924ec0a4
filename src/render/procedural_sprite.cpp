// SPDX-License-Identifier: MIT
// Built-in procedural sprites. Every formula uses only correctly rounded IEEE operations (no libm
// transcendental: their last bits differ between libms), so the bytes are the same everywhere.
#include <mote/core/assert.h>
#include <mote/core/suggest.h>
#include <mote/render/procedural_sprite.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace mote::render {
namespace {

constexpr const std::array<std::string_view, kBuiltinSpriteCount>& kNames = kBuiltinSpriteNames;

// ---------------------------------------------------------------------------------------------
// Shaping functions: polynomials and rationals only.

float clamp01(float v) {
  return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
}

// 0 at t <= edge0, 1 at t >= edge1 (edge0 > edge1 gives a falling edge), cubic in between.
float smoothstep(float edge0, float edge1, float t) {
  const float s = clamp01((t - edge0) / (edge1 - edge0));
  return s * s * (3.0f - 2.0f * s);
}

// (1 - d²)² inside the unit disc, 0 outside: the window that makes every shape vanish at radius 1.
float window(float d2) {
  const float w = 1.0f - d2;
  return w > 0.0f ? w * w : 0.0f;
}

// Screen blend: 1 - (1 - a)(1 - b). Commutative bit for bit.
float screen(float a, float b) {
  return 1.0f - (1.0f - a) * (1.0f - b);
}

// A thin ray along one axis: `along` is the coordinate along the ray, `across` the distance from
// it; the ray narrows linearly to `tipWidth` at length `length` and ends there.
float ray(float along, float across, float length, float baseWidth, float tipWidth) {
  const float t = along / length;
  if (t >= 1.0f) return 0.0f;
  const float width = baseWidth + (tipWidth - baseWidth) * t;
  const float profile = smoothstep(width, 0.0f, across);
  const float fade = 1.0f - t * t;
  return profile * fade * fade;
}

// Chris Wellons' "lowbias32" integer hash.
std::uint32_t hash32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

constexpr std::uint32_t kSmokeSeed = 0x5eed5a0bU;

// Lattice value in [0, 1): the top 24 bits of the hash, scaled exactly.
float latticeValue(std::int32_t ix, std::int32_t iy, std::uint32_t octave) {
  const std::uint32_t h =
      hash32(static_cast<std::uint32_t>(ix) +
             hash32(static_cast<std::uint32_t>(iy) + hash32(octave ^ kSmokeSeed)));
  return static_cast<float>(h >> 8) * (1.0f / 16777216.0f);
}

// Value noise with smoothstep interpolation; x, y >= 0.
float valueNoise(float x, float y, std::uint32_t octave) {
  const auto ix = static_cast<std::int32_t>(x);  // truncation = floor for x >= 0
  const auto iy = static_cast<std::int32_t>(y);
  const float fx = x - static_cast<float>(ix);
  const float fy = y - static_cast<float>(iy);
  const float sx = fx * fx * (3.0f - 2.0f * fx);
  const float sy = fy * fy * (3.0f - 2.0f * fy);
  const float v00 = latticeValue(ix, iy, octave);
  const float v10 = latticeValue(ix + 1, iy, octave);
  const float v01 = latticeValue(ix, iy + 1, octave);
  const float v11 = latticeValue(ix + 1, iy + 1, octave);
  const float top = v00 + (v10 - v00) * sx;
  const float bottom = v01 + (v11 - v01) * sx;
  return top + (bottom - top) * sy;
}

// Fractal value noise, 4 octaves (frequency ×2, amplitude ×½), normalised to [0, 1).
float fractalNoise(float u, float v) {
  constexpr std::uint32_t kOctaves = 4;
  float sum = 0.0f;
  float amplitude = 1.0f;
  float cells = 4.0f;  // lattice cells across the sprite at octave 0
  float total = 0.0f;
  for (std::uint32_t octave = 0; octave < kOctaves; ++octave) {
    // Offsets (multiples of 5/16, exact) keep the octaves' lattice lines apart.
    const float offset = 0.3125f * static_cast<float>(octave + 1);
    const float x = (u + 1.0f) * 0.5f * cells + offset;
    const float y = (v + 1.0f) * 0.5f * cells + offset;
    sum = sum + amplitude * valueNoise(x, y, octave);
    total = total + amplitude;
    amplitude = amplitude * 0.5f;
    cells = cells * 2.0f;
  }
  return sum / total;
}

// ---------------------------------------------------------------------------------------------
// The shapes, as alpha over (u, v) in [-1, 1]².

float softCircleAlpha(float d2) {
  if (d2 >= 1.0f) return 0.0f;
  return smoothstep(1.0f, 0.0f, std::sqrt(d2));
}

float sparkAlpha(float u, float v, float d2) {
  const float au = std::fabs(u);
  const float av = std::fabs(v);
  // Streak: narrows from half-width 0.16 at the centre to 0.03 at the tips.
  const float streak = ray(av, au, 0.97f, 0.16f, 0.03f);
  // Hot core: a narrower, shorter copy that saturates the middle of the streak.
  const float core = ray(av, au, 0.6f, 0.07f, 0.015f);
  // Small glow: a rational falloff, windowed to radius 0.4.
  const float glowD2 = d2 * (1.0f / (0.4f * 0.4f));
  const float glow = 0.5f * window(glowD2) / (1.0f + 6.0f * glowD2);
  return clamp01(screen(screen(streak, glow), core));
}

float smokeAlpha(float u, float v, float d2) {
  if (d2 >= 1.0f) return 0.0f;
  const float d = std::sqrt(d2);
  const float n = fractalNoise(u, v);
  // Billowy outline: the noise pushes the radius in and out.
  const float distorted = d + (0.5f - n) * 0.7f;
  const float puff = smoothstep(0.9f, 0.2f, distorted);
  // Density varies with the noise too (thicker where the noise is high).
  const float density = clamp01(1.6f * n - 0.05f);
  // Hard guarantee: nothing from radius 0.94 outwards.
  const float mask = smoothstep(0.94f, 0.7f, d);
  return clamp01(puff * density * mask);
}

float ringAlpha(float d2) {
  if (d2 >= 1.0f) return 0.0f;
  const float d = std::sqrt(d2);
  constexpr float kRadius = 0.62f;
  constexpr float kHalfWidth = 0.16f;
  const float t = std::fabs(d - kRadius) / kHalfWidth;
  return smoothstep(1.0f, 0.0f, t);
}

float starAlpha(float u, float v, float d2) {
  if (d2 >= 1.0f) return 0.0f;
  const float au = std::fabs(u);
  const float av = std::fabs(v);
  // Main rays along X and Y: thin, sharp, reaching almost the edge.
  const float rays = screen(ray(au, av, 0.98f, 0.05f, 0.004f), ray(av, au, 0.98f, 0.05f, 0.004f));
  // Diagonal rays: distance from the diagonals is ||u| - |v|| / √2, distance along them
  // (|u| + |v|) / √2.
  constexpr float kInvSqrt2 = 0.70710678f;
  const float along = (au + av) * kInvSqrt2;
  const float across = std::fabs(au - av) * kInvSqrt2;
  const float diagonal = 0.45f * ray(along, across, 0.5f, 0.03f, 0.004f);
  // Core: a rational glow, windowed so it vanishes at radius 1.
  const float core = window(d2) / (1.0f + 90.0f * d2);
  return clamp01(screen(screen(rays, diagonal), core));
}

float flareAlpha(float u, float v, float d2) {
  if (d2 >= 1.0f) return 0.0f;
  const float au = std::fabs(u);
  const float av = std::fabs(v);
  const float w = window(d2);
  const float core = 1.0f / (1.0f + 100.0f * d2);
  const float halo = 0.6f / (1.0f + 6.0f * d2);
  const float cross =
      0.45f * screen(ray(au, av, 1.0f, 0.025f, 0.004f), ray(av, au, 1.0f, 0.025f, 0.004f));
  return clamp01(screen(screen(core, halo), cross) * w);
}

float spriteAlpha(BuiltinSprite sprite, float u, float v) {
  const float d2 = u * u + v * v;
  switch (sprite) {
    case BuiltinSprite::SoftCircle:
      return softCircleAlpha(d2);
    case BuiltinSprite::Spark:
      return sparkAlpha(u, v, d2);
    case BuiltinSprite::Smoke:
      return smokeAlpha(u, v, d2);
    case BuiltinSprite::Ring:
      return ringAlpha(d2);
    case BuiltinSprite::Star:
      return starAlpha(u, v, d2);
    case BuiltinSprite::Flare:
      return flareAlpha(u, v, d2);
  }
  return 0.0f;
}

// floor(clamp(a, 0, 1) · 255 + 0.5): round half up, in float.
std::uint8_t quantize(float a) {
  return static_cast<std::uint8_t>(static_cast<std::int32_t>(clamp01(a) * 255.0f + 0.5f));
}

}  // namespace

std::string_view builtinSpriteName(BuiltinSprite sprite) {
  const auto index = static_cast<std::uint32_t>(sprite);
  MOTE_ASSERT(index < kBuiltinSpriteCount, "not a BuiltinSprite value");
  if (index >= kBuiltinSpriteCount) return "unknown";
  return kNames[index];
}

Result<BuiltinSprite> parseBuiltinSprite(std::string_view uri) {
  if (!uri.starts_with(kBuiltinSpriteUriPrefix)) {
    // Built by append: GCC 12 at -O3 reports a false -Wrestrict on "literal" + std::string (PR
    // 105651).
    std::string message = "\"";
    message.append(uri);
    message += "\" is not a built-in sprite URI (expected builtin:<name>)";
    return invalidArgument(std::move(message));
  }
  const std::string_view name = uri.substr(kBuiltinSpriteUriPrefix.size());
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (name == kNames[i]) return static_cast<BuiltinSprite>(i);
  const std::string_view suggestion = closestMatch(name, kNames);
  std::string message = "unknown built-in sprite \"";
  message.append(uri);
  message += '"';
  if (!suggestion.empty()) {
    message += " (did you mean ";
    message += kBuiltinSpriteUriPrefix;
    message += suggestion;
    message += "?)";
  }
  message += "; valid:";
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    message += i == 0 ? " " : ", ";
    message += kBuiltinSpriteUriPrefix;
    message += kNames[i];
  }
  return notFound(std::move(message));
}

Result<Image> makeBuiltinSprite(BuiltinSprite sprite, std::uint32_t sizePixels) {
  if (sizePixels < kMinBuiltinSpriteSizePixels || sizePixels > kMaxBuiltinSpriteSizePixels) {
    return invalidArgument("built-in sprite size " + std::to_string(sizePixels) + " must be in [" +
                           std::to_string(kMinBuiltinSpriteSizePixels) + ", " +
                           std::to_string(kMaxBuiltinSpriteSizePixels) + "]");
  }
  MOTE_ASSERT(static_cast<std::uint32_t>(sprite) < kBuiltinSpriteCount,
              "not a BuiltinSprite value");
  Result<Image> created = Image::create(sizePixels, sizePixels);
  if (!created.ok()) return created.status();
  Image image = std::move(created).takeValue();

  // Pixel centre i maps to (2i + 1 - size) / size: the numerator is an exact integer, so mirrored
  // pixels get exactly negated coordinates and the shapes' symmetries hold bit for bit.
  const auto size = static_cast<std::int32_t>(sizePixels);
  const auto sizeF = static_cast<float>(size);
  std::vector<float> coord(sizePixels);
  for (std::int32_t i = 0; i < size; ++i)
    coord[static_cast<std::size_t>(i)] = static_cast<float>(2 * i + 1 - size) / sizeF;

  for (std::uint32_t y = 0; y < sizePixels; ++y) {
    std::span<std::uint8_t> row = image.row(y);
    // Row 0 is the top of the sprite: +Y up.
    const float v = -coord[y];
    for (std::uint32_t x = 0; x < sizePixels; ++x) {
      const std::uint8_t alpha = quantize(spriteAlpha(sprite, coord[x], v));
      std::uint8_t* pixel = row.data() + std::size_t{x} * 4;
      pixel[0] = 255;
      pixel[1] = 255;
      pixel[2] = 255;
      pixel[3] = alpha;
    }
  }
  return image;
}

}  // namespace mote::render
