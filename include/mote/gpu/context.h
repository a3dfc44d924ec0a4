// SPDX-License-Identifier: MIT
// The Vulkan device Mote's GPU backend runs on (docs/gpu.md). Vulkan is loaded at run time (volk),
// so a program linked with mote_gpu starts where no Vulkan loader exists: Context::create then
// fails with StatusCode::Unavailable and a sentence saying what is missing.
//
// Device choice: MOTE_GPU_DEVICE (a device index, or a substring of its name) or
// ContextDesc::device picks one; otherwise the first discrete GPU, then integrated, then virtual,
// then a CPU implementation (Mesa's lavapipe).
//
// Ownership: a Context made by create() owns its instance, device, queue and command pool; one made
// by wrap() owns only its command pool and what it creates on the host's device (the host's handles
// must outlive it). Everything created from a Context must be destroyed before it. Thread safety:
// one thread at a time (a Context is not internally synchronised); distinct Contexts are
// independent. Allocation: create() allocates; the queries below do not.
#pragma once

#include <mote/core/status.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mote::gpu {

enum class DeviceType : std::uint8_t { Discrete, Integrated, Virtual, Cpu, Other };

/// "discrete", "integrated", "virtual", "cpu" or "other". Never null.
const char* deviceTypeName(DeviceType type) noexcept;

/// What a device is and what it can do, as Vulkan reports it.
struct DeviceInfo {
  std::uint32_t index = 0;  ///< position in the instance's device list (MOTE_GPU_DEVICE's index)
  std::string name;
  DeviceType type = DeviceType::Other;
  std::uint32_t vendorId = 0;
  std::uint32_t deviceId = 0;
  std::uint32_t apiVersion = 0;  ///< VK_MAKE_API_VERSION packing
  std::string driverName;        ///< VkPhysicalDeviceDriverProperties
  std::string driverInfo;
  std::uint32_t subgroupSize = 0;
  /// Subgroup ballot operations in compute shaders (the GPU world's simulate pass broadcasts its
  /// wave's program with them).
  bool subgroupBallot = false;
  bool float64 = false;  ///< shaderFloat64
  bool int64 = false;    ///< shaderInt64
  /// independentBlend: enabled on Mote's own device where the device has it (the GPU renderer's
  /// OIT planes blend differently from its frame); a host's device where HostVulkan says so.
  bool independentBlend = false;
  /// VkPhysicalDeviceFloatControlsProperties for 32-bit floats.
  bool denormPreserveFloat32 = false;
  bool denormFlushToZeroFloat32 = false;
  bool signedZeroInfNanPreserveFloat32 = false;
  bool roundingModeRteFloat32 = false;
  std::uint64_t maxStorageBufferRange = 0;  ///< bytes one storage buffer binding may span
  std::uint32_t maxComputeWorkGroupInvocations = 0;
  std::array<std::uint32_t, 3> maxComputeWorkGroupCount{};
  std::uint32_t maxComputeSharedMemorySize = 0;
  std::uint64_t deviceLocalBytes = 0;  ///< the largest device-local heap
  /// Nanoseconds per timestamp tick on the compute queue (VkPhysicalDeviceLimits::
  /// timestampPeriod); 0 where that queue writes no timestamps.
  float timestampPeriod = 0.0f;
  bool usable = false;  ///< has a compute queue and Vulkan 1.2
  /// The queue Mote uses draws too (graphics and compute in one family: the GPU renderer's need).
  /// Mote's own context picks such a family where the device has one; a wrapped context has the
  /// host's.
  bool graphics = false;
};

/// The numbers and sentences `mote info --gpu` prints for `info`, one "key: value" line each.
std::string describe(const DeviceInfo& info);

