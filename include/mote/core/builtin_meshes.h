// SPDX-License-Identifier: MIT
// The names of the built-in meshes ("builtin:<name>" in `render.mesh`), which authoring validates
// without depending on the layers that build them (the shard: mote/nwn/mdl.h builtinShardMesh).
#pragma once

#include <array>
#include <string_view>

namespace mote {

/// Built-in mesh URIs share the sprites' prefix (kBuiltinSpriteUriPrefix): "builtin:shard".
inline constexpr std::array<std::string_view, 1> kBuiltinMeshNames = {"shard"};

}  // namespace mote
