// SPDX-License-Identifier: MIT
// Dear ImGui's draw lists drawn through SDL_Renderer's geometry call (SDL ≥ 2.0.18): Debian's
// libimgui.a carries no SDL_Renderer backend, and this needs no GL, so the viewer runs on SDL's
// software renderer, under Xvfb and with SDL_VIDEODRIVER=offscreen alike. Single-threaded (the
// window's thread); the font texture is owned and freed here.
#pragma once

#include <SDL.h>
#include <imgui.h>

namespace mote::view {

class ImguiSdlDraw {
 public:
  ImguiSdlDraw() = default;
  ~ImguiSdlDraw();
  ImguiSdlDraw(const ImguiSdlDraw&) = delete;
  ImguiSdlDraw& operator=(const ImguiSdlDraw&) = delete;

  /// Makes the font atlas's texture on `renderer` and tells ImGui it draws with vertex offsets.
  /// False (SDL_GetError() says why) when the texture cannot be made.
  bool init(SDL_Renderer* renderer);
  /// Draws the frame's lists, each command clipped to its rectangle. O(vertices).
  void draw(const ImDrawData* data) const;

 private:
  SDL_Renderer* renderer_ = nullptr;
  SDL_Texture* font_ = nullptr;
};

}  // namespace mote::view
