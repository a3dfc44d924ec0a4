// SPDX-License-Identifier: MIT
// Context: the Vulkan loader through volk, the instance (with the validation layer when asked), the
// device choice, one compute queue, and the one-shot submission every transfer and dispatch uses.
#include "context_impl.h"
#include "self_test.h"

#include <mote/gpu/vulkan.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace mote::gpu {

const char* deviceTypeName(DeviceType type) noexcept {
  switch (type) {
    case DeviceType::Discrete:
      return "discrete";
    case DeviceType::Integrated:
      return "integrated";
    case DeviceType::Virtual:
      return "virtual";
    case DeviceType::Cpu:
      return "cpu";
    case DeviceType::Other:
      return "other";
  }
  return "other";
}

const char* vkResultName(VkResult result) noexcept {
  switch (result) {
#define MOTE_VK_RESULT(name) \
  case name:                 \
    return #name;
    MOTE_VK_RESULT(VK_SUCCESS)
    MOTE_VK_RESULT(VK_NOT_READY)
    MOTE_VK_RESULT(VK_TIMEOUT)
    MOTE_VK_RESULT(VK_INCOMPLETE)
    MOTE_VK_RESULT(VK_ERROR_OUT_OF_HOST_MEMORY)
    MOTE_VK_RESULT(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    MOTE_VK_RESULT(VK_ERROR_INITIALIZATION_FAILED)
    MOTE_VK_RESULT(VK_ERROR_DEVICE_LOST)
    MOTE_VK_RESULT(VK_ERROR_MEMORY_MAP_FAILED)
    MOTE_VK_RESULT(VK_ERROR_LAYER_NOT_PRESENT)
    MOTE_VK_RESULT(VK_ERROR_EXTENSION_NOT_PRESENT)
    MOTE_VK_RESULT(VK_ERROR_FEATURE_NOT_PRESENT)
    MOTE_VK_RESULT(VK_ERROR_INCOMPATIBLE_DRIVER)
    MOTE_VK_RESULT(VK_ERROR_TOO_MANY_OBJECTS)
    MOTE_VK_RESULT(VK_ERROR_FORMAT_NOT_SUPPORTED)
    MOTE_VK_RESULT(VK_ERROR_FRAGMENTED_POOL)
    MOTE_VK_RESULT(VK_ERROR_OUT_OF_POOL_MEMORY)
    MOTE_VK_RESULT(VK_ERROR_INVALID_SHADER_NV)
#undef MOTE_VK_RESULT
    default:
      return "VK_ERROR_UNKNOWN";
  }
}

Status vkStatus(VkResult result, const std::string& what) {
  if (result >= 0) return {};
  std::string message = fmt::format("{}: {}", what, vkResultName(result));
  switch (result) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      return {StatusCode::OutOfMemory, std::move(message)};
    case VK_ERROR_DEVICE_LOST:
      return {StatusCode::DeviceLost, std::move(message)};
    case VK_ERROR_INITIALIZATION_FAILED:
    case VK_ERROR_LAYER_NOT_PRESENT:
    case VK_ERROR_EXTENSION_NOT_PRESENT:
    case VK_ERROR_FEATURE_NOT_PRESENT:
    case VK_ERROR_INCOMPATIBLE_DRIVER:
      return {StatusCode::Unavailable, std::move(message)};
    default:
      return {StatusCode::Internal, std::move(message)};
  }
}

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";
constexpr std::size_t kKeptMessages = 16;

// volk's loader: found once per process. The error (no libvulkan.so.1) is kept for every caller.
const Status& loadVulkan() {
  static const Status loaded = [] {
    if (volkInitialize() != VK_SUCCESS)
      return Status(StatusCode::Unavailable,
                    "no Vulkan loader (libvulkan.so.1) on this machine: install libvulkan1 and a "
                    "driver (mesa-vulkan-drivers gives lavapipe, a CPU implementation)");
    if (volkGetInstanceVersion() < VK_API_VERSION_1_2)
      return Status(StatusCode::Unavailable, "the Vulkan loader is older than Vulkan 1.2");
    return Status();
  }();
  return loaded;
}

bool envFlag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
}

bool layerAvailable(const char* name) {
  std::uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  return std::any_of(layers.begin(), layers.end(), [&](const VkLayerProperties& l) {
    return std::strcmp(l.layerName, name) == 0;
  });
}

