// SPDX-License-Identifier: MIT
// The facing-quad kernel (facing_quads.h) as a template over the lane vector: facing_quads.cpp
// instantiates it for 4 lanes (the baseline build), facing_quads_avx2.cpp for 8 lanes under
// -mavx2. Everything here has internal linkage, so the two builds of it never meet at link time
// (an AVX2 copy picked for the baseline caller would fault on older CPUs).
// Private to those two files.
#pragma once

#include "facing_quads.h"
#include "lanes.h"  // F4, F8, MaskOf, kLanesOf, loads, stores, transposes

#include <mote/render/billboard.h>

#include <glm/mat4x4.hpp>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace mote::render {
namespace {

// One row of viewProjection, each element in every lane (locals: the compiler need not reload
// them around the block's stores).
template <class V>
struct Row {
  V m0, m1, m2, m3;
};

template <class V>
inline Row<V> row(const glm::mat4& m, int r) {
  return {V{} + m[0][r], V{} + m[1][r], V{} + m[2][r], V{} + m[3][r]};
}

// Row r of viewProjection · (x, y, z, 1) in glm's order: (m0·x + m1·y) + (m2·z + m3·1).
template <class V>
inline V clipRow(const Row<V>& m, V x, V y, V z) {
  return (m.m0 * x + m.m1 * y) + (m.m2 * z + m.m3);
}

// Draw keys {key[k], index[k]} for every lane k, in lane order, at slot.
template <class U>
inline void storeDrawKeys(DrawKey* slot, U key, U index) {
  if constexpr (sizeof(U) == 16) {
    storeLanes(slot, __builtin_shufflevector(key, index, 0, 4, 1, 5));
    storeLanes(slot + 2, __builtin_shufflevector(key, index, 2, 6, 3, 7));
  } else {
    storeLanes(slot, __builtin_shufflevector(key, index, 0, 8, 1, 9, 2, 10, 3, 11));
    storeLanes(slot + 4, __builtin_shufflevector(key, index, 4, 12, 5, 13, 6, 14, 7, 15));
  }
}

// projectFacingBlock writes the bounds as one 4-float vector.
static_assert(offsetof(ScreenQuad, maxY) == offsetof(ScreenQuad, minX) + 3 * sizeof(float));

// A group of lanes' quads: corner x and y rows (corner c in row c), the bounds rows (minX, maxX,
// minY, maxY), the masks and the centre's clip w.
template <class V>
struct LaneQuads {
  std::array<V, 4> x;
  std::array<V, 4> y;
  std::array<V, 4> bounds;
  MaskOf<V> sized;
  MaskOf<V> visible;
  V centerW;
};

// The setup in every lane.
template <class V>
struct LaneSetup {
  Row<V> rowX, rowY, rowW;
  V minW, width, height;
  glm::vec3 right, up;
};

template <class V>
inline LaneSetup<V> laneSetup(const FacingSetup& setup) {
  return {row<V>(setup.viewProjection, 0),
          row<V>(setup.viewProjection, 1),
          row<V>(setup.viewProjection, 3),
          V{} + setup.minW,
          V{} + setup.width,
          V{} + setup.height,
          setup.right,
          setup.up};
}

// Lanes [i, i + lanes) of the particles projected (lanes past n read nothing; their masks are
// not meaningful).
template <class V>
[[gnu::always_inline]] inline LaneQuads<V> projectLanes(const LaneSetup<V>& s, const float* px,
                                                        const float* py, const float* pz,
                                                        const float* sizeX, const float* sizeY,
                                                        std::uint32_t i, std::uint32_t n) {
  const V x = loadLanes<V>(px, i, n);
  const V y = loadLanes<V>(py, i, n);
  const V z = loadLanes<V>(pz, i, n);
  // particleBasis: column 0 = right · halfSize.x, column 1 = up · (halfSize.y · 1).
  const V hx = sizeX != nullptr ? loadLanes<V>(sizeX, i, n) * 0.5f : V{} + 0.5f;
  const V hy = sizeY != nullptr ? loadLanes<V>(sizeY, i, n) * 0.5f : V{} + 0.5f;
  const V rx = s.right.x * hx;
  const V ry = s.right.y * hx;
  const V rz = s.right.z * hx;
  const V ux = s.up.x * hy;
  const V uy = s.up.y * hy;
  const V uz = s.up.z * hy;
  // billboardCorners' offsets basis[0]·sx + basis[1]·sy for the signs (−,−), (+,−), (+,+),
  // (−,+) are −S, D, S, −D with S = r + u, D = r − u: IEEE rounding is symmetric, so
  // (−r) + (−u) = −(r + u) and (−r) + u = −(r − u) exactly, but for the sign of a zero sum —
  // which no screen coordinate can show (a zero clip x or y lands on 0.5 · size either way).
  const std::array<V, 3> sum{rx + ux, ry + uy, rz + uz};
  const std::array<V, 3> diff{rx - ux, ry - uy, rz - uz};
  LaneQuads<V> q;
  MaskOf<V> ok = ~MaskOf<V>{};
  // std::isfinite of every clip x and y at once: v − v is +0 for a finite v and NaN for an
  // infinite or NaN one, so the sum of them all is 0 exactly where every one is finite.
  V finite{};
  for (std::size_t c = 0; c < 4; ++c) {
    const std::array<V, 3>& offset = c % 2 == 0 ? sum : diff;
    const bool negative = c == 0 || c == 3;
    const V cx = negative ? x - offset[0] : x + offset[0];
    const V cy = negative ? y - offset[1] : y + offset[1];
    const V cz = negative ? z - offset[2] : z + offset[2];
    const V clipX = clipRow(s.rowX, cx, cy, cz);
    const V clipY = clipRow(s.rowY, cx, cy, cz);
    const V clipW = clipRow(s.rowW, cx, cy, cz);
    ok &= clipW > s.minW;
    finite += (clipX - clipX) + (clipY - clipY);
    q.x[c] = (clipX / clipW * 0.5f + 0.5f) * s.width;
    q.y[c] = (0.5f - clipY / clipW * 0.5f) * s.height;
  }
  // Where every corner projects, no coordinate is NaN or −0 (see projectCorner: q · 0.5 + 0.5
  // and 0.5 − q are never −0), so lane-wise min and max equal std::min / std::max.
  const V minX = minLanes(minLanes(q.x[0], q.x[1]), minLanes(q.x[2], q.x[3]));
  const V maxX = maxLanes(maxLanes(q.x[0], q.x[1]), maxLanes(q.x[2], q.x[3]));
  const V minY = minLanes(minLanes(q.y[0], q.y[1]), minLanes(q.y[2], q.y[3]));
  const V maxY = maxLanes(maxLanes(q.y[0], q.y[1]), maxLanes(q.y[2], q.y[3]));
  ok &=
      (finite == 0.0f) & ~((maxX < 0.0f) | (minX >= s.width) | (maxY < 0.0f) | (minY >= s.height));
  q.bounds = {minX, maxX, minY, maxY};
  q.sized = (hx > 0.0f) & (hy > 0.0f);
  q.visible = ok;
  q.centerW = clipRow(s.rowW, x, y, z);
  return q;
}

// projectFacingBlock on lanes of V (FacingBlock::kSize is a multiple of every lane count).
template <class V>
void projectFacingLanes(const FacingSetup& setup, const float* px, const float* py, const float* pz,
                        const float* sizeX, const float* sizeY, std::uint32_t n,
                        FacingBlock& out) noexcept {
  constexpr std::uint32_t kLanes = kLanesOf<V>;
  static_assert(FacingBlock::kSize % kLanes == 0);
  const LaneSetup<V> s = laneSetup<V>(setup);
  for (std::uint32_t i = 0; i < n; i += kLanes) {
    const LaneQuads<V> q = projectLanes(s, px, py, pz, sizeX, sizeY, i, n);
    const std::array<V, 4> x = transposeInLanes(q.x);
    const std::array<V, 4> y = transposeInLanes(q.y);
    const std::array<V, 4> bounds = transposeInLanes(q.bounds);
    forLanes<kLanes>([&]<std::uint32_t J>() {
      ScreenQuad& quad = out.quads[i + J];
      storeLanes(quad.x.data(), particleOf<J>(x));
      storeLanes(quad.y.data(), particleOf<J>(y));
      storeLanes(&quad.minX, particleOf<J>(bounds));
    });
    storeLanes(out.centerW.data() + i, q.centerW);
    storeLanes(out.sized.data() + i, q.sized);
    storeLanes(out.visible.data() + i, q.visible);
  }
}

// appendFacingQuads on lanes of V; ColorStreams: the particles' colours come from streams (else
// every quad gets append.color).
template <class V, bool ColorStreams>
void appendFacingLanes(const FacingSetup& setup, const FacingAppend& append,
                       const FacingParticles& in, Quad* quads, DrawKey* keys,
                       FacingTally& tally) noexcept {
  using U = UintOf<V>;
  using M = MaskOf<V>;
  constexpr std::uint32_t kLanes = kLanesOf<V>;
  const LaneSetup<V> s = laneSetup<V>(setup);
  M lane{};
  for (std::uint32_t k = 0; k < kLanes; ++k)
    lane[k] = static_cast<std::int32_t>(k);
  const bool byId = append.key == FacingKey::Id || append.key == FacingKey::IdReversed;
  const U flip =
      U{} + (append.key == FacingKey::FarFirst || append.key == FacingKey::IdReversed ? ~0u : 0u);
  const F4 uniformColor{append.color[0], append.color[1], append.color[2], append.color[3]};
  // Locals: the record stores cannot make the compiler reload them.
  const std::uint32_t n = in.count;
  const float* px = in.x;
  const float* py = in.y;
  const float* pz = in.z;
  const float* sizeX = in.sizeX;
  const float* sizeY = in.sizeY;
  const std::array<const float*, 4> colors = in.color;
  const std::uint32_t* ids = in.ids;
  U lo = U{} + tally.keys.lo;
  U hi = U{} + tally.keys.hi;
  M culled{};
  std::uint32_t next = tally.next;
  Quad* quad = quads + next;
  DrawKey* slot = keys + next;
  for (std::uint32_t i = 0; i < n; i += kLanes) {
    const LaneQuads<V> q = projectLanes(s, px, py, pz, sizeX, sizeY, i, n);
    M shows = lane < static_cast<std::int32_t>(n - i);
    std::array<V, 4> color{};
    if constexpr (ColorStreams) {
      // premultiplied(): alpha = clamp(a, 0, 1), rgb = max(c, 0) · alpha, alpha 0 for additive;
      // a NaN stays a NaN as in std::clamp and std::max. shows(): alpha > 0 or additive.
      const V a = loadLanes<V>(colors[3], i, n);
      const V a0 = a < 0.0f ? V{} : a;
      const V alpha = 1.0f < a0 ? V{} + 1.0f : a0;
      for (std::size_t c = 0; c < 3; ++c) {
        const V v = loadLanes<V>(colors[c], i, n);
        color[c] = (v < 0.0f ? V{} : v) * alpha;
      }
      color[3] = append.additive ? V{} : alpha;
      if (!append.additive) shows &= alpha > 0.0f;
    }
    // particleDrawKey(): the depth keys order the centre's clip w's bits (orderedFloatBits), the id
    // keys the ids; FarFirst and IdReversed invert.
    U key;
    if (byId) {
      key = loadLanes<U>(ids, i, n);
    } else {
      const U w = std::bit_cast<U>(q.centerW);
      key = w ^ (std::bit_cast<U>(std::bit_cast<M>(w) >> 31) | 0x80000000u);
    }
    key ^= flip;
    const M shown = shows & q.sized;
    const M draw = shown & q.visible;
    culled -= shown & ~q.visible;
    lo = draw ? (key < lo ? key : lo) : lo;
    hi = draw ? (key > hi ? key : hi) : hi;
    const std::array<V, 4> x = transposeInLanes(q.x);
    const std::array<V, 4> y = transposeInLanes(q.y);
    const std::array<V, 4> bounds = transposeInLanes(q.bounds);
    std::array<V, 4> rgba{};
    if constexpr (ColorStreams) rgba = transposeInLanes(color);
    if (laneBits<V>(draw) == (1u << kLanes) - 1) {
      // The usual block, every lane drawn: lane J's record at quad + J, the keys in two vector
      // stores, no per-lane stepping.
      forLanes<kLanes>([&]<std::uint32_t J>() {
        storeLanes(quad[J].x.data(), particleOf<J>(x));
        storeLanes(quad[J].y.data(), particleOf<J>(y));
        storeLanes(&quad[J].minX, particleOf<J>(bounds));
        if constexpr (ColorStreams) {
          storeLanes(quad[J].color.data(), particleOf<J>(rgba));
        } else {
          storeLanes(quad[J].color.data(), uniformColor);
        }
      });
      storeDrawKeys(slot, key, std::bit_cast<U>(lane) + next);
      quad += kLanes;
      slot += kLanes;
      next += kLanes;
      continue;
    }
    // Every lane's record goes to the next slot; the slot moves on only past drawn ones, so the
    // hidden ones are overwritten (the caller leaves room for a whole block).
    forLanes<kLanes>([&]<std::uint32_t J>() {
      storeLanes(quad->x.data(), particleOf<J>(x));
      storeLanes(quad->y.data(), particleOf<J>(y));
      storeLanes(&quad->minX, particleOf<J>(bounds));
      if constexpr (ColorStreams) {
        storeLanes(quad->color.data(), particleOf<J>(rgba));
      } else {
        storeLanes(quad->color.data(), uniformColor);
      }
      *slot = {key[J], next};
      // Moving on by a byte count masked with the lane (0 or all ones) costs two instructions
      // where a pointer step of 0 or 1 Quad costs five.
      const auto take = static_cast<std::uint32_t>(draw[J]);
      quad = reinterpret_cast<Quad*>(reinterpret_cast<char*>(quad) + (take & sizeof(Quad)));
      slot = reinterpret_cast<DrawKey*>(reinterpret_cast<char*>(slot) + (take & sizeof(DrawKey)));
      next -= take;
    });
  }
  tally.next = next;
  for (std::uint32_t k = 0; k < kLanes; ++k) {
    tally.culled += static_cast<std::uint32_t>(culled[k]);
    tally.keys.lo = lo[k] < tally.keys.lo ? lo[k] : tally.keys.lo;
    tally.keys.hi = hi[k] > tally.keys.hi ? hi[k] : tally.keys.hi;
  }
}

template <class V>
void appendFacingLanes(const FacingSetup& setup, const FacingAppend& append,
                       const FacingParticles& in, Quad* quads, DrawKey* keys,
                       FacingTally& tally) noexcept {
  if (in.color[0] != nullptr) {
    appendFacingLanes<V, true>(setup, append, in, quads, keys, tally);
  } else {
    appendFacingLanes<V, false>(setup, append, in, quads, keys, tally);
  }
}

}  // namespace
}  // namespace mote::render
