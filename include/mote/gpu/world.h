// SPDX-License-Identifier: MIT
// gpu::ParticleWorld: ParticleWorld's contract (include/mote/runtime/world.h) with the particles
// on a Vulkan device (docs/gpu.md, "The frame"). The host keeps what is O(emitters) — effects and
// their handles, each emitter's emission schedule (mote/runtime/emission.h, the CPU world's own
// code), transforms, fields and globals — and uploads it each step; spawning, INIT, UPDATE, deaths
// and the pool are the GPU's, and no pass is sized from a readback. In exact mode (Context::
// selfTest()) the particles are the CPU world's bit for bit: hash both in id order to compare.
//
// Not yet on the GPU (the docs say what differs): a host wind other than a uniform one.
//
// Ownership: borrows the Context, which must outlive the world. Thread safety: one thread drives a
// world. Allocation: create() and addEffect() allocate host and device memory; tick() allocates
// nothing on the host beyond the Context's command buffers; readParticles() fills the host copy.
#pragma once

#include <mote/bytecode/compiled_effect.h>
#include <mote/core/status.h>
#include <mote/gpu/context.h>
#include <mote/runtime/world.h>

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

struct VkCommandBuffer_T;  // <vulkan/vulkan_core.h>'s: VkCommandBuffer is a pointer to it

namespace mote::gpu {

struct WorldBuffers;  // <mote/gpu/vulkan.h>

struct WorldDesc {
  /// Effects, emitters, particles (the pool's slots: the sum of the live emitters' capacities) and
  /// globals, as on the CPU (chunkParticles and jobs are not used).
  mote::WorldDesc host;
  std::uint32_t maxParticleWords = 64;  ///< words per particle: the pool's stride is this + 3
  std::uint32_t maxSpawnCalls = 8192;   ///< spawn calls in one step, all emitters together
  /// Words of one emitter's context: 44 of builtins, its emitter words, 4 per global import.
  std::uint32_t maxContextWords = 512;
  std::uint32_t maxProgramWords = 1u << 20;  ///< the programs' code and constants, all together
  /// SPAWN requests one step can hold: the sum over the live emitters of capacity × the SPAWN
  /// instructions of its program (the most they can ask for), so none is ever dropped.
  std::uint32_t maxSpawnRequests = 1u << 16;
  /// Run every program with the register file in a storage buffer — the fallback the world picks
  /// by itself once a program needs more than 64 registers — from the start (tests use it to check
  /// the fallback on effects that would not need it).
  bool wideRegisterFile = false;
};

/// Capacities for exactly one instance of `effect`. O(emitters).
WorldDesc worldDescFor(const bytecode::CompiledEffect& effect) noexcept;

class ParticleWorld {
 public:
  /// A world on `context`'s device. InvalidArgument for capacities the CPU world refuses or that
  /// are zero; Unavailable on a device without subgroup ballot in compute shaders; OutOfMemory
  /// naming the buffer that did not fit (the pool: maxParticles × (maxParticleWords + 3) words,
  /// within the device's maxStorageBufferRange); the context's DeviceLost once its device is lost.
  static Result<std::unique_ptr<ParticleWorld>> create(Context& context, const WorldDesc& desc);
  ~ParticleWorld();
  ParticleWorld(const ParticleWorld&) = delete;
  ParticleWorld& operator=(const ParticleWorld&) = delete;

  /// As mote::ParticleWorld::addEffect (prewarm runs on the GPU); also InvalidArgument for more
  /// particle or context words than the desc allows, BudgetExhausted past maxProgramWords or
  /// maxSpawnRequests, OutOfMemory for the wide register file.
  Result<EffectHandle> addEffect(const bytecode::CompiledEffect& effect,
                                 const EffectOptions& options = {});
  Status removeEffect(EffectHandle effect);
  Status removeEmitter(EmitterHandle emitter);
  EmitterHandle emitter(EffectHandle effect, std::uint32_t index) const noexcept;
  Result<EmitterHandle> findEmitter(EffectHandle effect, std::string_view name) const;
  Status setTransform(EffectHandle effect, const Transform& transform);
  Status setEmitterField(EmitterHandle emitter, std::string_view name,
                         std::span<const float> value);
  Status bindEmitterField(EmitterHandle emitter, std::string_view name, EffectHandle source);
  Status setGlobal(std::string_view name, std::span<const float> value);
  /// The wind SAMPLE_WIND reads: one velocity everywhere (m/s; zero, still air, by default). The
  /// CPU world given a WindField that returns this everywhere computes the same.
  Status setWind(const std::array<float, 3>& wind);
  Result<std::uint32_t> trigger(EffectHandle effect, std::string_view name);
  Status restart(EffectHandle effect);
  Status seek(EffectHandle effect, float seconds);

  /// One step of dt (clamped as the CPU world clamps it) on the GPU: one submission, which copies
  /// the emitters' step data in, runs the frame and copies its counters and boxes out. With
  /// `view`, an emitter with `cull` whose box — measured on the GPU by the last frame — `view`
  /// finds invisible sleeps and spawns nothing, and wakes with at most max_catchup_seconds of
  /// catch-up: the CPU world's culling on the same box, so a culled run keeps the CPU's state.
  /// The device's errors (DeviceLost, a hang past the context's timeout) come back here and from
  /// every later call.
  Status tick(float dt, const VisibilityTest* view = nullptr);
  /// tick(), recorded into the host's `commands` (a primary command buffer of the context's queue
  /// family, in the recording state) instead of submitted: the host submits it, and it must have
  /// completed before the next call on this world (the world's staging and outbox are single —
  /// one frame in flight). The recording begins with a barrier from earlier compute work to its
  /// transfers and ends with its copies made visible to the host; a host that reads the world's
  /// buffers in its own commands after it (buffers()) records a barrier from
  /// VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT / VK_ACCESS_SHADER_WRITE_BIT to its stage and access
  /// (VK_ACCESS_INDIRECT_COMMAND_READ_BIT for the draw arguments). Steps the host model runs
  /// outside a tick (prewarm in addEffect, restart, seek) are submitted by the world itself.
  Status recordTick(float dt, VkCommandBuffer_T* commands, const VisibilityTest* view = nullptr);
  /// The buffers a host's renderer reads (<mote/gpu/vulkan.h>), as the last frame left them.
  WorldBuffers buffers() const noexcept;

  /// meep's read_stats: the counters (live, spawned, dropped, died, culled per emitter and in
  /// total) and each emitter's box, as the last frame copied them out, and that frame's time on
  /// the GPU's clock as simulateSeconds (0 where the queue writes no timestamps); no device work.
  /// Fills host()'s stats and emitterStats(); particles are not copied.
  Result<WorldStats> readStats();
  /// Streams every particle back into host(): its views, emitterStats() and stateHash() are then
  /// the GPU's state (particles in each emitter in id order, so HashOrder::Id and Storage agree).
  /// Reads the whole pool: for tests, tools and the software renderer, not for every frame.
  Status readParticles();

  /// The host model: handles, emitters(), views and the state hash as of the last readParticles().
  const mote::ParticleWorld& host() const noexcept;
  /// Exact or fast, as the context's self-test chose.
  Mode mode() const noexcept;

  struct Impl;
  /// mote_gpu's own access (the GPU renderer draws the pool through it).
  Impl& impl() noexcept { return *impl_; }
  const Impl& impl() const noexcept { return *impl_; }

 private:
  explicit ParticleWorld(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mote::gpu
