// SPDX-License-Identifier: MIT
// gpu::Renderer: billboard quads drawn offscreen (sprite.vert, sprite.frag) into a float colour
// target that is copied back to the host after every frame.
#include "billboard_words.h"
#include "renderer_impl.h"
#include "self_test.h"
#include "shaders.h"

#include <mote/render/procedural_sprite.h>

#include <fmt/format.h>
#include <glm/gtc/packing.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

namespace mote::gpu {
Status Renderer::Impl::createTarget() {
  Context::Impl& c = context->impl();
  VkPhysicalDeviceProperties properties{};
  vkGetPhysicalDeviceProperties(c.physical, &properties);
  const std::uint32_t maxWidth =
      std::min(properties.limits.maxImageDimension2D, properties.limits.maxFramebufferWidth);
  const std::uint32_t maxHeight =
      std::min(properties.limits.maxImageDimension2D, properties.limits.maxFramebufferHeight);
  if (desc.viewport.width > maxWidth || desc.viewport.height > maxHeight)
    return Status(
        StatusCode::InvalidArgument,
        fmt::format("RendererDesc.viewport {} x {} is past what '{}' draws into ({} x {})",
                    desc.viewport.width, desc.viewport.height, c.info.name, maxWidth, maxHeight));
  VkFormatProperties props{};
  vkGetPhysicalDeviceFormatProperties(c.physical, VK_FORMAT_R32G32B32A32_SFLOAT, &props);
  constexpr VkFormatFeatureFlags kNeeded =
      VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BLEND_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT;
  format = (props.optimalTilingFeatures & kNeeded) == kNeeded ? VK_FORMAT_R32G32B32A32_SFLOAT
                                                              : VK_FORMAT_R16G16B16A16_SFLOAT;
  // The frame, and under OIT its two planes: one image each, of the frame's format.
  for (std::uint32_t k = 0; k < planes(); ++k) {
    VkImageCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = format;
    info.extent = {desc.viewport.width, desc.viewport.height, 1};
    info.mipLevels = 1;
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    MOTE_RETURN_IF_ERROR(
        vkStatus(vkCreateImage(device, &info, nullptr, &images[k]), "vkCreateImage (the frame)"));
    VkMemoryRequirements needs{};
    vkGetImageMemoryRequirements(device, images[k], &needs);
    const int type = c.memoryType(needs.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
    if (type < 0)
      return Status(StatusCode::Unavailable,
                    "the GPU renderer's frame: no device-local memory type");
    VkMemoryAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    alloc.allocationSize = needs.size;
    alloc.memoryTypeIndex = static_cast<std::uint32_t>(type);
    MOTE_RETURN_IF_ERROR(vkStatus(vkAllocateMemory(device, &alloc, nullptr, &imageMemory[k]),
                                  fmt::format("the GPU renderer's frame ({} bytes)", needs.size)));
    MOTE_RETURN_IF_ERROR(
        vkStatus(vkBindImageMemory(device, images[k], imageMemory[k], 0), "vkBindImageMemory"));
    VkImageViewCreateInfo view{};
    view.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
    view.image = images[k];
    view.viewType = VK_IMAGE_VIEW_TYPE_2D;
    view.format = format;
    view.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    MOTE_RETURN_IF_ERROR(
        vkStatus(vkCreateImageView(device, &view, nullptr, &imageViews[k]), "vkCreateImageView"));
  }

  std::array<VkAttachmentDescription, kMaxPlanes> colors{};
  std::array<VkAttachmentReference, kMaxPlanes> refs{};
  for (std::uint32_t k = 0; k < planes(); ++k) {
    VkAttachmentDescription& color = colors[k];
    color.format = format;
    color.samples = VK_SAMPLE_COUNT_1_BIT;
    color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    color.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    color.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    color.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    color.finalLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    refs[k] = {k, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  }
  VkSubpassDescription subpass{};
  subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpass.colorAttachmentCount = planes();
  subpass.pColorAttachments = refs.data();
  // The pass's writes before the copy that reads them back.
  VkSubpassDependency after{};
  after.srcSubpass = 0;
  after.dstSubpass = VK_SUBPASS_EXTERNAL;
  after.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  after.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  after.dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
  after.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  VkRenderPassCreateInfo passInfo{};
  passInfo.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO;
  passInfo.attachmentCount = planes();
  passInfo.pAttachments = colors.data();
  passInfo.subpassCount = 1;
  passInfo.pSubpasses = &subpass;
  passInfo.dependencyCount = 1;
  passInfo.pDependencies = &after;
  MOTE_RETURN_IF_ERROR(
      vkStatus(vkCreateRenderPass(device, &passInfo, nullptr, &pass), "vkCreateRenderPass"));
  VkFramebufferCreateInfo fb{};
  fb.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO;
  fb.renderPass = pass;
  fb.attachmentCount = planes();
  fb.pAttachments = imageViews.data();
  fb.width = desc.viewport.width;
  fb.height = desc.viewport.height;
  fb.layers = 1;
  MOTE_RETURN_IF_ERROR(
      vkStatus(vkCreateFramebuffer(device, &fb, nullptr, &framebuffer), "vkCreateFramebuffer"));
  return take(
      Buffer::createMapped(*context, planeBytes() * planes(), "the GPU renderer's readback"),
      readback);
}

void Renderer::Impl::readPlane(std::uint32_t k, std::vector<std::array<float, 4>>& out) const {
  const std::size_t pixels = std::size_t{desc.viewport.width} * desc.viewport.height;
  out.resize(pixels);
  const std::uint32_t* bytes = readback.mapped() + planeBytes() / 4 * k;  // words
  if (format == VK_FORMAT_R32G32B32A32_SFLOAT) {
    std::memcpy(out.data(), bytes, pixels * 16);
    return;
  }
  const auto* halves = reinterpret_cast<const std::uint16_t*>(bytes);
  for (std::size_t i = 0; i < pixels; ++i)
    for (std::size_t c = 0; c < 4; ++c)
      out[i][c] = glm::unpackHalf1x16(halves[4 * i + c]);
}

Status Renderer::Impl::createPipelines() {
  const bool fp64 = hasFp64Shaders(context->device());
  const auto module = [&](std::span<const std::uint32_t> spirv, VkShaderModule& out) {
    VkShaderModuleCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    info.codeSize = spirv.size_bytes();
    info.pCode = spirv.data();
    return vkStatus(vkCreateShaderModule(device, &info, nullptr, &out), "vkCreateShaderModule");
  };
  MOTE_RETURN_IF_ERROR(module(spriteVertexShader().pick(fp64), vertexModule));
  MOTE_RETURN_IF_ERROR(
      module(planes() > 1 ? spriteOitFragmentShader() : spriteFragmentShader(), fragmentModule));
  MOTE_RETURN_IF_ERROR(module(groundVertexShader(), groundVertexModule));
  MOTE_RETURN_IF_ERROR(module(groundFragmentShader(), groundFragmentModule));

  std::array<VkDescriptorSetLayoutBinding, kBindings> slots{};
  for (std::uint32_t i = 0; i < slots.size(); ++i) {
    slots[i].binding = i;
    slots[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    slots[i].descriptorCount = 1;
    // The frame: both stages (the fragment stage's ground); the instances: the vertex stage.
    slots[i].stageFlags = i == 0   ? VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT
                          : i == 1 ? VK_SHADER_STAGE_VERTEX_BIT
                                   : VK_SHADER_STAGE_FRAGMENT_BIT;
  }
  VkDescriptorSetLayoutCreateInfo setInfo{};
  setInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  setInfo.bindingCount = static_cast<std::uint32_t>(slots.size());
  setInfo.pBindings = slots.data();
  MOTE_RETURN_IF_ERROR(vkStatus(vkCreateDescriptorSetLayout(device, &setInfo, nullptr, &setLayout),
                                "vkCreateDescriptorSetLayout"));
  VkPipelineLayoutCreateInfo layoutInfo{};
  layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &setLayout;
  MOTE_RETURN_IF_ERROR(vkStatus(vkCreatePipelineLayout(device, &layoutInfo, nullptr, &layout),
                                "vkCreatePipelineLayout"));
  const VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kBindings};
  VkDescriptorPoolCreateInfo poolInfo{};
  poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  poolInfo.maxSets = 1;
  poolInfo.poolSizeCount = 1;
  poolInfo.pPoolSizes = &size;
  MOTE_RETURN_IF_ERROR(vkStatus(vkCreateDescriptorPool(device, &poolInfo, nullptr, &pool),
                                "vkCreateDescriptorPool"));
  VkDescriptorSetAllocateInfo setAlloc{};
  setAlloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  setAlloc.descriptorPool = pool;
  setAlloc.descriptorSetCount = 1;
  setAlloc.pSetLayouts = &setLayout;
  MOTE_RETURN_IF_ERROR(
      vkStatus(vkAllocateDescriptorSets(device, &setAlloc, &set), "vkAllocateDescriptorSets"));

  MOTE_RETURN_IF_ERROR(createPipeline(vertexModule, fragmentModule, pipeline));
  return createPipeline(groundVertexModule, groundFragmentModule, groundPipeline);
}

Status Renderer::Impl::createPipeline(VkShaderModule vertex, VkShaderModule fragment,
                                      VkPipeline& out) const {
  // exact.glsl's flags (constant_id 0), as the compute kernels get them.
  const std::uint32_t flags = context->selfTest().flags;
  const VkSpecializationMapEntry entry{0, 0, sizeof flags};
  VkSpecializationInfo special{};
  special.mapEntryCount = 1;
  special.pMapEntries = &entry;
  special.dataSize = sizeof flags;
  special.pData = &flags;
  std::array<VkPipelineShaderStageCreateInfo, 2> stages{};
  stages[0].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
  stages[0].module = vertex;
  stages[0].pName = "main";
  stages[0].pSpecializationInfo = &special;
  stages[1].sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
  stages[1].module = fragment;
  stages[1].pName = "main";
  VkPipelineVertexInputStateCreateInfo vertexInput{};
  vertexInput.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO;
  VkPipelineInputAssemblyStateCreateInfo assembly{};
  assembly.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO;
  assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
  const VkViewport viewport{
      0.0f, 0.0f, static_cast<float>(desc.viewport.width), static_cast<float>(desc.viewport.height),
      0.0f, 1.0f};
  const VkRect2D scissor{{0, 0}, {desc.viewport.width, desc.viewport.height}};
  VkPipelineViewportStateCreateInfo viewportState{};
  viewportState.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO;
  viewportState.viewportCount = 1;
  viewportState.pViewports = &viewport;
  viewportState.scissorCount = 1;
  viewportState.pScissors = &scissor;
  VkPipelineRasterizationStateCreateInfo raster{};
  raster.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO;
  raster.polygonMode = VK_POLYGON_MODE_FILL;
  raster.cullMode = VK_CULL_MODE_NONE;
  raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
  raster.lineWidth = 1.0f;
  VkPipelineMultisampleStateCreateInfo multisample{};
  multisample.sType = VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO;
  multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
  // One premultiplied equation for every particle: rgb = src + dst · (1 − src.a); alpha stays 1.
  // Under OIT, the sums plane adds (rgb·w, a·w); the side plane adds rgb and multiplies its
  // alpha, the revealage, by 1 − src.a (McGuire and Bavoil). The ground writes the frame alone.
  constexpr VkColorComponentFlags kAll = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                                         VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
  std::array<VkPipelineColorBlendAttachmentState, kMaxPlanes> blends{};
  for (std::uint32_t k = 0; k < planes(); ++k) {
    VkPipelineColorBlendAttachmentState& blend = blends[k];
    blend.blendEnable = VK_TRUE;
    blend.srcColorBlendFactor = VK_BLEND_FACTOR_ONE;
    blend.dstColorBlendFactor = k == 0 ? VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA : VK_BLEND_FACTOR_ONE;
    blend.colorBlendOp = VK_BLEND_OP_ADD;
    blend.srcAlphaBlendFactor = k == 1 ? VK_BLEND_FACTOR_ONE : VK_BLEND_FACTOR_ZERO;
    blend.dstAlphaBlendFactor = k == 2 ? VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA : VK_BLEND_FACTOR_ONE;
    blend.alphaBlendOp = VK_BLEND_OP_ADD;
    blend.colorWriteMask = k == 0 || fragment != groundFragmentModule ? kAll : 0;
  }
  VkPipelineColorBlendStateCreateInfo blendState{};
  blendState.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO;
  blendState.attachmentCount = planes();
  blendState.pAttachments = blends.data();
  VkGraphicsPipelineCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO;
  info.stageCount = static_cast<std::uint32_t>(stages.size());
  info.pStages = stages.data();
  info.pVertexInputState = &vertexInput;
  info.pInputAssemblyState = &assembly;
  info.pViewportState = &viewportState;
  info.pRasterizationState = &raster;
  info.pMultisampleState = &multisample;
  info.pColorBlendState = &blendState;
  info.layout = layout;
  info.renderPass = pass;
  info.subpass = 0;
  return vkStatus(vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &info, nullptr, &out),
                  "vkCreateGraphicsPipelines (the GPU renderer)");
}

Status Renderer::Impl::ensure(Buffer& buffer, std::size_t words, const char* name) {
  const std::uint64_t bytes = std::max<std::uint64_t>(words, 4) * 4;
  if (buffer.handle() != VK_NULL_HANDLE && buffer.bytes() >= bytes) return {};
  return take(Buffer::create(*context, bytes, name), buffer);
}

void Renderer::Impl::writeSet() {
  const std::array<const Buffer*, kBindings> buffers{&frame, &instances, &textureTable, &texels,
                                                     &corners};
  std::array<VkDescriptorBufferInfo, kBindings> infos{};
  std::array<VkWriteDescriptorSet, kBindings> writes{};
  for (std::uint32_t i = 0; i < kBindings; ++i) {
    infos[i] = {buffers[i]->handle(), 0, VK_WHOLE_SIZE};
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(device, kBindings, writes.data(), 0, nullptr);
}

void Renderer::Impl::record(VkCommandBuffer cmd, std::span<const SpriteDraw> draws) const {
  // The uploads (transfers) before the vertex and fragment stages read them.
  VkMemoryBarrier uploaded{};
  uploaded.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  uploaded.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  uploaded.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                       0, 1, &uploaded, 0, nullptr, 0, nullptr);
  // The frame: the background; the OIT planes: nothing accumulated, revealage 1.
  std::array<VkClearValue, kMaxPlanes> clear{};
  clear[0].color.float32[0] = desc.background[0];
  clear[0].color.float32[1] = desc.background[1];
  clear[0].color.float32[2] = desc.background[2];
  clear[0].color.float32[3] = 1.0f;
  clear[2].color.float32[3] = 1.0f;
  VkRenderPassBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO;
  begin.renderPass = pass;
  begin.framebuffer = framebuffer;
  begin.renderArea = {{0, 0}, {desc.viewport.width, desc.viewport.height}};
  begin.clearValueCount = planes();
  begin.pClearValues = clear.data();
  vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout, 0, 1, &set, 0, nullptr);
  if (desc.ground) {  // the grid over the cleared background, behind every particle
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, groundPipeline);
    vkCmdDraw(cmd, 3, 1, 0, 0);
  }
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline);
  std::uint32_t first = 0;
  for (const SpriteDraw& d : draws) {
    const auto n = static_cast<std::uint32_t>(d.instances.size());
    if (n > 0) vkCmdDraw(cmd, 6, n, 0, first);
    first += n;
  }
  vkCmdEndRenderPass(cmd);
  for (std::uint32_t k = 0; k < planes(); ++k) {
    VkBufferImageCopy copy{};
    copy.bufferOffset = planeBytes() * k;
    copy.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    copy.imageExtent = {desc.viewport.width, desc.viewport.height, 1};
    vkCmdCopyImageToBuffer(cmd, images[k], VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.handle(),
                           1, &copy);
  }
  VkMemoryBarrier copied{};
  copied.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  copied.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  copied.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                       &copied, 0, nullptr, 0, nullptr);
}

