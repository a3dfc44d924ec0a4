// SPDX-License-Identifier: MIT
// A compute pipeline over storage buffers: one SPIR-V module, `bindings` storage buffers at set 0,
// bindings 0.., push constants and specialisation constants (all 32-bit, constant_id 0..).
#pragma once

#include "device_memory.h"

#include <mote/gpu/context.h>

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

namespace mote::gpu {

class Kernel {
 public:
  Kernel() = default;
  Kernel(Kernel&& other) noexcept;
  Kernel& operator=(Kernel&& other) noexcept;
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;
  ~Kernel();

  /// `name` is the shader's, for errors. `pushBytes` <= 128 (Vulkan's guaranteed minimum).
  static Result<Kernel> create(Context& context, std::string name,
                               std::span<const std::uint32_t> spirv, std::uint32_t bindings,
                               std::uint32_t pushBytes,
                               std::span<const std::uint32_t> specialization = {});

  /// Points the bindings at `buffers` (as many as the kernel has). Not while a recorded dispatch
  /// of this kernel is pending (submissions here are synchronous).
  void bind(std::initializer_list<const Buffer*> buffers) {
    bind(std::span<const Buffer* const>(buffers.begin(), buffers.size()));
  }
  void bind(std::span<const Buffer* const> buffers);

  /// Records the dispatch of `groups` workgroups with `push` as the push constants, then a barrier
  /// that makes its writes visible to the next compute or transfer command.
  void record(VkCommandBuffer cmd, std::span<const std::uint32_t> push, std::uint32_t groups) const;
  /// The same with the workgroup count read by the device from `args` at byte `offset` (a
  /// VkDispatchIndirectCommand the GPU wrote; the buffer made with INDIRECT_BUFFER usage).
  void recordIndirect(VkCommandBuffer cmd, std::span<const std::uint32_t> push, const Buffer& args,
                      std::uint64_t offset) const;

 private:
  void release() noexcept;
  void begin(VkCommandBuffer cmd, std::span<const std::uint32_t> push) const;
  static void barrierAfter(VkCommandBuffer cmd);
  Context* context_ = nullptr;
  VkDevice device_ = VK_NULL_HANDLE;
  std::string name_;
  std::uint32_t bindings_ = 0;
  std::uint32_t pushBytes_ = 0;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
};

}  // namespace mote::gpu
