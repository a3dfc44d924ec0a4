// SPDX-License-Identifier: MIT
// One effect simulated for the CLI (mote run, hash, render): in a CPU ParticleWorld, or with --gpu
// in a gpu::ParticleWorld whose particles are read back into its host model when a command needs
// them. The commands use one interface for both.
#pragma once

#include <mote/bytecode/compiled_effect.h>
#include <mote/core/job_system.h>
#include <mote/core/status.h>
#include <mote/runtime/world.h>

#include <memory>

namespace mote::gpu {
class Context;
class ParticleWorld;
}  // namespace mote::gpu

namespace mote::cli {

class Simulation {
 public:
  virtual ~Simulation() = default;
  /// One tick; the GPU's errors (a lost device, a hang) come back here.
  virtual Status tick(float dt) = 0;
  virtual Status setTransform(EffectHandle effect, const Transform& transform) = 0;
  virtual Status restart(EffectHandle effect) = 0;
  /// The world's stats after the last tick (a small readback on the GPU).
  virtual Result<WorldStats> stats() = 0;
  /// The world with every particle, for views, the state hash and drawing (on the GPU, the
  /// particles read back into the host model).
  virtual Result<const ParticleWorld*> world() = 0;
  /// Seconds spent simulating so far.
  virtual double simulateSeconds() const = 0;
  /// The Vulkan context a GPU simulation runs on (for the GPU renderer to draw on the same
  /// device); null for the CPU world.
  virtual gpu::Context* gpuContext() noexcept { return nullptr; }
  /// The GPU world itself (for the GPU renderer to draw its pool in place); null for the CPU world.
  virtual gpu::ParticleWorld* gpuWorld() noexcept { return nullptr; }
};

struct PlaceOptions {
  bool gpu = false;           ///< --gpu: a Vulkan device (MOTE_GPU_DEVICE picks one)
  JobSystem* jobs = nullptr;  ///< the CPU world's workers (borrowed)
  std::uint64_t seed = 0;     ///< EffectOptions::seed
  Transform transform;        ///< where the effect starts
  /// The world colliders of kind "host" ask (borrowed; must outlive the simulation). The CPU
  /// world's only: with gpu, an error.
  const bytecode::CollisionProvider* collision = nullptr;
};

/// `effect` placed in a world of its own sized for it. The error says what failed (no GPU in this
/// build or on this machine, a capacity, an effect the GPU world does not run).
Result<std::unique_ptr<Simulation>> placeEffect(const bytecode::CompiledEffect& effect,
                                                const PlaceOptions& options, EffectHandle& placed);

}  // namespace mote::cli
