// SPDX-License-Identifier: MIT
// Context's state, shared by the files of mote_gpu that record and submit work.
#pragma once

#include "kernel.h"
#include "vk.h"

#include <mote/gpu/context.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mote::gpu {

struct Context::Impl {
  ContextDesc desc;
  DeviceInfo info;
  VkInstance instance = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  PFN_vkDestroyDebugUtilsMessengerEXT destroyMessenger = nullptr;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  std::uint32_t queueFamily = 0;
  VkQueue queue = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer commands = VK_NULL_HANDLE;  // the one-shot buffer submit() records into
  VkFence fence = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory{};
  bool validation = false;
  bool trace = false;    // MOTE_GPU_TRACE: each pipeline's build time to stderr
  bool wrapped = false;  // the instance and device are the host's (Context::wrap)
  SelfTest selfTest;

  // Written by the messenger callback (any thread the driver calls it on).
  std::atomic<std::uint64_t> messageCount{0};
  mutable std::mutex messageLock;
  std::vector<std::string> messages;

  Status lost;  // Ok until the device is lost

  // Pipelines built once per (shader, specialisation) and kept: building one costs far more than
  // a dispatch (lavapipe compiles the interpreter in about a second).
  struct CachedKernel {
    const std::uint32_t* spirv = nullptr;
    std::uint32_t flags = 0;
    std::uint32_t variant = 0;
    std::unique_ptr<Kernel> kernel;
  };
  std::vector<CachedKernel> kernels;
  // The GPU renderer's layout and pipelines, built by the first Renderer of each (transparency
  // planes, frame format) and shared by every later one (viewport and scissor are dynamic state):
  // the sprite pipeline's exact vertex stage takes lavapipe seconds to build, a cost per context
  // instead of per Renderer. Owned here; renderer.cpp builds them.
  struct RendererPipelines {
    std::uint32_t planes = 0;
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline sprites = VK_NULL_HANDLE;
    VkPipeline ground = VK_NULL_HANDLE;
    VkPipeline triangles = VK_NULL_HANDLE;         // mesh triangles that write depth
    VkPipeline blendedTriangles = VK_NULL_HANDLE;  // and those that do not
    void destroy(VkDevice vk) noexcept;
  };
  std::vector<RendererPipelines> rendererPipelines;
  Buffer primer;             // bound to every binding of a kernel's priming dispatch
  Context* owner = nullptr;  // the Context this is the state of
  /// How long a pipeline's first (compiling) dispatch may take.
  static constexpr std::uint32_t kCompileTimeoutMs = 600000;
  Status prime(Kernel& kernel, std::uint32_t bindings, std::uint32_t pushBytes);
  /// With `trace` on, says on stderr how long `what` took to build since `since`: drivers compile
  /// at creation (NVIDIA) or at the first dispatch (lavapipe), and a slow one is found so.
  void tracePipeline(std::string_view what, std::chrono::steady_clock::time_point since) const;

  ~Impl();

  /// Records with `record` into a fresh one-shot command buffer, submits it and waits for it,
  /// within `timeoutMs` (0: desc.submitTimeoutMs; past it the device is treated as lost). A lost
  /// device, earlier or now, is the DeviceLost status.
  Status submit(const std::function<void(VkCommandBuffer)>& record, std::uint32_t timeoutMs = 0);

  /// Marks the device lost (from a VkResult or a test) and returns the status every later call
  /// gets.
  const Status& markLost(const std::string& what);

  /// The kernel of `spirv` specialised with `flags` (constant_id 0: exact.glsl's) and `variant`
  /// (constant_id 1: the shader's own, such as frame.glsl's pass), built on first use.
  Result<Kernel*> kernel(Context& context, const char* name, std::span<const std::uint32_t> spirv,
                         std::uint32_t bindings, std::uint32_t pushBytes, std::uint32_t flags,
                         std::uint32_t variant = 0);

  /// The index of a memory type with all of `required` among `typeBits`, preferring one that also
  /// has `preferred`; -1 when none.
  int memoryType(std::uint32_t typeBits, VkMemoryPropertyFlags required,
                 VkMemoryPropertyFlags preferred) const;
};

}  // namespace mote::gpu
