// SPDX-License-Identifier: MIT
// The world `mote render --heightfield/--sdf` gives colliders of kind "host" (docs/runtime.md,
// "Host collision"): a heightfield from a greyscale PNG or raw float32 heights, a signed-distance
// volume from raw float32 distances, asked together; and the heightfield's terrain as lit
// triangles for the picture. Single-threaded use; load() allocates, the rest never.
#pragma once

#include <mote/core/status.h>
#include <mote/runtime/colliders.h>

#include <glm/vec3.hpp>

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mote::cli {

struct HostWorldOptions {
  /// A .png (grey: its red channel, 0..255 → 0..1) or a raw .f32 file of heights.
  std::string heightfield;
  std::string heightfieldSamples;  ///< "columns,rows" for a .f32 file
  std::string heightfieldMin = "-10,0,-10";
  std::string heightfieldSize = "20,2,20";  ///< x extent, height scale, z extent
  /// A raw .f32 file of signed distances (m), x fastest, then y, then z.
  std::string sdf;
  std::string sdfSamples;  ///< "nx,ny,nz"
  std::string sdfMin = "-1,-1,-1";
  std::string sdfSize = "2,2,2";
};

/// One opaque triangle of the scene, world space, linear RGB.
struct SceneTriangle {
  glm::vec3 a;
  glm::vec3 b;
  glm::vec3 c;
  std::array<float, 3> color;
};

class HostWorld {
 public:
  /// The worlds the options name (none: a HostWorld whose collision() is null). Errors name the
  /// option and the file ("--heightfield ground.png: …").
  static Result<std::unique_ptr<HostWorld>> load(const HostWorldOptions& options);

  /// What ParticleWorld::setCollision takes; null when no option named a world.
  const bytecode::CollisionProvider* collision() const noexcept;
  /// The heightfield's surface, at most 96 × 96 cells, shaded by its slope; empty without one.
  std::span<const SceneTriangle> terrain() const noexcept { return terrain_; }

 private:
  std::optional<HeightfieldCollider> heightfield_;
  std::optional<SdfCollider> sdf_;
  std::optional<CollisionSet> set_;
  std::vector<SceneTriangle> terrain_;
};

}  // namespace mote::cli
