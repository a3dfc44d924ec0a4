// SPDX-License-Identifier: MIT
// The CLI's render::MeshLoader: NWN chunk models (.mdl) through mote_nwn, for the mesh emitters
// the MDL importer makes (render.mesh is the chunk's absolute path).
#pragma once

#include <mote/render/mesh.h>

#include <string>

namespace mote::cli {

/// Loads `path` as an NWN chunk model (.mdl, any case): its geometry (texture v flipped to run
/// down the image) and, as the mesh's own texture, its first node's `bitmap` found next to it as
/// <bitmap>.png, .tga or .dds (any case), else none. A load error is a ParseError with the
/// chunk's first error; other extensions are Unsupported.
Result<render::Mesh> loadHostMesh(const std::string& path);

}  // namespace mote::cli
