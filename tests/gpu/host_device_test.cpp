// SPDX-License-Identifier: MIT
// The GPU world inside a host's own Vulkan device: the test plays the game — it creates the
// instance (with the validation layer), the device and the queue, wraps them in a Context, records
// every tick into its own command buffer with recordTick, submits on its own queue, and reads the
// draw arguments out of the world's buffers in its own commands. The state must be the CPU's and
// the layer must report nothing.
#include "device_memory.h"
#include "kernel.h"
#include "support/compile_effect.h"
#include "support/source_dir.h"

#include <mote/authoring/effect_json.h>
#include <mote/compiler/compiler.h>
#include <mote/gpu/vulkan.h>
#include <mote/gpu/world.h>
#include <mote/runtime/world.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>
#include <volk.h>

namespace mote {
namespace {

// The host's Vulkan objects. Never destroyed (host() below): the driver stays loaded until the
// process ends, so a leak checker can name what the driver itself leaves behind (tests/gpu/
// lsan.supp) instead of an unloaded module — as the shared context of gpu_test.h does.
struct Host {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  std::uint32_t family = 0;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer commands = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  bool float64 = false;
  bool int64 = false;
  std::string skip;  // why there is no host device here

  Host() {
    if (volkInitialize() != VK_SUCCESS) {
      skip = "no Vulkan loader";
      return;
    }
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "a game";
    app.apiVersion = VK_API_VERSION_1_2;
    const char* layer = "VK_LAYER_KHRONOS_validation";
    const char* extension = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    VkInstanceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    info.pApplicationInfo = &app;
    info.enabledLayerCount = 1;
    info.ppEnabledLayerNames = &layer;
    info.enabledExtensionCount = 1;
    info.ppEnabledExtensionNames = &extension;
    if (vkCreateInstance(&info, nullptr, &instance) != VK_SUCCESS) {
      skip = "no instance with the validation layer";
      return;
    }
    volkLoadInstance(instance);
    std::uint32_t count = 0;
    vkEnumeratePhysicalDevices(instance, &count, nullptr);
    std::vector<VkPhysicalDevice> devices(count);
    vkEnumeratePhysicalDevices(instance, &count, devices.data());
    for (const VkPhysicalDevice d : devices) {  // the first with Vulkan 1.2 and a compute queue
      VkPhysicalDeviceProperties p{};
      vkGetPhysicalDeviceProperties(d, &p);
      std::uint32_t n = 0;
      vkGetPhysicalDeviceQueueFamilyProperties(d, &n, nullptr);
      std::vector<VkQueueFamilyProperties> families(n);
      vkGetPhysicalDeviceQueueFamilyProperties(d, &n, families.data());
      for (std::uint32_t f = 0; f < n && physical == VK_NULL_HANDLE; ++f) {
        if (p.apiVersion >= VK_API_VERSION_1_2 &&
            (families[f].queueFlags & VK_QUEUE_COMPUTE_BIT) != 0) {
          physical = d;
          family = f;
        }
      }
    }
    if (physical == VK_NULL_HANDLE) {
      skip = "no Vulkan 1.2 device with a compute queue";
      return;
    }
    VkPhysicalDeviceFeatures offered{};
    vkGetPhysicalDeviceFeatures(physical, &offered);
    float64 = offered.shaderFloat64 == VK_TRUE;
    int64 = offered.shaderInt64 == VK_TRUE;
    VkPhysicalDeviceFeatures enabled{};
    enabled.shaderFloat64 = offered.shaderFloat64;
    enabled.shaderInt64 = offered.shaderInt64;
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queueInfo{};
    queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queueInfo.queueFamilyIndex = family;
    queueInfo.queueCount = 1;
    queueInfo.pQueuePriorities = &priority;
    VkDeviceCreateInfo deviceInfo{};
    deviceInfo.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    deviceInfo.queueCreateInfoCount = 1;
    deviceInfo.pQueueCreateInfos = &queueInfo;
    deviceInfo.pEnabledFeatures = &enabled;
    if (vkCreateDevice(physical, &deviceInfo, nullptr, &device) != VK_SUCCESS) {
      skip = "vkCreateDevice failed";
      return;
    }
    vkGetDeviceQueue(device, family, 0, &queue);
    VkCommandPoolCreateInfo poolInfo{};
    poolInfo.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    poolInfo.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    poolInfo.queueFamilyIndex = family;
    vkCreateCommandPool(device, &poolInfo, nullptr, &pool);
    VkCommandBufferAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    alloc.commandPool = pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    vkAllocateCommandBuffers(device, &alloc, &commands);
    VkFenceCreateInfo fenceInfo{};
    fenceInfo.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    vkCreateFence(device, &fenceInfo, nullptr, &fence);
  }
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  gpu::HostVulkan handles() const {
    gpu::HostVulkan h;
    h.instance = instance;
    h.physicalDevice = physical;
    h.device = device;
    h.queue = queue;
    h.queueFamily = family;
    h.shaderFloat64 = float64;
    h.shaderInt64 = int64;
    return h;
  }
};

bytecode::CompiledEffect compileExample(const std::string& name) {
  const authoring::EffectLoadResult loaded =
      authoring::loadEffectFile(test::sourcePath("examples/" + name + ".json"));
  EXPECT_TRUE(loaded.ok()) << name;
  compiler::CompileResult compiled = compiler::compileEffect(loaded.effect);
  EXPECT_TRUE(compiled.ok()) << name;
  return std::move(compiled.effect);
}

Host& sharedHost() {
  static Host& h = *new Host();
  return h;
}

TEST(GpuHostDevice, AWorldRecordedIntoTheHostsCommandsKeepsTheCpusState) {
  Host& host = sharedHost();
  if (!host.skip.empty()) GTEST_SKIP() << host.skip;
  gpu::ContextDesc desc;
  desc.validation = true;  // through a messenger on the host's instance
  Result<std::unique_ptr<gpu::Context>> wrapped = gpu::Context::wrap(host.handles(), desc);
  ASSERT_TRUE(wrapped.ok()) << wrapped.status().toString();
  gpu::Context& context = **wrapped;
  EXPECT_TRUE(context.wrapsHost());
  if (context.selfTest().mode != gpu::Mode::Exact) GTEST_SKIP() << "fast mode";
  {
    const bytecode::CompiledEffect effect = compileExample("custom_graph");
    Result<std::unique_ptr<ParticleWorld>> cpu = ParticleWorld::create(worldDescFor(effect));
    Result<std::unique_ptr<gpu::ParticleWorld>> world =
        gpu::ParticleWorld::create(context, gpu::worldDescFor(effect));
    ASSERT_TRUE(cpu.ok() && world.ok()) << world.status().toString();
    ASSERT_TRUE((*cpu)->addEffect(effect).ok());
    ASSERT_TRUE((*world)->addEffect(effect).ok());
    // The host's own buffer for the draw arguments it reads back.
    Result<gpu::Buffer> drawn = gpu::Buffer::createMapped(context, 16, "the host's copy");
    ASSERT_TRUE(drawn.ok());
    for (int t = 0; t < 120; ++t) {
      (*cpu)->tick(1.0f / 60.0f);
      VkCommandBufferBeginInfo begin{};
      begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
      begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
      ASSERT_EQ(vkBeginCommandBuffer(host.commands, &begin), VK_SUCCESS);
      ASSERT_TRUE((*world)->recordTick(1.0f / 60.0f, host.commands).ok());
      // The barrier the contract names, then the host's own read of the draw arguments.
      const gpu::WorldBuffers b = (*world)->buffers();
      gpu::memoryBarrier(host.commands, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_ACCESS_TRANSFER_READ_BIT);
      const VkBufferCopy region{b.drawArgsOffset, 0, 16};
      vkCmdCopyBuffer(host.commands, b.counters, drawn->handle(), 1, &region);
      gpu::memoryBarrier(host.commands, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                         VK_ACCESS_HOST_READ_BIT);
      ASSERT_EQ(vkEndCommandBuffer(host.commands), VK_SUCCESS);
      VkSubmitInfo submit{};
      submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
      submit.commandBufferCount = 1;
      submit.pCommandBuffers = &host.commands;
      ASSERT_EQ(vkQueueSubmit(host.queue, 1, &submit, host.fence), VK_SUCCESS);
      ASSERT_EQ(vkWaitForFences(host.device, 1, &host.fence, VK_TRUE, 60'000'000'000ull),
                VK_SUCCESS);
      vkResetFences(host.device, 1, &host.fence);
      const std::uint32_t* args = drawn->mapped();
      const std::uint64_t live = (*cpu)->stats().live;
      ASSERT_EQ(args[0], 6u) << "tick " << t;
      ASSERT_EQ(args[1], live) << "tick " << t << ": one instance per live particle";
      ASSERT_EQ(args[2], 0u);
      ASSERT_EQ(args[3], 0u);
    }
    EXPECT_GT((*cpu)->stats().live, 0u);
    const Result<WorldStats> stats = (*world)->readStats();
    ASSERT_TRUE(stats.ok());
    EXPECT_EQ(stats->live, (*cpu)->stats().live);
    ASSERT_TRUE((*world)->readParticles().ok());
    EXPECT_EQ((*world)->host().stateHash(HashOrder::Id), (*cpu)->stateHash(HashOrder::Id));
  }
  EXPECT_EQ(context.validationMessageCount(), 0u)
      << (context.validationMessages().empty() ? std::string()
                                               : context.validationMessages().front());
}

TEST(GpuHostDevice, WrappingNullHandlesIsAnError) {
  const Result<std::unique_ptr<gpu::Context>> wrapped = gpu::Context::wrap(gpu::HostVulkan{});
  EXPECT_EQ(wrapped.status().code(), StatusCode::InvalidArgument);
}

}  // namespace
}  // namespace mote
