// SPDX-License-Identifier: MIT
// The software particle renderer: a whole frame of the bonfire at 1280x720, frames of N small
// particles (quads + sort + raster, per particle), the fill rate of large blended quads on one
// and two threads (pixels per second), and the draw cache's three cases (a still frame, an orbit
// over a paused world, a running one) for billboards and meshes, mesh particles through the
// triangle layer (triangles per second, one and two threads), the cost of lighting a particle, and
// the three transparency modes on the bonfire and on 100,000 particles. docs/performance.md records
// the figures.
#include "standard_effect.h"

#include <mote/authoring/effect_json.h>
#include <mote/compiler/compiler.h>
#include <mote/core/job_system.h>
#include <mote/render/particle_renderer.h>
#include <mote/render/render_packet.h>

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

namespace {

using namespace mote;

bytecode::CompiledEffect compile(const authoring::EffectLoadResult& loaded) {
  compiler::CompileResult compiled = compiler::compileEffect(loaded.effect);
  if (!loaded.ok() || !compiled.ok()) std::abort();
  return std::move(compiled.effect);
}

// A burst of `count` particles of `size` metres in a 4 m ball, with the given texture and blend.
std::string burst(std::uint32_t count, float size, const char* blend) {
  return R"({"format": "mote.effect/1", "materials": [{"name": "m", "texture": "builtin:smoke", "blend": ")" +
         std::string(blend) +
         R"("}], "emitters": [{"name": "e", "material": "m", "max_particles": )" +
         std::to_string(count) + R"(, "spawn": {"rate": 0, "bursts": [{"time": 0, "count": )" +
         std::to_string(count) + R"(}]}, "shape": {"kind": "sphere", "radius": 2},
  "init": {"lifetime": 1000, "size": )" +
         std::to_string(size) + R"(, "color": [1, 0.6, 0.3, 0.5]}}]})";
}

// burst() drawn as lit meshes (`mesh` a render.mesh value) or as lit sprites (mesh empty).
std::string litBurst(std::uint32_t count, float size, const char* mesh) {
  std::string json = burst(count, size, "alpha");
  json.replace(json.find(R"("blend": "alpha")"), 16, R"("blend": "alpha", "lit": true)");
  if (*mesh != '\0')
    json.insert(json.rfind("}]}"),
                R"(, "render": {"mode": "mesh", "mesh": ")" + std::string(mesh) + R"("})");
  return json;
}

struct Scene {
  std::unique_ptr<ParticleWorld> world;
  std::unique_ptr<ThreadPool> pool;
  std::optional<render::ParticleRenderer> renderer;
  render::Camera camera;
  render::Image image;
};

Scene makeScene(const bytecode::CompiledEffect& effect, std::uint32_t threads, float seconds,
                glm::vec3 target, render::Transparency transparency = render::Transparency::Emitter,
                bool drawCache = false) {
  Scene s;
  if (threads > 1) s.pool = ThreadPool::create(threads).takeValue();
  s.world = ParticleWorld::create(worldDescFor(effect, s.pool.get())).takeValue();
  if (!s.world->addEffect(effect).ok()) std::abort();
  for (float t = 0.0f; t < seconds; t += 1.0f / 60.0f)
    s.world->tick(1.0f / 60.0f);
  render::RendererOptions options;
  options.viewport = {1280, 720};
  options.jobs = s.pool.get();
  options.transparency = transparency;
  // Off but in BM_DrawCache: the worlds here are paused under a still camera, and every frame
  // would be the first one taken again.
  options.drawCache = drawCache;
  s.renderer.emplace(render::ParticleRenderer::create(options).takeValue());
  s.camera = render::Camera::perspective(0.7f, 1280.0f / 720.0f, 0.1f, 200.0f).value();
  if (!s.camera.lookAt(target + glm::vec3(0.0f, 0.6f, 7.0f), target, {0.0f, 1.0f, 0.0f}).ok())
    std::abort();
  return s;
}