Result<std::unique_ptr<Renderer>> Renderer::create(Context& context, const RendererDesc& desc) {
  MOTE_RETURN_IF_ERROR(desc.viewport.validate());
  const glm::vec3 up(desc.worldUp[0], desc.worldUp[1], desc.worldUp[2]);
  if (!std::isfinite(up.x) || !std::isfinite(up.y) || !std::isfinite(up.z) ||
      !(std::max({std::fabs(up.x), std::fabs(up.y), std::fabs(up.z)}) > 0.0f))
    return Status(StatusCode::InvalidArgument, "RendererDesc.worldUp must be finite and non-zero");
  if (desc.builtinSpriteSize < render::kMinBuiltinSpriteSizePixels ||
      desc.builtinSpriteSize > render::kMaxBuiltinSpriteSizePixels)
    return Status(
        StatusCode::InvalidArgument,
        fmt::format("RendererDesc.builtinSpriteSize {} is outside [{}, {}]", desc.builtinSpriteSize,
                    render::kMinBuiltinSpriteSizePixels, render::kMaxBuiltinSpriteSizePixels));
  MOTE_RETURN_IF_ERROR(desc.lighting.validate("RendererDesc.lighting"));
  if (desc.transparency != render::Transparency::Emitter &&
      desc.transparency != render::Transparency::Sorted &&
      desc.transparency != render::Transparency::Oit)
    return Status(StatusCode::InvalidArgument,
                  fmt::format("RendererDesc.transparency {} is not a Transparency",
                              static_cast<int>(desc.transparency)));
  Result<render::FrameResolver> resolver = render::FrameResolver::create(desc.viewport, desc.post);
  if (!resolver.ok()) return resolver.status();
  if (!context.device().graphics)
    return Status(StatusCode::Unavailable,
                  fmt::format("the GPU renderer needs a queue that draws; '{}' has only compute on "
                              "the queue Mote uses",
                              context.device().name));
  if (desc.transparency == render::Transparency::Oit && !context.device().independentBlend)
    return Status(StatusCode::Unsupported,
                  fmt::format("RendererDesc.transparency oit needs the independentBlend feature, "
                              "which '{}' does not have enabled",
                              context.device().name));
  auto impl = std::make_unique<Impl>();
  impl->context = &context;
  impl->device = context.impl().device;
  impl->desc = desc;
  impl->resolver.emplace(std::move(resolver.value()));
  MOTE_RETURN_IF_ERROR(context.impl().lost);
  MOTE_RETURN_IF_ERROR(impl->createTarget());
  MOTE_RETURN_IF_ERROR(impl->createPipelines());
  return std::unique_ptr<Renderer>(new Renderer(std::move(impl)));
}

