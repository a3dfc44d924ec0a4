// SPDX-License-Identifier: MIT
// Worlds a tool can give COLLIDE without a physics engine (docs/runtime.md, "Host collision"): a
// heightfield (terrain: heights on a grid over a rectangle of the XZ plane), a signed-distance
// volume (a 3D grid of distances sampled trilinearly), and a set of worlds asked together.
//
// A cast marches the segment in steps of at most half a grid cell (at most kMostCastSteps steps),
// finds the first step across the surface and bisects it; a feature thinner than a step can be
// missed. The surface the sphere's centre meets is the field's surface pushed out by the radius:
// vertically for a heightfield, along the distance for a volume.
//
// Thread safety: immutable after create(); cast() runs on any number of threads at once.
// Allocation: create() allocates the grid; cast() never allocates.
#pragma once

#include <mote/bytecode/collision.h>
#include <mote/core/status.h>

#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace mote {

/// The most samples one grid may hold (64 MiB of floats).
inline constexpr std::uint64_t kMaxColliderSamples = std::uint64_t{1} << 24;
/// The most steps a cast marches before bisecting.
inline constexpr std::uint32_t kMostCastSteps = 256;

/// Terrain: world height at grid sample (i, j) is min.y + heights[j · columns + i] · size.y, at
/// x = min.x + i · size.x / (columns − 1), z = min.z + j · size.z / (rows − 1); bilinear between.
/// Outside the rectangle there is no ground.
struct HeightfieldDesc {
  std::uint32_t columns = 0;                    ///< samples along x, ≥ 2
  std::uint32_t rows = 0;                       ///< samples along z, ≥ 2
  std::vector<float> heights;                   ///< columns · rows finite values, x fastest
  std::array<float, 3> min{};                   ///< the corner of sample (0, 0) at height 0, m
  std::array<float, 3> size{1.0f, 1.0f, 1.0f};  ///< extent along x and z, height scale (y), > 0
};

class HeightfieldCollider final : public bytecode::CollisionProvider {
 public:
  /// InvalidArgument naming the field for a grid smaller than 2 × 2, more than
  /// kMaxColliderSamples samples, a heights count other than columns · rows, a non-finite value,
  /// or a size that is not positive and finite.
  static Result<HeightfieldCollider> create(HeightfieldDesc desc);

  void cast(std::span<const bytecode::CollisionCast> casts,
            std::span<bytecode::CollisionHit> hits) const override;

  /// The ground's world height under (x, z); NaN outside the rectangle. O(1).
  float heightAt(float x, float z) const noexcept;

 private:
  explicit HeightfieldCollider(HeightfieldDesc desc);
  HeightfieldDesc d_;
  float cellX_ = 1.0f;  // m between samples
  float cellZ_ = 1.0f;
};

/// A signed-distance volume: distance at sample (i, j, k) is distances[(k · ny + j) · nx + i]
/// (m, negative inside), at min + (i, j, k) · size / (n − 1); trilinear between. Outside the box
/// the distance is the border's plus the distance to the box (never less than the true one's
/// lower bound there).
struct SdfDesc {
  std::array<std::uint32_t, 3> samples{};       ///< nx, ny, nz, each ≥ 2
  std::vector<float> distances;                 ///< nx · ny · nz finite values, x fastest, then y
  std::array<float, 3> min{};                   ///< the corner of sample (0, 0, 0), m
  std::array<float, 3> size{1.0f, 1.0f, 1.0f};  ///< the box's extent, m, > 0
};

class SdfCollider final : public bytecode::CollisionProvider {
 public:
  /// InvalidArgument as HeightfieldCollider::create.
  static Result<SdfCollider> create(SdfDesc desc);

  void cast(std::span<const bytecode::CollisionCast> casts,
            std::span<bytecode::CollisionHit> hits) const override;

  /// The signed distance at `p` (world, m). O(1).
  float distanceAt(const std::array<float, 3>& p) const noexcept;

 private:
  explicit SdfCollider(SdfDesc desc);
  SdfDesc d_;
  std::array<float, 3> cell_{};  // m between samples
};

/// Several worlds asked as one: each cast's hit is the nearest of theirs (the first in the list on
/// a tie). Holds non-owning pointers: they must outlive it. At most 8 worlds.
class CollisionSet final : public bytecode::CollisionProvider {
 public:
  static constexpr std::size_t kMostWorlds = 8;
  /// InvalidArgument for more than kMostWorlds or a null pointer.
  static Result<CollisionSet> create(std::span<const bytecode::CollisionProvider* const> worlds);

  void cast(std::span<const bytecode::CollisionCast> casts,
            std::span<bytecode::CollisionHit> hits) const override;

 private:
  CollisionSet() = default;
  std::array<const bytecode::CollisionProvider*, kMostWorlds> worlds_{};
  std::size_t count_ = 0;
};

/// Little-endian float32 samples from `bytes` (a raw grid file: no header), exactly `count` of
/// them, each finite. ParseError naming `nameForErrors`, the byte offset and what is wrong: a size
/// other than count · 4 bytes, a NaN or infinity. Allocates: the samples.
Result<std::vector<float>> decodeFloatGrid(std::span<const std::uint8_t> bytes, std::uint64_t count,
                                           std::string_view nameForErrors);

}  // namespace mote
