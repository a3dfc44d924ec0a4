// SPDX-License-Identifier: MIT
// laige's budgets: ParticleSystem::update at 4,096 and 65,536 particles, and particle_render_10k.
#include <mote/core/log.h>
#include <mote/lockstep/particle_render.h>

#include <benchmark/benchmark.h>

#include <cstdint>

namespace {

using mote::Fp32;
using mote::Fpx16_16;
using mote::lockstep::ParticleEmitterDef;
using mote::lockstep::ParticleSystem;

// Quiet: a benchmark that overflows must not measure stderr.
void silentSink(void*, const mote::LogRecord&) {}

// A full pool of `count` long-lived particles with random velocities (no deaths while measured:
// the update cost is advance + age compare, laige's "one SimMath add + one age compare").
template <typename B>
ParticleSystem<B> fullSystem(std::uint32_t count) {
  auto s = std::move(ParticleSystem<B>::create({count, 1, 1})).takeValue();
  ParticleEmitterDef<B> def;
  def.origin = {B::fromInt(10), B::fromInt(20)};
  def.velMin = {B::fromFloat(-0.5f), B::fromFloat(-0.5f)};
  def.velMax = {B::fromFloat(0.5f), B::fromFloat(0.5f)};
  def.lifeMin = def.lifeMax = 1u << 20;
  def.sizeMin = B::fromFloat(0.25f);
  def.sizeMax = B::fromFloat(1.0f);
  def.fadeTicks = 64;
  const auto id = s.addEmitter(def).value();
  (void)s.burst(id, count);
  return s;
}

template <typename B>
void BM_ParticleUpdate(benchmark::State& state) {
  mote::setLogSink(&silentSink, nullptr);
  auto s = fullSystem<B>(static_cast<std::uint32_t>(state.range(0)));
  for (auto _ : state) {
    s.update();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  mote::setLogSink(nullptr, nullptr);
}
BENCHMARK(BM_ParticleUpdate<Fpx16_16>)->Name("particle_update_fpx")->Arg(4096)->Arg(65536);
BENCHMARK(BM_ParticleUpdate<Fp32>)->Name("particle_update_fp32")->Arg(4096)->Arg(65536);

// particle_render_10k: declareParticles of 10,000 live particles; beginFrame/build stay outside
// the measured window (laige particle_render.md, "Performance").
template <typename B>
void BM_ParticleRender10k(benchmark::State& state) {
  auto s = fullSystem<B>(10000);
  for (int t = 0; t < 10; ++t)
    s.update();
  auto batcher = std::move(mote::render::SpriteBatcher::create({10000})).takeValue();
  for (auto _ : state) {
    state.PauseTiming();
    batcher.beginFrame();
    state.ResumeTiming();
    benchmark::DoNotOptimize(mote::lockstep::declareParticles(batcher, s).ok());
    state.PauseTiming();
    (void)batcher.build();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * 10000);
}
BENCHMARK(BM_ParticleRender10k<Fpx16_16>)
    ->Name("particle_render_10k_fpx")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ParticleRender10k<Fp32>)
    ->Name("particle_render_10k_fp32")
    ->Unit(benchmark::kMicrosecond);

// A whole frame of the same scene: beginFrame, declareParticles, build (the sort and the grouping
// that the budget above leaves out). What a game pays per frame for 10k lockstep particles.
template <typename B>
void BM_ParticleFrame10k(benchmark::State& state) {
  auto s = fullSystem<B>(10000);
  for (int t = 0; t < 10; ++t)
    s.update();
  auto batcher = std::move(mote::render::SpriteBatcher::create({10000})).takeValue();
  for (auto _ : state) {
    batcher.beginFrame();
    benchmark::DoNotOptimize(mote::lockstep::declareParticles(batcher, s).ok());
    benchmark::DoNotOptimize(batcher.build().ok());
  }
  state.SetItemsProcessed(state.iterations() * 10000);
}
BENCHMARK(BM_ParticleFrame10k<Fpx16_16>)
    ->Name("particle_frame_10k_fpx")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ParticleFrame10k<Fp32>)
    ->Name("particle_frame_10k_fp32")
    ->Unit(benchmark::kMicrosecond);

}  // namespace