struct ContextDesc {
  /// A device index or a case-insensitive substring of its name; empty: MOTE_GPU_DEVICE, else the
  /// automatic order (discrete, integrated, virtual, CPU).
  std::string device;
  /// Load the Khronos validation layer and count what it reports (also on when the environment
  /// sets MOTE_GPU_VALIDATION=1). Fails with Unavailable when the layer is not installed.
  bool validation = false;
  /// How long one submission may run before it is declared hung and the device treated as lost.
  std::uint32_t submitTimeoutMs = 20000;
  /// Fast mode even where the device could be exact: no fp64 is enabled or used, as on a device
  /// without it (`mote bench --gpu` measures one mode beside the other).
  bool fastMode = false;
};

/// How a device computes Mote's floats (docs/gpu.md, "Exact mode").
enum class Mode : std::uint8_t {
  Exact,  ///< every operation bit for bit the CPU's: the GPU's state hash equals the CPU's
  Fast,   ///< the device's own arithmetic (no fp64 to correct it with): no hash is promised
};

/// "exact" or "fast". Never null.
const char* modeName(Mode mode) noexcept;

/// One operation the device self-test checks.
struct SelfTestOp {
  std::string_view name;          ///< "fma", "div", ...
  std::uint32_t nativeWrong = 0;  ///< cases the device's own instruction got wrong
  std::uint32_t wrong = 0;        ///< cases still wrong in the mode chosen
  bool emulated = false;          ///< computed in fp64 in exact mode (exact.glsl)
  std::string firstWrong;         ///< the first wrong case in the mode chosen, as bits
};

/// What the self-test at Context::create found: every operation on known answers (edge values —
/// ±0, subnormals, ±inf, NaN, the largest floats — and random operands), first with the device's
/// own instructions, then with the emulation of those it got wrong.
struct SelfTest {
  Mode mode = Mode::Fast;
  std::string reason;       ///< why this mode: what is emulated, or what could not be made exact
  std::uint32_t flags = 0;  ///< exact.glsl's specialisation flags for this device
  std::uint32_t cases = 0;  ///< operand triples each operation ran on
  std::vector<SelfTestOp> ops;
};

/// Every Vulkan device the loader offers, or Unavailable (no loader, or no device).
Result<std::vector<DeviceInfo>> listDevices();

struct HostVulkan;  // <mote/gpu/vulkan.h>

/// Vulkan: one instance, one device with one compute queue — Mote's own, or the host's.
class Context {
 public:
  static Result<std::unique_ptr<Context>> create(const ContextDesc& desc = {});
  /// A context on the host's device and queue (<mote/gpu/vulkan.h>): nothing of the host's is
  /// created or destroyed; desc.device is ignored, desc.validation (or MOTE_GPU_VALIDATION)
  /// counts the layer's messages through a messenger on the host's instance, which must have
  /// VK_EXT_debug_utils enabled. Unavailable for a device older than Vulkan 1.2, a queue family
  /// without compute, or null handles; the device self-test runs as in create().
  static Result<std::unique_ptr<Context>> wrap(const HostVulkan& host,
                                               const ContextDesc& desc = {});
  /// True for a context made by wrap().
  bool wrapsHost() const noexcept;
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const DeviceInfo& device() const noexcept;
  /// The device self-test create() ran, and the mode it chose.
  const SelfTest& selfTest() const noexcept;

  bool validationEnabled() const noexcept;
  /// Messages of severity warning or error the validation layer has reported since create().
  std::uint64_t validationMessageCount() const noexcept;
  /// The first few of them (at most 16), in order.
  std::vector<std::string> validationMessages() const;

  /// Ok, or the DeviceLost error every call has returned since the device was lost.
  const Status& health() const noexcept;
  /// For tests: behave from now on as if the device had returned VK_ERROR_DEVICE_LOST.
  void simulateDeviceLoss();

  struct Impl;
  Impl& impl() noexcept { return *impl_; }
  const Impl& impl() const noexcept { return *impl_; }

 private:
  explicit Context(std::unique_ptr<Impl> impl);
  // The context on impl's device, with its self-test run.
  static Result<std::unique_ptr<Context>> finish(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mote::gpu