VKAPI_ATTR VkBool32 VKAPI_CALL onValidationMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT /*types*/,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                   void* user) {
  if ((severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) == 0)
    return VK_FALSE;
  auto& impl = *static_cast<Context::Impl*>(user);
  impl.messageCount.fetch_add(1, std::memory_order_relaxed);
  const std::lock_guard<std::mutex> hold(impl.messageLock);
  if (impl.messages.size() < kKeptMessages)
    impl.messages.emplace_back(data->pMessage != nullptr ? data->pMessage : "(no message)");
  return VK_FALSE;
}

DeviceType typeOf(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return DeviceType::Discrete;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return DeviceType::Integrated;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return DeviceType::Virtual;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return DeviceType::Cpu;
    default:
      return DeviceType::Other;
  }
}

// The queue family Mote's own device uses: the first with graphics and compute (the GPU renderer
// draws on the queue the world computes on), else the first with compute; UINT32_MAX for none.
std::uint32_t computeFamily(VkPhysicalDevice pd) {
  std::uint32_t count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, nullptr);
  std::vector<VkQueueFamilyProperties> families(count);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &count, families.data());
  constexpr VkQueueFlags kBoth = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
  for (std::uint32_t i = 0; i < count; ++i)
    if ((families[i].queueFlags & kBoth) == kBoth) return i;
  for (std::uint32_t i = 0; i < count; ++i)
    if ((families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) != 0) return i;
  return UINT32_MAX;
}

DeviceInfo infoOf(VkPhysicalDevice pd, std::uint32_t index) {
  DeviceInfo d;
  d.index = index;
  VkPhysicalDeviceProperties base{};
  vkGetPhysicalDeviceProperties(pd, &base);
  d.name = base.deviceName;
  d.type = typeOf(base.deviceType);
  d.vendorId = base.vendorID;
  d.deviceId = base.deviceID;
  d.apiVersion = base.apiVersion;
  d.maxStorageBufferRange = base.limits.maxStorageBufferRange;
  d.maxComputeWorkGroupInvocations = base.limits.maxComputeWorkGroupInvocations;
  for (std::size_t i = 0; i < 3; ++i)
    d.maxComputeWorkGroupCount[i] = base.limits.maxComputeWorkGroupCount[i];
  d.maxComputeSharedMemorySize = base.limits.maxComputeSharedMemorySize;
  d.usable = base.apiVersion >= VK_API_VERSION_1_2 && computeFamily(pd) != UINT32_MAX;
  if (d.usable) {
    std::uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
    const VkQueueFamilyProperties& family = families[computeFamily(pd)];
    if (family.timestampValidBits > 0) d.timestampPeriod = base.limits.timestampPeriod;
    d.graphics = (family.queueFlags & VK_QUEUE_GRAPHICS_BIT) != 0;
  }
  if (base.apiVersion >= VK_API_VERSION_1_2) {
    VkPhysicalDeviceFloatControlsProperties floats{};
    floats.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES;
    VkPhysicalDeviceDriverProperties driver{};
    driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    driver.pNext = &floats;
    VkPhysicalDeviceSubgroupProperties subgroup{};
    subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
    subgroup.pNext = &driver;
    VkPhysicalDeviceProperties2 props{};
    props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props.pNext = &subgroup;
    vkGetPhysicalDeviceProperties2(pd, &props);
    d.subgroupSize = subgroup.subgroupSize;
    d.subgroupBallot = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0 &&
                       (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT) != 0;
    d.driverName = driver.driverName;
    d.driverInfo = driver.driverInfo;
    d.denormPreserveFloat32 = floats.shaderDenormPreserveFloat32 == VK_TRUE;
    d.denormFlushToZeroFloat32 = floats.shaderDenormFlushToZeroFloat32 == VK_TRUE;
    d.signedZeroInfNanPreserveFloat32 = floats.shaderSignedZeroInfNanPreserveFloat32 == VK_TRUE;
    d.roundingModeRteFloat32 = floats.shaderRoundingModeRTEFloat32 == VK_TRUE;
  }
  VkPhysicalDeviceFeatures features{};
  vkGetPhysicalDeviceFeatures(pd, &features);
  d.float64 = features.shaderFloat64 == VK_TRUE;
  d.int64 = features.shaderInt64 == VK_TRUE;
  d.independentBlend = features.independentBlend == VK_TRUE;
  VkPhysicalDeviceMemoryProperties memory{};
  vkGetPhysicalDeviceMemoryProperties(pd, &memory);
  for (std::uint32_t h = 0; h < memory.memoryHeapCount; ++h)
    if ((memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0)
      d.deviceLocalBytes = std::max<std::uint64_t>(d.deviceLocalBytes, memory.memoryHeaps[h].size);
  return d;
}

// The messenger `info` describes on c.instance, counting the layer's messages.
Status createMessenger(Context::Impl& c, const VkDebugUtilsMessengerCreateInfoEXT& info) {
  // volk's pointers are process-wide and reloaded for every instance (one without the
  // debug-utils extension loads these as null), so each context keeps its own.
  const auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(c.instance, "vkCreateDebugUtilsMessengerEXT"));
  c.destroyMessenger = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
      vkGetInstanceProcAddr(c.instance, "vkDestroyDebugUtilsMessengerEXT"));
  if (create == nullptr || c.destroyMessenger == nullptr)
    return {StatusCode::Unavailable,
            "validation needs VK_EXT_debug_utils on the instance, and it offers none"};
  return vkStatus(create(c.instance, &info, nullptr, &c.messenger),
                  "vkCreateDebugUtilsMessengerEXT");
}

