// SPDX-License-Identifier: MIT
// The built-in meshes ("builtin:<name>" in `render.mesh`): their names, which authoring validates,
// and their geometry, one source for every layer that draws or stands one in (the renderer's
// mesh particles, the NWN importer's shard for a missing chunk model).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace mote {

/// Built-in mesh URIs share the sprites' prefix (kBuiltinSpriteUriPrefix): "builtin:cube".
/// shard comes first (the NWN importer's stand-in, builtin:shard).
inline constexpr std::array<std::string_view, 4> kBuiltinMeshNames = {"shard", "cube", "quad",
                                                                      "icosphere"};

/// A built-in mesh in model space (Y up, metres; triangles counter-clockwise seen from their
/// front): cube — a unit cube (side 1, centred), 24 vertices, a face's own texture square and
/// flat faces; quad — a unit square in the XY plane facing +Z; icosphere — a twice-subdivided
/// icosahedron of radius 0.5 (162 vertices, 320 triangles) with smooth normals and a
/// longitude/latitude texture map; shard — an irregular tetrahedron about 0.1 m across (NWN chunk
/// rocks are that size). `normals` is empty where the mesh is drawn flat (one normal a face).
/// Views of static storage, valid for the program's life.
struct BuiltinMeshGeometry {
  std::span<const float> positions;        ///< x y z per vertex
  std::span<const float> normals;          ///< x y z per vertex (unit), or empty: flat
  std::span<const float> uvs;              ///< u v per vertex (v down the texture, as image rows)
  std::span<const std::uint32_t> indices;  ///< three per triangle
};

/// The geometry of built-in mesh `name` (without the "builtin:" prefix); null for a name not in
/// kBuiltinMeshNames. Thread-safe (the icosphere is built once, on first use). O(1) after that.
const BuiltinMeshGeometry* builtinMeshGeometry(std::string_view name) noexcept;

}  // namespace mote
