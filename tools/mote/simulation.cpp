// SPDX-License-Identifier: MIT
#include "simulation.h"

#if MOTE_HAVE_GPU
#include <mote/gpu/context.h>
#include <mote/gpu/world.h>
#endif

#include <chrono>

namespace mote::cli {
namespace {

class CpuSimulation final : public Simulation {
 public:
  explicit CpuSimulation(std::unique_ptr<ParticleWorld> world) : world_(std::move(world)) {}
  Status tick(float dt) override {
    world_->tick(dt);
    const WorldStats& s = world_->stats();
    seconds_ += s.emitSeconds + s.simulateSeconds + s.compactSeconds;
    return {};
  }
  Status setTransform(EffectHandle effect, const Transform& transform) override {
    return world_->setTransform(effect, transform);
  }
  Status restart(EffectHandle effect) override { return world_->restart(effect); }
  Result<WorldStats> stats() override { return world_->stats(); }
  Result<const ParticleWorld*> world() override { return world_.get(); }
  double simulateSeconds() const override { return seconds_; }

 private:
  std::unique_ptr<ParticleWorld> world_;
  double seconds_ = 0.0;
};

#if MOTE_HAVE_GPU
class GpuSimulation final : public Simulation {
 public:
  GpuSimulation(std::unique_ptr<gpu::Context> context, std::unique_ptr<gpu::ParticleWorld> world)
      : context_(std::move(context)), world_(std::move(world)) {}
  Status tick(float dt) override {
    const auto t0 = std::chrono::steady_clock::now();
    Status s = world_->tick(dt);
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return s;
  }
  Status setTransform(EffectHandle effect, const Transform& transform) override {
    return world_->setTransform(effect, transform);
  }
  Status restart(EffectHandle effect) override { return world_->restart(effect); }
  Result<WorldStats> stats() override { return world_->readStats(); }
  Result<const ParticleWorld*> world() override {
    MOTE_RETURN_IF_ERROR(world_->readParticles());
    return &world_->host();
  }
  double simulateSeconds() const override { return seconds_; }
  gpu::Context* gpuContext() noexcept override { return context_.get(); }
  gpu::ParticleWorld* gpuWorld() noexcept override { return world_.get(); }

 private:
  std::unique_ptr<gpu::Context> context_;  // outlives the world (declared first)
  std::unique_ptr<gpu::ParticleWorld> world_;
  double seconds_ = 0.0;
};
#endif

}  // namespace

Result<std::unique_ptr<Simulation>> placeEffect(const bytecode::CompiledEffect& effect,
                                                const PlaceOptions& options, EffectHandle& placed) {
  EffectOptions effectOptions;
  effectOptions.seed = options.seed;
  effectOptions.transform = options.transform;
  if (options.gpu && options.collision != nullptr) {
    return invalidArgument(
        "--heightfield and --sdf give the CPU world a host world to collide with; the GPU world "
        "has none");
  }
  if (options.gpu) {
#if MOTE_HAVE_GPU
    Result<std::unique_ptr<gpu::Context>> context = gpu::Context::create();
    if (!context.ok()) return context.status();
    Result<std::unique_ptr<gpu::ParticleWorld>> world =
        gpu::ParticleWorld::create(**context, gpu::worldDescFor(effect));
    if (!world.ok()) return world.status();
    Result<EffectHandle> h = (*world)->addEffect(effect, effectOptions);
    if (!h.ok()) return h.status();
    placed = *h;
    return std::unique_ptr<Simulation>(std::make_unique<GpuSimulation>(
        std::move(context).takeValue(), std::move(world).takeValue()));
#else
    return unsupported(
        "this build has no GPU backend (configure with -DMOTE_GPU=ON after scripts/bootstrap "
        "installs the Vulkan packages)");
#endif
  }
  Result<std::unique_ptr<ParticleWorld>> world =
      ParticleWorld::create(worldDescFor(effect, options.jobs));
  if (!world.ok()) return world.status();
  (*world)->setCollision(options.collision);
  Result<EffectHandle> h = (*world)->addEffect(effect, effectOptions);
  if (!h.ok()) return h.status();
  placed = *h;
  return std::unique_ptr<Simulation>(std::make_unique<CpuSimulation>(std::move(world.value())));
}

}  // namespace mote::cli
