// SPDX-License-Identifier: MIT
// Chunk meshes: the geometry nodes of an ASCII model (parsed with MdlParseOptions::meshes) as one
// indexed triangle list in model space, and the built-in shard drawn when a chunk is missing.
#include "mdl_report.h"
#include "mdl_tables.h"
#include "mdl_track.h"
#include "mdl_transform.h"

#include <mote/core/builtin_meshes.h>
#include <mote/core/builtin_sprites.h>
#include <mote/nwn/mdl.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>

namespace mote::nwn {
namespace {

static_assert(kBuiltinShardMeshName.substr(0, kBuiltinSpriteUriPrefix.size()) ==
                      kBuiltinSpriteUriPrefix &&
                  kBuiltinShardMeshName.substr(kBuiltinSpriteUriPrefix.size()) ==
                      kBuiltinMeshNames[0],
              "authoring validates builtin:shard against kBuiltinMeshNames");

using authoring::Diagnostic;
using authoring::Severity;

class MeshBuilder {
 public:
  MeshBuilder(const MdlModel& model, ChunkMeshResult& result) : model_(model), result_(result) {}

  void run() {
    result_.mesh.source = model_.file;
    const detail::NodeHierarchy hierarchy = detail::indexHierarchy(model_, result_.diagnostics);
    std::vector<detail::Xform> world(model_.nodes.size());
    std::string firstTextureNode;
    for (std::size_t i = 0; i < model_.nodes.size(); ++i) {
      const MdlNode& node = model_.nodes[i];
      const detail::Xform local = detail::localXform(detail::sortTrack(node.track("position")),
                                                     detail::sortTrack(node.track("orientation")),
                                                     detail::sortTrack(node.track("scale")));
      const std::size_t parent = hierarchy.parent[i];
      world[i] = parent == detail::kRootNode ? local : detail::compose(world[parent], local);
      const MdlMeshLists& mesh = node.mesh;
      if (!isMeshType(node.type) || !mesh.render || mesh.faces.empty()) continue;
      if (!addNode(node, world[i])) continue;
      const std::string texture = lowerCopy(mesh.bitmap) == "null" ? std::string() : mesh.bitmap;
      if (texture.empty()) continue;
      if (firstTextureNode.empty()) {
        result_.mesh.texture = texture;
        firstTextureNode = node.name;
      } else if (lowerCopy(texture) != lowerCopy(result_.mesh.texture)) {
        warn(node.line, "'" + node.name + "' has the texture '" + texture + "' and '" +
                            firstTextureNode + "' has '" + result_.mesh.texture +
                            "': a chunk mesh has one texture, the first is kept");
      }
    }
  }

 private:
  const MdlModel& model_;
  ChunkMeshResult& result_;

  detail::Reporter report_{&result_.diagnostics, model_.file};

  void warn(std::uint32_t line, std::string message) { report_.warn(line, std::move(message)); }
  void error(std::uint32_t line, std::string message) { report_.error(line, std::move(message)); }

  // Appends the node's triangles; false (with one error, nothing appended) when a face indexes
  // outside its lists, the mesh grows past the cap or a vertex leaves the floats.
  bool addNode(const MdlNode& node, const detail::Xform& world) {
    const MdlMeshLists& mesh = node.mesh;
    ChunkMesh& out = result_.mesh;
    if (out.triangleCount() + mesh.faces.size() > kMaxMdlMeshListRows) {
      error(mesh.line, "the chunk mesh has more than " + std::to_string(kMaxMdlMeshListRows) +
                           " triangles ('" + node.name + "' is left out)");
      return false;
    }
    for (const MdlFace& f : mesh.faces) {
      for (std::size_t c = 0; c < 3; ++c) {
        if (f.verts[c] >= mesh.verts.size()) {
          error(f.line, "face vertex " + std::to_string(f.verts[c]) + " of '" + node.name +
                            "' is outside its " + std::to_string(mesh.verts.size()) + " verts");
          return false;
        }
        if (!mesh.tverts.empty() && f.tverts[c] >= mesh.tverts.size()) {
          error(f.line, "face texture vertex " + std::to_string(f.tverts[c]) + " of '" + node.name +
                            "' is outside its " + std::to_string(mesh.tverts.size()) + " tverts");
          return false;
        }
      }
    }
    // One output vertex per (vertex, texture vertex) pair the faces use.
    const std::size_t first = out.positions.size();
    const std::size_t firstIndex = out.indices.size();
    std::unordered_map<std::uint64_t, std::uint32_t> shared;
    for (const MdlFace& f : mesh.faces) {
      for (std::size_t c = 0; c < 3; ++c) {
        const std::uint32_t t = mesh.tverts.empty() ? 0 : f.tverts[c];
        const std::uint64_t key = (std::uint64_t{f.verts[c]} << 32) | t;
        const auto [it, added] = shared.emplace(key, static_cast<std::uint32_t>(out.vertexCount()));
        if (added) {
          const std::array<float, 3>& v = mesh.verts[f.verts[c]];
          const detail::Vec3 p = detail::toMote(detail::apply(world, {v[0], v[1], v[2]}));
          if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) {
            error(mesh.line, "vertex " + std::to_string(f.verts[c]) + " of '" + node.name +
                                 "' is not finite in model space");
            out.positions.resize(first);
            out.uvs.resize(first / 3 * 2);
            out.indices.resize(firstIndex);
            return false;
          }
          out.positions.insert(out.positions.end(), p.begin(), p.end());
          const std::array<float, 2> uv =
              mesh.tverts.empty() ? std::array<float, 2>{0.0f, 0.0f} : mesh.tverts[t];
          out.uvs.insert(out.uvs.end(), uv.begin(), uv.end());
        }
        out.indices.push_back(it->second);
      }
    }
    return true;
  }
};

constexpr MdlParseOptions kMeshes{.meshes = true};

// buildChunkMesh of a parse that succeeded, after the parse's diagnostics.
ChunkMeshResult buildParsed(MdlParseResult parsed) {
  ChunkMeshResult result;
  if (parsed.ok()) result = buildChunkMesh(parsed.model);
  result.mesh.source = parsed.model.file;
  detail::prependDiagnostics(result.diagnostics, std::move(parsed.diagnostics));
  return result;
}

}  // namespace

ChunkMeshResult buildChunkMesh(const MdlModel& model) {
  ChunkMeshResult result;
  MeshBuilder(model, result).run();
  return result;
}

ChunkMeshResult parseChunkMesh(std::string_view text, std::string_view fileName) {
  return buildParsed(parseMdl(text, fileName, kMeshes));
}

ChunkMeshResult loadChunkMesh(const std::string& path) {
  return buildParsed(loadMdlFile(path, kMeshes));
}

ChunkMesh builtinShardMesh() {
  const BuiltinMeshGeometry& shard = *builtinMeshGeometry("shard");
  ChunkMesh mesh;
  mesh.positions.assign(shard.positions.begin(), shard.positions.end());
  mesh.uvs.assign(shard.uvs.begin(), shard.uvs.end());
  mesh.indices.assign(shard.indices.begin(), shard.indices.end());
  mesh.source = std::string(kBuiltinShardMeshName);
  return mesh;
}

}  // namespace mote::nwn
