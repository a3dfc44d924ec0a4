// SPDX-License-Identifier: MIT
// Screen corners of camera-facing quads whose basis is the same for every particle of an emitter
// (billboard.h's frames that do not depend on the particle, with no per-particle turn): the
// renderer's fast path, four or eight particles per vector, bit-identical to billboardCorners()
// followed by projectCorner() (facing_quads_test checks it), writing the rasterizer's quad records
// (screen_quad.h) in place.
#pragma once

#include "draw_order.h"
#include "screen_quad.h"  // ScreenQuad, Quad

#include <glm/mat4x4.hpp>
#include <glm/vec3.hpp>

#include <array>
#include <cstdint>

namespace mote::render {

/// Where a world point lands on a width × height screen (pixels, y down), and its clip w.
struct ScreenPoint {
  float x = 0.0f;
  float y = 0.0f;
  float w = 0.0f;
  /// clip.w > minW and clip.x, clip.y finite: x and y are meaningful.
  bool ok = false;
};

/// The renderer's projection of one point: clip = viewProjection · (p, 1) (glm's column order,
/// (m0·x + m1·y) + (m2·z + m3)), then ((clip.x / w · 0.5 + 0.5) · width, (0.5 − clip.y / w · 0.5)
/// · height). Pure; O(1). Allocates: never.
ScreenPoint projectCorner(const glm::mat4& viewProjection, glm::vec3 p, float width, float height,
                          float minW) noexcept;

/// A block of facing quads as the fast path writes them, particle i at index i.
struct FacingBlock {
  static constexpr std::uint32_t kSize = 64;
  std::array<ScreenQuad, kSize> quads{};
  std::array<float, kSize> centerW{};  ///< clip w of the particle's centre (its view depth)
  /// Nonzero: both half extents are > 0 (a zero-sized or NaN-sized particle is skipped).
  std::array<std::int32_t, kSize> sized{};
  /// Nonzero: every corner passed projectCorner's test and boundOnScreen is true (bounds set).
  std::array<std::int32_t, kSize> visible{};
};

/// What a block needs: the view-projection, the screen, the near limit, and the emitter's unit
/// basis columns (particleBasis with halfSize (1, 1): right and up).
struct FacingSetup {
  glm::mat4 viewProjection{1.0f};
  float width = 1.0f;
  float height = 1.0f;
  float minW = 0.0f;
  glm::vec3 right{1.0f, 0.0f, 0.0f};
  glm::vec3 up{0.0f, 1.0f, 0.0f};
};

/// Projects the quads of particles [0, n), n <= FacingBlock::kSize: centre (px, py, pz)[i], half
/// extents (sizeX, sizeY)[i] · 0.5 (null sizes: half extents 0.5, BillboardInput's default),
/// corners centre + (right · halfX · sx + up · halfY · sy) for kBillboardCornerSigns. Every lane
/// gets the same IEEE operations as billboardCorners() + projectCorner() on one particle, so the
/// results are bit for bit theirs. Lanes past n read nothing. Pure; O(n). Allocates: never.
void projectFacingBlock(const FacingSetup& setup, const float* px, const float* py, const float* pz,
                        const float* sizeX, const float* sizeY, std::uint32_t n,
                        FacingBlock& out) noexcept;

/// projectFacingBlock on 4 lanes (any x86-64, and the fallback), and on 8 (AVX2; call only where
/// facingAvx2Available()). projectFacingBlock picks one; the two give the same bits.
void projectFacingBlock4(const FacingSetup& setup, const float* px, const float* py,
                         const float* pz, const float* sizeX, const float* sizeY, std::uint32_t n,
                         FacingBlock& out) noexcept;
void projectFacingBlock8(const FacingSetup& setup, const float* px, const float* py,
                         const float* pz, const float* sizeX, const float* sizeY, std::uint32_t n,
                         FacingBlock& out) noexcept;
/// The particles of appendFacingQuads: centres, sizes (null: 1, as in projectFacingBlock), the
/// straight-alpha RGBA colour streams (null: every quad gets FacingAppend::color) and the spawn ids
/// (read only for the id keys).
struct FacingParticles {
  const float* x = nullptr;
  const float* y = nullptr;
  const float* z = nullptr;
  const float* sizeX = nullptr;
  const float* sizeY = nullptr;
  std::array<const float*, 4> color{};
  const std::uint32_t* ids = nullptr;
  std::uint32_t count = 0;
};

/// Particles [first, first + count) of `all`: every stream advanced by `first` (absent ones stay
/// null). The caller keeps first + count <= all.count. O(1).
inline FacingParticles facingSlice(const FacingParticles& all, std::uint32_t first,
                                   std::uint32_t count) noexcept {
  const auto at = [first](const auto* stream) {
    return stream != nullptr ? stream + first : stream;
  };
  FacingParticles part = all;
  part.x = at(all.x);
  part.y = at(all.y);
  part.z = at(all.z);
  part.sizeX = at(all.sizeX);
  part.sizeY = at(all.sizeY);
  for (const float*& c : part.color)
    c = at(c);
  part.ids = at(all.ids);
  part.count = count;
  return part;
}

/// The draw key of a quad (the renderer's particleDrawKey): the centre's clip w ordered far first
/// (viewDepthKey) or near first (viewDepthKeyFrontToBack), the spawn id, or its complement.
enum class FacingKey : std::uint8_t { FarFirst, NearFirst, Id, IdReversed };

/// What the quads of one emitter share.
struct FacingAppend {
  std::array<float, 4> color{};  ///< premultiplied, where FacingParticles::color is null
  bool additive = false;         ///< premultiplied alpha 0, and a zero alpha still shows
  FacingKey key = FacingKey::FarFirst;
};

/// Where appendFacingQuads goes on, and what it counted: the next record, the particles culled
/// (shown and sized but off screen or behind the eye) and the range of the keys written.
struct FacingTally {
  std::uint32_t next = 0;
  std::uint32_t culled = 0;
  KeyRange keys;
};

/// The renderer's fast path in one step: for each particle of `in` that shows (the renderer's
/// premultiplied colour and shows() rules), is sized and visible (projectFacingBlock's tests), in
/// order, quads[next] = its corners, bounds and premultiplied colour, keys[next] = {its key,
/// next}, next + 1; the hidden ones are counted in tally.culled where they are shown and
/// sized. Writes records past the last drawn one (scratch): quads and keys need room for
/// tally.next + in.count + 1 records. Bit for bit what projectFacingBlock and the renderer's
/// per-particle append give. O(n). Allocates: never.
void appendFacingQuads(const FacingSetup& setup, const FacingAppend& append,
                       const FacingParticles& in, Quad* quads, DrawKey* keys,
                       FacingTally& tally) noexcept;
/// appendFacingQuads on 4 lanes and on 8 (AVX2; call only where facingAvx2Available()).
void appendFacingQuads4(const FacingSetup& setup, const FacingAppend& append,
                        const FacingParticles& in, Quad* quads, DrawKey* keys,
                        FacingTally& tally) noexcept;
void appendFacingQuads8(const FacingSetup& setup, const FacingAppend& append,
                        const FacingParticles& in, Quad* quads, DrawKey* keys,
                        FacingTally& tally) noexcept;
/// The CPU runs AVX2 and the build has the 8-lane kernel (x86-64, GCC or clang).
bool facingAvx2Available() noexcept;

}  // namespace mote::render
