// SPDX-License-Identifier: MIT
#include "mesh_loader.h"

#include <mote/nwn/mdl.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

namespace mote::cli {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// <name>.png, else .tga, else .dds in `folder`, any case of the file name; "" when none.
std::string findTexture(const std::filesystem::path& folder, const std::string& name) {
  if (name.empty() || lower(name) == "null") return {};
  std::error_code ec;
  for (const char* extension : {".png", ".tga", ".dds"}) {
    const std::string wanted = lower(name) + extension;
    for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
      if (lower(entry.path().filename().string()) == wanted) return entry.path().string();
    }
  }
  return {};
}

}  // namespace

Result<render::Mesh> loadHostMesh(const std::string& path) {
  if (lower(std::filesystem::path(path).extension().string()) != ".mdl") {
    return unsupported("mesh '" + path + "': the formats read are builtin:NAME, .obj and .mdl");
  }
  nwn::ChunkMeshResult loaded = nwn::loadChunkMesh(path);
  if (!loaded.ok()) {
    for (const authoring::Diagnostic& d : loaded.diagnostics) {
      if (d.severity == authoring::Severity::Error)
        return parseError(path + (d.line > 0 ? ":" + std::to_string(d.line) : std::string()) +
                          ": " + d.message);
    }
  }
  render::Mesh mesh;
  mesh.positions = std::move(loaded.mesh.positions);
  mesh.uvs = std::move(loaded.mesh.uvs);
  for (std::size_t i = 1; i < mesh.uvs.size(); i += 2)
    mesh.uvs[i] = 1.0f - mesh.uvs[i];
  mesh.indices = std::move(loaded.mesh.indices);
  mesh.texture = findTexture(std::filesystem::path(path).parent_path(), loaded.mesh.texture);
  return mesh;
}

}  // namespace mote::cli
