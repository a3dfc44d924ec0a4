// SPDX-License-Identifier: MIT
// gpu::Renderer's private state, shared by renderer.cpp (the device objects and draw()) and
// renderer_packets.cpp (render packets and ParticleWorlds drawn through it).
#pragma once

#include "context_impl.h"
#include "device_memory.h"
#include "kernel.h"

#include <mote/gpu/renderer.h>
#include <mote/render/debug_overlay.h>
#include <mote/render/frame_resolve.h>
#include <mote/render/particle_renderer.h>
#include <mote/render/raster_triangle.h>
#include <mote/render/render_packet.h>
#include <mote/render/sprite_renderer.h>

#include <glm/mat4x4.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mote::gpu {

inline constexpr std::uint32_t kInstanceWords = 36;  // sprite.vert's layout
// The view, the view-projection, the near limit, the size, the half extents, the background, the
// ground flag (sprite.vert, ground.glsl); then the lights (sprite_lighting.glsl): their count, the
// ambient colour, and kLightWords for each of render::kMaxLights.
inline constexpr std::uint32_t kLightWords = 8;
inline constexpr std::uint32_t kFrameWords = 49 + 4 + kLightWords * render::kMaxLights;
// Storage buffers: the frame, instances, texture table, texels, corner colours, mesh triangles;
// then subpass 1's two input attachments (the scene depth and the mesh depth).
inline constexpr std::uint32_t kStorageBindings = 6;
inline constexpr std::uint32_t kBindings = kStorageBindings + 2;
inline constexpr std::uint32_t kTriangleWords = 33;  // triangle.vert's layout

struct Renderer::Impl {
  Context* context = nullptr;
  VkDevice device = VK_NULL_HANDLE;
  RendererDesc desc;
  VkFormat format = VK_FORMAT_R32G32B32A32_SFLOAT;
  // The frame and, under OIT, its two planes (the accumulated sums; additive rgb and revealage).
  static constexpr std::uint32_t kMaxPlanes = 3;
  std::uint32_t planes() const noexcept {
    return desc.transparency == render::Transparency::Oit ? kMaxPlanes : 1;
  }
  std::uint64_t planeBytes() const noexcept {
    return std::uint64_t{desc.viewport.width} * desc.viewport.height *
           (format == VK_FORMAT_R32G32B32A32_SFLOAT ? 16 : 8);
  }
  // The planes at [0, planes()), then the scene depth, the mesh depth (R32_SFLOAT: subpass 0
  // writes them, subpass 1 reads them as input attachments) and the depth buffer (D32_SFLOAT,
  // depth.glsl's encoding) at kSceneDepth, kMeshDepth and kDepth.
  static constexpr std::uint32_t kSceneDepth = kMaxPlanes, kMeshDepth = kMaxPlanes + 1,
                                 kDepth = kMaxPlanes + 2, kImages = kMaxPlanes + 3;
  std::array<VkImage, kImages> images{};
  std::array<VkDeviceMemory, kImages> imageMemory{};
  std::array<VkImageView, kImages> imageViews{};
  Status createImage(std::uint32_t k, VkFormat imageFormat, VkImageUsageFlags usage,
                     VkImageAspectFlags aspect, const char* what);
  std::vector<std::array<float, 4>> oitSums, oitSide;
  // Plane k of the readback as linear floats.
  void readPlane(std::uint32_t k, std::vector<std::array<float, 4>>& out) const;
  VkRenderPass pass = VK_NULL_HANDLE;
  VkFramebuffer framebuffer = VK_NULL_HANDLE;
  // The layout and pipelines, the context's (shared by its renderers of these planes and format).
  Context::Impl::RendererPipelines pipelines;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  Buffer frame, instances, textureTable, texels, corners, triangles, readback;
  std::vector<std::array<std::uint32_t, 4>> table;
  std::vector<std::array<float, 4>> texelData;
  bool texturesDirty = true;
  std::vector<std::uint32_t> frameWords, instanceWords, cornerWords;
  // The frame's mesh triangles (kTriangleWords each) and whether each writes depth.
  std::vector<std::uint32_t> triangleWords;
  std::vector<bool> triangleWrites;