void BM_BonfireFrame(benchmark::State& state) {
  Scene s = makeScene(compile(authoring::loadEffectFile(MOTE_SOURCE_DIR "/examples/bonfire.json")),
                      1, 3.0f, {0.0f, 1.2f, 0.0f});
  for (auto _ : state) {
    if (!s.renderer->render(*s.world, s.camera, s.image).ok()) std::abort();
  }
  state.counters["quads"] = s.renderer->stats().quads;
}
BENCHMARK(BM_BonfireFrame)->Name("render/bonfire_1280x720")->Unit(benchmark::kMillisecond);

void BM_Particles(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  Scene s = makeScene(compile(authoring::parseEffect(burst(n, 0.02f, "additive"))), 1, 1.0f / 60.0f,
                      {0.0f, 0.0f, 0.0f});
  for (auto _ : state) {
    if (!s.renderer->render(*s.world, s.camera, s.image).ok()) std::abort();
  }
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_Particles)
    ->Name("render/particles")
    ->Arg(10000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond);

// Render prep: packets, camera-facing quads and the back-to-front sort (alpha blend), no raster;
// on one thread and on two.
void BM_Prep(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  Scene s = makeScene(compile(authoring::parseEffect(burst(n, 0.02f, "alpha"))),
                      static_cast<std::uint32_t>(state.range(1)), 1.0f / 60.0f, {0.0f, 0.0f, 0.0f});
  for (auto _ : state) {
    if (!s.renderer->prepare(*s.world, s.camera).ok()) std::abort();
  }
  state.counters["quads"] = s.renderer->stats().quads;
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_Prep)
    ->Name("render/prep")
    ->ArgNames({"", "threads"})
    ->ArgsProduct({{10000, 1000000}, {1, 2}})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// Render prep for one kind of geometry alone (bench/compare/rollnw.sh's peer measured ribbons and
// mesh particles apart from quads): 10,000 particles as camera-facing quads, one linked chain
// (a ribbon through all of them), beams of 2^3 segments, or 4-triangle shard meshes; one thread.
// Items are particles; the counters say what each kind made.
void BM_PrepKind(benchmark::State& state) {
  static constexpr const char* kKinds[] = {
      "", R"(, "render": {"mode": "linked_chain", "sort": "oldest_first"})",
      R"(, "render": {"mode": "beam", "beam": {"target": [0, 3, 0], "subdivisions": 3,
          "radius": 0.2, "width": 0.05}})",
      R"(, "render": {"mode": "mesh", "mesh": "builtin:shard"})"};
  constexpr std::uint32_t n = 10000;
  std::string json = burst(n, 0.02f, "alpha");
  json.insert(json.rfind("}]}"), kKinds[state.range(0)]);
  Scene s = makeScene(compile(authoring::parseEffect(json)), 1, 1.0f / 60.0f, {0.0f, 0.0f, 0.0f});
  for (auto _ : state) {
    if (!s.renderer->prepare(*s.world, s.camera).ok()) std::abort();
  }
  state.counters["quads"] = s.renderer->stats().quads;
  state.counters["triangles"] = s.renderer->stats().triangles;
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_PrepKind)
    ->Name("render/prep_kind")
    ->ArgNames({"kind"})
    ->Arg(0)  // quads
    ->Arg(1)  // one linked chain
    ->Arg(2)  // beams
    ->Arg(3)  // shard meshes
    ->Unit(benchmark::kMicrosecond);

// 16 quads of 40 m, each covering the whole 1280x720 view: items are blended pixels.
void BM_FillRate(benchmark::State& state) {
  Scene s = makeScene(compile(authoring::parseEffect(burst(16, 40.0f, "alpha"))),
                      static_cast<std::uint32_t>(state.range(0)), 1.0f / 60.0f, {0.0f, 0.0f, 0.0f});
  for (auto _ : state) {
    if (!s.renderer->render(*s.world, s.camera, s.image).ok()) std::abort();
  }
  state.SetItemsProcessed(state.iterations() * 16 * 1280 * 720);
}
BENCHMARK(BM_FillRate)
    ->Name("render/fill")
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The draw cache (docs/rendering.md): prepare() alone, for 100,000 billboards or 600 lit
// icospheres (97,200 vertices, 192,000 triangles) (smooth: world vertices and normals kept), with
// the world paused under a still camera (the frame is taken again), paused under an orbiting one
// (billboards re-expand, meshes reproject what they kept) and running (a tick between frames,
// outside the timing: everything is new).
enum class CacheCase { Still, Orbit, Running };

