// SPDX-License-Identifier: MIT
// gpu::ParticleWorld's public API: the host model (a mote::ParticleWorld run with this world as its
// particle backend) does the bookkeeping; what reaches the device goes through world_frame.cpp.
#include "gpu_world.h"

#include <mote/gpu/vm_cases.h>
#include <mote/gpu/vulkan.h>

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>

namespace mote::gpu {

using bytecode::CompiledEffect;
using bytecode::CompiledEmitter;

WorldDesc worldDescFor(const CompiledEffect& effect) noexcept {
  WorldDesc desc;
  desc.host = mote::worldDescFor(effect);
  std::uint32_t words = 1;
  std::uint32_t context = frame::kBuiltinWords;
  std::uint64_t program = 0;
  std::uint64_t requests = 0;
  for (const CompiledEmitter& e : effect.emitters) {
    requests += std::uint64_t{e.maxParticles} * e.program.spawnOps();
    words = std::max(words, e.program.particleWords);
    context = std::max(context, frame::kBuiltinWords + e.program.emitterWords +
                                    4 * static_cast<std::uint32_t>(e.program.globals.size()));
    program += e.program.init.size() + e.program.update.size() + 4 * e.program.constants.size();
  }
  desc.maxParticleWords = words;
  desc.maxContextWords = context;
  desc.maxProgramWords =
      static_cast<std::uint32_t>(std::clamp<std::uint64_t>(program, 1, std::uint64_t{1} << 28));
  desc.maxSpawnRequests =
      static_cast<std::uint32_t>(std::clamp<std::uint64_t>(requests, 1, std::uint64_t{1} << 26));
  return desc;
}

Status ParticleWorld::Impl::admit(const CompiledEffect& effect) {
  MOTE_RETURN_IF_ERROR(healthy());
  std::uint64_t programWordsNeeded = programWords.size();
  std::uint64_t requestsNeeded = 0;
  for (const runtime_detail::EmitterRow& r : model->rows)
    if (r.alive) requestsNeeded += std::uint64_t{r.capacity} * r.program->spawnOps;
  bool needsWide = false;
  if (effect.emitters.size() > 0xffff) {
    return invalidArgument(
        fmt::format("addEffect: '{}' has {} emitters; the GPU world's keys hold "
                    "65535",
                    effect.name, effect.emitters.size()));
  }
  for (const CompiledEmitter& e : effect.emitters) {
    const bytecode::Program& p = e.program;
    const std::string where = fmt::format("addEffect: '{}' emitter '{}': ", effect.name, e.name);
    if (p.particleWords > desc.maxParticleWords) {
      return invalidArgument(
          fmt::format("{}{} particle words; the GPU world's pool holds {} "
                      "(WorldDesc::maxParticleWords)",
                      where, p.particleWords, desc.maxParticleWords));
    }
    const std::uint32_t contextWords =
        frame::kBuiltinWords + p.emitterWords + 4 * static_cast<std::uint32_t>(p.globals.size());
    if (contextWords > desc.maxContextWords) {
      return invalidArgument(
          fmt::format("{}a context of {} words (builtins, emitter words and "
                      "globals); the GPU world holds {} "
                      "(WorldDesc::maxContextWords)",
                      where, contextWords, desc.maxContextWords));
    }
    // What only the CPU runtime runs.
    static constexpr std::pair<bytecode::Opcode, std::string_view> kCpuOnly[] = {
        {bytecode::Opcode::Collide,
         "it collides with the host's world (COLLIDE, a collider of kind 'host'), which only the "
         "CPU runtime asks"},
        {bytecode::Opcode::Report,
         "it reports particle events to the host (REPORT: an event's 'report', a graph's report "
         "node), which only the CPU runtime's event buffer takes"},
        {bytecode::Opcode::Trail,
         "its particles lay a trail (TRAIL: an emitter's spawn.source names it), which only the "
         "CPU runtime keeps source ids for"}};
    for (const auto& [opcode, why] : kCpuOnly)
      if (p.countOf(opcode) > 0)
        return invalidArgument(fmt::format("{}{}; simulate it on the CPU", where, why));
    requestsNeeded += std::uint64_t{e.maxParticles} * p.spawnOps();
    if (findProgram(p, bytecode::contentHash(p)) == programSlots.size())
      programWordsNeeded += p.init.size() + p.update.size() + 4 * p.constants.size();
    needsWide = needsWide || p.registerCount > kFastRegisterSlots;
  }
  if (programWordsNeeded > desc.maxProgramWords) {
    return budgetExhausted(
        fmt::format("addEffect: '{}': the programs need {} words; the GPU world "
                    "holds {} (WorldDesc::maxProgramWords)",
                    effect.name, programWordsNeeded, desc.maxProgramWords));
  }
  if (requestsNeeded > desc.maxSpawnRequests) {
    return budgetExhausted(
        fmt::format("addEffect: '{}': the live emitters' SPAWN requests (capacity "
                    "× SPAWN instructions) come to {}; the GPU world holds {} "
                    "(WorldDesc::maxSpawnRequests)",
                    effect.name, requestsNeeded, desc.maxSpawnRequests));
  }
  if (needsWide) MOTE_RETURN_IF_ERROR(useWideFile());
  return {};
}

ParticleWorld::ParticleWorld(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ParticleWorld::~ParticleWorld() = default;

Result<std::unique_ptr<ParticleWorld>> ParticleWorld::create(Context& context,
                                                             const WorldDesc& desc) {
  MOTE_RETURN_IF_ERROR(context.health());
  if (desc.maxParticleWords == 0 || desc.maxParticleWords > bytecode::kMaxParticleWords ||
      desc.maxSpawnCalls == 0 || desc.maxContextWords < frame::kBuiltinWords ||
      desc.maxProgramWords == 0) {
    return invalidArgument(fmt::format(
        "gpu::WorldDesc: maxParticleWords must be in [1, {}], maxSpawnCalls and maxProgramWords "
        "at least 1, maxContextWords at least {}",
        bytecode::kMaxParticleWords, frame::kBuiltinWords));
  }
  if (desc.host.maxParticles > (1u << 26) || desc.host.maxEffects > 0xffff ||
      desc.maxSpawnRequests == 0 || desc.maxSpawnRequests > (1u << 26)) {
    return invalidArgument(
        "gpu::WorldDesc: maxParticles and maxSpawnRequests are in [1, 2^26] on the GPU, "
        "maxEffects at most 65535");
  }
  if (!context.device().subgroupBallot) {
    return Status(StatusCode::Unavailable,
                  fmt::format("the GPU world needs subgroup ballot operations in compute shaders, "
                              "which '{}' does not offer",
                              context.device().name));
  }
  auto impl = std::make_unique<Impl>();
  impl->context = &context;
  impl->desc = desc;
  mote::WorldDesc host = desc.host;
  host.jobs = nullptr;
  Result<std::unique_ptr<mote::ParticleWorld>> world =
      runtime_detail::WorldAccess::create(host, impl.get());
  if (!world.ok()) return std::move(world).status();
  impl->host = std::move(world).takeValue();
  impl->model = &runtime_detail::WorldAccess::impl(*impl->host);
  MOTE_RETURN_IF_ERROR(impl->createBuffers());
  if (desc.wideRegisterFile) MOTE_RETURN_IF_ERROR(impl->useWideFile());
  return std::unique_ptr<ParticleWorld>(new ParticleWorld(std::move(impl)));
}

Result<EffectHandle> ParticleWorld::addEffect(const CompiledEffect& effect,
                                              const EffectOptions& options) {
  MOTE_RETURN_IF_ERROR(impl_->healthy());
  Result<EffectHandle> placed = impl_->host->addEffect(effect, options);
  MOTE_RETURN_IF_ERROR(impl_->healthy());  // prewarm ran on the device
  return placed;
}

Status ParticleWorld::removeEffect(EffectHandle effect) {
  MOTE_RETURN_IF_ERROR(impl_->healthy());
  return impl_->host->removeEffect(effect);
}

Status ParticleWorld::removeEmitter(EmitterHandle emitter) {
  MOTE_RETURN_IF_ERROR(impl_->healthy());
  return impl_->host->removeEmitter(emitter);
}

EmitterHandle ParticleWorld::emitter(EffectHandle effect, std::uint32_t index) const noexcept {
  return impl_->host->emitter(effect, index);
}

Result<EmitterHandle> ParticleWorld::findEmitter(EffectHandle effect, std::string_view name) const {
  return impl_->host->findEmitter(effect, name);
}

Status ParticleWorld::setTransform(EffectHandle effect, const Transform& transform) {
  MOTE_RETURN_IF_ERROR(impl_->healthy());
  return impl_->host->setTransform(effect, transform);
}

Status ParticleWorld::setEmitterField(EmitterHandle emitter, std::string_view name,
                                      std::span<const float> value) {
  MOTE_RETURN_IF_ERROR(impl_->healthy());
  return impl_->host->setEmitterField(emitter, name, value);
}

Status ParticleWorld::bindEmitterField(EmitterHandle emitter, std::string_view name,
                                       EffectHandle source) {
  MOTE_RETURN_IF_ERROR(impl_->healthy());
  return impl_->host->bindEmitterField(emitter, name, source);
}

Status ParticleWorld::setGlobal(std::string_view name, std::span<const float> value) {
  MOTE_RETURN_IF_ERROR(impl_->healthy());
  return impl_->host->setGlobal(name, value);
}

Status ParticleWorld::setWind(const std::array<float, 3>& wind) {
  MOTE_RETURN_IF_ERROR(impl_->healthy());
  impl_->wind = wind;
  return {};
}

Result<std::uint32_t> ParticleWorld::trigger(EffectHandle effect, std::string_view name) {
  MOTE_RETURN_IF_ERROR(impl_->healthy());
  return impl_->host->trigger(effect, name);
}

Status ParticleWorld::restart(EffectHandle effect) {
  MOTE_RETURN_IF_ERROR(impl_->healthy());
  MOTE_RETURN_IF_ERROR(impl_->host->restart(effect));
  return impl_->healthy();
}

Status ParticleWorld::seek(EffectHandle effect, float seconds) {
  MOTE_RETURN_IF_ERROR(impl_->healthy());
  MOTE_RETURN_IF_ERROR(impl_->host->seek(effect, seconds));
  return impl_->healthy();
}

Status ParticleWorld::tick(float dt, const VisibilityTest* view) {
  MOTE_RETURN_IF_ERROR(impl_->healthy());
  impl_->takeFrame();  // a recorded frame's, now that the host has seen it complete
  impl_->host->tick(dt, view);
  return impl_->healthy();
}

Status ParticleWorld::recordTick(float dt, VkCommandBuffer_T* commands,
                                 const VisibilityTest* view) {
  MOTE_RETURN_IF_ERROR(impl_->healthy());
  if (commands == nullptr) return invalidArgument("recordTick: no command buffer");
  impl_->takeFrame();
  impl_->hostCommands = commands;
  impl_->host->tick(dt, view);
  impl_->hostCommands = VK_NULL_HANDLE;
  return impl_->healthy();
}

WorldBuffers ParticleWorld::buffers() const noexcept {
  const Impl& w = *impl_;
  WorldBuffers b;
  b.pool = w.records.handle();
  b.recordWords = w.stride;
  b.headerWords = frame::kHeaderWords;
  b.alive = w.alive.handle();
  b.aliveOffset = VkDeviceSize{w.parity} * w.capacity * 4;  // the half the last frame appended to
  b.counters = w.counters.handle();
  b.aliveCountOffset = VkDeviceSize{w.parity == 0 ? frame::kAlive0 : frame::kAlive1} * 4;
  b.drawArgsOffset = VkDeviceSize{frame::kDrawArgs} * 4;
  b.bounds = w.published.handle();
  return b;
}

Result<WorldStats> ParticleWorld::readStats() {
  MOTE_RETURN_IF_ERROR(impl_->healthy());
  impl_->takeFrame();
  impl_->syncStats();
  return impl_->model->stats;
}

Status ParticleWorld::readParticles() {
  MOTE_RETURN_IF_ERROR(impl_->healthy());
  impl_->takeFrame();
  return impl_->syncParticles();
}

const mote::ParticleWorld& ParticleWorld::host() const noexcept {
  return *impl_->host;
}

Mode ParticleWorld::mode() const noexcept {
  return impl_->context->selfTest().mode;
}

}  // namespace mote::gpu
