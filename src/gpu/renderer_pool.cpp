// SPDX-License-Identifier: MIT
// gpu::Renderer drawing a GPU world's pool where it lives (docs/gpu.md, "Drawing the pool in
// place"; meep's "Rendering": the alive list drawn with GPU-written indirect arguments, no
// readback). The host writes what each emitter's render packet would say — O(emitters) words,
// draw_layout.h — and one submission makes the instances on the GPU (draw_pool.comp),
// sorts them (draw_sort.comp) and draws them with the world's own draw arguments.
#include "draw_layout.h"
#include "gpu_world.h"
#include "renderer_impl.h"
#include "shaders.h"

#include <mote/core/builtin_sprites.h>
#include <mote/gpu/vulkan.h>
#include <mote/gpu/world.h>
#include <mote/render/particle_instance.h>

#include <fmt/format.h>
#include <glm/mat4x4.hpp>

#include <algorithm>
#include <bit>
#include <cmath>

namespace mote::gpu {

using namespace draw;  // draw_layout.h's numbers

namespace {

constexpr std::uint32_t kNone = ~0u;
constexpr std::uint32_t kSortTile = 512;   // draw_sort.comp's shared-memory tile
constexpr std::uint32_t kSortGroup = 256;  // and its workgroup

std::uint32_t bitsOf(float f) {
  return std::bit_cast<std::uint32_t>(f);
}

// A channel's first particle word, or kNone where the emitter has no such channel (as
// RenderPacketBuilder binds it: absent when it would run past the particle's words).
std::uint32_t channelWord(std::int32_t first, std::uint32_t width, std::uint32_t words) {
  if (first < 0 || static_cast<std::uint32_t>(first) + width > words) return kNone;
  return static_cast<std::uint32_t>(first);
}

}  // namespace

Status Renderer::render(ParticleWorld& world, const render::Camera& camera, render::Image& out) {
  return impl_->renderPool(*this, world, camera, out);
}

bool Renderer::drewInPlace() const noexcept {
  return impl_->inPlace;
}

std::string_view Renderer::readBackReason() const noexcept {
  return impl_->readBackReason;
}

// Each row's block, as drawPacketFrame() decides per packet; false where a live row draws in a way
// this path does not (ribbons, beams, meshes).
Result<bool> Renderer::Impl::poolRows(Renderer& owner, const ParticleWorld& world) {
  const ParticleWorld::Impl& w = world.impl();
  const mote::ParticleWorld::Impl& model = *w.model;
  // The packets' order: the emitters by sort order, ties in the world's order.
  rankedRows.assign(model.order.begin(), model.order.end());
  std::stable_sort(rankedRows.begin(), rankedRows.end(), [&](std::uint32_t a, std::uint32_t b) {
    return model.rows[a].desc->render.sortOrder < model.rows[b].desc->render.sortOrder;
  });
  poolWords.assign(kDrawHeaderWords + std::size_t{w.rowCount} * kDrawRowWords, 0u);
  for (std::uint32_t rank = 0; rank < rankedRows.size(); ++rank) {
    const std::uint32_t row = rankedRows[rank];
    if (row >= w.rowCount) continue;
    const runtime_detail::EmitterRow& r = model.rows[row];
    const bytecode::CompiledEmitter& e = *r.desc;
    const bytecode::RenderMode mode = e.render.mode;
    const bytecode::CompiledMaterial* m = nullptr;
    const auto& materials = model.effects[r.effect].effect->materials;
    if (e.material >= 0 && static_cast<std::size_t>(e.material) < materials.size())
      m = &materials[static_cast<std::size_t>(e.material)];
    const bytecode::BlendMode blend = m != nullptr ? m->blend : bytecode::BlendMode::Alpha;
    if (mode == bytecode::RenderMode::LinkedChain || mode == bytecode::RenderMode::Beam ||
        mode == bytecode::RenderMode::Mesh) {
      readBackReason = fmt::format("emitter '{}' draws {}", e.name,
                                   mode == bytecode::RenderMode::Mesh   ? "mesh particles"
                                   : mode == bytecode::RenderMode::Beam ? "beams"
                                                                        : "linked chains");
      return false;
    }
    // render::litSprites: lit in the vertex stage (sprite_lighting.glsl).
    const bool lit = m != nullptr && m->lit && blend != bytecode::BlendMode::Additive;
    const std::uint32_t words = r.words;
    std::uint32_t* b = poolWords.data() + kDrawHeaderWords + std::size_t{row} * kDrawRowWords;
    const bytecode::ParticleChannels& ch = e.channels;
    const std::uint32_t position = channelWord(ch.position, 3, words);
    if (position == kNone) continue;  // nothing to draw (no packet's particles either)
    Result<std::uint32_t> texture = textureNamed(
        owner, m == nullptr || m->texture.empty() ? std::string_view("builtin:soft_circle")
                                                  : std::string_view(m->texture));
    if (!texture.ok()) return texture.status();
    const auto billboard = static_cast<render::BillboardMode>(
        std::min<int>(static_cast<int>(mode), render::kBillboardModeCount - 1));
    const std::uint32_t orientation = channelWord(ch.orientation, 4, words);
    // render::cullsBackCards, for a packet with or without an orientation channel.
    const bool cullBack =
        !(m != nullptr && m->doubleSided) &&
        (billboard == render::BillboardMode::Horizontal ||
         billboard == render::BillboardMode::FacingWorld ||
         billboard == render::BillboardMode::BillboardLocalZ ||
         billboard == render::BillboardMode::BillboardWorldZ || orientation != kNone);
    // The sheet (RenderPacketBuilder's: a built-in sprite is one picture).
    std::uint32_t columns = 1, sheetRows = 1, frameBegin = 0;
    bool frameBlend = false;
    if (m != nullptr && !m->texture.empty() && !m->texture.starts_with(kBuiltinSpriteUriPrefix)) {
      columns = std::max(1u, m->columns);
      sheetRows = std::max(1u, m->rows);
      frameBegin = m->frameBegin;
      frameBlend = m->frameBlend;
    }
    bytecode::ParticleSort sort = e.render.sort;
    if (sort == bytecode::ParticleSort::Auto)
      sort = blend == bytecode::BlendMode::Additive ? bytecode::ParticleSort::None
                                                    : bytecode::ParticleSort::BackToFront;
    const bool deadspace =
        mode == bytecode::RenderMode::VelocityAligned && e.render.deadspaceRadians > 0.0f;
    b[kRowDrawFlags] = kRowDrawn | (bytecode::movesWithEmitter(e.space) ? kRowLocal : 0u) |
                       (blend == bytecode::BlendMode::Additive ? kRowAdditive : 0u) |
                       (blend == bytecode::BlendMode::Cutout ? kRowCutout : 0u) |
                       (cullBack ? kRowCullBack : 0u) | (frameBlend ? kRowFrameBlend : 0u) |
                       (deadspace ? kRowDeadspace : 0u) | (lit ? kRowLit : 0u);
    b[kRowDrawGeneration] = w.rowGeneration[row];
    b[kRowDrawRank] = rank;
    b[kRowDrawSort] = static_cast<std::uint32_t>(sort);
    b[kRowDrawMode] = static_cast<std::uint32_t>(billboard);
    b[kRowDrawTexture] = texture.value();
    const std::array<std::uint32_t, 7> channels{position,
                                                channelWord(ch.velocity, 3, words),
                                                channelWord(ch.size, 2, words),
                                                channelWord(ch.color, 4, words),
                                                orientation,
                                                channelWord(ch.rotation, 1, words),
                                                channelWord(ch.frame, 1, words)};
    std::copy(channels.begin(), channels.end(), b + kRowDrawChannels);
    b[kRowDrawColumns] = columns;
    b[kRowDrawSheetRows] = sheetRows;
    b[kRowDrawFrameBegin] = frameBegin;
    b[kRowDrawCutoff] = bitsOf(m != nullptr ? m->alphaCutoff : 0.5f);
    b[kRowDrawSoftInverse] = bitsOf(desc.ground && m != nullptr && m->softDistanceMeters > 0.0f
                                        ? 1.0f / m->softDistanceMeters
                                        : 0.0f);
    b[kRowDrawStretchScale] = bitsOf(e.render.stretchScaleSeconds);
    b[kRowDrawCosDeadspace] = bitsOf(deadspace ? std::cos(e.render.deadspaceRadians) : 0.0f);
    const bool tinted = m != nullptr && m->ambientTint;
    for (std::uint32_t c = 0; c < 3; ++c) {
      b[kRowDrawTint + c] = bitsOf(tinted ? desc.lighting.ambient[c] : 1.0f);
      b[kRowDrawEmitterPosition + c] = bitsOf(r.world.position[c]);
    }
    for (std::uint32_t c = 0; c < 4; ++c)
      b[kRowDrawEmitterRotation + c] = bitsOf(r.world.rotation[c]);
  }
  return true;
}

// The kernels' sets, made again when a buffer they point at has changed (the renderer's grown,
// another world's).
Status Renderer::Impl::bindPool(const ParticleWorld& world) {
  const ParticleWorld::Impl& w = world.impl();
  Context::Impl& c = context->impl();
  if (poolKernel == nullptr) {
    Result<Kernel*> made = c.kernel(*context, "draw_pool", drawPoolShader(), 6, 12, 0);
    if (!made.ok()) return made.status();
    poolKernel = made.value();
    Result<Kernel*> sort = c.kernel(*context, "draw_sort", drawSortShader(), 1, 20, 0);
    if (!sort.ok()) return sort.status();
    sortKernel = sort.value();
  }
  const std::array<VkBuffer, 6> bound{drawWords.handle(),  w.records.handle(), w.alive.handle(),
                                      w.counters.handle(), sortKeys.handle(),  instances.handle()};
  if (bound != poolBound) {
    MOTE_RETURN_IF_ERROR(take(poolKernel->bindings({&drawWords, &w.records, &w.alive, &w.counters,
                                                    &sortKeys, &instances}),
                              poolSet));
    poolBound = bound;
  }
  if (sortKeys.handle() != sortBound) {
    MOTE_RETURN_IF_ERROR(take(sortKernel->bindings({&sortKeys}), sortSet));
    sortBound = sortKeys.handle();
  }
  return {};
}

Status Renderer::Impl::renderPool(Renderer& owner, ParticleWorld& world,
                                  const render::Camera& camera, render::Image& out) {
  inPlace = false;
  readBackReason.clear();
  MOTE_RETURN_IF_ERROR(camera.validate());
  ParticleWorld::Impl& w = world.impl();
  if (w.context != context)
    return Status(StatusCode::InvalidArgument,
                  "Renderer::render: the GPU world is on another Context than the renderer; draw "
                  "it with a renderer made on the world's Context");
  MOTE_RETURN_IF_ERROR(w.healthy());
  Result<bool> rows = poolRows(owner, world);
  if (!rows.ok()) return rows.status();
  if (!rows.value()) {  // an emitter this path does not draw: the particles read back
    MOTE_RETURN_IF_ERROR(world.readParticles());
    return renderWorld(owner, world.host(), camera, out, nullptr);
  }
  const glm::mat4 viewProjection = camera.projectionMatrix() * camera.viewMatrix();
  std::uint32_t* h = poolWords.data();
  for (glm::length_t col = 0; col < 4; ++col)
    for (glm::length_t k = 0; k < 4; ++k)
      h[kDrawViewProjection + static_cast<std::uint32_t>(4 * col + k)] =
          bitsOf(viewProjection[col][k]);
  for (glm::length_t c = 0; c < 3; ++c) {
    h[kDrawEye + static_cast<std::uint32_t>(c)] = bitsOf(camera.position[c]);
    h[kDrawForward + static_cast<std::uint32_t>(c)] = bitsOf(camera.forward[c]);
  }
  h[kDrawPerspective] = camera.projection == render::Projection::Perspective ? 1u : 0u;
  h[kDrawHalfHeight] = bitsOf(camera.halfHeightExtent());
  h[kDrawNear] = bitsOf(camera.nearZ);
  h[kDrawTransparency] = desc.transparency == render::Transparency::Sorted ? 1u
                         : desc.transparency == render::Transparency::Oit  ? 2u
                                                                           : 0u;
  h[kDrawRows] = w.rowCount;
  h[kDrawStride] = w.stride;
  const WorldBuffers buffers = world.buffers();
  h[kDrawAliveAt] = static_cast<std::uint32_t>(buffers.aliveOffset / 4);
  h[kDrawAliveCount] = static_cast<std::uint32_t>(buffers.aliveCountOffset / 4);

  // The sort's length: the pool's capacity rounded up to a power of two (never a readback).
  const std::uint32_t entries = std::bit_ceil(std::max(w.capacity, 2u));
  triangleWords.clear();
  triangleWrites.clear();
  putFrame(camera, nullptr);
  MOTE_RETURN_IF_ERROR(ensure(instances, std::size_t{w.capacity} * kInstanceWords,
                              "the GPU renderer's instances (the GPU world's pool)"));
  MOTE_RETURN_IF_ERROR(ensure(corners, 0, "the GPU renderer's corner colours"));
  MOTE_RETURN_IF_ERROR(uploadFrame());
  MOTE_RETURN_IF_ERROR(ensure(drawWords, poolWords.size(), "the GPU renderer's emitter blocks"));
  MOTE_RETURN_IF_ERROR(ensure(sortKeys, std::size_t{entries} * kSortWords,
                              "the GPU renderer's sort keys (the GPU world's pool)"));
  MOTE_RETURN_IF_ERROR(drawWords.upload(poolWords));
  MOTE_RETURN_IF_ERROR(bindPool(world));
  writeSet();

  const std::uint32_t maxGroups = std::max(1u, context->device().maxComputeWorkGroupCount[0]);
  const auto groups = [&](std::uint32_t n) {
    return std::min((n + frame::kGroup - 1) / frame::kGroup, maxGroups);
  };
  const IndirectDraw draw{buffers.counters, buffers.drawArgsOffset};
  MOTE_RETURN_IF_ERROR(context->impl().submit([&](VkCommandBuffer cmd) {
    startClock(cmd);
    // The world's frame (an earlier submission) and the uploads before the passes read them.
    memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    const std::uint32_t keyGroups = groups(entries);
    const std::uint32_t keysPush[] = {0, entries, keyGroups * frame::kGroup};
    poolKernel->record(cmd, poolSet, keysPush, keyGroups);
    // The bitonic sort (draw_sort.comp): tiles sorted in shared memory, then for each larger
    // block size its steps past the tile over the whole length and its last ones in the tiles.
    const std::uint32_t tile = std::min(entries, kSortTile);
    const std::uint32_t tiles = std::min(entries / tile, maxGroups);
    const std::uint32_t stepGroups = std::min(entries / 2 / kSortGroup + 1, maxGroups);
    const std::uint32_t sortLocal[] = {entries, 0, 0, 0, 1};
    sortKernel->record(cmd, sortSet, sortLocal, tiles);
    for (std::uint32_t k = 2 * tile; k <= entries; k *= 2) {
      for (std::uint32_t j = k / 2; j >= tile; j /= 2) {
        const std::uint32_t step[] = {entries, k, j, stepGroups * kSortGroup, 0};
        sortKernel->record(cmd, sortSet, step, stepGroups);
      }
      const std::uint32_t merge[] = {entries, k, 0, 0, 1};
      sortKernel->record(cmd, sortSet, merge, tiles);
    }
    const std::uint32_t instanceGroups = groups(w.capacity);
    const std::uint32_t instancesPush[] = {1, w.capacity, instanceGroups * frame::kGroup};
    poolKernel->record(cmd, poolSet, instancesPush, instanceGroups);
    memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                  VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
    record(cmd, {}, &draw);
  }));
  readClock();
  readFrame(linear);
  inPlace = true;
  return resolver->resolve(linear, out);
}

}  // namespace mote::gpu
