// SPDX-License-Identifier: MIT
// Meshes for mesh particles (`render.mode: mesh`): an indexed triangle list in model space, made
// from a built-in mesh (mote/core/builtin_meshes.h) or read from a Wavefront OBJ file. Other
// formats (NWN chunk models) come through a MeshLoader the host supplies.
#pragma once

#include <mote/core/status.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mote::render {

/// An indexed triangle mesh in model space (Y up, metres, front faces counter-clockwise). A plain
/// value that owns its vectors.
struct Mesh {
  std::vector<float> positions;        ///< x y z per vertex
  std::vector<float> normals;          ///< x y z per vertex (unit), or empty: drawn flat
  std::vector<float> uvs;              ///< u v per vertex (v down the texture), or empty: 0 0
  std::vector<std::uint32_t> indices;  ///< three per triangle, each < vertexCount()
  /// The mesh's own texture (a path the renderer loads like a material texture, or builtin:NAME),
  /// drawn instead of the material's; empty: the material's.
  std::string texture;

  std::size_t vertexCount() const noexcept { return positions.size() / 3; }
  std::size_t triangleCount() const noexcept { return indices.size() / 3; }

  /// InvalidArgument naming `source` for: no triangle, a position count that is not a multiple of
  /// 3, normals or uvs of another vertex count, an index count that is not a multiple of 3 or an
  /// index out of range, a non-finite value, or more than kMaxMeshVertices vertices or
  /// kMaxMeshTriangles triangles. O(size).
  Status validate(std::string_view source) const;

  bool operator==(const Mesh&) const = default;
};

/// The largest mesh the loaders make (a particle mesh is small; this bounds a hostile file).
inline constexpr std::size_t kMaxMeshVertices = std::size_t{1} << 20;
inline constexpr std::size_t kMaxMeshTriangles = std::size_t{1} << 20;

/// The built-in mesh named by `uri` ("builtin:cube", …: kBuiltinMeshNames), copied from its
/// geometry. NotFound naming the valid names for another builtin name; InvalidArgument when `uri`
/// does not start with "builtin:". Allocates: the mesh.
Result<Mesh> builtinMesh(std::string_view uri);

/// Reads a Wavefront OBJ text: `v x y z [w]`, `vt u [v [w]]`, `vn x y z` and `f` with one-based or
/// negative (relative) indices in any of the forms `v`, `v/vt`, `v//vn`, `v/vt/vn`; polygons are
/// triangulated as fans; every distinct (v, vt, vn) corner becomes one vertex. OBJ texture
/// coordinates run up the image, so v is flipped (1 − v). Other statements (o, g, s, usemtl,
/// mtllib, l, p, comments) are ignored. A mesh whose faces give no normals is drawn flat; one
/// where some corners lack a normal gets those computed (the area-weighted normals of the faces
/// at the position); corners without texture coordinates in a mesh that has some get 0 0.
/// ParseError naming `source`, the line and what is wrong for a malformed number, a non-finite
/// value, a face with fewer than 3 corners, an index that is 0 or out of range, no face at all,
/// or a mesh past the limits (checked as it grows, so a hostile file cannot make it allocate
/// more). O(text size). Allocates: the mesh.
Result<Mesh> parseObj(std::string_view text, std::string_view source);

/// Reads `path` and parses it with parseObj. IoError naming the path when it cannot be read.
Result<Mesh> loadObj(const std::string& path);

/// Loads the mesh a `render.mesh` value names, for the formats a renderer does not read itself
/// (anything but builtin: and .obj). Called once per name; the result is kept. Must be
/// thread-safe if the renderer is used from several threads (one at a time is enough).
using MeshLoader = std::function<Result<Mesh>(const std::string& path)>;

}  // namespace mote::render
