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
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

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
  VkFormatProperties depthProps{};
  vkGetPhysicalDeviceFormatProperties(c.physical, VK_FORMAT_D32_SFLOAT, &depthProps);
  if ((depthProps.optimalTilingFeatures & VK_FORMAT_FEATURE_DEPTH_STENCIL_ATTACHMENT_BIT) == 0)
    return Status(StatusCode::Unsupported,
                  fmt::format("the GPU renderer needs a D32_SFLOAT depth buffer, which '{}' does "
                              "not draw into",
                              c.info.name));
  // The frame, and under OIT its two planes, of the frame's format; the two depths subpass 1
  // reads; the depth buffer.
  for (std::uint32_t k = 0; k < planes(); ++k)
    MOTE_RETURN_IF_ERROR(createImage(
        k, format, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
        VK_IMAGE_ASPECT_COLOR_BIT, "the frame"));
  for (const std::uint32_t k : {kSceneDepth, kMeshDepth})
    MOTE_RETURN_IF_ERROR(
        createImage(k, VK_FORMAT_R32_SFLOAT,
                    VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_INPUT_ATTACHMENT_BIT,
                    VK_IMAGE_ASPECT_COLOR_BIT, "the frame's depths"));
  MOTE_RETURN_IF_ERROR(createImage(kDepth, VK_FORMAT_D32_SFLOAT,
                                   VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                                   VK_IMAGE_ASPECT_DEPTH_BIT, "the depth buffer"));

  // Attachments: the planes, then the scene depth, the mesh depth and the depth buffer.
  const std::uint32_t p = planes();
  const std::uint32_t attachments = p + 3;
  std::array<VkAttachmentDescription, kImages> described{};
  std::array<VkImageView, kImages> views{};
  for (std::uint32_t k = 0; k < attachments; ++k) {
    const std::uint32_t image = k < p ? k : kSceneDepth + (k - p);
    VkAttachmentDescription& a = described[k];
    a.format = k < p ? format : image == kDepth ? VK_FORMAT_D32_SFLOAT : VK_FORMAT_R32_SFLOAT;
    a.samples = VK_SAMPLE_COUNT_1_BIT;
    a.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    a.storeOp = k < p ? VK_ATTACHMENT_STORE_OP_STORE : VK_ATTACHMENT_STORE_OP_DONT_CARE;
    a.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    a.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    a.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    a.finalLayout = k < p             ? VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL
                    : image == kDepth ? VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL
                                      : VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    views[k] = imageViews[image];
  }
  // Subpass 0, the ground and the mesh triangles: the two depths at locations 0 and 1, the planes
  // from 2, the depth buffer. Subpass 1, the particles: the planes from 0, the depths as input.
  std::array<VkAttachmentReference, kMaxPlanes + 2> first{};
  first[0] = {p, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  first[1] = {p + 1, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  std::array<VkAttachmentReference, kMaxPlanes> second{};
  for (std::uint32_t k = 0; k < p; ++k) {
    first[2 + k] = {k, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    second[k] = {k, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
  }
  const VkAttachmentReference depthRef{p + 2, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
  const std::array<VkAttachmentReference, 2> inputs{
      VkAttachmentReference{p, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL},
      VkAttachmentReference{p + 1, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL}};
  std::array<VkSubpassDescription, 2> subpasses{};
  subpasses[0].pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpasses[0].colorAttachmentCount = p + 2;
  subpasses[0].pColorAttachments = first.data();
  subpasses[0].pDepthStencilAttachment = &depthRef;
  subpasses[1].pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
  subpasses[1].colorAttachmentCount = p;
  subpasses[1].pColorAttachments = second.data();
  subpasses[1].inputAttachmentCount = static_cast<std::uint32_t>(inputs.size());
  subpasses[1].pInputAttachments = inputs.data();
  std::array<VkSubpassDependency, 2> dependencies{};
  // Subpass 0's writes before subpass 1 blends over the planes and reads the depths, pixel by
  // pixel.
  dependencies[0].srcSubpass = 0;
  dependencies[0].dstSubpass = 1;
  dependencies[0].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  dependencies[0].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  dependencies[0].dstStageMask =
      VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  dependencies[0].dstAccessMask = VK_ACCESS_INPUT_ATTACHMENT_READ_BIT |
                                  VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
                                  VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  dependencies[0].dependencyFlags = VK_DEPENDENCY_BY_REGION_BIT;
  // The pass's writes before the copy that reads them back.
  dependencies[1].srcSubpass = 1;
  dependencies[1].dstSubpass = VK_SUBPASS_EXTERNAL;
  dependencies[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
  dependencies[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
  dependencies[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
  dependencies[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
  VkRenderPassCreateInfo passInfo{};
  passInfo.sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO;
  passInfo.attachmentCount = attachments;
  passInfo.pAttachments = described.data();
  passInfo.subpassCount = static_cast<std::uint32_t>(subpasses.size());
  passInfo.pSubpasses = subpasses.data();
  passInfo.dependencyCount = static_cast<std::uint32_t>(dependencies.size());
  passInfo.pDependencies = dependencies.data();
  MOTE_RETURN_IF_ERROR(
      vkStatus(vkCreateRenderPass(device, &passInfo, nullptr, &pass), "vkCreateRenderPass"));
  VkFramebufferCreateInfo fb{};
  fb.sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO;
  fb.renderPass = pass;
  fb.attachmentCount = attachments;
  fb.pAttachments = views.data();
  fb.width = desc.viewport.width;
  fb.height = desc.viewport.height;
  fb.layers = 1;
  MOTE_RETURN_IF_ERROR(
      vkStatus(vkCreateFramebuffer(device, &fb, nullptr, &framebuffer), "vkCreateFramebuffer"));
  if (context->device().timestampPeriod > 0.0f) {
    VkQueryPoolCreateInfo query{};
    query.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    query.queryType = VK_QUERY_TYPE_TIMESTAMP;
    query.queryCount = 2;
    MOTE_RETURN_IF_ERROR(vkStatus(vkCreateQueryPool(device, &query, nullptr, &timestamps),
                                  "vkCreateQueryPool for the GPU renderer's timestamps"));
  }
  return take(
      Buffer::createMapped(*context, planeBytes() * planes(), "the GPU renderer's readback"),
      readback);
}

void Renderer::Impl::startClock(VkCommandBuffer cmd) const {
  if (timestamps == VK_NULL_HANDLE) return;
  vkCmdResetQueryPool(cmd, timestamps, 0, 2);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, timestamps, 0);
}

void Renderer::Impl::readClock() {
  frameSeconds = 0.0;
  if (timestamps == VK_NULL_HANDLE) return;
  std::array<std::uint64_t, 2> at{};
  const VkResult r = vkGetQueryPoolResults(device, timestamps, 0, 2, sizeof(at), at.data(),
                                           sizeof(std::uint64_t), VK_QUERY_RESULT_64_BIT);
  if (r == VK_SUCCESS && at[1] >= at[0])
    frameSeconds = static_cast<double>(at[1] - at[0]) *
                   static_cast<double>(context->device().timestampPeriod) * 1e-9;
}

Status Renderer::Impl::createImage(std::uint32_t k, VkFormat imageFormat, VkImageUsageFlags usage,
                                   VkImageAspectFlags aspect, const char* what) {
  Context::Impl& c = context->impl();
  VkImageCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = imageFormat;
  info.extent = {desc.viewport.width, desc.viewport.height, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_OPTIMAL;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  MOTE_RETURN_IF_ERROR(vkStatus(vkCreateImage(device, &info, nullptr, &images[k]),
                                fmt::format("vkCreateImage ({})", what)));
  VkMemoryRequirements needs{};
  vkGetImageMemoryRequirements(device, images[k], &needs);
  const int type = c.memoryType(needs.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  if (type < 0)
    return Status(StatusCode::Unavailable,
                  fmt::format("the GPU renderer's {}: no device-local memory type", what));
  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = needs.size;
  alloc.memoryTypeIndex = static_cast<std::uint32_t>(type);
  MOTE_RETURN_IF_ERROR(vkStatus(vkAllocateMemory(device, &alloc, nullptr, &imageMemory[k]),
                                fmt::format("the GPU renderer's {} ({} bytes)", what, needs.size)));
  MOTE_RETURN_IF_ERROR(
      vkStatus(vkBindImageMemory(device, images[k], imageMemory[k], 0), "vkBindImageMemory"));
  VkImageViewCreateInfo view{};
  view.sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO;
  view.image = images[k];
  view.viewType = VK_IMAGE_VIEW_TYPE_2D;
  view.format = imageFormat;
  view.subresourceRange = {aspect, 0, 1, 0, 1};
  return vkStatus(vkCreateImageView(device, &view, nullptr, &imageViews[k]), "vkCreateImageView");
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
  Context::Impl& c = context->impl();
  const auto known =
      std::find_if(c.rendererPipelines.begin(), c.rendererPipelines.end(),
                   [&](const auto& r) { return r.planes == planes() && r.format == format; });
  if (known != c.rendererPipelines.end()) {
    pipelines = *known;
  } else {
    Context::Impl::RendererPipelines made;
    made.planes = planes();
    made.format = format;
    if (Status built = buildPipelines(made); !built.ok()) {
      made.destroy(device);
      return built;
    }
    c.rendererPipelines.push_back(made);
    pipelines = made;
  }

  const std::array<VkDescriptorPoolSize, 2> sizes{
      VkDescriptorPoolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kStorageBindings},
      VkDescriptorPoolSize{VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT, kBindings - kStorageBindings}};
  VkDescriptorPoolCreateInfo poolInfo{};
  poolInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  poolInfo.maxSets = 1;
  poolInfo.poolSizeCount = static_cast<std::uint32_t>(sizes.size());
  poolInfo.pPoolSizes = sizes.data();
  MOTE_RETURN_IF_ERROR(vkStatus(vkCreateDescriptorPool(device, &poolInfo, nullptr, &pool),
                                "vkCreateDescriptorPool"));
  VkDescriptorSetAllocateInfo setAlloc{};
  setAlloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  setAlloc.descriptorPool = pool;
  setAlloc.descriptorSetCount = 1;
  setAlloc.pSetLayouts = &pipelines.setLayout;
  MOTE_RETURN_IF_ERROR(
      vkStatus(vkAllocateDescriptorSets(device, &setAlloc, &set), "vkAllocateDescriptorSets"));

  // The depths subpass 1 reads, once: the attachments never change.
  std::array<VkDescriptorImageInfo, 2> depths{};
  std::array<VkWriteDescriptorSet, 2> writes{};
  for (std::uint32_t k = 0; k < 2; ++k) {
    depths[k] = {VK_NULL_HANDLE, imageViews[kSceneDepth + k],
                 VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    writes[k].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[k].dstSet = set;
    writes[k].dstBinding = kStorageBindings + k;
    writes[k].descriptorCount = 1;
    writes[k].descriptorType = VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT;
    writes[k].pImageInfo = &depths[k];
  }
  vkUpdateDescriptorSets(device, 2, writes.data(), 0, nullptr);
  return Status();
}

Status Renderer::Impl::buildPipelines(Context::Impl::RendererPipelines& made) const {
  // The shader modules live while the pipelines are built.
  std::array<VkShaderModule, 6> modules{};
  struct Release {
    VkDevice owner;
    std::array<VkShaderModule, 6>& made;
    ~Release() {
      for (VkShaderModule m : made)
        if (m != VK_NULL_HANDLE) vkDestroyShaderModule(owner, m, nullptr);
    }
  } release{device, modules};
  const bool fp64 = hasFp64Shaders(context->device());
  const std::array<std::span<const std::uint32_t>, 6> code{
      spriteVertexShader().pick(fp64),
      planes() > 1 ? spriteOitFragmentShader() : spriteFragmentShader(),
      groundVertexShader(),
      groundFragmentShader(),
      triangleVertexShader(),
      planes() > 1 ? triangleOitFragmentShader() : triangleFragmentShader()};
  for (std::size_t i = 0; i < code.size(); ++i) {
    VkShaderModuleCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    info.codeSize = code[i].size_bytes();
    info.pCode = code[i].data();
    MOTE_RETURN_IF_ERROR(vkStatus(vkCreateShaderModule(device, &info, nullptr, &modules[i]),
                                  "vkCreateShaderModule"));
  }

  std::array<VkDescriptorSetLayoutBinding, kBindings> slots{};
  for (std::uint32_t i = 0; i < slots.size(); ++i) {
    slots[i].binding = i;
    slots[i].descriptorType = i < kStorageBindings ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
                                                   : VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT;
    slots[i].descriptorCount = 1;
    // The frame: both stages (the fragment stage's ground); the instances and triangles: the
    // vertex stage.
    slots[i].stageFlags = i == 0 ? VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT
                          : i == 1 || i == 5 ? VK_SHADER_STAGE_VERTEX_BIT
                                             : VK_SHADER_STAGE_FRAGMENT_BIT;
  }
  VkDescriptorSetLayoutCreateInfo setInfo{};
  setInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  setInfo.bindingCount = static_cast<std::uint32_t>(slots.size());
  setInfo.pBindings = slots.data();
  MOTE_RETURN_IF_ERROR(
      vkStatus(vkCreateDescriptorSetLayout(device, &setInfo, nullptr, &made.setLayout),
               "vkCreateDescriptorSetLayout"));
  VkPipelineLayoutCreateInfo layoutInfo{};
  layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layoutInfo.setLayoutCount = 1;
  layoutInfo.pSetLayouts = &made.setLayout;
  MOTE_RETURN_IF_ERROR(vkStatus(vkCreatePipelineLayout(device, &layoutInfo, nullptr, &made.layout),
                                "vkCreatePipelineLayout"));
  MOTE_RETURN_IF_ERROR(
      createPipeline(modules[0], modules[1], Stage::Sprites, false, made.layout, made.sprites));
  MOTE_RETURN_IF_ERROR(
      createPipeline(modules[2], modules[3], Stage::Ground, true, made.layout, made.ground));
  MOTE_RETURN_IF_ERROR(
      createPipeline(modules[4], modules[5], Stage::Triangles, true, made.layout, made.triangles));
  return createPipeline(modules[4], modules[5], Stage::Triangles, false, made.layout,
                        made.blendedTriangles);
}

Status Renderer::Impl::createPipeline(VkShaderModule vertex, VkShaderModule fragment, Stage stage,
                                      bool writesDepth, VkPipelineLayout layout,
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
  VkPipelineViewportStateCreateInfo viewportState{};
  viewportState.sType = VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO;
  viewportState.viewportCount = 1;
  viewportState.scissorCount = 1;
  const std::array<VkDynamicState, 2> dynamics{VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
  VkPipelineDynamicStateCreateInfo dynamicState{};
  dynamicState.sType = VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO;
  dynamicState.dynamicStateCount = static_cast<std::uint32_t>(dynamics.size());
  dynamicState.pDynamicStates = dynamics.data();
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
  // In subpass 0 the two depths come first, written (not blended) where the pipeline writes depth.
  constexpr VkColorComponentFlags kAll = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT |
                                         VK_COLOR_COMPONENT_B_BIT | VK_COLOR_COMPONENT_A_BIT;
  const std::uint32_t depths = stage == Stage::Sprites ? 0 : 2;
  std::array<VkPipelineColorBlendAttachmentState, kMaxPlanes + 2> blends{};
  for (std::uint32_t d = 0; d < depths; ++d)
    blends[d].colorWriteMask =
        writesDepth && (d == 0 || stage == Stage::Triangles) ? VK_COLOR_COMPONENT_R_BIT : 0;
  for (std::uint32_t k = 0; k < planes(); ++k) {
    VkPipelineColorBlendAttachmentState& blend = blends[depths + k];
    blend.blendEnable = VK_TRUE;
    blend.srcColorBlendFactor = VK_BLEND_FACTOR_ONE;
    blend.dstColorBlendFactor = k == 0 ? VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA : VK_BLEND_FACTOR_ONE;
    blend.colorBlendOp = VK_BLEND_OP_ADD;
    blend.srcAlphaBlendFactor = k == 1 ? VK_BLEND_FACTOR_ONE : VK_BLEND_FACTOR_ZERO;
    blend.dstAlphaBlendFactor = k == 2 ? VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA : VK_BLEND_FACTOR_ONE;
    blend.alphaBlendOp = VK_BLEND_OP_ADD;
    blend.colorWriteMask = k == 0 || stage != Stage::Ground ? kAll : 0;
  }
  VkPipelineColorBlendStateCreateInfo blendState{};
  blendState.sType = VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO;
  blendState.attachmentCount = depths + planes();
  blendState.pAttachments = blends.data();
  // Subpass 0's depth buffer: the ground writes its depth; triangles test theirs against it
  // (LESS: the software fill's depth < sceneDepth) and write it where they write depth.
  VkPipelineDepthStencilStateCreateInfo depthState{};
  depthState.sType = VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO;
  depthState.depthTestEnable = VK_TRUE;
  depthState.depthWriteEnable = writesDepth ? VK_TRUE : VK_FALSE;
  depthState.depthCompareOp = stage == Stage::Ground ? VK_COMPARE_OP_ALWAYS : VK_COMPARE_OP_LESS;
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
  info.pDepthStencilState = stage == Stage::Sprites ? nullptr : &depthState;
  info.pDynamicState = &dynamicState;
  info.layout = layout;
  info.renderPass = pass;
  info.subpass = stage == Stage::Sprites ? 1 : 0;
  const auto started = std::chrono::steady_clock::now();
  const Status made =
      vkStatus(vkCreateGraphicsPipelines(device, VK_NULL_HANDLE, 1, &info, nullptr, &out),
               "vkCreateGraphicsPipelines (the GPU renderer)");
  context->impl().tracePipeline(stage == Stage::Sprites  ? "the renderer's sprite pipeline"
                                : stage == Stage::Ground ? "the renderer's ground pipeline"
                                : writesDepth            ? "the renderer's opaque triangle pipeline"
                                              : "the renderer's blended triangle pipeline",
                                started);
  return made;
}

Status Renderer::Impl::ensure(Buffer& buffer, std::size_t words, const char* name) {
  const std::uint64_t bytes = std::max<std::uint64_t>(words, 4) * 4;
  if (buffer.handle() != VK_NULL_HANDLE && buffer.bytes() >= bytes) return {};
  return take(Buffer::create(*context, bytes, name), buffer);
}

void Renderer::Impl::writeSet() {
  const std::array<const Buffer*, kStorageBindings> buffers{&frame,  &instances, &textureTable,
                                                            &texels, &corners,   &triangles};
  std::array<VkDescriptorBufferInfo, kStorageBindings> infos{};
  std::array<VkWriteDescriptorSet, kStorageBindings> writes{};
  for (std::uint32_t i = 0; i < kStorageBindings; ++i) {
    infos[i] = {buffers[i]->handle(), 0, VK_WHOLE_SIZE};
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(device, kStorageBindings, writes.data(), 0, nullptr);
}

void Renderer::Impl::record(VkCommandBuffer cmd, std::span<const SpriteDraw> draws,
                            const IndirectDraw* indirect) const {
  // The uploads (transfers) before the vertex and fragment stages read them.
  VkMemoryBarrier uploaded{};
  uploaded.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  uploaded.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  uploaded.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                       0, 1, &uploaded, 0, nullptr, 0, nullptr);
  // The frame: the background; the OIT planes: nothing accumulated, revealage 1; the depths:
  // nothing (+inf, and the depth buffer's 1).
  const std::uint32_t p = planes();
  std::array<VkClearValue, kImages> clear{};
  clear[0].color.float32[0] = desc.background[0];
  clear[0].color.float32[1] = desc.background[1];
  clear[0].color.float32[2] = desc.background[2];
  clear[0].color.float32[3] = 1.0f;
  if (p > 2) clear[2].color.float32[3] = 1.0f;
  clear[p].color.float32[0] = std::numeric_limits<float>::infinity();
  clear[p + 1].color.float32[0] = std::numeric_limits<float>::infinity();
  clear[p + 2].depthStencil = {1.0f, 0};
  VkRenderPassBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO;
  begin.renderPass = pass;
  begin.framebuffer = framebuffer;
  begin.renderArea = {{0, 0}, {desc.viewport.width, desc.viewport.height}};
  begin.clearValueCount = p + 3;
  begin.pClearValues = clear.data();
  vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
  const VkViewport viewport{
      0.0f, 0.0f, static_cast<float>(desc.viewport.width), static_cast<float>(desc.viewport.height),
      0.0f, 1.0f};
  vkCmdSetViewport(cmd, 0, 1, &viewport);
  vkCmdSetScissor(cmd, 0, 1, &begin.renderArea);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipelines.layout, 0, 1, &set, 0,
                          nullptr);
  if (frameWords[48] != 0u) {  // the grid over the cleared background, behind every particle
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipelines.ground);
    vkCmdDraw(cmd, 3, 1, 0, 0);
  }
  // The mesh triangles in order, a draw a run of those that write depth or do not.
  const auto count = static_cast<std::uint32_t>(triangleWrites.size());
  for (std::uint32_t from = 0, to = 0; from < count; from = to) {
    to = from + 1;
    while (to < count && triangleWrites[to] == triangleWrites[from])
      ++to;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS,
                      triangleWrites[from] ? pipelines.triangles : pipelines.blendedTriangles);
    vkCmdDraw(cmd, 3 * (to - from), 1, 3 * from, 0);
  }
  vkCmdNextSubpass(cmd, VK_SUBPASS_CONTENTS_INLINE);
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipelines.sprites);
  if (indirect != nullptr) vkCmdDrawIndirect(cmd, indirect->buffer, indirect->offset, 1, 0);
  std::uint32_t first = 0;
  for (const SpriteDraw& d : draws) {
    const auto n = static_cast<std::uint32_t>(d.instances.size());
    if (n > 0) vkCmdDraw(cmd, 6, n, 0, first);
    first += n;
  }
  vkCmdEndRenderPass(cmd);
  if (timestamps != VK_NULL_HANDLE)
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timestamps, 1);
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

double Renderer::lastFrameGpuSeconds() const noexcept {
  return impl_->frameSeconds;
}

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
  impl_->triangleWords.clear();
  impl_->triangleWrites.clear();
  return impl_->drawFrame(camera, draws, linear);
}

Status Renderer::Impl::drawFrame(const render::Camera& camera, std::span<const SpriteDraw> draws,
                                 std::vector<std::array<float, 4>>& out, const glm::mat4* screen) {
  MOTE_RETURN_IF_ERROR(camera.validate());
  Impl& r = *this;
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

  r.putFrame(camera, screen);
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
                                (s.ribbon ? 4u : 0u) | (s.oitAdditive ? 8u : 0u) |
                                (s.depthTested ? 16u : 0u));
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
  MOTE_RETURN_IF_ERROR(
      r.ensure(r.instances, r.instanceWords.size(), "the GPU renderer's instances"));
  MOTE_RETURN_IF_ERROR(
      r.ensure(r.corners, r.cornerWords.size(), "the GPU renderer's corner colours"));
  if (!r.cornerWords.empty()) MOTE_RETURN_IF_ERROR(r.corners.upload(r.cornerWords));
  if (!r.instanceWords.empty()) MOTE_RETURN_IF_ERROR(r.instances.upload(r.instanceWords));
  MOTE_RETURN_IF_ERROR(r.uploadFrame());
  r.writeSet();
  MOTE_RETURN_IF_ERROR(r.context->impl().submit([&](VkCommandBuffer cmd) {
    r.startClock(cmd);
    r.record(cmd, draws);
  }));
  r.readClock();
  r.readFrame(out);
  return {};
}

void Renderer::Impl::putFrame(const render::Camera& camera, const glm::mat4* screen) {
  // Each instance carries its own stretch seconds (sprite.vert puts them into the view).
  const render::BillboardView view = render::BillboardView::fromCamera(
      camera, glm::vec3(desc.worldUp[0], desc.worldUp[1], desc.worldUp[2]), 0.0f);
  frameWords.clear();
  putView(frameWords, view);
  const glm::mat4 viewProjection =
      screen != nullptr ? *screen : camera.projectionMatrix() * camera.viewMatrix();
  for (int c = 0; c < 4; ++c)
    for (int k = 0; k < 4; ++k)
      putWord(frameWords, viewProjection[c][k]);
  putWord(frameWords, camera.nearZ * 0.5f);  // the software renderer's near limit
  putWord(frameWords, static_cast<float>(desc.viewport.width));
  putWord(frameWords, static_cast<float>(desc.viewport.height));
  putWord(frameWords, camera.halfWidthExtent());
  putWord(frameWords, camera.halfHeightExtent());
  for (const float c : desc.background)
    putWord(frameWords, c);
  frameWords.push_back(desc.ground && screen == nullptr ? 1u : 0u);
  // The lights, for sprites lit in the vertex stage (a GPU world's pool drawn in place).
  const std::vector<render::Light>& lights = desc.lighting.lights;
  frameWords.push_back(static_cast<std::uint32_t>(lights.size()));
  for (const float c : desc.lighting.ambient)
    putWord(frameWords, c);
  for (std::size_t l = 0; l < render::kMaxLights; ++l) {
    const render::Light light = l < lights.size() ? lights[l] : render::Light{};
    frameWords.push_back(light.kind == render::Light::Kind::Point ? 1u : 0u);
    for (const float v : light.vector)
      putWord(frameWords, v);
    for (const float c : light.color)
      putWord(frameWords, c);
    putWord(frameWords, light.radius);
  }
  MOTE_ASSERT(frameWords.size() == kFrameWords, "sprite.vert's frame layout");
}

Status Renderer::Impl::uploadFrame() {
  Impl& r = *this;
  MOTE_RETURN_IF_ERROR(r.ensure(r.frame, kFrameWords, "the GPU renderer's frame constants"));
  MOTE_RETURN_IF_ERROR(
      r.ensure(r.triangles, r.triangleWords.size(), "the GPU renderer's mesh triangles"));
  MOTE_RETURN_IF_ERROR(r.frame.upload(r.frameWords));
  if (!r.triangleWords.empty()) MOTE_RETURN_IF_ERROR(r.triangles.upload(r.triangleWords));
  if (r.texturesDirty) {
    std::vector<std::uint32_t> tableWords;
    for (const auto& t : r.table)
      tableWords.insert(tableWords.end(), t.begin(), t.end());
    std::vector<std::uint32_t> texelWords(r.texelData.size() * 4);
    if (!texelWords.empty())  // none before the first texture: no copy from a null pointer
      std::memcpy(texelWords.data(), r.texelData.data(), texelWords.size() * 4);
    MOTE_RETURN_IF_ERROR(
        r.ensure(r.textureTable, tableWords.size(), "the GPU renderer's texture table"));
    MOTE_RETURN_IF_ERROR(r.ensure(r.texels, texelWords.size(), "the GPU renderer's texels"));
    if (!tableWords.empty()) MOTE_RETURN_IF_ERROR(r.textureTable.upload(tableWords));
    if (!texelWords.empty()) MOTE_RETURN_IF_ERROR(r.texels.upload(texelWords));
    r.texturesDirty = false;
  }
  return {};
}

void Renderer::Impl::readFrame(std::vector<std::array<float, 4>>& out) {
  readPlane(0, out);
  if (planes() > 1) {  // OIT: the planes composited over the frame as the software renderer does
    readPlane(1, oitSums);
    readPlane(2, oitSide);
    render::compositeOit(out, oitSums, oitSide);
  }
  for (auto& p : out)
    p[3] = 1.0f;
}

}  // namespace mote::gpu