VkDebugUtilsMessengerCreateInfoEXT messengerInfo(Context::Impl& c) {
  VkDebugUtilsMessengerCreateInfoEXT messenger{};
  messenger.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  messenger.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                              VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger.pfnUserCallback = onValidationMessage;
  messenger.pUserData = &c;
  return messenger;
}

// An instance with no layers (for listing) or the validation layer and its messenger.
Status createInstance(Context::Impl& c) {
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "mote";
  app.pEngineName = "mote";
  app.apiVersion = VK_API_VERSION_1_2;
  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  const VkDebugUtilsMessengerCreateInfoEXT messenger = messengerInfo(c);
  VkInstanceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  info.pApplicationInfo = &app;
  if (c.validation) {
    if (!layerAvailable(kValidationLayer))
      return {StatusCode::Unavailable,
              "the Khronos validation layer is not installed (Debian: vulkan-validationlayers)"};
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    info.pNext = &messenger;  // also reports on vkCreateInstance / vkDestroyInstance themselves
  }
  info.enabledLayerCount = static_cast<std::uint32_t>(layers.size());
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  MOTE_RETURN_IF_ERROR(vkStatus(vkCreateInstance(&info, nullptr, &c.instance), "vkCreateInstance"));
  volkLoadInstance(c.instance);
  if (c.validation) MOTE_RETURN_IF_ERROR(createMessenger(c, messenger));
  return {};
}

Result<std::vector<VkPhysicalDevice>> physicalDevices(VkInstance instance) {
  std::uint32_t count = 0;
  MOTE_RETURN_IF_ERROR(vkStatus(vkEnumeratePhysicalDevices(instance, &count, nullptr),
                                "vkEnumeratePhysicalDevices"));
  std::vector<VkPhysicalDevice> devices(count);
  MOTE_RETURN_IF_ERROR(vkStatus(vkEnumeratePhysicalDevices(instance, &count, devices.data()),
                                "vkEnumeratePhysicalDevices"));
  devices.resize(count);
  if (devices.empty())
    return Status(StatusCode::Unavailable,
                  "the Vulkan loader found no device (install a driver: mesa-vulkan-drivers gives "
                  "lavapipe, a CPU implementation)");
  return devices;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out)
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

// The device `wanted` names (an index or a name substring), or the automatic order's first.
Result<std::size_t> chooseDevice(const std::vector<DeviceInfo>& devices,
                                 const std::string& wanted) {
  if (!wanted.empty()) {
    const bool numeric =
        std::all_of(wanted.begin(), wanted.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const bool match = numeric ? std::to_string(i) == wanted
                                 : lower(devices[i].name).find(lower(wanted)) != std::string::npos;
      if (!match) continue;
      if (!devices[i].usable)
        return Status(
            StatusCode::Unavailable,
            fmt::format("GPU device {} ('{}') has no compute queue or predates Vulkan 1.2", i,
                        devices[i].name));
      return i;
    }
    std::string names;
    for (std::size_t i = 0; i < devices.size(); ++i)
      names += fmt::format("{}{}: {}", i == 0 ? "" : ", ", i, devices[i].name);
    return Status(StatusCode::NotFound,
                  fmt::format("no GPU device '{}' (MOTE_GPU_DEVICE takes an index or part of a "
                              "name; this machine has {})",
                              wanted, names));
  }
  for (const DeviceType type : {DeviceType::Discrete, DeviceType::Integrated, DeviceType::Virtual,
                                DeviceType::Cpu, DeviceType::Other})
    for (std::size_t i = 0; i < devices.size(); ++i)
      if (devices[i].type == type && devices[i].usable) return i;
  return Status(StatusCode::Unavailable, "no Vulkan device with a compute queue and Vulkan 1.2");
}