Renderer::Renderer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Renderer::~Renderer() = default;

const char* Renderer::colorFormat() const noexcept {
  return impl_->format == VK_FORMAT_R32G32B32A32_SFLOAT ? "R32G32B32A32_SFLOAT"
                                                        : "R16G16B16A16_SFLOAT";
}

Result<std::uint32_t> Renderer::addTexture(std::uint32_t width, std::uint32_t height,
                                           std::span<const std::array<float, 4>> texels) {
  if (width == 0 || height == 0 || texels.size() != std::size_t{width} * height)
    return Status(StatusCode::InvalidArgument,
                  fmt::format("Renderer::addTexture: {} texels for a {} x {} texture",
                              texels.size(), width, height));
  Impl& r = *impl_;
  const auto index = static_cast<std::uint32_t>(r.table.size());
  r.table.push_back({static_cast<std::uint32_t>(r.texelData.size()), width, height, 0});
  r.texelData.insert(r.texelData.end(), texels.begin(), texels.end());
  r.texturesDirty = true;
  return index;
}

Status Renderer::draw(const render::Camera& camera, std::span<const SpriteDraw> draws,
                      std::vector<std::array<float, 4>>& linear) {
  MOTE_RETURN_IF_ERROR(camera.validate());
  Impl& r = *impl_;
  // Check everything before anything is uploaded: a refused frame draws nothing.
  std::size_t count = 0;
  for (std::size_t d = 0; d < draws.size(); ++d) {
    const auto mode = static_cast<std::uint32_t>(draws[d].mode);
    if (mode >= static_cast<std::uint32_t>(render::kBillboardModeCount))
      return Status(
          StatusCode::InvalidArgument,
          fmt::format("Renderer::draw: draw {} has mode {}, not a BillboardMode", d, mode));
    for (std::size_t i = 0; i < draws[d].instances.size(); ++i) {
      if (!(draws[d].instances[i].stretchScaleSeconds >= 0.0f))
        return Status(StatusCode::InvalidArgument,
                      fmt::format("Renderer::draw: draw {} instance {} has stretchScaleSeconds {}; "
                                  "it must be >= 0",
                                  d, i, draws[d].instances[i].stretchScaleSeconds));
      const SpriteInstance& s = draws[d].instances[i];
      if (!(s.oitWeight == 0.0f ||
            (r.planes() > 1 && s.oitWeight > 0.0f && std::isfinite(s.oitWeight))))
        return Status(
            StatusCode::InvalidArgument,
            fmt::format("Renderer::draw: draw {} instance {} has oitWeight {}; it must be "
                        "0, or finite and > 0 where RendererDesc::transparency is Oit",
                        d, i, s.oitWeight));
      if (!(s.frameBlend >= 0.0f && s.frameBlend <= 1.0f) || !(s.softInverse >= 0.0f) ||
          !std::isfinite(s.softInverse) ||
          (s.corners != SpriteInstance::kNoCorners && s.corners >= draws[d].cornerColors.size()))
        return Status(StatusCode::InvalidArgument,
                      fmt::format("Renderer::draw: draw {} instance {}: frameBlend {} (must be in "
                                  "[0, 1]), softInverse {} (finite, >= 0), corners {} ({} corner "
                                  "colours in its draw)",
                                  d, i, s.frameBlend, s.softInverse, s.corners,
                                  draws[d].cornerColors.size()));
      if (draws[d].instances[i].texture >= r.table.size())
        return Status(StatusCode::InvalidArgument,
                      fmt::format("Renderer::draw: draw {} instance {} names texture {}; {} "
                                  "were added",
                                  d, i, draws[d].instances[i].texture, r.table.size()));
    }
    count += draws[d].instances.size();
  }
  MOTE_RETURN_IF_ERROR(r.context->impl().lost);

  // Each instance carries its own stretch seconds (sprite.vert puts them into the view).
  const render::BillboardView view = render::BillboardView::fromCamera(
      camera, glm::vec3(r.desc.worldUp[0], r.desc.worldUp[1], r.desc.worldUp[2]), 0.0f);
  r.frameWords.clear();
  putView(r.frameWords, view);
  const glm::mat4 viewProjection = camera.projectionMatrix() * camera.viewMatrix();
  for (int c = 0; c < 4; ++c)
    for (int k = 0; k < 4; ++k)
      putWord(r.frameWords, viewProjection[c][k]);
  putWord(r.frameWords, camera.nearZ * 0.5f);  // the software renderer's near limit
  putWord(r.frameWords, static_cast<float>(r.desc.viewport.width));
  putWord(r.frameWords, static_cast<float>(r.desc.viewport.height));
  putWord(r.frameWords, camera.halfWidthExtent());
  putWord(r.frameWords, camera.halfHeightExtent());
  for (const float c : r.desc.background)
    putWord(r.frameWords, c);
  r.frameWords.push_back(r.desc.ground ? 1u : 0u);
  MOTE_ASSERT(r.frameWords.size() == kFrameWords, "sprite.vert's frame layout");

  r.instanceWords.clear();
  r.instanceWords.reserve(count * kInstanceWords);
  r.cornerWords.clear();
  // Draws that share one array of corner colours (drawPackets' sorted runs) upload it once.
  const std::array<std::array<float, 4>, 4>* lastCorners = nullptr;
  std::size_t lastCornerCount = 0;
  std::uint32_t firstCorners = 0;
  for (const SpriteDraw& d : draws) {
    if (d.cornerColors.data() != lastCorners || d.cornerColors.size() != lastCornerCount) {
      lastCorners = d.cornerColors.data();
      lastCornerCount = d.cornerColors.size();
      firstCorners = static_cast<std::uint32_t>(r.cornerWords.size() / 16);
      for (const auto& four : d.cornerColors)
        for (const auto& c : four)
          for (const float v : c)
            putWord(r.cornerWords, v);
    }
    for (const SpriteInstance& s : d.instances) {
      if (s.ribbon) {  // the corners in the particle's first 12 words, 4 unused
        for (const glm::vec3& c : s.quad)
          for (int k = 0; k < 3; ++k)
            putWord(r.instanceWords, c[k]);
        r.instanceWords.insert(r.instanceWords.end(), 4, 0u);
      } else {
        putParticle(r.instanceWords, s.particle);
      }
      for (const float v : s.color)
        putWord(r.instanceWords, v);
      for (const float v : s.cell)
        putWord(r.instanceWords, v);
      r.instanceWords.push_back(s.texture);
      r.instanceWords.push_back(static_cast<std::uint32_t>(d.mode));
      putWord(r.instanceWords, s.stretchScaleSeconds);
      r.instanceWords.push_back((s.cutout ? 1u : 0u) | (s.cullBack ? 2u : 0u) |
                                (s.ribbon ? 4u : 0u) | (s.oitAdditive ? 8u : 0u));
      putWord(r.instanceWords, s.nextCell[0]);
      putWord(r.instanceWords, s.nextCell[1]);
      putWord(r.instanceWords, s.frameBlend);
      putWord(r.instanceWords, s.cutoff);
      putWord(r.instanceWords, s.softInverse);
      putWord(r.instanceWords, s.viewDepth);
      r.instanceWords.push_back(s.corners == SpriteInstance::kNoCorners ? ~0u
                                                                        : firstCorners + s.corners);
      putWord(r.instanceWords, s.oitWeight);
    }
  }
  MOTE_RETURN_IF_ERROR(r.ensure(r.frame, kFrameWords, "the GPU renderer's frame constants"));
  MOTE_RETURN_IF_ERROR(
      r.ensure(r.instances, r.instanceWords.size(), "the GPU renderer's instances"));
  MOTE_RETURN_IF_ERROR(
      r.ensure(r.corners, r.cornerWords.size(), "the GPU renderer's corner colours"));
  MOTE_RETURN_IF_ERROR(r.frame.upload(r.frameWords));
  if (!r.cornerWords.empty()) MOTE_RETURN_IF_ERROR(r.corners.upload(r.cornerWords));
  if (!r.instanceWords.empty()) MOTE_RETURN_IF_ERROR(r.instances.upload(r.instanceWords));
  if (r.texturesDirty) {
    std::vector<std::uint32_t> tableWords;
    for (const auto& t : r.table)
      tableWords.insert(tableWords.end(), t.begin(), t.end());
    std::vector<std::uint32_t> texelWords(r.texelData.size() * 4);
    std::memcpy(texelWords.data(), r.texelData.data(), texelWords.size() * 4);
    MOTE_RETURN_IF_ERROR(
        r.ensure(r.textureTable, tableWords.size(), "the GPU renderer's texture table"));
    MOTE_RETURN_IF_ERROR(r.ensure(r.texels, texelWords.size(), "the GPU renderer's texels"));
    if (!tableWords.empty()) MOTE_RETURN_IF_ERROR(r.textureTable.upload(tableWords));
    if (!texelWords.empty()) MOTE_RETURN_IF_ERROR(r.texels.upload(texelWords));
    r.texturesDirty = false;
  }
  r.writeSet();
  MOTE_RETURN_IF_ERROR(
      r.context->impl().submit([&](VkCommandBuffer cmd) { r.record(cmd, draws); }));

  r.readPlane(0, linear);
  if (r.planes() > 1) {  // OIT: the planes composited over the frame as the software renderer does
    r.readPlane(1, r.oitSums);
    r.readPlane(2, r.oitSide);
    render::compositeOit(linear, r.oitSums, r.oitSide);
  }
  for (auto& p : linear)
    p[3] = 1.0f;
  return {};
}

}  // namespace mote::gpu