  // renderer_packets.cpp: material textures by name (each loaded once), the frame's instances in
  // draw order and their lit corner colours, one draw a packet, the sort's keys, render()'s
  // packets, linear frame and resolve.
  std::vector<std::pair<std::string, std::uint32_t>> named;
  std::vector<SpriteInstance> packetInstances, unsorted;
  std::vector<std::array<std::array<float, 4>, 4>> packetCorners;
  std::vector<SpriteDraw> packetDraws;
  // A packet's instances at [begin, end) of packetInstances, its corners likewise: the draws'
  // spans are made once every packet is in (the vectors move while they grow).
  struct PacketRange {
    render::BillboardMode mode;
    std::size_t begin, end, cornersBegin, cornersEnd;
  };
  std::vector<PacketRange> ranges;
  std::vector<std::uint32_t> keys, order;
  std::optional<render::RenderPacketBuilder> builder;
  std::vector<std::array<float, 4>> linear;
  std::optional<render::FrameResolver> resolver;
  Result<std::uint32_t> textureNamed(Renderer& owner, std::string_view name);
  // A linked chain's or beam's ribbons appended to packetInstances; a bolt's points and the
  // segments' corners (grown to the largest).
  void addRibbons(const render::RenderPacket& p, const render::Camera& camera,
                  const glm::mat4& viewProjection, std::uint32_t texture);
  // The frame's draws from packetInstances: one a packet (Transparency::Emitter), or the whole
  // frame sorted by instanceKeys into runs of one mode (Sorted).
  void emitterDraws();
  void sortInstances();
  std::vector<std::uint32_t> instanceKeys;  // each packet instance's sort key
  std::vector<render::BillboardMode> modes;
  std::vector<SpriteInstance> sortedInstances;
  std::vector<glm::vec3> bolt;
  std::vector<std::uint64_t> chainKeys;  // a linked chain's order (linkedChainOrder)
  std::vector<std::array<glm::vec3, 4>> ribbonQuads;
  // Mesh particles: the software renderer's own triangle layer makes their triangles (render::
  // ParticleRenderer::prepareTriangles, made at the first mesh packet), which are drawn as they
  // are; its textures, uploaded once each (meshTextures: by its index, as spriteTextures below).
  std::optional<render::ParticleRenderer> meshes;
  std::vector<render::RasterTriangle> rasterTriangles;
  // A software renderer's texture as uploaded here: our index (~0: not yet) and its size; stale
  // once that renderer may have put another texture in its slot.
  struct UploadedTexture {
    std::uint32_t index = ~0u;
    std::uint32_t width = 0, height = 0;
    bool stale = false;
  };
  std::vector<UploadedTexture> meshTextures;
  // The debug overlay of `world` too, where `overlay` is given.
  Status addMeshTriangles(Renderer& owner, std::span<const render::RenderPacket> packets,
                          const render::Camera& camera, const mote::ParticleWorld* world,
                          const render::DebugOverlayOptions* overlay);
  // render(): the world's packets drawn and resolved, with its debug overlay where given.
  Status renderWorld(Renderer& owner, const mote::ParticleWorld& world,
                     const render::Camera& camera, render::Image& out,
                     const render::DebugOverlayOptions* overlay);
  // drawPackets(), with render()'s debug overlay over `world` where `overlay` is given.
  Status drawPacketFrame(Renderer& owner, std::span<const render::RenderPacket> packets,
                         const render::Camera& camera, std::vector<std::array<float, 4>>& frameOut,
                         const mote::ParticleWorld* world,
                         const render::DebugOverlayOptions* overlay);
  // renderer_pool.cpp: a GPU world's pool drawn in place — the frame's header and the rows'
  // blocks (draw_layout.h), the sort entries, the two kernels and their sets (made again when
  // a buffer they point at changes), the rows in emitter order, the last frame's path.
  std::vector<std::uint32_t> poolWords;
  std::vector<std::uint32_t> rankedRows;
  Buffer drawWords, sortKeys;
  Kernel* poolKernel = nullptr;
  Kernel* sortKernel = nullptr;
  Bindings poolSet, sortSet;
  std::array<VkBuffer, 6> poolBound{};
  VkBuffer sortBound = VK_NULL_HANDLE;
  bool inPlace = false;
  std::string readBackReason;  // why the last GPU world's frame was drawn from a readback
  Status renderPool(Renderer& owner, ParticleWorld& world, const render::Camera& camera,
                    render::Image& out);
  // The frame's rows into poolWords; false where a row needs the particles read back (`why`).
  Result<bool> poolRows(Renderer& owner, const ParticleWorld& world);
  Status bindPool(const ParticleWorld& world);

