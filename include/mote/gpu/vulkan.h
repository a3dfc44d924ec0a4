// SPDX-License-Identifier: MIT
// Mote's GPU backend inside a host's own Vulkan device (docs/gpu.md, "In a game's Vulkan device"):
// a Context that wraps the host's instance, physical device, device and queue instead of creating
// its own, and what a GPU world shares with the host's renderer — its buffers and where in them
// the last frame left the alive list and the draw arguments.
//
// Ownership: a wrapped Context owns only what it creates on the host's device (its command pool,
// fence, pipelines, buffers and, with validation, a debug messenger on the host's instance); the
// host's handles must outlive it and are never destroyed by Mote. Thread safety: as Context — and
// the host must not use the same queue from another thread while Mote submits on it (Vulkan's
// external synchronisation of a queue). Allocation: wrap() allocates; buffers() does not.
#pragma once

#include <mote/core/status.h>
#include <mote/gpu/context.h>

#include <cstdint>
#include <vulkan/vulkan_core.h>

namespace mote::gpu {

/// The host's Vulkan objects, and what it enabled on its device (Vulkan cannot be asked).
struct HostVulkan {
  VkInstance instance = VK_NULL_HANDLE;  ///< created for Vulkan 1.2 or later
  VkPhysicalDevice physicalDevice = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;  ///< created from physicalDevice with queueFamily's queue
  VkQueue queue = VK_NULL_HANDLE;    ///< a queue of queueFamily, which must offer compute
  std::uint32_t queueFamily = 0;
  /// The host's vkGetInstanceProcAddr (the loader it uses); null: the system's libvulkan.so.1.
  PFN_vkGetInstanceProcAddr getInstanceProcAddr = nullptr;
  /// Whether the host enabled VkPhysicalDeviceFeatures::shaderFloat64 and shaderInt64 on the
  /// device: exact mode needs both (fast mode otherwise, SelfTest::reason says so).
  bool shaderFloat64 = false;
  bool shaderInt64 = false;
  /// Whether the host enabled VkPhysicalDeviceFeatures::independentBlend (the GPU renderer's OIT
  /// transparency needs it).
  bool independentBlend = false;
};

/// Where a GPU world's particles are, for a host that draws them itself (mote::gpu::
/// ParticleWorld::buffers()). The pool's records are `recordWords` words: the header (emitter
/// row, the row's generation, the particle id), then the emitter's particle words in the layout of
/// its CompiledEmitter (channels.position and the others are word offsets after the header).
/// Valid after a tick until the next one; the handles live as long as the world.
struct WorldBuffers {
  VkBuffer pool = VK_NULL_HANDLE;
  std::uint32_t recordWords = 0;
  std::uint32_t headerWords = 0;
  /// The alive list the last frame left: aliveCount() slot indices from byte aliveOffset.
  VkBuffer alive = VK_NULL_HANDLE;
  VkDeviceSize aliveOffset = 0;
  /// The counters: the alive list's length at byte aliveCountOffset, and a VkDrawIndirectCommand
  /// (6 vertices — a quad's two triangles — and one instance per live particle) at byte
  /// drawArgsOffset. The buffer has VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT.
  VkBuffer counters = VK_NULL_HANDLE;
  VkDeviceSize aliveCountOffset = 0;
  VkDeviceSize drawArgsOffset = 0;
  /// Each emitter row's box as the last frame published it: 8 words (min x y z, max x y z as
  /// floats, known: 1 or 0, unused), row by row.
  VkBuffer bounds = VK_NULL_HANDLE;
};

}  // namespace mote::gpu
