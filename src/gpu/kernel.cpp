// SPDX-License-Identifier: MIT
#include "kernel.h"

#include "context_impl.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

namespace mote::gpu {

void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags srcStage, VkAccessFlags srcAccess,
                   VkPipelineStageFlags dstStage, VkAccessFlags dstAccess) {
  VkMemoryBarrier b{};
  b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  b.srcAccessMask = srcAccess;
  b.dstAccessMask = dstAccess;
  vkCmdPipelineBarrier(cmd, srcStage, dstStage, 0, 1, &b, 0, nullptr, 0, nullptr);
}

void transferToCompute(VkCommandBuffer cmd) {
  memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

Result<Kernel> Kernel::create(Context& context, std::string name,
                              std::span<const std::uint32_t> spirv, std::uint32_t bindings,
                              std::uint32_t pushBytes,
                              std::span<const std::uint32_t> specialization) {
  MOTE_ASSERT(pushBytes <= 128 && pushBytes % 4 == 0, "Kernel: push constants past 128 bytes");
  Context::Impl& c = context.impl();
  if (!c.lost.ok()) return c.lost;
  Kernel k;
  k.context_ = &context;
  k.device_ = c.device;
  k.name_ = std::move(name);
  k.bindings_ = bindings;
  k.pushBytes_ = pushBytes;
  const auto check = [&](VkResult r, const char* what) {
    return vkStatus(r, fmt::format("{} for the shader '{}'", what, k.name_));
  };

  VkShaderModuleCreateInfo module{};
  module.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module.codeSize = spirv.size_bytes();
  module.pCode = spirv.data();
  MOTE_RETURN_IF_ERROR(
      check(vkCreateShaderModule(c.device, &module, nullptr, &k.module_), "vkCreateShaderModule"));

  std::vector<VkDescriptorSetLayoutBinding> slots(bindings);
  for (std::uint32_t i = 0; i < bindings; ++i) {
    slots[i].binding = i;
    slots[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    slots[i].descriptorCount = 1;
    slots[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo setInfo{};
  setInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  setInfo.bindingCount = bindings;
  setInfo.pBindings = slots.data();
  MOTE_RETURN_IF_ERROR(
      check(vkCreateDescriptorSetLayout(c.device, &setInfo, nullptr, &k.setLayout_),
            "vkCreateDescriptorSetLayout"));

  const VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, pushBytes};
  VkPipelineLayoutCreateInfo layout{};
  layout.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout.setLayoutCount = 1;
  layout.pSetLayouts = &k.setLayout_;
  layout.pushConstantRangeCount = pushBytes > 0 ? 1u : 0u;
  layout.pPushConstantRanges = &range;
  MOTE_RETURN_IF_ERROR(check(vkCreatePipelineLayout(c.device, &layout, nullptr, &k.layout_),
                             "vkCreatePipelineLayout"));

  std::vector<VkSpecializationMapEntry> entries(specialization.size());
  for (std::uint32_t i = 0; i < entries.size(); ++i)
    entries[i] = {i, i * 4u, 4u};
  VkSpecializationInfo spec{};
  spec.mapEntryCount = static_cast<std::uint32_t>(entries.size());
  spec.pMapEntries = entries.data();
  spec.dataSize = specialization.size_bytes();
  spec.pData = specialization.data();
  VkComputePipelineCreateInfo pipeline{};
  pipeline.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  pipeline.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipeline.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipeline.stage.module = k.module_;
  pipeline.stage.pName = "main";
  pipeline.stage.pSpecializationInfo = specialization.empty() ? nullptr : &spec;
  pipeline.layout = k.layout_;
  MOTE_RETURN_IF_ERROR(
      check(vkCreateComputePipelines(c.device, VK_NULL_HANDLE, 1, &pipeline, nullptr, &k.pipeline_),
            "vkCreateComputePipelines"));

  Result<Bindings> own = k.emptySet(c.device);
  if (!own.ok()) return std::move(own).status();
  k.own_ = std::move(own).takeValue();
  return k;
}

Result<Bindings> Kernel::emptySet(VkDevice device) const {
  Bindings b;
  b.device_ = device;
  const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, bindings_};
  VkDescriptorPoolCreateInfo pool{};
  pool.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  pool.maxSets = 1;
  pool.poolSizeCount = 1;
  pool.pPoolSizes = &size;
  MOTE_RETURN_IF_ERROR(vkStatus(vkCreateDescriptorPool(device, &pool, nullptr, &b.pool_),
                                fmt::format("vkCreateDescriptorPool for the shader '{}'", name_)));
  VkDescriptorSetAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  alloc.descriptorPool = b.pool_;
  alloc.descriptorSetCount = 1;
  alloc.pSetLayouts = &setLayout_;
  MOTE_RETURN_IF_ERROR(
      vkStatus(vkAllocateDescriptorSets(device, &alloc, &b.set_),
               fmt::format("vkAllocateDescriptorSets for the shader '{}'", name_)));
  return b;
}

void Kernel::write(VkDescriptorSet set, std::span<const Buffer* const> buffers) const {
  MOTE_ASSERT(buffers.size() == bindings_, "Kernel: one buffer per binding");
  std::vector<VkDescriptorBufferInfo> infos;
  std::vector<VkWriteDescriptorSet> writes;
  infos.reserve(bindings_);
  for (const Buffer* b : buffers)
    infos.push_back({b->handle(), 0, VK_WHOLE_SIZE});
  for (std::uint32_t i = 0; i < bindings_; ++i) {
    VkWriteDescriptorSet w{};
    w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    w.dstSet = set;
    w.dstBinding = i;
    w.descriptorCount = 1;
    w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w.pBufferInfo = &infos[i];
    writes.push_back(w);
  }
  vkUpdateDescriptorSets(device_, bindings_, writes.data(), 0, nullptr);
}

Result<Bindings> Kernel::bindings(std::span<const Buffer* const> buffers) const {
  Result<Bindings> b = emptySet(device_);
  if (!b.ok()) return b;
  write(b->set(), buffers);
  return b;
}

void Kernel::bind(std::span<const Buffer* const> buffers) {
  write(own_.set(), buffers);
}

void Kernel::begin(VkCommandBuffer cmd, VkDescriptorSet set,
                   std::span<const std::uint32_t> push) const {
  MOTE_ASSERT(push.size_bytes() == pushBytes_, "Kernel::record: push constants of the wrong size");
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set, 0, nullptr);
  if (pushBytes_ > 0)
    vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, pushBytes_, push.data());
}