Status createCommands(Context::Impl& c);

Status createDevice(Context::Impl& c) {
  c.queueFamily = computeFamily(c.physical);
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{};
  queue.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue.queueFamilyIndex = c.queueFamily;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkPhysicalDeviceFeatures features{};
  features.shaderFloat64 = c.info.float64 ? VK_TRUE : VK_FALSE;
  features.shaderInt64 = c.info.int64 ? VK_TRUE : VK_FALSE;
  features.independentBlend = c.info.independentBlend ? VK_TRUE : VK_FALSE;
  VkDeviceCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &queue;
  info.pEnabledFeatures = &features;
  MOTE_RETURN_IF_ERROR(
      vkStatus(vkCreateDevice(c.physical, &info, nullptr, &c.device), "vkCreateDevice"));
  vkGetDeviceQueue(c.device, c.queueFamily, 0, &c.queue);
  return createCommands(c);
}

// What a context creates on its device, its own or the host's: the command pool, the one-shot
// command buffer and the fence submit() uses.
Status createCommands(Context::Impl& c) {
  vkGetPhysicalDeviceMemoryProperties(c.physical, &c.memory);
  VkCommandPoolCreateInfo pool{};
  pool.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = c.queueFamily;
  MOTE_RETURN_IF_ERROR(
      vkStatus(vkCreateCommandPool(c.device, &pool, nullptr, &c.pool), "vkCreateCommandPool"));
  VkCommandBufferAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  alloc.commandPool = c.pool;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  MOTE_RETURN_IF_ERROR(vkStatus(vkAllocateCommandBuffers(c.device, &alloc, &c.commands),
                                "vkAllocateCommandBuffers"));
  VkFenceCreateInfo fence{};
  fence.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  return vkStatus(vkCreateFence(c.device, &fence, nullptr, &c.fence), "vkCreateFence");
}

}  // namespace

std::string describe(const DeviceInfo& d) {
  return fmt::format(
      "device: {} ({}, index {}, vendor 0x{:04x}, device 0x{:04x})\n"
      "api: Vulkan {}.{}.{}\n"
      "driver: {} {}\n"
      "subgroup size: {}\n"
      "subgroup ballot in compute: {}\n"
      "graphics on the compute queue: {}\n"
      "fp64: {}\n"
      "int64: {}\n"
      "fp32 denormals: {}\n"
      "fp32 signed zero, inf and nan preserved: {}\n"
      "max storage buffer: {} MiB\n"
      "max workgroup: {} invocations, {} x {} x {} groups, {} KiB shared\n"
      "device-local memory: {} MiB\n",
      d.name, deviceTypeName(d.type), d.index, d.vendorId, d.deviceId,
      VK_API_VERSION_MAJOR(d.apiVersion), VK_API_VERSION_MINOR(d.apiVersion),
      VK_API_VERSION_PATCH(d.apiVersion), d.driverName, d.driverInfo, d.subgroupSize,
      d.subgroupBallot ? "yes" : "no", d.graphics ? "yes" : "no", d.float64 ? "yes" : "no",
      d.int64 ? "yes" : "no",
      d.denormPreserveFloat32      ? "preserved on request"
      : d.denormFlushToZeroFloat32 ? "flushed on request (preservation not offered)"
                                   : "neither preservation nor flushing offered",
      d.signedZeroInfNanPreserveFloat32 ? "yes" : "not promised", d.maxStorageBufferRange >> 20,
      d.maxComputeWorkGroupInvocations, d.maxComputeWorkGroupCount[0],
      d.maxComputeWorkGroupCount[1], d.maxComputeWorkGroupCount[2],
      d.maxComputeSharedMemorySize >> 10, d.deviceLocalBytes >> 20);
}

