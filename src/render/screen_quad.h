// SPDX-License-Identifier: MIT
// The rasterizer's quad on the screen, and the record it draws from: what the sprite layer's
// rasterizer reads and mote_render's quad expansion (its facing fast path among it) writes.
// Private to the sprite layer and mote_render.
#pragma once

#include <array>

namespace mote::render {

/// A quad on the screen: its corners in billboard order (pixels, y down) and their bounds.
struct ScreenQuad {
  std::array<float, 4> x{};
  std::array<float, 4> y{};
  float minX = 0.0f, maxX = 0.0f, minY = 0.0f, maxY = 0.0f;
};

/// Sets the quad's bounds from its corners (std::min / std::max of the four); false when they
/// miss a width × height screen. Pure; O(1). Allocates: never.
bool boundOnScreen(ScreenQuad& quad, float width, float height) noexcept;

/// A drawn quad as the renderer stores it, what varies per particle: one 64-byte cache line (its
/// style, an index into the renderer's quad styles, lives in an array beside the quads, so that a
/// record is a line and the fast path writes four stores a quad, not five).
struct alignas(64) Quad : ScreenQuad {
  std::array<float, 4> color{};  ///< premultiplied linear; alpha 0 for additive
};
static_assert(sizeof(Quad) == 64);

}  // namespace mote::render