// One timed frame, out of line so that `valgrind --tool=callgrind
// --toggle-collect='*cachedFrame*'` counts the loop's frames alone (docs/performance.md).
[[gnu::noinline]] void cachedFrame(render::ParticleRenderer& renderer, const ParticleWorld& world,
                                   const render::Camera& camera) {
  if (!renderer.prepare(world, camera).ok()) std::abort();
}

void BM_DrawCache(benchmark::State& state) {
  const bool meshes = state.range(0) == 1;
  const auto which = static_cast<CacheCase>(state.range(1));
  const std::uint32_t n = meshes ? 600 : 100000;
  const std::string json =
      meshes ? litBurst(n, 0.15f, "builtin:icosphere") : burst(n, 0.02f, "alpha");
  Scene s = makeScene(compile(authoring::parseEffect(json)), 1, 1.0f / 60.0f, {0.0f, 0.0f, 0.0f},
                      render::Transparency::Emitter, true);
  render::Camera other = s.camera;
  if (!other.lookAt({0.4f, 0.6f, 6.9f}, {0.0f, 0.0f, 0.0f}, {0.0f, 1.0f, 0.0f}).ok()) std::abort();
  // Warm: textures, meshes and the cache's stores exist before the first timed frame.
  if (!s.renderer->prepare(*s.world, other).ok() || !s.renderer->prepare(*s.world, s.camera).ok())
    std::abort();
  std::uint64_t frame = 0;
  for (auto _ : state) {
    if (which == CacheCase::Running) {
      state.PauseTiming();
      s.world->tick(1e-4f);
      state.ResumeTiming();
    }
    cachedFrame(*s.renderer, *s.world,
                which != CacheCase::Still && (frame++ & 1) == 0 ? other : s.camera);
  }
  state.counters["cached"] = s.renderer->stats().cached;
  state.counters["reprojected"] = s.renderer->stats().reprojected;
  state.SetItemsProcessed(state.iterations() * n);
}
BENCHMARK(BM_DrawCache)
    ->Name("render/cache")
    ->ArgNames({"meshes", "case"})
    ->ArgsProduct({{0, 1}, {0, 1, 2}})
    ->Unit(benchmark::kMicrosecond);

// Mesh particles through the triangle layer: whole frames (prepare + raster) of 600 lit
// icospheres, 320 triangles each, on one thread and on two. Items are the triangles submitted
// (192,000 a frame); `drawn` counts those left after back-face culling and clipping.
void BM_Meshes(benchmark::State& state) {
  constexpr std::uint32_t kSpheres = 600;
  Scene s =
      makeScene(compile(authoring::parseEffect(litBurst(kSpheres, 0.15f, "builtin:icosphere"))),
                static_cast<std::uint32_t>(state.range(0)), 1.0f / 60.0f, {0.0f, 0.0f, 0.0f});
  for (auto _ : state) {
    if (!s.renderer->render(*s.world, s.camera, s.image).ok()) std::abort();
  }
  state.counters["drawn"] = s.renderer->stats().triangles;
  state.SetItemsProcessed(state.iterations() * kSpheres * 320);
}
BENCHMARK(BM_Meshes)
    ->Name("render/meshes")
    ->ArgNames({"threads"})
    ->Arg(1)
    ->Arg(2)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// What lighting costs: whole frames of 100,000 small alpha sprites, unlit and lit by the default