Result<std::vector<DeviceInfo>> listDevices() {
  MOTE_RETURN_IF_ERROR(loadVulkan());
  Context::Impl c;
  MOTE_RETURN_IF_ERROR(createInstance(c));
  Result<std::vector<VkPhysicalDevice>> pds = physicalDevices(c.instance);
  if (!pds.ok()) return std::move(pds).status();
  std::vector<DeviceInfo> out;
  for (std::size_t i = 0; i < pds->size(); ++i)
    out.push_back(infoOf((*pds)[i], static_cast<std::uint32_t>(i)));
  return out;
}

Context::Impl::~Impl() {
  if (device != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device);
    kernels.clear();
    for (RendererPipelines& r : rendererPipelines)
      r.destroy(device);
    primer = Buffer();
    if (fence != VK_NULL_HANDLE) vkDestroyFence(device, fence, nullptr);
    if (pool != VK_NULL_HANDLE) vkDestroyCommandPool(device, pool, nullptr);
    if (!wrapped) vkDestroyDevice(device, nullptr);
  }
  if (messenger != VK_NULL_HANDLE) destroyMessenger(instance, messenger, nullptr);
  if (instance != VK_NULL_HANDLE && !wrapped) vkDestroyInstance(instance, nullptr);
}

void Context::Impl::RendererPipelines::destroy(VkDevice vk) noexcept {
  for (VkPipeline* p : {&sprites, &ground, &triangles, &blendedTriangles}) {
    if (*p != VK_NULL_HANDLE) vkDestroyPipeline(vk, *p, nullptr);
    *p = VK_NULL_HANDLE;
  }
  if (layout != VK_NULL_HANDLE) vkDestroyPipelineLayout(vk, layout, nullptr);
  if (setLayout != VK_NULL_HANDLE) vkDestroyDescriptorSetLayout(vk, setLayout, nullptr);
  layout = VK_NULL_HANDLE;
  setLayout = VK_NULL_HANDLE;
}

const Status& Context::Impl::markLost(const std::string& what) {
  if (lost.ok())
    lost = Status(StatusCode::DeviceLost,
                  fmt::format("the GPU device '{}' was lost ({}); every later GPU call fails: "
                              "create a new Context",
                              info.name, what));
  return lost;
}