  // The frame constants (sprite.vert, ground.glsl) for `camera`, or a SpriteBatcher frame's
  // `screen` matrix, into frameWords.
  void putFrame(const render::Camera& camera, const glm::mat4* screen);
  // The frame, mesh triangles and textures uploaded (the instances are the caller's).
  Status uploadFrame();
  // The planes read back into `out` (OIT composited), alpha 1.
  void readFrame(std::vector<std::array<float, 4>>& out);
  // draw()'s work on top of the frame's mesh triangles (triangleWords, drawn first).
  // With `screen`, the instances are ribbon quads of pixel corners drawn through that matrix (a
  // SpriteBatcher frame: no ground, no particles' camera).
  Status drawFrame(const render::Camera& camera, std::span<const SpriteDraw> draws,
                   std::vector<std::array<float, 4>>& out, const glm::mat4* screen = nullptr);
  // SpriteBatcher frames: the software sprite renderer's atlases, textures and quads
  // (render::SpriteRenderer::spriteQuads), drawn one draw a batch; its textures uploaded once
  // each (spriteTextures: its index → ours and the size uploaded, ~0 before; a rebound atlas
  // image is uploaded again, in place when its size is unchanged).
  std::optional<render::SpriteRenderer> sprites;
  std::vector<render::ScreenSprite> screenSprites;
  std::vector<std::uint32_t> batchEnds;
  std::vector<UploadedTexture> spriteTextures;
  std::vector<SpriteInstance> spriteInstances;
  std::vector<SpriteDraw> spriteDraws;
  Status ensureSprites();
  // Our index of a software renderer's texture: `known` caches it (uploaded again when stale).
  Result<std::uint32_t> uploaded(Renderer& owner, const render::Texture& texture,
                                 UploadedTexture& known);
  // Our index of texture `index` of `source` (a render::ParticleRenderer or SpriteRenderer), by
  // `cache` (grown to hold it); the texture is looked up only when it is not uploaded as it is.
  template <class Source>
  Result<std::uint32_t> uploadedFrom(Renderer& owner, const Source& source, std::uint32_t index,
                                     std::vector<UploadedTexture>& cache) {
    if (index >= cache.size()) cache.resize(std::size_t{index} + 1);
    UploadedTexture& known = cache[index];
    if (known.index != ~0u && !known.stale) return known.index;
    Result<const render::Texture*> texture = source.texture(index);
    if (!texture.ok()) return texture.status();
    return uploaded(owner, *texture.value(), known);
  }

  // The frame's start and the end of its render pass on the GPU's clock (none where the queue
  // writes no timestamps), and the last frame's time between them.
  VkQueryPool timestamps = VK_NULL_HANDLE;
  double frameSeconds = 0.0;
  void startClock(VkCommandBuffer cmd) const;
  void readClock();

  ~Impl() {
    if (device == VK_NULL_HANDLE) return;
    vkDeviceWaitIdle(device);
    if (timestamps != VK_NULL_HANDLE) vkDestroyQueryPool(device, timestamps, nullptr);
    if (pool != VK_NULL_HANDLE) vkDestroyDescriptorPool(device, pool, nullptr);
    if (framebuffer != VK_NULL_HANDLE) vkDestroyFramebuffer(device, framebuffer, nullptr);
    if (pass != VK_NULL_HANDLE) vkDestroyRenderPass(device, pass, nullptr);
    for (std::uint32_t k = 0; k < kImages; ++k) {
      if (imageViews[k] != VK_NULL_HANDLE) vkDestroyImageView(device, imageViews[k], nullptr);
      if (images[k] != VK_NULL_HANDLE) vkDestroyImage(device, images[k], nullptr);
      if (imageMemory[k] != VK_NULL_HANDLE) vkFreeMemory(device, imageMemory[k], nullptr);
    }
  }

  Status createTarget();
  // The context's pipelines for this renderer's planes and format (built on first use), and the
  // descriptor set.
  Status createPipelines();
  // Builds `made`'s layout and pipelines; on failure, what was made is left for made.destroy().
  Status buildPipelines(Context::Impl::RendererPipelines& made) const;
  // A pipeline of `vertex` and `fragment` (the vertex stage specialised with exact.glsl's flags)
  // on `layout`, premultiplied blending into the planes: the sprites' (subpass 1), the ground's
  // (subpass 0: it writes the frame's plane, the scene depth and the depth buffer), or the mesh
  // triangles' (subpass 0, depth-tested; `writesDepth`: the depth buffer, scene depth and mesh
  // depth too). Viewport and scissor are dynamic: record() sets them.
  enum class Stage { Sprites, Ground, Triangles };
  Status createPipeline(VkShaderModule vertex, VkShaderModule fragment, Stage stage,
                        bool writesDepth, VkPipelineLayout layout, VkPipeline& out) const;
  // `buffer` holds at least `words` words (grown, never shrunk; its old contents are dropped).
  Status ensure(Buffer& buffer, std::size_t words, const char* name);
  void writeSet();
  // The render pass and readback copies: `draws` in order, or with `indirect` one indirect draw
  // of the instances buffer from the VkDrawIndirectCommand at that buffer and byte offset.
  struct IndirectDraw {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;
  };
  void record(VkCommandBuffer cmd, std::span<const SpriteDraw> draws,
              const IndirectDraw* indirect = nullptr) const;
};

}  // namespace mote::gpu