void Kernel::barrierAfter(VkCommandBuffer cmd) {
  memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                    VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
}

void Kernel::record(VkCommandBuffer cmd, std::span<const std::uint32_t> push,
                    std::uint32_t groups) const {
  record(cmd, own_, push, groups);
}

void Kernel::recordIndirect(VkCommandBuffer cmd, std::span<const std::uint32_t> push,
                            const Buffer& args, std::uint64_t offset) const {
  recordIndirect(cmd, own_, push, args, offset);
}

void Kernel::record(VkCommandBuffer cmd, const Bindings& set, std::span<const std::uint32_t> push,
                    std::uint32_t groups) const {
  begin(cmd, set.set(), push);
  if (groups > 0) vkCmdDispatch(cmd, groups, 1, 1);
  barrierAfter(cmd);
}

void Kernel::recordIndirect(VkCommandBuffer cmd, const Bindings& set,
                            std::span<const std::uint32_t> push, const Buffer& args,
                            std::uint64_t offset) const {
  begin(cmd, set.set(), push);
  vkCmdDispatchIndirect(cmd, args.handle(), offset);
  barrierAfter(cmd);
}

Bindings::Bindings(Bindings&& other) noexcept {
  *this = std::move(other);
}

Bindings& Bindings::operator=(Bindings&& other) noexcept {
  if (this != &other) {
    release();
    device_ = std::exchange(other.device_, VK_NULL_HANDLE);
    pool_ = std::exchange(other.pool_, VK_NULL_HANDLE);
    set_ = std::exchange(other.set_, VK_NULL_HANDLE);
  }
  return *this;
}

Bindings::~Bindings() {
  release();
}

void Bindings::release() noexcept {
  if (pool_ != VK_NULL_HANDLE) vkDestroyDescriptorPool(device_, pool_, nullptr);  // frees the set
  pool_ = VK_NULL_HANDLE;
  set_ = VK_NULL_HANDLE;
}

Kernel::Kernel(Kernel&& other) noexcept {
  *this = std::move(other);
}

Kernel& Kernel::operator=(Kernel&& other) noexcept {
  if (this != &other) {
    release();
    context_ = std::exchange(other.context_, nullptr);
    device_ = std::exchange(other.device_, VK_NULL_HANDLE);
    name_ = std::move(other.name_);
    bindings_ = other.bindings_;
    pushBytes_ = other.pushBytes_;
    module_ = std::exchange(other.module_, VK_NULL_HANDLE);
    setLayout_ = std::exchange(other.setLayout_, VK_NULL_HANDLE);
    layout_ = std::exchange(other.layout_, VK_NULL_HANDLE);
    pipeline_ = std::exchange(other.pipeline_, VK_NULL_HANDLE);
    own_ = std::move(other.own_);
  }
  return *this;
}

Kernel::~Kernel() {
  release();
}

void Kernel::release() noexcept {
  if (context_ == nullptr) return;
  const VkDevice d = device_;
  own_.release();
  if (pipeline_ != VK_NULL_HANDLE) vkDestroyPipeline(d, pipeline_, nullptr);
  if (layout_ != VK_NULL_HANDLE) vkDestroyPipelineLayout(d, layout_, nullptr);
  if (setLayout_ != VK_NULL_HANDLE) vkDestroyDescriptorSetLayout(d, setLayout_, nullptr);
  if (module_ != VK_NULL_HANDLE) vkDestroyShaderModule(d, module_, nullptr);
  context_ = nullptr;
}

}  // namespace mote::gpu
