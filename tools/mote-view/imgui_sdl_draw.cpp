// SPDX-License-Identifier: MIT
#include "imgui_sdl_draw.h"

#include <cmath>

namespace mote::view {

ImguiSdlDraw::~ImguiSdlDraw() {
  if (font_ != nullptr) SDL_DestroyTexture(font_);
}

bool ImguiSdlDraw::init(SDL_Renderer* renderer) {
  renderer_ = renderer;
  ImGuiIO& io = ImGui::GetIO();
  io.BackendRendererName = "mote-view SDL_RenderGeometry";
  io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
  unsigned char* pixels = nullptr;
  int width = 0;
  int height = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);
  font_ = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ABGR8888, SDL_TEXTUREACCESS_STATIC, width,
                            height);
  if (font_ == nullptr) return false;
  SDL_UpdateTexture(font_, nullptr, pixels, width * 4);
  SDL_SetTextureBlendMode(font_, SDL_BLENDMODE_BLEND);
  io.Fonts->SetTexID(static_cast<ImTextureID>(font_));
  return true;
}

void ImguiSdlDraw::draw(const ImDrawData* data) const {
  const ImVec2 origin = data->DisplayPos;
  for (int n = 0; n < data->CmdListsCount; ++n) {
    const ImDrawList* list = data->CmdLists[n];
    const ImDrawVert* vertices = list->VtxBuffer.Data;
    const ImDrawIdx* indices = list->IdxBuffer.Data;
    for (const ImDrawCmd& cmd : list->CmdBuffer) {
      if (cmd.UserCallback != nullptr) {
        if (cmd.UserCallback != ImDrawCallback_ResetRenderState) cmd.UserCallback(list, &cmd);
        continue;
      }
      const SDL_Rect clip{static_cast<int>(cmd.ClipRect.x - origin.x),
                          static_cast<int>(cmd.ClipRect.y - origin.y),
                          static_cast<int>(std::ceil(cmd.ClipRect.z - cmd.ClipRect.x)),
                          static_cast<int>(std::ceil(cmd.ClipRect.w - cmd.ClipRect.y))};
      if (clip.w <= 0 || clip.h <= 0) continue;
      SDL_RenderSetClipRect(renderer_, &clip);
      const ImDrawVert* v = vertices + cmd.VtxOffset;
      constexpr int kStride = static_cast<int>(sizeof(ImDrawVert));
      SDL_RenderGeometryRaw(renderer_, static_cast<SDL_Texture*>(cmd.GetTexID()), &v->pos.x,
                            kStride, reinterpret_cast<const SDL_Color*>(&v->col), kStride, &v->uv.x,
                            kStride, list->VtxBuffer.Size - static_cast<int>(cmd.VtxOffset),
                            indices + cmd.IdxOffset, static_cast<int>(cmd.ElemCount),
                            static_cast<int>(sizeof(ImDrawIdx)));
    }
  }
  SDL_RenderSetClipRect(renderer_, nullptr);
}

}  // namespace mote::view
