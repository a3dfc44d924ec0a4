// SPDX-License-Identifier: MIT
// The names of the built-in procedural sprites ("builtin:<name>" textures). The render layer draws
// them (mote/render/procedural_sprite.h); authoring validates texture names against this list
// without depending on render.
#pragma once

#include <array>
#include <string_view>

namespace mote {

/// The prefix of a built-in texture URI: "builtin:<name>".
inline constexpr std::string_view kBuiltinSpriteUriPrefix = "builtin:";

/// In render::BuiltinSprite order.
inline constexpr std::array<std::string_view, 6> kBuiltinSpriteNames = {
    "soft_circle", "spark", "smoke", "ring", "star", "flare"};

}  // namespace mote
