// SPDX-License-Identifier: MIT
// billboardCornersOnGpu: billboard.glsl over independent cases (billboard_cases.comp lays out the
// buffers).
#include "billboard_words.h"
#include "context_impl.h"
#include "device_memory.h"
#include "kernel.h"
#include "self_test.h"
#include "shaders.h"

#include <mote/gpu/billboard_cases.h>

#include <fmt/format.h>

#include <bit>
#include <cstdint>

namespace mote::gpu {
namespace {

constexpr std::uint32_t kGroup = 64;
constexpr std::uint32_t kInputWords = 16;
constexpr std::uint32_t kCornerWords = 12;

}  // namespace

Result<std::vector<std::array<glm::vec3, 4>>> billboardCornersOnGpu(
    Context& context, const render::BillboardView& view, render::BillboardMode mode,
    std::span<const render::BillboardInput> inputs) {
  const auto modeIndex = static_cast<std::uint32_t>(mode);
  if (modeIndex >= static_cast<std::uint32_t>(render::kBillboardModeCount))
    return Status(StatusCode::InvalidArgument,
                  fmt::format("billboardCornersOnGpu: mode {} is not a BillboardMode (0 to {})",
                              modeIndex, render::kBillboardModeCount - 1));
  const auto count = static_cast<std::uint32_t>(inputs.size());
  if (count == 0) return std::vector<std::array<glm::vec3, 4>>{};

  std::vector<std::uint32_t> viewWords;
  putView(viewWords, view);
  std::vector<std::uint32_t> inputWords;
  inputWords.reserve(std::size_t{count} * kInputWords);
  for (const render::BillboardInput& in : inputs)
    putParticle(inputWords, in);

  const bool fp64 = hasFp64Shaders(context.device());
  Result<Kernel*> kernel =
      context.impl().kernel(context, "billboard_cases", billboardCasesShader().pick(fp64), 3, 8,
                            context.selfTest().flags);
  if (!kernel.ok()) return std::move(kernel).status();
  Result<Buffer> viewBuffer = Buffer::create(context, viewWords.size() * 4, "the billboard view");
  Result<Buffer> inputBuffer =
      Buffer::create(context, inputWords.size() * 4, "the billboard inputs");
  Result<Buffer> cornerBuffer =
      Buffer::create(context, std::uint64_t{count} * kCornerWords * 4, "the billboard corners");
  for (const Result<Buffer>* b : {&viewBuffer, &inputBuffer, &cornerBuffer})
    if (!b->ok()) return b->status();
  MOTE_RETURN_IF_ERROR(viewBuffer->upload(viewWords));
  MOTE_RETURN_IF_ERROR(inputBuffer->upload(inputWords));
  (*kernel)->bind({&*viewBuffer, &*inputBuffer, &*cornerBuffer});
  const std::uint32_t push[] = {count, modeIndex};
  MOTE_RETURN_IF_ERROR(context.impl().submit(
      [&](VkCommandBuffer cmd) { (*kernel)->record(cmd, push, (count + kGroup - 1) / kGroup); }));
  std::vector<std::uint32_t> cornerWords(std::size_t{count} * kCornerWords);
  MOTE_RETURN_IF_ERROR(cornerBuffer->download(cornerWords));
  std::vector<std::array<glm::vec3, 4>> out(count);
  for (std::uint32_t i = 0; i < count; ++i) {
    for (std::uint32_t c = 0; c < 4; ++c) {
      const std::uint32_t* at = cornerWords.data() + std::size_t{i} * kCornerWords + 3 * c;
      out[i][c] = glm::vec3(std::bit_cast<float>(at[0]), std::bit_cast<float>(at[1]),
                            std::bit_cast<float>(at[2]));
    }
  }
  return out;
}

}  // namespace mote::gpu