// scene (a key and a back light and the ambient); the difference over 100,000 is the cost of one
// lit particle (docs/performance.md).
void BM_Lighting(benchmark::State& state) {
  constexpr std::uint32_t kParticles = 100000;
  const bool lit = state.range(0) == 1;
  const std::string json =
      lit ? litBurst(kParticles, 0.02f, "") : burst(kParticles, 0.02f, "alpha");
  Scene s = makeScene(compile(authoring::parseEffect(json)), 1, 1.0f / 60.0f, {0.0f, 0.0f, 0.0f});
  for (auto _ : state) {
    if (!s.renderer->render(*s.world, s.camera, s.image).ok()) std::abort();
  }
  state.SetItemsProcessed(state.iterations() * kParticles);
}
BENCHMARK(BM_Lighting)
    ->Name("render/lighting")
    ->ArgNames({"lit"})
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMillisecond);

// The transparency modes (emitter, sorted, oit) on whole 1280x720 frames of the bonfire (three
// seconds in: alpha smoke, additive flames and sparks) and of 100,000 alpha particles.
void BM_Transparency(benchmark::State& state) {
  const bool bonfire = state.range(0) == 0;
  const auto mode = static_cast<render::Transparency>(state.range(1));
  Scene s =
      bonfire
          ? makeScene(compile(authoring::loadEffectFile(MOTE_SOURCE_DIR "/examples/bonfire.json")),
                      1, 3.0f, {0.0f, 1.2f, 0.0f}, mode)
          : makeScene(compile(authoring::parseEffect(burst(100000, 0.05f, "alpha"))), 1,
                      1.0f / 60.0f, {0.0f, 0.0f, 0.0f}, mode);
  for (auto _ : state) {
    if (!s.renderer->render(*s.world, s.camera, s.image).ok()) std::abort();
  }
  state.counters["quads"] = s.renderer->stats().quads;
}
BENCHMARK(BM_Transparency)
    ->Name("render/transparency")
    ->ArgNames({"scene", "mode"})
    ->ArgsProduct({{0, 1}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond);

// rollnw's packet cases (jd28/rollnw benchmarks/particles.cpp, particles_render_packets_*), for
// bench/compare/rollnw.sh: the packets of the world rollnw's tick cases hold (standard_effect.h),
// a tick (untimed) before each build so no packet is a cached one; items are live particles.
// rollnw's packets are runs of a stable sort of its particles by emitter and material; Mote's
// world keeps each emitter's particles together, so a packet is one emitter's view and the
// scans of its colour, frame and rotation channels for uniformity. Neither sorts by depth here.
void peerPackets(benchmark::State& state, const std::string& json) {
  const authoring::EffectLoadResult loaded = authoring::parseEffect(json);
  const bytecode::CompiledEffect effect = compile(loaded);
  auto world = ParticleWorld::create(worldDescFor(effect, nullptr)).takeValue();
  if (!world->addEffect(effect).ok()) std::abort();
  world->tick(bench::kBenchDt);  // the bursts
  render::RenderPacketBuilder builder = render::RenderPacketBuilder::create(16).takeValue();
  const auto live = static_cast<std::int64_t>(world->stats().live);
  for (auto _ : state) {
    state.PauseTiming();
    world->tick(bench::kBenchDt);
    state.ResumeTiming();
    builder.build(*world);
    benchmark::DoNotOptimize(builder.packets().data());
  }
  state.SetItemsProcessed(state.iterations() * live);
  state.counters["live_particles"] = static_cast<double>(live);
}

void BM_PeerPacketsSingle(benchmark::State& state) {
  peerPackets(state, bench::peerSingleEffect(static_cast<std::uint32_t>(state.range(0))));
}
BENCHMARK(BM_PeerPacketsSingle)
    ->Name("particles_render_packets_single_emitter")
    ->Arg(1024)
    ->Arg(4096);

void BM_PeerPacketsMixed(benchmark::State& state) {
  peerPackets(state, bench::peerMixedEffect(static_cast<std::uint32_t>(state.range(0))));
}
BENCHMARK(BM_PeerPacketsMixed)
    ->Name("particles_render_packets_mixed_emitters")
    ->Arg(1024)
    ->Arg(10240);

}  // namespace