Status Context::Impl::submit(const std::function<void(VkCommandBuffer)>& record,
                             std::uint32_t timeoutMs) {
  if (!lost.ok()) return lost;
  if (timeoutMs == 0) timeoutMs = desc.submitTimeoutMs;
  MOTE_RETURN_IF_ERROR(vkStatus(vkResetCommandBuffer(commands, 0), "vkResetCommandBuffer"));
  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  MOTE_RETURN_IF_ERROR(vkStatus(vkBeginCommandBuffer(commands, &begin), "vkBeginCommandBuffer"));
  // Whatever earlier submissions wrote is visible to this one, and what this one writes to the
  // host when the fence signals: submissions are few and large, so the blunt barriers cost nothing.
  const auto barrier = [&](VkPipelineStageFlags dstStage, VkAccessFlags dstAccess) {
    memoryBarrier(commands, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT,
                  dstStage, dstAccess);
  };
  barrier(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
          VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
  record(commands);
  barrier(VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  MOTE_RETURN_IF_ERROR(vkStatus(vkEndCommandBuffer(commands), "vkEndCommandBuffer"));
  VkSubmitInfo work{};
  work.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  work.commandBufferCount = 1;
  work.pCommandBuffers = &commands;
  VkResult r = vkQueueSubmit(queue, 1, &work, fence);
  if (r == VK_ERROR_DEVICE_LOST) return markLost("vkQueueSubmit");
  MOTE_RETURN_IF_ERROR(vkStatus(r, "vkQueueSubmit"));
  r = vkWaitForFences(device, 1, &fence, VK_TRUE, std::uint64_t{timeoutMs} * 1000000u);
  if (r == VK_TIMEOUT) {
    // Nothing may be destroyed under a running submission: wait for it to end (a hung device is
    // reset by its driver, which ends the wait with VK_ERROR_DEVICE_LOST).
    vkDeviceWaitIdle(device);
    return markLost(fmt::format("a submission ran past {} ms", timeoutMs));
  }
  if (r == VK_ERROR_DEVICE_LOST) return markLost("vkWaitForFences");
  MOTE_RETURN_IF_ERROR(vkStatus(r, "vkWaitForFences"));
  return vkStatus(vkResetFences(device, 1, &fence), "vkResetFences");
}

// Some drivers compile a pipeline at its first dispatch, not at creation (lavapipe takes tens of
// seconds over the interpreter): one dispatch of zero work, with a timeout of its own, so no later
// submission's timeout counts a compile. Every kernel returns at once for a count of zero, the
// first push constant.
Status Context::Impl::prime(Kernel& kernel, std::uint32_t bindings, std::uint32_t pushBytes) {
  if (primer.handle() == VK_NULL_HANDLE) {
    Result<Buffer> b = Buffer::create(*owner, 64, "the pipeline primer's buffer");
    if (!b.ok()) return std::move(b).status();
    primer = std::move(b).takeValue();
  }
  std::vector<const Buffer*> buffers(bindings, &primer);
  kernel.bind(buffers);
  const std::vector<std::uint32_t> push(pushBytes / 4, 0u);
  return submit([&](VkCommandBuffer cmd) { kernel.record(cmd, push, 1); },
                std::max<std::uint32_t>(desc.submitTimeoutMs, kCompileTimeoutMs));
}

void Context::Impl::tracePipeline(std::string_view what,
                                  std::chrono::steady_clock::time_point since) const {
  if (!trace) return;
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - since).count();
  fmt::print(stderr, "mote gpu: built {} in {:.1f} ms\n", what, ms);
}

Result<Kernel*> Context::Impl::kernel(Context& context, const char* name,
                                      std::span<const std::uint32_t> spirv, std::uint32_t bindings,
                                      std::uint32_t pushBytes, std::uint32_t flags,
                                      std::uint32_t variant) {
  for (const CachedKernel& k : kernels)
    if (k.spirv == spirv.data() && k.flags == flags && k.variant == variant) return k.kernel.get();
  const std::uint32_t spec[] = {flags, variant};
  const auto started = std::chrono::steady_clock::now();
  Result<Kernel> made = Kernel::create(context, name, spirv, bindings, pushBytes, spec);
  if (!made.ok()) return std::move(made).status();
  MOTE_RETURN_IF_ERROR(prime(*made, bindings, pushBytes));
  tracePipeline(fmt::format("the kernel '{}' (variant {})", name, variant), started);
  kernels.push_back(
      {spirv.data(), flags, variant, std::make_unique<Kernel>(std::move(made).takeValue())});
  return kernels.back().kernel.get();
}

int Context::Impl::memoryType(std::uint32_t typeBits, VkMemoryPropertyFlags required,
                              VkMemoryPropertyFlags preferred) const {
  int fallback = -1;
  for (std::uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    if ((typeBits & (1u << i)) == 0) continue;
    const VkMemoryPropertyFlags flags = memory.memoryTypes[i].propertyFlags;
    if ((flags & required) != required) continue;
    if ((flags & preferred) == preferred) return static_cast<int>(i);
    if (fallback < 0) fallback = static_cast<int>(i);
  }
  return fallback;
}

Result<std::unique_ptr<Context>> Context::create(const ContextDesc& desc) {
  MOTE_RETURN_IF_ERROR(loadVulkan());
  auto impl = std::make_unique<Impl>();
  impl->desc = desc;
  impl->validation = desc.validation || envFlag("MOTE_GPU_VALIDATION");
  impl->trace = envFlag("MOTE_GPU_TRACE");
  MOTE_RETURN_IF_ERROR(createInstance(*impl));
  Result<std::vector<VkPhysicalDevice>> pds = physicalDevices(impl->instance);
  if (!pds.ok()) return std::move(pds).status();
  std::vector<DeviceInfo> infos;
  for (std::size_t i = 0; i < pds->size(); ++i)
    infos.push_back(infoOf((*pds)[i], static_cast<std::uint32_t>(i)));
  std::string wanted = desc.device;
  if (wanted.empty()) {
    const char* env = std::getenv("MOTE_GPU_DEVICE");
    if (env != nullptr) wanted = env;
  }
  Result<std::size_t> chosen = chooseDevice(infos, wanted);
  if (!chosen.ok()) return std::move(chosen).status();
  impl->physical = (*pds)[*chosen];
  impl->info = infos[*chosen];
  if (desc.fastMode) impl->info.float64 = impl->info.int64 = false;  // as a device without them
  MOTE_RETURN_IF_ERROR(createDevice(*impl));
  return finish(std::move(impl));
}

Result<std::unique_ptr<Context>> Context::finish(std::unique_ptr<Impl> impl) {
  std::unique_ptr<Context> context(new Context(std::move(impl)));
  context->impl().owner = context.get();
  Result<SelfTest> test = runSelfTest(*context);
  if (!test.ok()) return std::move(test).status();
  context->impl().selfTest = std::move(test).takeValue();
  return context;
}

Result<std::unique_ptr<Context>> Context::wrap(const HostVulkan& host, const ContextDesc& desc) {
  if (host.instance == VK_NULL_HANDLE || host.physicalDevice == VK_NULL_HANDLE ||
      host.device == VK_NULL_HANDLE || host.queue == VK_NULL_HANDLE)
    return Status(StatusCode::InvalidArgument,
                  "Context::wrap: the host's instance, physical device, device and queue must all "
                  "be given");
  if (host.getInstanceProcAddr != nullptr) {
    volkInitializeCustom(host.getInstanceProcAddr);
  } else {
    MOTE_RETURN_IF_ERROR(loadVulkan());
  }
  auto impl = std::make_unique<Impl>();
  impl->desc = desc;
  impl->wrapped = true;
  impl->validation = desc.validation || envFlag("MOTE_GPU_VALIDATION");
  impl->trace = envFlag("MOTE_GPU_TRACE");
  impl->instance = host.instance;
  volkLoadInstance(host.instance);
  if (impl->validation) MOTE_RETURN_IF_ERROR(createMessenger(*impl, messengerInfo(*impl)));
  // The device's index among the instance's, for DeviceInfo (the host chose it).
  std::uint32_t index = 0;
  if (Result<std::vector<VkPhysicalDevice>> all = physicalDevices(host.instance); all.ok()) {
    const auto at = std::find(all->begin(), all->end(), host.physicalDevice);
    if (at != all->end()) index = static_cast<std::uint32_t>(at - all->begin());
  }
  impl->physical = host.physicalDevice;
  impl->info = infoOf(host.physicalDevice, index);
  if (impl->info.apiVersion < VK_API_VERSION_1_2)
    return Status(StatusCode::Unavailable,
                  fmt::format("Context::wrap: '{}' predates Vulkan 1.2", impl->info.name));
  std::uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(host.physicalDevice, &families, nullptr);
  std::vector<VkQueueFamilyProperties> family(families);
  vkGetPhysicalDeviceQueueFamilyProperties(host.physicalDevice, &families, family.data());
  if (host.queueFamily >= families ||
      (family[host.queueFamily].queueFlags & VK_QUEUE_COMPUTE_BIT) == 0)
    return Status(StatusCode::Unavailable,
                  fmt::format("Context::wrap: queue family {} of '{}' offers no compute",
                              host.queueFamily, impl->info.name));
  // What the device can do is what the host enabled.
  impl->info.float64 = impl->info.float64 && host.shaderFloat64 && !desc.fastMode;
  impl->info.int64 = impl->info.int64 && host.shaderInt64 && !desc.fastMode;
  impl->info.independentBlend = impl->info.independentBlend && host.independentBlend;
  impl->device = host.device;
  impl->queue = host.queue;
  impl->queueFamily = host.queueFamily;
  impl->info.graphics = (family[host.queueFamily].queueFlags & VK_QUEUE_GRAPHICS_BIT) != 0;
  MOTE_RETURN_IF_ERROR(createCommands(*impl));
  return finish(std::move(impl));
}

bool Context::wrapsHost() const noexcept {
  return impl_->wrapped;
}

Context::Context(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Context::~Context() = default;

const DeviceInfo& Context::device() const noexcept {
  return impl_->info;
}
const SelfTest& Context::selfTest() const noexcept {
  return impl_->selfTest;
}
bool Context::validationEnabled() const noexcept {
  return impl_->validation;
}
std::uint64_t Context::validationMessageCount() const noexcept {
  return impl_->messageCount.load(std::memory_order_relaxed);
}
std::vector<std::string> Context::validationMessages() const {
  const std::lock_guard<std::mutex> hold(impl_->messageLock);
  return impl_->messages;
}
const Status& Context::health() const noexcept {
  return impl_->lost;
}
void Context::simulateDeviceLoss() {
  impl_->markLost("simulated by the caller");
}

}  // namespace mote::gpu
