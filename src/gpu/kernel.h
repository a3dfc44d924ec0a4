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

class Kernel;

/// One global memory barrier: the `srcAccess` of `srcStage` made visible to the `dstAccess` of
/// `dstStage`.
void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
                   VkPipelineStageFlags dstStage, VkAccessFlags dstAccess);
/// A barrier after transfers (fills, copies) before the compute passes that read or write them.
void transferToCompute(VkCommandBuffer cmd);

/// A kernel's buffers bound once, in a descriptor set of their own: the users of one cached
/// kernel (worlds, scans, frames recorded ahead of their submission) each keep theirs, so recording
/// never rewrites a set a pending command buffer still reads. Move-only; made by Kernel::bindings;
/// must not outlive the kernel's Context.
class Bindings {
 public:
  Bindings() = default;
  Bindings(Bindings&& other) noexcept;
  Bindings& operator=(Bindings&& other) noexcept;
  Bindings(const Bindings&) = delete;
  Bindings& operator=(const Bindings&) = delete;
  ~Bindings();

  VkDescriptorSet set() const noexcept { return set_; }

 private:
  friend class Kernel;

  /// A barrier after transfers (fills, copies) before the compute passes that read or write them.
  void transferToCompute(VkCommandBuffer cmd);
  void release() noexcept;
  VkDevice device_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
};

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

  /// A set of its own pointing the bindings at `buffers` (as many as the kernel has).
  Result<Bindings> bindings(std::initializer_list<const Buffer*> buffers) const {
    return bindings(std::span<const Buffer* const>(buffers.begin(), buffers.size()));
  }
  Result<Bindings> bindings(std::span<const Buffer* const> buffers) const;

  /// Points the kernel's own set at `buffers`, for the one-shot record() below. Not while a
  /// recorded dispatch of it is pending (the one-shot users submit and wait).
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
  /// The same two over `set` instead of the kernel's own set.
  void record(VkCommandBuffer cmd, const Bindings& set, std::span<const std::uint32_t> push,
              std::uint32_t groups) const;
  void recordIndirect(VkCommandBuffer cmd, const Bindings& set, std::span<const std::uint32_t> push,
                      const Buffer& args, std::uint64_t offset) const;

 private:
  void release() noexcept;
  void begin(VkCommandBuffer cmd, VkDescriptorSet set, std::span<const std::uint32_t> push) const;
  static void barrierAfter(VkCommandBuffer cmd);
  Result<Bindings> emptySet(VkDevice device) const;
  void write(VkDescriptorSet set, std::span<const Buffer* const> buffers) const;
  Context* context_ = nullptr;
  VkDevice device_ = VK_NULL_HANDLE;
  std::string name_;
  std::uint32_t bindings_ = 0;
  std::uint32_t pushBytes_ = 0;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  Bindings own_;  // bind()'s
};

}  // namespace mote::gpu
